/*
 * Timeline events streamed to a temporary file as they come, so that a trace can hold every
 * event of a run of any length while memory stays flat (HESPER_TRACE_ALL). Each event is
 * placed on its track as it arrives: one group per (queue, kind) for GPU events and per
 * host thread for host events, each split into up to HESPER_TRACE_MAX_LANES lanes of
 * disjoint events (first lane whose last event ended at or before the start). The trace
 * writer reads the file back in chunks.
 */
#ifndef HESPER_TRACE_SPOOL_H
#define HESPER_TRACE_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace.h"
#include "trace_layout.h"

/* One group of tracks: the end of each lane's last event, and its track. */
struct hesper_spool_group {
	enum hesper_trace_kind kind;
	uint32_t key; /* queue, or host thread */
	uint32_t lanes;
	uint64_t lane_end[HESPER_TRACE_MAX_LANES];
	uint32_t lane_track[HESPER_TRACE_MAX_LANES];
};

/* One spooled event and its track. */
struct hesper_spool_record {
	struct hesper_trace_event event;
	uint32_t track;
};

struct hesper_trace_spool {
	FILE *file;              /* unlinked temporary file */
	uint64_t count;          /* events in the file */
	uint64_t lost;           /* events that could not be written (disk full, memory) */
	uint64_t unplaced;       /* events past the lanes of their group: not in the file */
	uint64_t first_start_ns; /* earliest start of an event in the file */
	struct hesper_spool_group *groups;
	size_t group_count, group_capacity;
	struct hesper_trace_track *tracks; /* in order of creation; record.track indexes it */
	size_t track_count, track_capacity;
};

/* A new spool on an unlinked temporary file (in TMPDIR, else /tmp); NULL on failure, errno set. */
struct hesper_trace_spool *hesper_trace_spool_open(void);

/* Places @e on its track and appends it to the file; false when it could not be (counted). */
bool hesper_trace_spool_add(struct hesper_trace_spool *s, const struct hesper_trace_event *e);

/*
 * Calls @fn on every spooled record in order, @chunk records at a time read back from the
 * file. Returns 0, or -1 on a read error or when @fn returns nonzero.
 */
int hesper_trace_spool_each(struct hesper_trace_spool *s, int (*fn)(const struct hesper_spool_record *r, void *arg),
			    void *arg);

/* Closes the file and frees everything. */
void hesper_trace_spool_close(struct hesper_trace_spool *s);

#endif
