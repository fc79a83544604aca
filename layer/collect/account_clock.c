/* Clock mode's accounting of a run (account_clock.h). */
#include "account_clock.h"

#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "clock/clock.h"
#include "ticks.h"
#include "timeline.h"

/*
 * Clock mode: dispatches that ran at once each get their whole span, so a submission's
 * clock-timed dispatches are held until all its runs are read, then each is counted with
 * its share of the time they shared (overlap.h), and the shares of what ran on the queue
 * add up to its busy time. Dispatches of different submissions are not compared: Hesper's
 * batches between submissions (the copies, the completion signal) keep them apart. Nor are
 * isolated ones (timed by timestamps, run alone): their share is their time.
 */

/* What the held dispatches of one record of one run share: their work, rows looked up at hand-over. */
struct clock_kind {
	struct hesper_work w;
	struct hesper_name *kernel; /* whose row the hand-over caches */
};

/* One held dispatch. */
struct clock_done {
	uint64_t start;     /* timestamp ticks, masked */
	uint64_t ticks;     /* its length in ticks (never clamped: those are not held) */
	uint64_t ns;        /* its span */
	uint32_t kind;      /* index into clock_held.kinds */
	uint32_t groups[3]; /* its work-group counts (an indirect one's read back) */
	bool read_back;
};

/* Room for one more element of @size in *@items (holding @count of @*cap); false when memory ran out. */
static bool room_for(void **items, size_t count, size_t *cap, size_t size)
{
	if (count < *cap)
		return true;
	size_t want = *cap ? 2 * *cap : 256;
	void *grown = want <= SIZE_MAX / size ? realloc(*items, want * size) : NULL;
	if (!grown)
		return false;
	*items = grown;
	*cap = want;
	return true;
}

/* Holds the dispatch @one of kind @w (a new kind unless @held's last is it, *@kind); false when memory ran out. */
static bool hold(struct clock_held *held, const struct hesper_work *w, struct hesper_name *kernel, bool *kind,
		 const struct hesper_work *one, uint64_t start, uint64_t ticks)
{
	if (!*kind) {
		if (held->kind_count >= UINT32_MAX ||
		    !room_for((void **)&held->kinds, held->kind_count, &held->kind_cap, sizeof(*held->kinds)))
			return false;
		struct clock_kind *k = &held->kinds[held->kind_count++];
		k->w = *w;
		k->w.rows = NULL;
		k->w.at = one->at; /* its record's place; each dispatch's start is placed at hand-over */
		k->kernel = kernel;
		*kind = true;
	}
	if (!room_for((void **)&held->done, held->count, &held->cap, sizeof(*held->done)))
		return false;
	struct clock_done *d = &held->done[held->count++];
	*d = (struct clock_done){.start = start,
				 .ticks = ticks,
				 .ns = one->ns,
				 .kind = (uint32_t)(held->kind_count - 1),
				 .groups = {one->groups[0], one->groups[1], one->groups[2]},
				 .read_back = one->groups_read_back};
	return true;
}

/* @ticks (a difference of masked timestamps) as a signed distance: past half the mask, backwards. */
static int64_t signed_ticks(uint64_t ticks, uint64_t mask)
{
	ticks &= mask;
	return ticks > mask / 2 ? -(int64_t)(mask - ticks) - 1 : (int64_t)ticks;
}

void hesper_clock_hand_over(struct hesper_profile *p, const struct hesper_queue *q, struct clock_held *held)
{
	uint64_t mask = q->dev->families[q->family].tick_mask;
	size_t n = held->count;
	struct hesper_span *spans = n ? malloc(n * sizeof(*spans)) : NULL;
	uint64_t *shares = n ? malloc(n * sizeof(*shares)) : NULL;
	bool split = spans && shares;
	if (split) {
		/* One time line: ticks from the first start (a narrow mask wraps), then from the earliest. */
		int64_t earliest = 0;
		for (size_t i = 0; i < n; i++) {
			int64_t at = signed_ticks(held->done[i].start - held->done[0].start, mask);
			earliest = at < earliest ? at : earliest;
		}
		for (size_t i = 0; i < n; i++) {
			int64_t at = signed_ticks(held->done[i].start - held->done[0].start, mask);
			spans[i].start = (uint64_t)at - (uint64_t)earliest;
			spans[i].end = spans[i].start + held->done[i].ticks;
		}
		split = hesper_overlap_shares(spans, n, shares, NULL) == 0;
	}
	struct hesper_work_rows rows = {0};
	for (size_t i = 0; i < n; i++) {
		const struct clock_done *d = &held->done[i];
		struct clock_kind *kind = &held->kinds[d->kind];
		if (!i || d->kind != held->done[i - 1].kind)
			rows = (struct hesper_work_rows){.kernel = kind->kernel->row};
		struct hesper_work one = kind->w;
		one.rows = &rows;
		one.timed = true;
		one.ns = d->ns;
		memcpy(one.groups, d->groups, sizeof(one.groups));
		one.groups_read_back = d->read_back;
		one.at = hesper_place_work(q, kind->w.at.traced, d->start, kind->w.at.command_buffer,
					   kind->w.at.submission);
		/* The share in ticks, in the span's nanoseconds: alone, exactly the span. */
		one.has_share = split;
		if (split)
			one.share_ns = shares[i] == d->ticks ? d->ns
							     : (uint64_t)llround((double)d->ns * ((double)shares[i] /
												  (double)d->ticks));
		hesper_profile_add_work(p, &one);
		kind->kernel->row = rows.kernel;
	}
	free(spans);
	free(shares);
	free(held->kinds);
	free(held->done);
	*held = (struct clock_held){0};
}

