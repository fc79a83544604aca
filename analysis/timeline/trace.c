/* The bounded list of timeline events, and the names of the host threads on it. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_spool.h"

void
hesper_trace_init(struct hesper_trace *t, uint64_t max_events)
{
	t->events = NULL;
	t->count = 0;
	t->capacity = 0;
	t->max_events = max_events;
	t->left_out = 0;
	t->calibrated = false;
	t->alignment_error_ns = -1.0;
	t->origin_ns = 0;
	t->spool = NULL;
	t->threads = NULL;
	t->thread_count = t->thread_capacity = 0;
}

bool
hesper_trace_add(struct hesper_trace *t, const struct hesper_trace_event *e)
{
	if (t->spool)
		(void)hesper_trace_spool_add(t->spool, e); /* its losses are counted in the spool */
	if (t->count >= t->max_events)
		goto left_out;
	if (t->count == t->capacity) {
		/* Grow geometrically but never past the cap, so the cap bounds memory too. */
		size_t capacity = t->capacity ? t->capacity * 2 : 1024;
		if (capacity > t->max_events)
			capacity = (size_t)t->max_events;
		struct hesper_trace_event *events = realloc(t->events, capacity * sizeof(*events));
		if (!events)
			goto left_out;
		t->events = events;
		t->capacity = capacity;
	}
	t->events[t->count++] = *e;
	return true;
left_out:
	t->left_out++;
	return false;
}

void
hesper_trace_free(struct hesper_trace *t)
{
	free(t->threads);
	t->threads = NULL;
	t->thread_count = t->thread_capacity = 0;
	free(t->events);
	t->events = NULL;
	hesper_trace_spool_close(t->spool);
	t->spool = NULL;
	t->count = t->capacity = 0;
}
