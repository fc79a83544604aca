/*
 * The collector: a thread that waits for submissions to complete, collects their
 * timestamps (runs.h), reads them,
 * turns ticks into nanoseconds and feeds the profile. The program's threads never wait
 * for it. At vkDestroyDevice and at exit the same harvesting runs on the caller's
 * thread, for a bounded time.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "clock/clock.h"
#include "collector.h"
#include "clock_sync.h"
#include "record/record.h"
#include "state/state.h"
#include "profile.h"
#include "submit/submit.h"

/*
 * Longest single wait by the collector thread on a submission's completion, so stop and
 * flush stay prompt. It waits inside the driver (vkWaitSemaphores, vkWaitForFences): a
 * collector that polled instead raced with lavapipe's own teardown when a program exited
 * with its first shader compile in flight (8 aborts in 60 runs of patterns exit_in_flight
 * cold, none in 60 with waits), at the price of some time in the program's vkQueueSubmit
 * on lavapipe, whose waits and submits share a lock.
 */
#define POLL_WAIT_NS 2000000ull
static struct {
	pthread_mutex_t harvest;            /* one harvester at a time; devices are unlinked under it */
	pthread_mutex_t lock;               /* guards started and stopped */
	pthread_t thread;
	bool started, stopped;
	const struct hesper_collector_duties *duties; /* the stage above's work, or NULL */
} collector = {
	.harvest = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* @raw extended to 64 bits on @q's timeline (timestamps may have fewer valid bits and wrap). */
static uint64_t extend_ticks(struct hesper_queue *q, uint64_t raw, uint64_t mask)
{
	raw &= mask;
	if (!q->seen_tick) {
		q->seen_tick = true;
		q->last_raw = raw;
		q->last_ext = raw;
		return raw;
	}
	uint64_t forward = (raw - q->last_raw) & mask;
	if (forward <= mask / 2) {
		q->last_raw = raw;
		q->last_ext += forward;
		return q->last_ext;
	}
	return q->last_ext - ((q->last_raw - raw) & mask); /* slightly older than the newest seen */
}

/* The interval between two raw timestamps in ns; zero or negative ones are clamped to 0 and counted. */
static uint64_t interval_ns(uint64_t start, uint64_t end, uint64_t mask, double period, uint64_t *clamped)
{
	uint64_t ticks = (end - start) & mask;
	if (ticks == 0 || ticks > mask / 2) {
		(*clamped)++;
		return 0;
	}
	return (uint64_t)llround((double)ticks * period);
}

/* Recalibrate this often while work flows, so clock drift and 32-bit wrap stay small. */
#define RECALIBRATE_NS 500000000ull

/* Host CLOCK_MONOTONIC time of raw device timestamp @raw, from the device's clock pairing. */
static uint64_t to_host_ns(const struct hesper_device *dev, uint64_t raw, uint64_t mask)
{
	const struct hesper_clock_sync *c = &dev->clock;
	double period = dev->props.limits.timestampPeriod;
	uint64_t ahead = (raw - c->device_ticks) & mask;
	double ticks = ahead <= mask / 2 ? (double)ahead : -(double)((c->device_ticks - raw) & mask);
	double ns = (double)c->host_ns + ticks * period;
	return ns <= 0 ? 0 : (uint64_t)llround(ns);
}

/*
 * Keeps @dev's clock pairing fresh for traces: calibrated timestamps when the device has
 * them, else the first command buffer's start is pinned to the host time of its submit
 * call (the GPU started later than that, by an unknown delay).
 */
static void sync_clock(struct hesper_profile *p, struct hesper_device *dev, const struct hesper_submission *sub,
		       const uint64_t *first_cb_start)
{
	struct hesper_clock_sync *c = &dev->clock;
	if (c->calibrated && hesper_now_ns() - c->taken_at > RECALIBRATE_NS)
		hesper_device_calibrate(dev, c);
	if (!c->valid && first_cb_start) {
		c->valid = true;
		c->calibrated = false;
		c->device_ticks = *first_cb_start;
		c->host_ns = sub->host_end_ns;
		c->error_ns = -1.0;
		c->taken_at = hesper_now_ns();
	}
	if (!c->valid)
		return;
	/* The file states the worst alignment of any device; unknown beats any number. */
	if (!c->calibrated) {
		p->trace.calibrated = false;
		p->trace.alignment_error_ns = -1.0;
	} else if (p->trace.alignment_error_ns >= 0 || p->trace.count == 0) {
		p->trace.calibrated = true;
		if (c->error_ns > p->trace.alignment_error_ns)
			p->trace.alignment_error_ns = c->error_ns;
	}
}

/* Keeps a GPU event of @q for the timeline, placed on the host's clock; @bytes: those a memory operation moved. */
static void trace_gpu_bytes(struct hesper_profile *p, const struct hesper_queue *q, enum hesper_trace_kind kind,
			    const char *name, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
			    uint64_t command_buffer, uint64_t submission, uint64_t bytes)
{
	const struct hesper_device *dev = q->dev;
	uint64_t mask = dev->families[q->family].tick_mask;
	struct hesper_trace_event e = {
		.kind = kind,
		.device = dev->profile_device,
		.queue = q->profile_queue,
		.name = name,
		.start_ns = to_host_ns(dev, raw_start, mask),
		.command_buffer = command_buffer,
		.submission = submission,
		.bytes = bytes,
	};
	e.end_ns = e.start_ns + (uint64_t)llround((double)((raw_end - raw_start) & mask) *
						  dev->props.limits.timestampPeriod);
	if (((raw_end - raw_start) & mask) > mask / 2)
		e.end_ns = e.start_ns;
	if (groups) {
		e.groups[0] = groups[0];
		e.groups[1] = groups[1];
		e.groups[2] = groups[2];
	}
	hesper_events_add(p, &e);
}

/* Keeps a GPU event of @q for the timeline, placed on the host's clock. */
static void trace_gpu(struct hesper_profile *p, const struct hesper_queue *q, enum hesper_trace_kind kind,
		      const char *name, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
		      uint64_t command_buffer, uint64_t submission)
{
	trace_gpu_bytes(p, q, kind, name, raw_start, raw_end, groups, command_buffer, submission, 0);
}

/* Keeps a timed dispatch of @kernel for the timeline, with the local size its row knows. */
static void trace_dispatch(struct hesper_profile *p, const struct hesper_queue *q, const struct hesper_name *kernel,
			   const struct hesper_kernel *row, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
			   uint64_t command_buffer, uint64_t submission)
{
	size_t before = p->trace.count;
	trace_gpu(p, q, HESPER_TRACE_DISPATCH, kernel->text, raw_start, raw_end, groups, command_buffer, submission);
	if (row && p->trace.count > before)
		memcpy(p->trace.events[before].local_size, row->shapes.local_size, sizeof(row->shapes.local_size));
}

/*
 * Adds the run of memory operations @d of @rec to the profile's memory-operation rows:
 * timed from @ts when it was and ran @inside the capture window, else counted. Never
 * counted as dispatches.
 */
static void account_memop(struct hesper_profile *p, const struct hesper_queue *q, const struct hesper_submission *sub,
			  const struct hesper_recording *rec, const struct hesper_dispatch_record *d, const uint64_t *ts,
			  bool inside, bool trace)
{
	if (d->op.kind >= HESPER_MEMOP_KINDS)
		return;
	struct hesper_memop_row *row = &p->memops.rows[d->op.kind];
	uint64_t mask = q->dev->families[q->family].tick_mask;
	double period = q->dev->props.limits.timestampPeriod;
	bool timed = inside && ts && d->start != HESPER_NO_QUERY;
	struct hesper_work w = {.kind = HESPER_WORK_MEMORY_OP, .count = d->repeat, .timed = timed,
				.memop = d->op.kind, .bytes = d->bytes, .sized = d->op.sized};
	for (uint32_t k = 0; timed && k < d->repeat; k++) {
		uint32_t start = k ? d->end + k - 1 : d->start, end = d->end + k;
		w.ns = interval_ns(ts[start], ts[end], mask, period, &p->clamped);
		hesper_profile_add_work(p, &w);
		if (trace)
			trace_gpu_bytes(p, q, HESPER_TRACE_MEMORY_OP, row->k.name, ts[start], ts[end], NULL,
					rec->command_buffer, sub->index, d->bytes);
	}
	if (!timed)
		hesper_profile_add_work(p, &w);
}

/* The work-group size of @kernel's pipelines into @w (left 0 0 0 when unknown). */
static void note_local_size(struct hesper_work *w, const struct hesper_name *kernel)
{
	uint64_t packed = atomic_load_explicit(&kernel->local_size, memory_order_relaxed);
	if (!packed)
		return;
	w->local_size_varies = packed == HESPER_LOCAL_SIZE_VARIES;
	w->local_size[0] = packed & 0x1fffff;
	w->local_size[1] = (packed >> 21) & 0x1fffff;
	w->local_size[2] = (packed >> 42) & 0x1fffff;
}

/* Per-batch GPU span, built while walking a submission's occurrences. */
struct batch_span {
	uint32_t batch;
	bool any;
	uint64_t start, end;      /* extended ticks */
	uint64_t raw_start;       /* the raw tick of the start, for placing it on the host clock */
};

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

/* Adds batch @span of @sub to the profile: its GPU span, and @q's idle time since the previous batch ended. */
static void note_batch(struct hesper_profile *p, struct hesper_queue *q, const struct hesper_submission *sub,
		       const struct batch_span *span)
{
	struct hesper_queue_info *row = &p->queues[q->profile_queue];
	const struct hesper_device *dev = q->dev;
	double period = dev->props.limits.timestampPeriod;
	struct hesper_gap g = {0};
	struct hesper_work w = {.kind = HESPER_WORK_BATCH, .count = 1, .timed = true, .queue = q->profile_queue,
				.ns = (uint64_t)llround((double)(span->end - span->start) * period)};
	if (q->batch_seen && span->start > q->batch_end) {
		g = (struct hesper_gap){
			.length_ns = (uint64_t)llround((double)(span->start - q->batch_end) * period),
			.thread = sub->thread,
			.submission = sub->index,
		};
		w.gap = &g;
		uint64_t start_host = dev->clock.valid ? to_host_ns(dev, span->raw_start, dev->families[q->family].tick_mask) : 0;
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
	row->gpu_span_ns = (uint64_t)llround((double)(q->batch_end - q->batch_first) * period);
}

static void close_span(struct hesper_profile *p, struct batch_span *span, struct hesper_queue *q,
		       const struct hesper_submission *sub, bool trace)
{
	if (!span->any)
		return;
	note_batch(p, q, sub, span);
	if (trace)
		trace_gpu(p, q, HESPER_TRACE_BATCH, "batch", span->raw_start, span->raw_start + (span->end - span->start),
			  NULL, 0, sub->index);
	span->any = false;
}

/* Of a run of @repeat dispatches at @pos, those inside @window: [*lo, *hi) from the run's first. */
static void window_part(struct hesper_capture_span window, uint64_t pos, uint64_t repeat, uint64_t *lo, uint64_t *hi)
{
	uint64_t from = window.from > pos ? window.from - pos : 0;
	uint64_t to = window.to > pos ? window.to - pos : 0;
	*lo = from < repeat ? from : repeat;
	*hi = to < repeat ? to : repeat;
	if (*hi < *lo)
		*hi = *lo;
}

/* Whether device clock reading @a comes before @b (modulo the clock's width). */
static bool clock_before(const struct hesper_device *dev, uint64_t a, uint64_t b)
{
	uint64_t mask = dev->clock_mode->cal.mask;
	uint64_t d = (b - a) & mask;
	return d != 0 && d <= mask / 2;
}

/*
 * Adds the clock-timed dispatches [@lo, @hi) of record @d (slots from @ts, NULL: none came
 * back) to the profile as @w; returns how many of them came back empty (a slot no work group
 * wrote, or a copy that did not happen), to be counted as dropped. For an indirect
 * dispatch (@d's groups 0 0 0) the work-group counts its slot holds are its launch shape.
 */
static uint64_t account_clock(struct hesper_profile *p, struct hesper_queue *q, const struct hesper_submission *sub,
			      const struct hesper_recording *rec, const struct hesper_dispatch_record *d,
			      uint64_t lo, uint64_t hi, const uint64_t *ts, const struct hesper_work *w, bool trace)
{
	bool indirect = !d->groups[0] && !d->groups[1] && !d->groups[2];
	const struct hesper_device *dev = q->dev;
	uint64_t mask = dev->families[q->family].tick_mask;
	double period = dev->props.limits.timestampPeriod;
	uint64_t empty = 0;
	/* The command buffer's start places the clock values (clock.h); else the calibration does. */
	uint64_t anchor = ts && rec->cb_query != HESPER_NO_QUERY && ts[rec->cb_query] != HESPER_UNWRITTEN
				  ? ts[rec->cb_query]
				  : (dev->clock_mode ? (uint64_t)dev->clock_mode->cal.ts0 : 0);
	for (uint32_t k = (uint32_t)lo; ts && dev->clock_mode && k < hi; k++) {
		const uint64_t *slot = ts + hesper_clock_slot_word(dev, rec->queries_used, d->start + k);
		/* Lanes of (~earliest start, latest end): end 0, no work group wrote it; all ones, not copied. */
		uint64_t first = UINT64_MAX, last = 0;
		bool any = false, lost = false;
		for (uint32_t l = 0; l < HESPER_CLOCK_LANES; l++) {
			const uint64_t *pair = slot + 2 * l;
			lost |= pair[0] == HESPER_UNWRITTEN || pair[1] == HESPER_UNWRITTEN;
			if (pair[1] == 0 || lost)
				continue;
			/* relative to the first lane seen, so that a 32-bit clock's wrap orders right */
			if (!any || clock_before(dev, ~pair[0], first))
				first = ~pair[0];
			if (!any || clock_before(dev, last, pair[1]))
				last = pair[1];
			any = true;
		}
		if (!any || lost) {
			empty++;
			continue;
		}
		uint64_t start = hesper_clock_to_ticks(dev, first, anchor) & mask;
		uint64_t end = hesper_clock_to_ticks(dev, last, anchor) & mask;
		/* Isolated by the program's compute barriers: timed from barrier to barrier (clock_edges.h). */
		uint32_t open = d->end + 2 * k;
		if (d->end != HESPER_NO_QUERY && (k + 1 < d->repeat || d->closed) && ts[open] != HESPER_UNWRITTEN &&
		    ts[open + 1] != HESPER_UNWRITTEN) {
			start = ts[open] & mask;
			end = ts[open + 1] & mask;
			p->clock_isolated++;
		}
		struct hesper_work one = *w;
		one.timed = true;
		one.ns = interval_ns(start, end, mask, period, &p->clamped);
		const uint64_t *counts = slot + HESPER_CLOCK_GROUPS_WORD;
		/* 0 until work group (0, 0, 0) wrote them; a slot not copied was dropped above */
		if (indirect && counts[0]) {
			one.groups[0] = (uint32_t)counts[0];
			one.groups[1] = (uint32_t)(counts[0] >> 32);
			one.groups[2] = (uint32_t)counts[1];
			one.groups_read_back = true;
		}
		hesper_profile_add_work(p, &one);
		if (trace)
			trace_gpu(p, q, HESPER_TRACE_DISPATCH, w->name, start, end, one.groups, rec->command_buffer,
				  sub->index);
	}
	return empty;
}

/*
 * Adds one recording's run to the profile; returns whether any of it was inside the
 * capture window. Called with the process lock held.
 */
static bool account_occurrence(struct hesper_profile *p, struct hesper_queue *q, const struct hesper_submission *sub,
			       const struct hesper_occurrence *o, struct batch_span *span, struct hesper_name *unknown,
			       bool trace)
{
	const struct hesper_recording *rec = o->rec;
	const struct hesper_queue_family *family = &q->dev->families[q->family];
	uint64_t mask = family->tick_mask;
	double period = q->dev->props.limits.timestampPeriod;
	/* Ran on two queues at once: both runs wrote these queries, so neither's times hold. */
	bool conflict = atomic_load(&o->conflict);
	const uint64_t *ts = o->base != HESPER_NO_SLOT && sub->slots && !sub->failed && !conflict && !o->unavailable
				     ? sub->kit.out.mapped + o->base
				     : NULL;
	uint64_t runs = 1;
	uint64_t untimed_runs = ts ? 0 : 1;
	uint32_t opened_at; /* the region that opened the capture window in this run, if one did */
	struct hesper_capture_span window = hesper_capture_run(rec, sub->host_ns, &opened_at);
	bool inside = window.from < window.to;

	p->timestamps_written += (uint64_t)rec->queries_used * runs;
	p->dropped += rec->lost_dispatches * runs;
	if (ts && rec->cb_query != HESPER_NO_QUERY && inside) {
		uint64_t start = extend_ticks(q, ts[rec->cb_query], mask);
		uint64_t end = extend_ticks(q, ts[rec->cb_query + 1], mask);
		if (end > start) {
			uint64_t from = start > q->busy_end ? start : q->busy_end;
			if (end > from)
				p->queues[q->profile_queue].busy_ns += (uint64_t)llround((double)(end - from) * period);
			if (end > q->busy_end)
				q->busy_end = end;
		}
		if (span->any && span->batch != o->batch)
			close_span(p, span, q, sub, trace);
		if (!span->any) {
			span->any = true;
			span->batch = o->batch;
			span->start = start;
			span->end = end;
			span->raw_start = ts[rec->cb_query];
		} else {
			if (start < span->start)
				span->raw_start = ts[rec->cb_query];
			span->start = start < span->start ? start : span->start;
			span->end = end > span->end ? end : span->end;
		}
	}
	uint64_t pos = 0; /* dispatches of the run before this record */
	for (size_t i = 0; i < rec->dispatch_count; i++) {
		const struct hesper_dispatch_record *d = &rec->dispatches[i];
		if (d->memop) {
			/* Inside the capture window when the next dispatch of the run would be. */
			account_memop(p, q, sub, rec, d, ts, window.from <= pos && pos < window.to, trace);
			continue;
		}
		struct hesper_name *kernel = d->kernel ? d->kernel : unknown;
		struct hesper_work_rows rows = {.kernel = kernel->row};
		bool timed = ts && d->start != HESPER_NO_QUERY;
		uint64_t lo, hi;
		window_part(window, pos, d->repeat, &lo, &hi);
		pos += d->repeat;
		/* An indirect dispatch's counts, where they were read back for this run (indirect.h). */
		uint32_t read[3];
		bool read_back = d->args && hesper_indirect_groups(rec, d->args, ts, read);
		const uint32_t *groups = read_back ? read : d->groups;
		struct hesper_work w = {
			.kind = HESPER_WORK_DISPATCH,
			.name = kernel->text,
			.label = d->label ? d->label->text : NULL,
			.rows = &rows,
			.groups = {groups[0], groups[1], groups[2]},
			.groups_read_back = read_back,
			/* Clock-timed dispatches are not counted as under-filled. */
			.compute_units = d->clock ? 0 : q->dev->compute_units,
		};
		note_local_size(&w, kernel);
		/* Outside the capture window: counted, not timed, not dropped. */
		w.count = d->repeat - (hi - lo);
		w.outside = true;
		if (w.count) {
			hesper_profile_add_work(p, &w);
			hesper_capture_count_outside(w.count);
		}
		w.outside = false;
		uint64_t untimed = (timed ? untimed_runs : runs) * (hi - lo);
		/* Clock mode: timed from its slots, which hold an indirect one's work-group counts too. */
		if (d->clock)
			untimed += account_clock(p, q, sub, rec, d, lo, hi, timed ? ts : NULL, &w, trace);
		for (uint32_t k = (uint32_t)lo; timed && !d->clock && k < hi; k++) {
			uint32_t start = k ? d->end + k - 1 : d->start, end = d->end + k;
			w.timed = true;
			w.ns = interval_ns(ts[start], ts[end], mask, period, &p->clamped);
			hesper_profile_add_work(p, &w);
			if (trace)
				trace_dispatch(p, q, kernel, rows.kernel, ts[start], ts[end], groups, rec->command_buffer,
					       sub->index);
		}
		if (untimed) {
			w.timed = false;
			w.count = untimed;
			/*
			 * Meant to be timed but could not be: dropped (every clock dispatch is meant to be).
			 * Left out by mode or sampling: not.
			 */
			w.dropped = d->clock || d->dropped || d->start != HESPER_NO_QUERY;
			hesper_profile_add_work(p, &w);
		}
		kernel->row = rows.kernel;
	}
	for (size_t i = 0; i < rec->region_count; i++) {
		const struct hesper_region_record *r = &rec->regions[i];
		struct hesper_work w = {.kind = HESPER_WORK_REGION, .name = r->label->text, .count = runs};
		/* Inside: begun after the region that opened the window, before the window closed. */
		bool in_window = inside && (opened_at == UINT32_MAX || i >= opened_at) &&
				 r->begin_at < window.to && r->begin_at >= window.from;
		if (!in_window) {
			hesper_profile_add_work(p, &w);
			continue;
		}
		bool timed = ts && r->query != HESPER_NO_QUERY;
		if (timed) {
			w.timed = true;
			w.ns = interval_ns(ts[r->query], ts[r->query + 1], mask, period, &p->clamped);
			if (hesper_profile_add_work(p, &w) == 0 && trace)
				trace_gpu(p, q, HESPER_TRACE_REGION, r->label->text, ts[r->query], ts[r->query + 1], NULL,
					  rec->command_buffer, sub->index);
		}
		w.timed = false;
		w.count = timed ? untimed_runs : runs;
		if (w.count)
			hesper_profile_add_work(p, &w);
	}
	return inside;
}

/* Adds a finished (or abandoned, when @lost) submission to the profile. */
static void account(struct hesper_queue *q, struct hesper_submission *sub, bool lost)
{
	struct hesper_process *proc = hesper_process();
	struct hesper_device *dev = q->dev;
	if (lost)
		sub->failed = true;
	uint64_t t0 = hesper_now_ns();
	/* The defence: a run whose queries never became available (0 in every run so far). */
	bool ahead = false;
	for (size_t i = 0; i < sub->occ_count && !sub->failed; i++)
		ahead |= sub->occ[i].unavailable;
	bool trace = hesper_process_wants_trace();
	/* Every caller holds collector.harvest: the cached name needs no lock of its own. */
	static struct hesper_name *unknown;
	if (!unknown)
		unknown = hesper_intern("(unknown pipeline)");
	pthread_mutex_lock(&proc->lock);
	struct hesper_profile *p = proc->profile;
	struct batch_span span = {0};
	struct hesper_trace_event submit_event = {0}; /* kept when any of the submission was inside the capture window */
	p->copies_ahead += ahead;
	p->queues[q->profile_queue].submits += sub->batch_count;
	p->queues[q->profile_queue].submit_calls++;
	/* The gap findings place batches on the host clock too, traced or not. */
	const uint64_t *first_start = NULL;
	for (size_t i = 0; i < sub->occ_count && !first_start && !sub->failed && sub->slots; i++) {
		const struct hesper_occurrence *o = &sub->occ[i];
		if (o->base != HESPER_NO_SLOT && o->rec->cb_query != HESPER_NO_QUERY)
			first_start = sub->kit.out.mapped + o->base + o->rec->cb_query;
	}
	sync_clock(p, dev, sub, first_start);
	if (trace) {
		submit_event = (struct hesper_trace_event){
			.kind = HESPER_TRACE_HOST_SUBMIT,
			.device = dev->profile_device,
			.queue = q->profile_queue,
			.thread = sub->thread,
			.name = "vkQueueSubmit",
			.start_ns = sub->host_ns,
			.end_ns = sub->host_end_ns,
			.submission = sub->index,
		};
	}
	bool inside = false;
	for (size_t i = 0; i < sub->occ_count; i++)
		inside |= account_occurrence(p, q, sub, &sub->occ[i], &span, unknown, trace && dev->clock.valid);
	if (trace && (inside || !hesper_capture_set()))
		hesper_events_add(p, &submit_event);
	close_span(p, &span, q, sub, trace && dev->clock.valid);
	p->collector_ns += hesper_now_ns() - t0;
	pthread_mutex_unlock(&proc->lock);
}

/*
 * Forgets a submission whose copies never finished (lost device, exit timeout). Its Vulkan
 * objects may still be in use by the GPU or a broken device: they are left be.
 */
static void abandon(struct hesper_submission *sub)
{
	hesper_submission_release_recordings(sub);
	hesper_submission_free(sub);
}

/* Whether @sub's copies are done: VK_SUCCESS, VK_NOT_READY / VK_TIMEOUT, or an error. Waits up to @wait_ns. */
static VkResult sync_status(struct hesper_queue *q, const struct hesper_submission *sub, uint64_t wait_ns)
{
	struct hesper_device *dev = q->dev;
	switch (sub->sync) {
	case HESPER_SYNC_FENCE:
		return wait_ns ? dev->next.WaitForFences(dev->handle, 1, &sub->fence, VK_TRUE, wait_ns)
			       : dev->next.GetFenceStatus(dev->handle, sub->fence);
	case HESPER_SYNC_TIMELINE: {
		if (wait_ns) {
			VkSemaphoreWaitInfo info = {
				.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
				.semaphoreCount = 1,
				.pSemaphores = &q->timeline,
				.pValues = &sub->sync_value,
			};
			return dev->next.WaitSemaphoresKHR(dev->handle, &info, wait_ns);
		}
		uint64_t value = 0;
		VkResult r = dev->next.GetSemaphoreCounterValueKHR(dev->handle, q->timeline, &value);
		return r == VK_SUCCESS && value < sub->sync_value ? VK_NOT_READY : r;
	}
	case HESPER_SYNC_NONE:
		break;
	}
	return VK_SUCCESS;
}

/*
 * Accounts for every finished submission at the head of @q, waiting up to @wait_ns for
 * the first unfinished one. Returns true when submissions are still pending. Called
 * with collector.harvest held.
 */
static bool harvest_queue(struct hesper_queue *q, uint64_t wait_ns)
{
	for (;;) {
		struct hesper_submission *sub = hesper_pending_head(q);
		if (!sub)
			return false;
		VkResult r = sync_status(q, sub, wait_ns);
		if (r == VK_TIMEOUT || r == VK_NOT_READY)
			return true;
		bool lost = r != VK_SUCCESS; /* device lost: its timestamps will never come */
		if (!lost && !sub->failed && sub->slots && !hesper_runs_collect(q, sub, wait_ns))
			return true;
		if (lost && !atomic_exchange(&q->dev->lost, true))
			hesper_log("the device '%s' was lost (%d); its work still in flight is reported as dropped",
				   q->dev->props.deviceName, (int)r);
		hesper_pending_pop(q, sub);
		account(q, sub, lost);
		if (collector.duties)
			collector.duties->harvested();
		if (lost) {
			abandon(sub);
		} else {
			hesper_submission_recycle(q, sub);
		}
	}
}

/* The process's devices, newest first; the list only grows at its head outside the harvest lock. */
static struct hesper_device *first_device(void)
{
	struct hesper_process *proc = hesper_process();
	pthread_mutex_lock(&proc->lock);
	struct hesper_device *dev = proc->devices;
	pthread_mutex_unlock(&proc->lock);
	return dev;
}

static struct hesper_queue *first_queue(struct hesper_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	struct hesper_queue *q = dev->queues;
	pthread_mutex_unlock(&dev->lock);
	return q;
}

static void *collector_main(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&collector.harvest);
		bool pending = false;
		for (struct hesper_device *dev = first_device(); dev; dev = dev->next_in_process)
			for (struct hesper_queue *q = first_queue(dev); q; q = q->next_in_device)
				pending |= harvest_queue(q, 0);
		/* Wait on the oldest submission of one queue rather than spin. */
		if (pending) {
			for (struct hesper_device *dev = first_device(); dev; dev = dev->next_in_process) {
				for (struct hesper_queue *q = first_queue(dev); q; q = q->next_in_device) {
					if (harvest_queue(q, POLL_WAIT_NS))
						goto waited;
				}
			}
		}
	waited:
		pthread_mutex_unlock(&collector.harvest);
		/* Outside every lock the program's threads take: the database stream, live reports. */
		if (collector.duties)
			collector.duties->between_harvests();
		if (!hesper_pending_rest(pending))
			return NULL;
	}
}