uint64_t hesper_clock_anchor(const struct hesper_device *dev, const struct hesper_recording *rec, const uint64_t *ts)
{
	return ts && rec->cb_query != HESPER_NO_QUERY && ts[rec->cb_query] != HESPER_UNWRITTEN
		       ? ts[rec->cb_query]
		       : (dev->clock_mode ? (uint64_t)dev->clock_mode->cal.ts0 : 0);
}

/* The signed distance in ticks from @from to @to on a timestamp clock of width @mask. */
static int64_t ticks_between(uint64_t from, uint64_t to, uint64_t mask)
{
	uint64_t d = (to - from) & mask;
	return d > mask / 2 ? -(int64_t)((from - to) & mask) : (int64_t)d;
}

/*
 * A 32-bit clock's reading placed at @t (timestamp ticks, masked) moved by whole periods of
 * the clock to where it lies nearest its run's command buffer, between its start and end
 * timestamps: a reading placed more than half a period from its anchor lands a period off,
 * and nowhere near the command buffer. (Near it is enough: lavapipe writes a command
 * buffer's end timestamp before its last dispatch's threads are done.) @t as it is on a
 * wide clock, or when the command buffer's end is not known.
 */
static uint64_t into_run(const struct hesper_device *dev, const struct hesper_recording *rec, const uint64_t *ts,
			 uint64_t mask, uint64_t t)
{
	const struct hesper_clock_device *cd = dev->clock_mode;
	if (!hesper_clock_narrow(cd) || rec->cb_query == HESPER_NO_QUERY || ts[rec->cb_query] == HESPER_UNWRITTEN ||
	    ts[rec->cb_query + 1] == HESPER_UNWRITTEN)
		return t;
	uint64_t start = ts[rec->cb_query] & mask;
	int64_t length = ticks_between(start, ts[rec->cb_query + 1] & mask, mask);
	double period = ((double)cd->cal.mask + 1) * cd->cal.ts_per_clock;
	double at = (double)ticks_between(start, t, mask);
	if (length < 0)
		return t;
	double moved = hesper_clock_nearest(at, (double)length, period);
	return moved == at ? t : (start + (uint64_t)(int64_t)llround(moved)) & mask;
}

void hesper_clock_place(struct clock_places *places, uint64_t pos, uint64_t start, uint64_t end)
{
	places->anchor = start;
	if (places->at && pos < places->count)
		places->at[pos] = (struct clock_place){.start = start, .end = end, .timed = true};
}

/* What the slot of one clock-timed dispatch held. */
enum clock_slot { CLOCK_TIMED, CLOCK_UNWRITTEN, CLOCK_NOT_COPIED };

/*
 * The interval of instance @k of clock-timed record @d of @rec in ticks (masked), from its
 * slot in @ts placed at @anchor, or from its barrier timestamps when the program isolated
 * it (*@isolated). The slot's group counts in @counts.
 */
static enum clock_slot clock_instance(const struct hesper_device *dev, const struct hesper_recording *rec,
				      const struct hesper_work_record *d, uint32_t k, const uint64_t *ts,
				      uint64_t anchor, uint64_t mask, uint64_t *start, uint64_t *end, bool *isolated,
				      const uint64_t **counts)
{
	uint32_t at = hesper_clock_slot_word(dev, rec->queries_used, &rec->clock, d->start + k, 0);
	/* the slot's entry in each row: its lanes, then its group counts */
	uint32_t row = hesper_clock_slot_word(dev, rec->queries_used, &rec->clock, d->start + k, 1) - at;
	/* Lanes of (~earliest start, latest end): both words all ones (HESPER_UNWRITTEN), not copied. */
	if (!hesper_clock_slot_copied(ts + at, row))
		return CLOCK_NOT_COPIED;
	uint64_t first, last;
	const struct hesper_clock_device *cd = dev->clock_mode;
	if (!hesper_clock_fold_slot(ts + at, row, hesper_clock_narrow(cd), cd->cal.mask, &first, &last))
		return CLOCK_UNWRITTEN;
	*start = into_run(dev, rec, ts, mask, hesper_clock_to_ticks(dev, first, anchor) & mask);
	*end = into_run(dev, rec, ts, mask, hesper_clock_to_ticks(dev, last, anchor) & mask);
	*counts = ts + at + HESPER_CLOCK_LANES * row;
	/* Isolated by the program's compute barriers: timed from barrier to barrier (clock_edges.h). */
	uint32_t open = d->end + k; /* each opens from the closing timestamp before it */
	*isolated = d->end != HESPER_NO_QUERY && (k + 1 < d->repeat || d->closed) && ts[open] != HESPER_UNWRITTEN &&
		    ts[open + 1] != HESPER_UNWRITTEN;
	if (*isolated) {
		*start = ts[open] & mask;
		*end = ts[open + 1] & mask;
	}
	return CLOCK_TIMED;
}

