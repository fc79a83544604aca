/* Findings from a profile's aggregates: which ones apply, their numbers, their order. */
#include "findings.h"

#include "profile/profile.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memops_findings.h"
#include "model/model.h"

const char *
hesper_finding_kind_name(enum hesper_finding_kind kind)
{
	switch (kind) {
	case HESPER_FINDING_GPU_IDLE: return "gpu_idle";
	case HESPER_FINDING_LAUNCH_BOUND: return "launch_bound";
	case HESPER_FINDING_ROUND_TRIPS: return "round_trips";
	case HESPER_FINDING_UNDERFILLED: return "underfilled";
	case HESPER_FINDING_HESPER_SHARE: return "hesper_share";
	case HESPER_FINDING_SLOW_MEMORY: return "slow_memory";
	}
	return "?";
}

double
hesper_finding_number(const struct hesper_finding *f, const char *key, double fallback)
{
	for (size_t i = 0; i < f->number_count; i++)
		if (strcmp(f->numbers[i].key, key) == 0)
			return f->numbers[i].value;
	return fallback;
}

const char *
hesper_gap_activity(const struct hesper_gap *g)
{
	const char *what = "nothing Vulkan";
	uint64_t most = g->other_ns;

	if (g->waiting_ns > most) {
		what = "waiting";
		most = g->waiting_ns;
	}
	if (g->recording_ns > most) {
		what = "recording";
		most = g->recording_ns;
	}
	if (g->submitting_ns > most)
		what = "submitting";
	return what;
}

/* A new finding at the end of @out (room is made by the caller). */
static struct hesper_finding *
add(struct hesper_findings *out, enum hesper_finding_kind kind, uint64_t at_stake)
{
	struct hesper_finding *f = &out->items[out->count++];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->time_at_stake_ns = at_stake;
	return f;
}

static void
number(struct hesper_finding *f, const char *key, double value)
{
	if (f->number_count < HESPER_FINDING_NUMBERS)
		f->numbers[f->number_count++] = (struct hesper_finding_number){key, isfinite(value) ? value : 0};
}

static void
queue_name(char *buf, size_t size, const struct hesper_queue_info *q)
{
	snprintf(buf, size, "queue %" PRIu32 ":%" PRIu32 ":%" PRIu32, q->device, q->family, q->index);
}

/* What the largest gaps of @q were mostly spent on, summed over them. */
static const char *
gaps_activity(const struct hesper_queue_info *q)
{
	struct hesper_gap sum = {0};

	for (uint32_t i = 0; i < q->gap_count; i++) {
		sum.waiting_ns += q->gaps[i].waiting_ns;
		sum.recording_ns += q->gaps[i].recording_ns;
		sum.submitting_ns += q->gaps[i].submitting_ns;
		sum.other_ns += q->gaps[i].other_ns;
	}
	return hesper_gap_activity(&sum);
}

static void
gpu_idle(const struct hesper_profile *p, const struct hesper_findings_settings *s, struct hesper_findings *out)
{
	for (size_t i = 0; i < p->queue_count; i++) {
		const struct hesper_queue_info *q = &p->queues[i];
		uint64_t wall = hesper_profile_busy_wall_ns(p); /* the capture window's, with one */
		double share = wall ? (double)q->idle_ns / (double)wall : 0;

		if (q->timed_batches < 2 || q->idle_ns < s->idle_min_ns || share < s->idle_share || !wall)
			continue;
		struct hesper_finding *f = add(out, HESPER_FINDING_GPU_IDLE, q->idle_ns);
		const char *doing = gaps_activity(q);

		f->queue = q;
		queue_name(f->about, sizeof(f->about), q);
		number(f, "idle_ns", (double)q->idle_ns);
		number(f, "wall_ns", (double)wall);
		number(f, "idle_share", share);
		number(f, "busy_ns", (double)q->busy_ns);
		number(f, "batches", (double)q->timed_batches);
		number(f, "mean_gap_ns", (double)q->idle_ns / (double)(q->timed_batches - 1));
		number(f, "largest_gap_ns", q->gap_count ? (double)q->gaps[0].length_ns : 0);
		if (strcmp(doing, "waiting") == 0)
			snprintf(f->advice, sizeof(f->advice),
				 "in the largest gaps the submitting thread was waiting on the GPU: submit the next "
				 "batch before waiting for the last (keep two in flight)");
		else if (strcmp(doing, "recording") == 0)
			snprintf(f->advice, sizeof(f->advice),
				 "in the largest gaps the submitting thread was recording: record ahead, or reuse "
				 "command buffers");
		else if (strcmp(doing, "submitting") == 0)
			snprintf(f->advice, sizeof(f->advice),
				 "the largest gaps were spent submitting: fewer, larger submissions");
		else
			snprintf(f->advice, sizeof(f->advice),
				 "in the largest gaps the submitting thread did nothing Vulkan: queue work earlier or "
				 "overlap the host's work with the GPU's");
	}
}

