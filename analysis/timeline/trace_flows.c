/* Flows from submit calls to the GPU work they started (see trace_flows.h). */
#include "trace_flows.h"

#include <string.h>

void
hesper_flow_matcher_init(struct hesper_flow_matcher *m)
{
	memset(m, 0, sizeof(*m));
}

/* Whether @kind can be where a flow from a submit call ends: GPU work, not a label range. */
static bool
is_target(enum hesper_trace_kind kind)
{
	return kind == HESPER_TRACE_BATCH || kind == HESPER_TRACE_DISPATCH || kind == HESPER_TRACE_MEMORY_OP;
}

/* A point strictly inside [start, end): its middle, rounded down. */
static uint64_t
inside(uint64_t start, uint64_t end)
{
	return start + (end - start) / 2;
}

bool
hesper_flow_matcher_finish(struct hesper_flow_matcher *m, struct hesper_trace_flow *flow)
{
	bool any = m->open && m->has_submit && m->has_target;

	if (any)
		*flow = (struct hesper_trace_flow){
			.from_ns = inside(m->submit_start, m->submit_end),
			.from_tid = m->submit_tid,
			.to_ns = inside(m->target_start, m->target_end),
			.to_tid = m->target_tid,
		};
	hesper_flow_matcher_init(m);
	return any;
}

bool
hesper_flow_matcher_feed(struct hesper_flow_matcher *m, const struct hesper_trace_event *e, uint64_t tid,
			 struct hesper_trace_flow *flow)
{
	bool ended = false;

	/* Waits belong to no submission; label ranges belong to one but end no flow. */
	if (e->kind != HESPER_TRACE_HOST_SUBMIT && !is_target(e->kind))
		return false;
	if (m->open && (m->queue != e->queue || m->submission != e->submission))
		ended = hesper_flow_matcher_finish(m, flow);
	if (!m->open) {
		m->open = true;
		m->queue = e->queue;
		m->submission = e->submission;
	}
	/* Only slices with room for a point inside them can hold a flow's end. */
	if (e->end_ns <= e->start_ns)
		return ended;
	if (e->kind == HESPER_TRACE_HOST_SUBMIT) {
		if (!m->has_submit) {
			m->has_submit = true;
			m->submit_start = e->start_ns;
			m->submit_end = e->end_ns;
			m->submit_tid = tid;
		}
		return ended;
	}
	/* The first GPU slice: earliest start, the enclosing (longer) one on a tie. */
	if (!m->has_target || e->start_ns < m->target_start ||
	    (e->start_ns == m->target_start && e->end_ns > m->target_end)) {
		m->has_target = true;
		m->target_start = e->start_ns;
		m->target_end = e->end_ns;
		m->target_tid = tid;
	}
	return ended;
}