/*
 * Says once a process where a clock slot was found not copied (the copy after the program's
 * batches left the results' unwritten marker there): a dispatch lost that no known cause
 * explains yet, so the line carries what the next look needs.
 */
static void say_not_copied(const struct hesper_submission *sub, const struct hesper_recording *rec,
			   const struct hesper_work_record *d, uint32_t k)
{
	static atomic_bool said;
	if (atomic_exchange(&said, true))
		return;
	uint32_t slot = d->start + k;
	hesper_log("a clock slot came back not copied: submission %" PRIu64 " of %u runs, its copy %s; command "
		   "buffer 0x%" PRIx64 ", slot %" PRIu32 " of %" PRIu32 " in %zu chunks, %" PRIu32
		   " queries; the dispatch is counted as dropped (not_copied)",
		   sub->index, (unsigned)sub->run_count,
		   sub->copies_adopted ? "taken from a finished record" : "recorded for it", rec->command_buffer, slot,
		   rec->clock.used, rec->clock.chunk_count, rec->queries_used);
}

void hesper_account_clock(struct hesper_profile *p, struct hesper_queue *q, const struct hesper_submission *sub,
			  const struct hesper_recording *rec, const struct hesper_work_record *d, uint64_t lo,
			  uint64_t hi, const uint64_t *ts, const struct hesper_work *w, struct hesper_name *kernel,
			  struct clock_held *held, bool trace, struct clock_empty *empty, struct clock_places *places,
			  uint64_t pos)
{
	bool kind = false; /* @w is @held's last kind */
	bool indirect = !d->groups[0] && !d->groups[1] && !d->groups[2];
	const struct hesper_device *dev = q->dev;
	uint64_t mask = dev->families[q->family].tick_mask;
	double period = dev->props.limits.timestampPeriod;
	for (uint32_t k = (uint32_t)lo; ts && dev->clock_mode && k < hi; k++) {
		uint64_t start, end;
		bool isolated;
		const uint64_t *counts;
		switch (clock_instance(dev, rec, d, k, ts, places->anchor, mask, &start, &end, &isolated, &counts)) {
		case CLOCK_NOT_COPIED:
			empty->not_copied++;
			say_not_copied(sub, rec, d, k);
			continue;
		case CLOCK_UNWRITTEN:
			empty->unwritten++;
			continue;
		case CLOCK_TIMED:
			break;
		}
		p->clock_isolated += isolated;
		hesper_clock_place(places, pos + k, start, end);
		struct hesper_work one = *w;
		one.timed = true;
		one.clamped = !hesper_interval_ns(start, end, mask, period, &one.ns);
		uint64_t ticks = (end - start) & mask;
		/* 0 until work group (0, 0, 0) wrote them; a slot not copied was dropped above */
		if (indirect && counts[0]) {
			one.groups[0] = (uint32_t)counts[0];
			one.groups[1] = (uint32_t)(counts[0] >> 32);
			one.groups[2] = (uint32_t)counts[1];
			one.groups_read_back = true;
		}
		/*
		 * Isolated, it ran alone: its share is its time. (Nor could it be compared: timestamps
		 * and the mapped clock may differ by the calibration's error.) Clamped, it has no time
		 * to share: counted at once.
		 */
		one.at = hesper_place_work(q, trace, start, rec->command_buffer, sub->index);
		if (isolated || one.clamped || !hold(held, w, kernel, &kind, &one, start, ticks))
			hesper_profile_add_work(p, &one);
	}
}

bool hesper_clock_region(const struct hesper_queue *q, const struct hesper_region_record *r,
			 const struct clock_places *places, uint64_t *start, uint64_t *end)
{
	uint64_t mask = q->dev->families[q->family].tick_mask;
	uint64_t from = 0;
	int64_t first = INT64_MAX, last = INT64_MIN;
	for (uint64_t pos = r->begin_at; places->at && pos < r->end_at && pos < places->count; pos++) {
		const struct clock_place *at = &places->at[pos];
		if (!at->timed)
			continue;
		if (first == INT64_MAX)
			from = at->start; /* distances from the first, so that a narrow timestamp's wrap orders right */
		int64_t a = ticks_between(from, at->start, mask), b = ticks_between(from, at->end, mask);
		first = a < first ? a : first;
		last = b > last ? b : last;
	}
	if (first == INT64_MAX)
		return false;
	*start = (from + (uint64_t)first) & mask;
	*end = (from + (uint64_t)last) & mask;
	return true;
}