/* The cost of one dispatch: the first device that measured one (0 when none did). */
static const struct hesper_device_info *
measured_device(const struct hesper_profile *p)
{
	for (size_t i = 0; i < p->device_count; i++)
		if (p->devices[i].dispatch_cost_ns)
			return &p->devices[i];
	return NULL;
}

static int
launch_bound(const struct hesper_profile *p, const struct hesper_findings_settings *s, struct hesper_findings *out,
	     struct hesper_kernel **rows, size_t n)
{
	const struct hesper_device_info *d = measured_device(p);

	if (!d)
		return 0;
	uint64_t limit = (uint64_t)llround(s->launch_factor * (double)d->dispatch_cost_ns);
	for (size_t i = 0; i < n; i++) {
		const struct hesper_kernel *k = rows[i];
		uint64_t shorter = hesper_stats_count_below(&k->timed, limit);

		/* Sampled or submit mode: the timed share stands for the rest. */
		if (k->timed.count && k->count > k->timed.count)
			shorter = (uint64_t)llround((double)shorter * (double)k->count / (double)k->timed.count);
		if (!shorter || shorter < s->launch_bound_min)
			continue;
		uint64_t at_stake = shorter * d->dispatch_cost_ns;
		uint64_t total = hesper_kernel_total_ns(k);
		if (at_stake > total)
			at_stake = total;
		struct hesper_finding *f = add(out, HESPER_FINDING_LAUNCH_BOUND, at_stake);
		snprintf(f->about, sizeof(f->about), "%s", k->name);
		number(f, "dispatches", (double)k->count);
		number(f, "launch_bound_dispatches", (double)shorter);
		number(f, "dispatch_cost_ns", (double)d->dispatch_cost_ns);
		number(f, "limit_ns", (double)limit);
		number(f, "mean_ns", k->timed.mean_ns);
		number(f, "total_ns", (double)total);
		char cost[32];
		hesper_format_duration(cost, sizeof(cost), (double)d->dispatch_cost_ns);
		snprintf(f->advice, sizeof(f->advice),
			 "%" PRIu64 " dispatches each shorter than %.3g times the cost of a dispatch (%s): batch them "
			 "into fewer, larger dispatches or fuse the kernel with its neighbours",
			 shorter, s->launch_factor, cost);
	}
	return 0;
}