void hesper_collector_start(void)
{
	pthread_mutex_lock(&collector.lock);
	if (!collector.started && !collector.stopped) {
		sigset_t all, old;
		/* The program's signal handlers must never run on Hesper's thread. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&collector.thread, NULL, collector_main, NULL) == 0)
			collector.started = true;
		else
			hesper_log("cannot start the collector thread; results are collected at exit");
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&collector.lock);
}

void hesper_collector_set_duties(const struct hesper_collector_duties *duties)
{
	collector.duties = duties;
}

/* Harvests every queue of @dev until nothing is pending or @deadline passes; then counts the rest as lost. */
static void flush_device(struct hesper_device *dev, uint64_t deadline)
{
	for (struct hesper_queue *q = first_queue(dev); q; q = q->next_in_device) {
		for (;;) {
			uint64_t now = hesper_now_ns();
			uint64_t wait = now < deadline ? deadline - now : 0;
			if (!harvest_queue(q, wait ? wait : 1))
				break;
			if (hesper_now_ns() >= deadline) {
				/* Out of time: what is left is reported as dropped. */
				struct hesper_submission *sub = hesper_pending_take_all(q);
				while (sub) {
					struct hesper_submission *next = sub->next;
					account(q, sub, true);
					abandon(sub);
					sub = next;
				}
				break;
			}
		}
	}
}

void hesper_collector_flush(struct hesper_device *only, uint64_t timeout_ns)
{
	struct hesper_process *proc = hesper_process();
	uint64_t deadline = hesper_now_ns() + timeout_ns;
	pthread_mutex_lock(&collector.harvest);
	for (struct hesper_device *dev = first_device(); dev; dev = dev->next_in_process)
		if (!only || dev == only)
			flush_device(dev, deadline);
	if (only) {
		/* Unlinked under the harvest lock, the collector thread can no longer reach it. */
		pthread_mutex_lock(&proc->lock);
		for (struct hesper_device **p = &proc->devices; *p; p = &(*p)->next_in_process) {
			if (*p == only) {
				*p = only->next_in_process;
				break;
			}
		}
		pthread_mutex_unlock(&proc->lock);
	}
	pthread_mutex_unlock(&collector.harvest);
}

void hesper_collector_stop(void)
{
	pthread_mutex_lock(&collector.lock);
	bool join = collector.started;
	collector.stopped = true;
	collector.started = false;
	pthread_mutex_unlock(&collector.lock);
	hesper_pending_close();
	if (join)
		pthread_join(collector.thread, NULL);
}
