/*
 * Accounting: a finished (or abandoned) submission's runs read from their result slots,
 * turned into nanoseconds and handed to the profile as finished work, one
 * hesper_profile_add_work call per result (see account.h).
 */
#include "account.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account_clock.h"
#include "batches.h"
#include "capture.h"
#include "clock/clock.h"
#include "clock_sync.h"
#include "analysis.h"
#include "record/record.h"
#include "state/state.h"
#include "submit/submit.h"
#include "ticks.h"
#include "timeline.h"

/*
 * Adds the run of memory operations @d of @rec to the profile's memory-operation rows when
 * it ran @inside the capture window (timed from @ts when it was), else counts it outside
 * the window only. Never counted as dispatches.
 */
static void account_memop(struct hesper_profile *p, const struct hesper_queue *q, const struct hesper_submission *sub,
			  const struct hesper_recording *rec, const struct hesper_work_record *d, const uint64_t *ts,
			  bool inside, bool trace)
{
	if (d->op.kind >= HESPER_MEMOP_KINDS)
		return;
	if (!inside) {
		hesper_capture_count_outside(0, d->repeat);
		return;
	}
	uint64_t mask = q->dev->families[q->family].tick_mask;
	double period = q->dev->props.limits.timestampPeriod;
	bool timed = ts && d->start != HESPER_NO_QUERY;
	struct hesper_work w = {.kind = HESPER_WORK_MEMORY_OP,
				.count = d->repeat,
				.timed = timed,
				.memop = d->op.kind,
				.bytes = d->bytes,
				.sized = d->op.sized};
	for (uint32_t k = 0; timed && k < d->repeat; k++) {
		uint32_t start = k ? d->end + k - 1 : d->start, end = d->end + k;
		w.clamped = !hesper_interval_ns(ts[start], ts[end], mask, period, &w.ns);
		w.at = hesper_place_work(q, trace, ts[start], rec->command_buffer, sub->index);
		hesper_profile_add_work(p, &w);
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
	hesper_local_size_unpack(packed, w->local_size);
}

/* Of a repeat of @repeat dispatches at @pos, those inside @window: [*lo, *hi) from the repeat's first. */
static void window_part(struct hesper_capture_span window, uint64_t pos, uint64_t repeat, uint64_t *lo, uint64_t *hi)
{
	uint64_t from = window.from > pos ? window.from - pos : 0;
	uint64_t to = window.to > pos ? window.to - pos : 0;
	*lo = from < repeat ? from : repeat;
	*hi = to < repeat ? to : repeat;
	if (*hi < *lo)
		*hi = *lo;
}

/*
 * Notes where GPU work inside the capture window ended, raw tick @raw_end on @q, on the host
 * clock: by the device's clock pairing, else when @sub's submit call returned (a lower bound).
 */
static void note_window_end(const struct hesper_queue *q, const struct hesper_submission *sub, uint64_t raw_end)
{
	const struct hesper_device *dev = q->dev;
	uint64_t mask = dev->families[q->family].tick_mask;
	hesper_capture_note_end(dev->clock.valid ? hesper_to_host_ns(dev, raw_end, mask) : sub->host_end_ns);
}

/*
 * Counts submit call @sub on @q in its queue's row when any of it ran @inside the capture
 * window, else outside the window; and the round trips of waits that drained the queue
 * (waits.h).
 */
static void count_submission(struct hesper_profile *p, struct hesper_queue *q, const struct hesper_submission *sub,
			     bool inside)
{
	struct hesper_queue_info *row = &p->queues[q->profile_queue];
	if (inside) {
		row->submits += sub->batch_count;
		row->submit_calls++;
	}
	hesper_capture_count_submission(inside);
	hesper_waits_account(p, q, sub->index + 1, inside);
}

/* Why the results of run @o of @sub are not there to read (@conflict: it ran on two queues at once). */
static enum hesper_drop_cause missing_cause(const struct hesper_submission *sub, const struct hesper_run *o,
					    enum hesper_abandon abandon, bool conflict)
{
	if (abandon == HESPER_ABANDON_DEVICE_LOST)
		return HESPER_DROP_DEVICE_LOST;
	if (abandon == HESPER_ABANDON_OUT_OF_TIME)
		return HESPER_DROP_UNFINISHED;
	if (conflict)
		return HESPER_DROP_TWO_QUEUES;
	if (sub->failed)
		return HESPER_DROP_NOT_FOLLOWED;
	if (o->overwritten)
		return HESPER_DROP_OVERWRITTEN;
	if (o->base == HESPER_NO_SLOT)
		return HESPER_DROP_OTHER_FAMILY; /* the run had queries (it has dropped dispatches), so a family */
	if (o->unavailable)
		return HESPER_DROP_UNAVAILABLE;
	return HESPER_DROP_NOT_COPIED;
}

/*
 * Why dispatches of record @d of @rec, meant to be timed, were not in a run whose results are
 * missing for @missing (or are there): without queries or a slot, why it got none.
 */
static enum hesper_drop_cause drop_cause(const struct hesper_recording *rec, const struct hesper_work_record *d,
					 enum hesper_drop_cause missing)
{
	if (d->start != HESPER_NO_QUERY)
		return missing;
	if (d->clock)
		return HESPER_DROP_NO_CLOCK_SLOT;
	return rec->can_query ? HESPER_DROP_NO_QUERY : HESPER_DROP_NO_TIMESTAMPS;
}

/* Counts @n dispatches of @w dropped for @why (nothing when @n is 0). */
static void count_dropped(struct hesper_profile *p, struct hesper_work w, uint64_t n, enum hesper_drop_cause why)
{
	if (!n)
		return;
	w.timed = false;
	w.count = n;
	w.dropped = true;
	w.why = why;
	hesper_profile_add_work(p, &w);
}

/*
 * Adds one recording's run to the profile; returns whether any of it was inside the
 * capture window. Called with the process lock held.
 */
static bool account_run(struct hesper_profile *p, struct hesper_queue *q, const struct hesper_submission *sub,
			const struct hesper_run *o, struct batch_span *span, struct hesper_name *unknown,
			struct clock_held *held, bool trace, enum hesper_abandon abandon)
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
	enum hesper_drop_cause missing = ts ? HESPER_DROP_NOT_COPIED : missing_cause(sub, o, abandon, conflict);
	uint32_t opened_at; /* the region that opened the capture window in this run, if one did */
	struct hesper_capture_span window = hesper_capture_run(rec, sub->host_ns, &opened_at);
	bool inside = window.from < window.to;

	p->timestamps_written += (uint64_t)rec->queries_used * runs;
	p->dropped += rec->lost_dispatches * runs;
	p->dropped_by[HESPER_DROP_MEMORY] += rec->lost_dispatches * runs;
	if (ts && rec->cb_query != HESPER_NO_QUERY && inside) {
		uint64_t start = hesper_extend_ticks(q, ts[rec->cb_query], mask);
		uint64_t end = hesper_extend_ticks(q, ts[rec->cb_query + 1], mask);
		if (end > start) {
			note_window_end(q, sub, ts[rec->cb_query + 1]);
			uint64_t from = start > q->busy_end ? start : q->busy_end;
			if (end > from)
				p->queues[q->profile_queue].busy_ns += hesper_ticks_ns(end - from, period);
			if (end > q->busy_end)
				q->busy_end = end;
		}
		if (span->any && span->batch != o->batch)
			hesper_close_span(p, span, q, sub, trace);
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
	/* Clock mode: where the dispatches ran, kept for the labels timed by them. */
	struct clock_places places = {.anchor = hesper_clock_anchor(q->dev, rec, ts)};
	if (ts && q->dev->clock_mode && rec->region_count) {
		for (size_t i = 0; i < rec->work_count; i++)
			places.count += rec->work[i].memop ? 0 : rec->work[i].repeat;
		/* without it the labels are counted, not timed */
		places.at = places.count ? calloc(places.count, sizeof(*places.at)) : NULL;
	}
	uint64_t pos = 0; /* dispatches of the run before this record */
	for (size_t i = 0; i < rec->work_count; i++) {
		const struct hesper_work_record *d = &rec->work[i];
		if (d->memop) {
			/* Inside the capture window when the run's next dispatch would be. */
			account_memop(p, q, sub, rec, d, ts, window.from <= pos && pos < window.to, trace);
			continue;
		}
		struct hesper_name *kernel = d->kernel ? d->kernel : unknown;
		struct hesper_work_rows rows = {.kernel = kernel->row};
		bool timed = ts && d->start != HESPER_NO_QUERY;
		uint64_t lo, hi, first = pos;
		window_part(window, pos, d->repeat, &lo, &hi);
		pos += d->repeat;
		/* An indirect dispatch's counts, where they were read back for this run (indirect.h). */
		uint32_t read[3];
		bool read_back = d->args && hesper_indirect_groups(rec, d->args, ts, read);
		const uint32_t *groups = read_back ? read : d->groups;
		struct hesper_work w = {
			.kind = HESPER_WORK_DISPATCH,
			.name = kernel->text,
			.label = d->label ? hesper_label_path_leaf(d->label->text) : NULL,
			.label_path = d->label ? d->label->text : NULL,
			.rows = &rows,
			.groups = {groups[0], groups[1], groups[2]},
			.groups_read_back = read_back,
			/* Clock-timed dispatches are not counted as under-filled. */
			.compute_units = d->clock ? 0 : q->dev->compute_units,
			.stats_set = d->stats_set,
		};
		note_local_size(&w, kernel);
		/* Outside the capture window: counted on its own, in no row, so the rows are the window's. */
		hesper_capture_count_outside(d->repeat - (hi - lo), 0);
		uint64_t untimed = (timed ? untimed_runs : runs) * (hi - lo);
		/* Clock mode: timed from its slots, which hold an indirect one's work-group counts too. */
		struct clock_empty empty = {0};
		if (d->clock)
			hesper_account_clock(p, q, sub, rec, d, lo, hi, timed ? ts : NULL, &w, kernel, held, trace,
					     &empty, &places, first);
		count_dropped(p, w, empty.unwritten, HESPER_DROP_CLOCK_EMPTY);
		count_dropped(p, w, empty.not_copied, HESPER_DROP_NOT_COPIED);
		for (uint32_t k = (uint32_t)lo; timed && !d->clock && k < hi; k++) {
			uint32_t start = k ? d->end + k - 1 : d->start, end = d->end + k;
			if (q->dev->clock_mode)
				hesper_clock_place(&places, first + k, ts[start] & mask, ts[end] & mask);
			w.timed = true;
			w.clamped = !hesper_interval_ns(ts[start], ts[end], mask, period, &w.ns);
			w.at = hesper_place_work(q, trace, ts[start], rec->command_buffer, sub->index);
			hesper_profile_add_work(p, &w);
		}
		if (untimed) {
			w.timed = false;
			w.clamped = false;
			w.at.traced = false;
			w.count = untimed;
			/*
			 * Meant to be timed but could not be: dropped (every clock dispatch is meant to be).
			 * Left out by mode or sampling: not.
			 */
			w.dropped = d->clock || d->dropped || d->start != HESPER_NO_QUERY;
			w.why = drop_cause(rec, d, missing);
			hesper_profile_add_work(p, &w);
		}
		kernel->row = rows.kernel;
	}
	for (size_t i = 0; i < rec->region_count; i++) {
		const struct hesper_region_record *r = &rec->regions[i];
		struct hesper_work w = {.kind = HESPER_WORK_REGION,
					.name = r->label->text,
					.label_path = r->path ? r->path->text : NULL,
					.count = runs};
		/* Inside: begun after the region that opened the window, before the window closed. */
		bool in_window = inside && (opened_at == UINT32_MAX || i >= opened_at) && r->begin_at < window.to &&
				 r->begin_at >= window.from;
		if (!in_window)
			continue;
		uint64_t start = 0, end = 0;
		bool timed = ts && (r->clock ? hesper_clock_region(q, r, &places, &start, &end)
					     : r->query != HESPER_NO_QUERY && r->end_query != HESPER_NO_QUERY);
		if (timed && !r->clock) {
			start = ts[r->query];
			end = ts[r->end_query];
		}
		if (timed) {
			w.timed = true;
			w.clamped = !hesper_interval_ns(start, end, mask, period, &w.ns);
			w.at = hesper_place_work(q, trace, start, rec->command_buffer, sub->index);
			hesper_profile_add_work(p, &w);
		}
		w.timed = false;
		w.clamped = false;
		w.at.traced = false;
		w.count = timed ? untimed_runs : runs;
		if (w.count)
			hesper_profile_add_work(p, &w);
	}
	free(places.at);
	return inside;
}

/* Adds a finished (or abandoned, when @lost) submission to the profile. */
void hesper_account_submission(struct hesper_queue *q, struct hesper_submission *sub, enum hesper_abandon abandon)
{
	struct hesper_process *proc = hesper_process();
	struct hesper_device *dev = q->dev;
	if (abandon != HESPER_ABANDON_NONE)
		sub->failed = true;
	uint64_t t0 = hesper_now_ns();
	/* The defence: a run whose queries never became available (0 in every run so far). */
	bool ahead = false;
	for (size_t i = 0; i < sub->run_count && !sub->failed; i++)
		ahead |= sub->runs[i].unavailable;
	bool trace = hesper_process_wants_trace();
	/* Every caller holds collector.harvest: the cached name needs no lock of its own. */
	static struct hesper_name *unknown;
	if (!unknown)
		unknown = hesper_intern("(unknown pipeline)");
	pthread_mutex_lock(&proc->lock);
	struct hesper_profile *p = proc->profile;
	struct batch_span span = {0};
	struct hesper_trace_event submit_event = {
		0}; /* kept when any of the submission was inside the capture window */
	p->copies_ahead += ahead;
	/* The gap findings place batches on the host clock too, traced or not. */
	const uint64_t *first_start = NULL;
	for (size_t i = 0; i < sub->run_count && !first_start && !sub->failed && sub->slots; i++) {
		const struct hesper_run *o = &sub->runs[i];
		if (o->base != HESPER_NO_SLOT && o->rec->cb_query != HESPER_NO_QUERY)
			first_start = sub->kit.out.mapped + o->base + o->rec->cb_query;
	}
	hesper_sync_clock(p, dev, sub, first_start);
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
	/* A submit call with no command buffer is inside when the window is open at it. */
	bool inside = sub->run_count == 0 && hesper_capture_open_at(sub->host_ns);
	struct clock_held held = {0};
	for (size_t i = 0; i < sub->run_count; i++)
		inside |= account_run(p, q, sub, &sub->runs[i], &span, unknown, &held, trace && dev->clock.valid,
				      abandon);
	hesper_clock_hand_over(p, q, &held);
	count_submission(p, q, sub, inside);
	if (trace && (inside || !hesper_capture_set()))
		hesper_events_add(p, &submit_event);
	hesper_close_span(p, &span, q, sub, trace && dev->clock.valid);
	p->collector_ns += hesper_now_ns() - t0;
	pthread_mutex_unlock(&proc->lock);
}