static void
round_trips(const struct hesper_profile *p, const struct hesper_findings_settings *s, struct hesper_findings *out)
{
	for (size_t i = 0; i < p->queue_count; i++) {
		const struct hesper_queue_info *q = &p->queues[i];
		double share = q->submit_calls ? (double)q->round_trips / (double)q->submit_calls : 0;

		if (q->round_trips < s->round_trip_min || q->round_trips == 0 || share < s->round_trip_share)
			continue;
		struct hesper_finding *f = add(out, HESPER_FINDING_ROUND_TRIPS, q->idle_ns);
		queue_name(f->about, sizeof(f->about), q);
		number(f, "submit_calls", (double)q->submit_calls);
		number(f, "round_trips", (double)q->round_trips);
		number(f, "round_trip_share", share);
		number(f, "idle_ns", (double)q->idle_ns);
		number(f, "mean_gap_ns",
		       q->timed_batches > 1 ? (double)q->idle_ns / (double)(q->timed_batches - 1) : 0);
		/* The idle time gpu_idle already counts for this queue: said, so that no one adds the two up. */
		bool counted = false;
		for (size_t k = 0; k + 1 < out->count; k++)
			counted |= out->items[k].kind == HESPER_FINDING_GPU_IDLE && out->items[k].queue == q;
		snprintf(f->advice, sizeof(f->advice),
			 "%s%" PRIu64 " of %" PRIu64
			 " submissions were waited for before the next one: the queue drains "
			 "between batches; submit more work per wait, or wait for an earlier batch (fences per frame)",
			 counted ? "the same idle time as gpu_idle's on this queue, not more: " : "", q->round_trips,
			 q->submit_calls);
	}
}

/*
 * An under-filled kernel's occupancy, where it is known, in @f's numbers and after its advice
 * (@tail, @size bytes): the work groups resident per SM, those that fill the device once,
 * against its most common launch (row @k's), and the share of the device that launch fills.
 */
static void
underfilled_occupancy(const struct hesper_profile *p, struct hesper_finding *f, const struct hesper_kernel *k,
		      char *tail, size_t size)
{
	const struct hesper_pipeline_stats *st = hesper_row_stats(p, k->name);
	const struct hesper_shape_count *top = hesper_shapes_most_common(&k->shapes);
	struct hesper_occupancy o;
	uint64_t device_groups;

	if (!st)
		return;
	o = hesper_stats_occupancy(p, st);
	device_groups = hesper_occupancy_device_groups(p, st, &o);
	if (!device_groups)
		return;
	uint64_t launch = top ? hesper_shape_groups(top->groups) : 0;
	double fill = hesper_occupancy_fill(launch, device_groups);
	number(f, "occupancy_share", o.share);
	number(f, "groups_per_sm", o.groups_per_sm);
	number(f, "device_groups", (double)device_groups);
	if (fill >= 0) {
		number(f, "launch_groups", (double)launch);
		number(f, "device_fill_share", fill);
	}
	int n = snprintf(tail, size,
			 "; at its occupancy (%.0f%%, %s) %" PRIu32 " work groups fit an SM, %" PRIu64
			 " fill the device once",
			 100.0 * o.share, hesper_occupancy_limit_word(o.limit), o.groups_per_sm, device_groups);
	if (n > 0 && (size_t)n < size && fill >= 0)
		snprintf(tail + n, size - (size_t)n, ", and its most common launch has %" PRIu64 " (%.1f%% of that)",
			 launch, 100.0 * fill);
}

static void
underfilled(const struct hesper_profile *p, const struct hesper_findings_settings *s, struct hesper_findings *out,
	    struct hesper_kernel **rows, size_t n)
{
	uint32_t units = 0;

	for (size_t i = 0; i < p->device_count; i++)
		if (p->devices[i].compute_units > units)
			units = p->devices[i].compute_units;
	for (size_t i = 0; i < n; i++) {
		const struct hesper_kernel *u = rows[i];
		const struct hesper_kernel *k = hesper_kernel_table_find(p->kernels, u->name);

		if (!units || u->count < s->underfilled_min || u->count == 0)
			continue;
		struct hesper_finding *f = add(out, HESPER_FINDING_UNDERFILLED, u->timed.total_ns);
		snprintf(f->about, sizeof(f->about), "%s", u->name);
		number(f, "dispatches", k ? (double)k->count : 0);
		number(f, "underfilled_dispatches", (double)u->count);
		number(f, "compute_units", units);
		number(f, "idle_unit_ns", (double)u->timed.total_ns);
		int n = snprintf(f->advice, sizeof(f->advice),
				 "%" PRIu64 " dispatches had fewer work groups than the device's %" PRIu32
				 " compute units: use smaller work groups, or more of them",
				 u->count, units);
		if (n > 0 && (size_t)n < sizeof(f->advice))
			underfilled_occupancy(p, f, k ? k : u, f->advice + n, sizeof(f->advice) - (size_t)n);
	}
}

