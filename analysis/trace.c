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

/* The index of @tid in @t's thread names, or of the first entry above it. */
static size_t
thread_index(const struct hesper_trace *t, uint32_t tid)
{
	size_t lo = 0, hi = t->thread_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
hesper_trace_thread_known(const struct hesper_trace *t, uint32_t tid)
{
	size_t i = thread_index(t, tid);

	return i < t->thread_count && t->threads[i].tid == tid;
}

const char *
hesper_trace_thread_name(const struct hesper_trace *t, uint32_t tid)
{
	size_t i = thread_index(t, tid);

	if (i < t->thread_count && t->threads[i].tid == tid && t->threads[i].name[0])
		return t->threads[i].name;
	return NULL;
}

bool
hesper_trace_name_thread(struct hesper_trace *t, uint32_t tid, const char *name)
{
	size_t i = thread_index(t, tid);

	if (i < t->thread_count && t->threads[i].tid == tid)
		return true;
	if (t->thread_count >= HESPER_TRACE_MAX_THREADS)
		return false;
	if (t->thread_count == t->thread_capacity) {
		size_t capacity = t->thread_capacity ? t->thread_capacity * 2 : 16;
		struct hesper_thread_name *threads = realloc(t->threads, capacity * sizeof(*threads));

		if (!threads)
			return false;
		t->threads = threads;
		t->thread_capacity = capacity;
	}
	memmove(&t->threads[i + 1], &t->threads[i], (t->thread_count - i) * sizeof(*t->threads));
	t->threads[i].tid = tid;
	/* Cut on a byte like the kernel's own comm; the writers escape what they print. */
	snprintf(t->threads[i].name, sizeof(t->threads[i].name), "%s", name ? name : "");
	t->thread_count++;
	return true;
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
