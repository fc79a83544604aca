/*
 * The trace's names of host threads (trace.h): a sorted array by thread id. A file of its
 * own so that the trace's layout (trace_layout.c) reads names without calling back into
 * trace.c, which streams through the spool that the layout places.
 */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