static void
hesper_share(const struct hesper_profile *p, const struct hesper_findings_settings *s, struct hesper_findings *out)
{
	const struct hesper_device_info *d = measured_device(p);
	bool per_dispatch = strcmp(p->mode, "dispatch") == 0;
	uint64_t gpu_ns = d && per_dispatch ? d->timestamp_cost_ns * p->collected : 0;
	uint64_t busy = hesper_profile_gpu_busy_ns(p);
	double host_share = p->wall_ns ? (double)p->hook_ns / (double)p->wall_ns : 0;
	double gpu_share = busy ? (double)gpu_ns / (double)busy : 0;

	if (gpu_share > 1)
		gpu_share = 1;
	if ((host_share < s->hesper_share && gpu_share < s->hesper_share) || (!p->hook_ns && !gpu_ns))
		return;
	struct hesper_finding *f = add(out, HESPER_FINDING_HESPER_SHARE, p->hook_ns + gpu_ns);
	snprintf(f->about, sizeof(f->about), "Hesper");
	number(f, "hook_ns", (double)p->hook_ns);
	number(f, "host_share", host_share);
	number(f, "timestamp_cost_ns", d ? (double)d->timestamp_cost_ns : 0);
	number(f, "timed_dispatches", (double)p->collected);
	number(f, "gpu_ns", (double)gpu_ns);
	number(f, "gpu_share", gpu_share);
	number(f, "wall_ns", (double)p->wall_ns);
	/* HESPER_SAMPLE works in dispatch mode only (settings.md): the other modes are not told of it */
	if (per_dispatch)
		snprintf(f->advice, sizeof(f->advice),
			 "Hesper's own cost is large here: HESPER_MODE=clock HESPER_CLOCK_ISOLATED=span times every "
			 "dispatch from inside its kernel, with no timestamps between dispatches; HESPER_MODE=submit "
			 "times submissions only; HESPER_SAMPLE=N times every N-th dispatch of each kernel");
	else if (strcmp(p->mode, "clock") == 0)
		snprintf(f->advice, sizeof(f->advice),
			 "Hesper's own host cost is large here: HESPER_MODE=submit times submissions only, and "
			 "binds nothing for each dispatch");
	else
		snprintf(f->advice, sizeof(f->advice),
			 "Hesper's own host cost is large here: its hooks see every recorded command in any mode, so "
			 "the program's own host timings include about this hook time");
}

static void
slow_memory(const struct hesper_profile *p, const struct hesper_findings_settings *s, struct hesper_findings *out)
{
	struct hesper_memops_finding slow[HESPER_MEMOP_KINDS];
	size_t n = hesper_memops_slow(p, s->slow_memory_share, slow, HESPER_MEMOP_KINDS);

	for (size_t i = 0; i < n && i < HESPER_MEMOP_KINDS; i++) {
		struct hesper_finding *f = add(out, HESPER_FINDING_SLOW_MEMORY, slow[i].excess_ns);
		snprintf(f->about, sizeof(f->about), "%s", slow[i].kind);
		number(f, "operations", (double)slow[i].count);
		number(f, "timed_ns", (double)slow[i].timed_ns);
		number(f, "bytes", (double)slow[i].bytes);
		number(f, "mean_gbps", slow[i].mean_gbps);
		number(f, "best_gbps", slow[i].best_gbps);
		number(f, "excess_ns", (double)slow[i].excess_ns);
		snprintf(f->advice, sizeof(f->advice),
			 "%s moved %.3g GB/s on average against %.3g GB/s for its fastest single operation: "
			 "batch small operations into fewer large ones, and keep them off the critical path",
			 slow[i].kind, slow[i].mean_gbps, slow[i].best_gbps);
	}
}

static int
by_stake(const void *a, const void *b)
{
	const struct hesper_finding *x = a, *y = b;

	if (x->time_at_stake_ns != y->time_at_stake_ns)
		return x->time_at_stake_ns > y->time_at_stake_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->about, y->about);
}

