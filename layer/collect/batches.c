/* The GPU span of each batch of a submission, and the idle gaps between batches (see batches.h). */
#include "batches.h"

#include "clock_sync.h"
#include "analysis.h"
#include "state/state.h"
#include "submit/submit.h"
#include "ticks.h"
#include "timeline.h"

/* How much of [a0, a1) lies in [b0, b1). */
static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t from = a0 > b0 ? a0 : b0, to = a1 < b1 ? a1 : b1;
	return to > from ? to - from : 0;
}

/*
 * Splits gap @g (placed on the host clock) by what the submitting thread did in it: in the
 * submit call or waiting for the GPU to start after it (submitting), in a Vulkan wait, recording, or
 * none of these (other). Waits and recordings are known as totals within an envelope since
 * the thread's previous submit call, so each part is the smaller of the two.
 */
static void classify_gap(struct hesper_gap *g, const struct hesper_submission *sub)
{
	uint64_t g0 = g->start_ns, g1 = g->start_ns + g->length_ns;
	const struct hesper_thread_activity *a = &sub->activity;
	uint64_t before_call = sub->host_ns < g1 ? sub->host_ns : g1;
	g->submitting_ns = overlap(g0, g1, sub->host_ns, g1);
	uint64_t waiting = a->wait_first_ns ? overlap(g0, before_call, a->wait_first_ns, a->wait_last_ns) : 0;
	uint64_t recording = a->record_first_ns ? overlap(g0, before_call, a->record_first_ns, a->record_last_ns) : 0;
	if (waiting > a->wait_ns)
		waiting = a->wait_ns;
	if (recording > a->record_ns)
		recording = a->record_ns;
	/* The parts never add up to more than the gap: waits first, then recording (they may interleave). */
	uint64_t left = g->length_ns - g->submitting_ns;
	g->waiting_ns = waiting < left ? waiting : left;
	left -= g->waiting_ns;
	g->recording_ns = recording < left ? recording : left;
	g->other_ns = left - g->recording_ns;
}

/*
 * Adds batch @span of @sub to the profile (and its timeline when @trace): its GPU span, and
 * @q's idle time since the previous batch ended.
 */
static void note_batch(struct hesper_profile *p, struct hesper_queue *q, const struct hesper_submission *sub,
		       const struct batch_span *span, bool trace)
{
	struct hesper_queue_info *row = &p->queues[q->profile_queue];
	const struct hesper_device *dev = q->dev;
	double period = dev->props.limits.timestampPeriod;
	struct hesper_gap g = {0};
	struct hesper_work w = {.kind = HESPER_WORK_BATCH,
				.count = 1,
				.timed = true,
				.queue = q->profile_queue,
				.ns = hesper_ticks_ns(span->end - span->start, period),
				.at = hesper_place_work(q, trace, span->raw_start, 0, sub->index)};
	if (q->batch_seen && span->start > q->batch_end) {
		g = (struct hesper_gap){
			.length_ns = hesper_ticks_ns(span->start - q->batch_end, period),
			.thread = sub->thread,
			.submission = sub->index,
		};
		w.gap = &g;
		uint64_t start_host = dev->clock.valid ? hesper_to_host_ns(dev, span->raw_start,
									   dev->families[q->family].tick_mask)
						       : 0;
		if (start_host > g.length_ns) {
			g.start_ns = start_host - g.length_ns;
			classify_gap(&g, sub);
		} else {
			g.other_ns = g.length_ns;
		}
	}
	hesper_profile_add_work(p, &w);
	if (!q->batch_seen) {
		q->batch_seen = true;
		q->batch_first = span->start;
		q->batch_end = span->end;
	}
	if (span->end > q->batch_end)
		q->batch_end = span->end;
	row->gpu_span_ns = hesper_ticks_ns(q->batch_end - q->batch_first, period);
}

void hesper_close_span(struct hesper_profile *p, struct batch_span *span, struct hesper_queue *q,
		       const struct hesper_submission *sub, bool trace)
{
	if (!span->any)
		return;
	note_batch(p, q, sub, span, trace);
	span->any = false;
}
