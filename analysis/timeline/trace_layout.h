/*
 * Placing timeline events on display tracks: one group per (queue, kind) for GPU events
 * and one per host thread for submit calls, each split into lanes so that the events of
 * one lane are disjoint, or for label ranges perfectly nested (what Perfetto and
 * chrome://tracing can draw on one thread track): two dispatches of which one lies within
 * the other ran side by side and get two lanes. Greedy: events by start (longer first on ties), each into the
 * first lane where it fits.
 */
#ifndef HESPER_TRACE_LAYOUT_H
#define HESPER_TRACE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* Lanes per group at most; an event that fits none is left unplaced (and counted). */
#define HESPER_TRACE_MAX_LANES 64u

/* One display track: a lane of a group. */
struct hesper_trace_track {
	enum hesper_trace_kind kind; /* GPU kinds keyed by queue, HOST_SUBMIT by thread */
	uint32_t key;                /* queue index, or host thread id */
	uint32_t lane;               /* 1 for the first lane of the group */
};

struct hesper_trace_layout {
	size_t *order;                     /* event indices: by track, then by start */
	size_t *track_of;                  /* track of order[i]; SIZE_MAX when unplaced */
	size_t count;                      /* entries in order and track_of */
	struct hesper_trace_track *tracks; /* GPU groups by queue then kind, then host threads */
	size_t track_count;
	size_t unplaced; /* events past HESPER_TRACE_MAX_LANES overlapping lanes */
};

/*
 * Lays out the @n events at @events into @out (which the caller frees with
 * hesper_trace_layout_free). Returns 0, or -1 when memory runs out (@out then empty).
 */
int hesper_trace_layout_build(struct hesper_trace_layout *out, const struct hesper_trace_event *events, size_t n);

/* Frees what @l holds and makes it empty. */
void hesper_trace_layout_free(struct hesper_trace_layout *l);

/* Whether @kind happens on a host thread rather than on a GPU queue. */
bool hesper_trace_kind_is_host(enum hesper_trace_kind kind);

/* Host time that trace time 0 stands for: @t's origin (if set), or its first event's start when earlier. */
uint64_t hesper_trace_origin(const struct hesper_trace *t);

#endif
