/* The bounded list of timeline events. */
#include "trace.h"

#include <stdlib.h>

void hesper_trace_init(struct hesper_trace *t, uint64_t max_events)
{
	t->events = NULL;
	t->count = 0;
	t->capacity = 0;
	t->max_events = max_events;
	t->left_out = 0;
	t->calibrated = false;
	t->alignment_error_ns = -1.0;
	t->origin_ns = 0;
}

bool hesper_trace_add(struct hesper_trace *t, const struct hesper_trace_event *e)
{
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

void hesper_trace_free(struct hesper_trace *t)
{
	free(t->events);
	t->events = NULL;
	t->count = t->capacity = 0;
}