/* The findings read back with @p, their gap lists pointed at their queues' rows again. */
static int
copy_loaded(const struct hesper_profile *p, struct hesper_findings *out)
{
	if (!p->loaded_finding_count)
		return 0;
	out->items = calloc(p->loaded_finding_count, sizeof(*out->items));
	if (!out->items)
		return -1;
	memcpy(out->items, p->loaded_findings, p->loaded_finding_count * sizeof(*out->items));
	out->count = p->loaded_finding_count;
	for (size_t i = 0; i < out->count; i++) {
		struct hesper_finding *f = &out->items[i];

		f->queue = NULL;
		for (size_t q = 0; f->kind == HESPER_FINDING_GPU_IDLE && q < p->queue_count; q++) {
			char name[64];

			queue_name(name, sizeof(name), &p->queues[q]);
			if (strcmp(name, f->about) == 0)
				f->queue = &p->queues[q];
		}
	}
	return 0;
}

/* The static name of a finding's number @key, or NULL when it is not one Hesper writes. */
const char *
hesper_finding_number_key(const char *key)
{
	static const char *const known[] = {
		"idle_ns",
		"wall_ns",
		"idle_share",
		"busy_ns",
		"batches",
		"mean_gap_ns",
		"largest_gap_ns",
		"submit_calls",
		"round_trips",
		"round_trip_share",
		"dispatches",
		"launch_bound_dispatches",
		"dispatch_cost_ns",
		"limit_ns",
		"mean_ns",
		"total_ns",
		"underfilled_dispatches",
		"compute_units",
		"idle_unit_ns",
		"occupancy_share",
		"groups_per_sm",
		"device_groups",
		"launch_groups",
		"device_fill_share",
		"hook_ns",
		"host_share",
		"timestamp_cost_ns",
		"timed_dispatches",
		"gpu_ns",
		"gpu_share",
		"operations",
		"timed_ns",
		"bytes",
		"mean_gbps",
		"best_gbps",
		"excess_ns",
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(known[i], key) == 0)
			return known[i];
	return NULL;
}

/* The kind named @name (hesper_finding_kind_name), or -1. */
int
hesper_finding_kind_from_name(const char *name)
{
	for (int k = HESPER_FINDING_GPU_IDLE; k <= HESPER_FINDING_SLOW_MEMORY; k++)
		if (strcmp(hesper_finding_kind_name((enum hesper_finding_kind)k), name) == 0)
			return k;
	return -1;
}

int
hesper_findings_compute(const struct hesper_profile *p, struct hesper_findings *out)
{
	struct hesper_kernel **rows = NULL, **under = NULL;
	size_t n = 0, nu = 0;
	int ret = -1;

	out->items = NULL;
	out->count = 0;
	if (p->findings_loaded)
		return copy_loaded(p, out);
	if (!p->findings_ready || p->findings.off || p->from_events)
		return 0;
	if (hesper_kernel_table_rows(p->kernels, &rows, &n) != 0 ||
	    hesper_kernel_table_rows(p->underfilled, &under, &nu) != 0)
		goto out;
	/* At most one finding per queue and kind, per kernel and kind, and one of Hesper's. */
	out->items = calloc(2 * p->queue_count + n + nu + 1 + HESPER_MEMOP_KINDS, sizeof(*out->items));
	if (!out->items)
		goto out;
	gpu_idle(p, &p->findings, out);
	round_trips(p, &p->findings, out);
	launch_bound(p, &p->findings, out, rows, n);
	underfilled(p, &p->findings, out, under, nu);
	hesper_share(p, &p->findings, out);
	slow_memory(p, &p->findings, out);
	qsort(out->items, out->count, sizeof(*out->items), by_stake);
	ret = 0;
out:
	if (ret != 0)
		hesper_findings_free(out);
	free(rows);
	free(under);
	return ret;
}

void
hesper_findings_free(struct hesper_findings *f)
{
	free(f->items);
	f->items = NULL;
	f->count = 0;
}
