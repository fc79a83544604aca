/*
 * Flows from a host's vkQueueSubmit* call to the GPU work it started, for the trace's flow
 * events: each submit call's slice is linked to the first slice of its submission on its
 * queue that has a duration (a batch, a dispatch or a memory operation; label ranges are
 * only annotations). Both ends are points strictly inside their slices (ts < end), where
 * viewers bind a flow event to the slice that encloses it; a slice of no duration can hold
 * no such point and gets no flow.
 *
 * The matcher reads timeline events in the order they were produced and holds one
 * submission at a time: the collector produces every event of a submission in one go
 * (under the profile's lock), so a submission's events come together. Should they ever
 * not, the part apart from the submit call gets no flow; no flow links the wrong slices.
 */
#ifndef HESPER_TRACE_FLOWS_H
#define HESPER_TRACE_FLOWS_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

/* One flow: from a point of the submit call's slice to a point of the GPU slice, on their tracks. */
struct hesper_trace_flow {
	uint64_t from_ns, from_tid;
	uint64_t to_ns, to_tid;
};

/* The submission being read: its submit call and its first GPU slice so far. */
struct hesper_flow_matcher {
	bool open;
	uint32_t queue;
	uint64_t submission;
	bool has_submit, has_target;
	uint64_t submit_start, submit_end, submit_tid;
	uint64_t target_start, target_end, target_tid;
};

/* Makes @m read a first submission. */
void hesper_flow_matcher_init(struct hesper_flow_matcher *m);

/*
 * Reads event @e, drawn on the track with thread id @tid. When it starts another
 * submission and the one before had a flow, returns true with it in *@flow.
 */
bool hesper_flow_matcher_feed(struct hesper_flow_matcher *m, const struct hesper_trace_event *e, uint64_t tid,
			      struct hesper_trace_flow *flow);

/* Ends the last submission: true with its flow in *@flow when it had one. */
bool hesper_flow_matcher_finish(struct hesper_flow_matcher *m, struct hesper_trace_flow *flow);

#endif
