/* Findings from a profile's aggregates: which ones apply, their numbers, their order. */
#include "findings.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "memops_findings.h"
#include "report.h"

void
hesper_findings_settings_default(struct hesper_findings_settings *s)
{
	*s = (struct hesper_findings_settings){
		.off = false,
		.idle_share = 0.2,
		.idle_min_ns = 1000000,
		.launch_bound_min = 100,
		.launch_factor = 2.0,
		.round_trip_share = 0.5,
		.round_trip_min = 10,
		.underfilled_min = 100,
		.hesper_share = 0.1,
		.slow_memory_share = HESPER_MEMOPS_SLOW_FRACTION,
	};
}

/* Parses a non-negative finite number into *@out; false when @text is not one. */
static bool
parse_number(const char *text, size_t len, double *out)
{
	char buf[64], *end;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, text, len);
	buf[len] = '\0';
	errno = 0;
	double v = strtod(buf, &end);
	if (errno || *end || !isfinite(v) || v < 0 || buf[0] == ' ')
		return false;
	*out = v;
	return true;
}

struct key {
	const char *name;
	bool share; /* a share in [0, 1], else a count (whole number) or a factor */
	bool whole;
	double max;
};

static const struct key keys[] = {
	{"idle_share", true, false, 1},          {"idle_min_us", false, true, 1e9},
	{"launch_bound_min", false, true, 1e12}, {"launch_factor", false, false, 1e6},
	{"round_trip_share", true, false, 1},    {"round_trip_min", false, true, 1e12},
	{"underfilled_min", false, true, 1e12},  {"hesper_share", true, false, 1},
	{"slow_memory_share", true, false, 1},
};

static void
set_key(struct hesper_findings_settings *s, size_t k, double v)
{
	switch (k) {
	case 0: s->idle_share = v; break;
	case 1: s->idle_min_ns = (uint64_t)v * 1000u; break;
	case 2: s->launch_bound_min = (uint64_t)v; break;
	case 3: s->launch_factor = v; break;
	case 4: s->round_trip_share = v; break;
	case 5: s->round_trip_min = (uint64_t)v; break;
	case 6: s->underfilled_min = (uint64_t)v; break;
	case 7: s->hesper_share = v; break;
	default: s->slow_memory_share = v; break;
	}
}

int
hesper_findings_settings_parse(struct hesper_findings_settings *s, const char *text, char *err, size_t err_size)
{
	struct hesper_findings_settings next = *s;
	const char *p = text ? text : "";

	if (err && err_size)
		err[0] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (strcmp(p, "off") == 0 || strcmp(p, "off\n") == 0) {
		s->off = true;
		return 0;
	}
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		size_t k = 0, n = sizeof(keys) / sizeof(keys[0]);
		double v = 0;

		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\n'))
			len--;
		if (len == 0 && end) {
			p = end + 1;
			continue;
		}
		if (!eq)
			goto bad;
		while (k < n &&
		       !((size_t)(eq - p) == strlen(keys[k].name) && memcmp(p, keys[k].name, (size_t)(eq - p)) == 0))
			k++;
		if (k == n || !parse_number(eq + 1, len - (size_t)(eq + 1 - p), &v) || v > keys[k].max ||
		    (keys[k].whole && v != floor(v)))
			goto bad;
		set_key(&next, k, v);
		p = end ? end + 1 : p + strlen(p);
		while (*p == ' ' || *p == '\t')
			p++;
		continue;
	bad:
		if (err && err_size)
			snprintf(err, err_size,
				 "HESPER_FINDINGS: '%.*s' is not one of off, idle_share=0..1, idle_min_us=N, "
				 "launch_bound_min=N, launch_factor=X, round_trip_share=0..1, round_trip_min=N, "
				 "underfilled_min=N, hesper_share=0..1; the defaults are kept",
				 (int)(len > 80 ? 80 : len), p);
		return -1;
	}
	*s = next;
	return 0;
}

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

void
hesper_gaps_keep(struct hesper_queue_info *q, const struct hesper_gap *g)
{
	uint32_t at = q->gap_count;

	while (at > 0 && q->gaps[at - 1].length_ns < g->length_ns)
		at--;
	if (at >= HESPER_TOP_GAPS)
		return;
	uint32_t kept = q->gap_count < HESPER_TOP_GAPS ? q->gap_count + 1 : HESPER_TOP_GAPS;
	memmove(&q->gaps[at + 1], &q->gaps[at], (kept - 1 - at) * sizeof(q->gaps[0]));
	q->gaps[at] = *g;
	q->gap_count = kept;
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

uint64_t
hesper_stats_count_below(const struct hesper_stats *s, uint64_t limit_ns)
{
	const struct hesper_histogram *h = &s->hist;
	uint64_t n = 0;

	for (int row = h->lo_row; row <= h->hi_row; row++) {
		for (int sub = 0; sub < HESPER_HISTOGRAM_SUB_BUCKETS; sub++) {
			uint64_t lo, hi,
				c = h->counts[(size_t)(row - h->lo_row) * HESPER_HISTOGRAM_SUB_BUCKETS + (size_t)sub];

			if (!c)
				continue;
			hesper_histogram_bucket_range(row, sub, &lo, &hi);
			if (lo + (hi - lo) / 2 < limit_ns)
				n += c;
		}
	}
	return n;
}

double
hesper_underfill_share(const uint32_t groups[3], uint32_t compute_units)
{
	if (!compute_units || !groups[0] || !groups[1] || !groups[2])
		return 0;
	uint64_t total = (uint64_t)groups[0] * groups[1] * groups[2];
	if (total >= compute_units)
		return 0;
	return (double)(compute_units - total) / (double)compute_units;
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
		double share = p->wall_ns ? (double)q->idle_ns / (double)p->wall_ns : 0;

		if (q->timed_batches < 2 || q->idle_ns < s->idle_min_ns || share < s->idle_share || !p->wall_ns)
			continue;
		struct hesper_finding *f = add(out, HESPER_FINDING_GPU_IDLE, q->idle_ns);
		const char *doing = gaps_activity(q);

		f->queue = q;
		queue_name(f->about, sizeof(f->about), q);
		number(f, "idle_ns", (double)q->idle_ns);
		number(f, "wall_ns", (double)p->wall_ns);
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
		snprintf(f->advice, sizeof(f->advice),
			 "%" PRIu64 " of %" PRIu64 " submissions were waited for before the next one: the queue drains "
			 "between batches; submit more work per wait, or wait for an earlier batch (fences per frame)",
			 q->round_trips, q->submit_calls);
	}
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
		snprintf(f->advice, sizeof(f->advice),
			 "%" PRIu64 " dispatches had fewer work groups than the device's %" PRIu32
			 " compute units: use smaller work groups, or more of them",
			 u->count, units);
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
	if (per_dispatch)
		snprintf(f->advice, sizeof(f->advice),
			 "Hesper's own cost is large here: HESPER_MODE=submit times submissions only (no timestamps "
			 "between dispatches), HESPER_SAMPLE=N times every N-th dispatch of each kernel");
	else
		snprintf(f->advice, sizeof(f->advice),
			 "Hesper's own host cost is large here: HESPER_SAMPLE=N records fewer dispatches' details");
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
	/* clang-format off */
	static const char *const known[] = {
		"idle_ns", "wall_ns", "idle_share", "busy_ns", "batches", "mean_gap_ns", "largest_gap_ns",
		"submit_calls", "round_trips", "round_trip_share", "dispatches", "launch_bound_dispatches",
		"dispatch_cost_ns", "limit_ns", "mean_ns", "total_ns", "underfilled_dispatches", "compute_units",
		"idle_unit_ns", "hook_ns", "host_share", "timestamp_cost_ns", "timed_dispatches", "gpu_ns", "gpu_share",
		"operations", "timed_ns", "bytes", "mean_gbps", "best_gbps", "excess_ns",
	};
	/* clang-format on */

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

/* A number as JSON: whole numbers without a fraction, others with 17 digits. */
static void
put_number(FILE *out, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.17g", v);
}

int
hesper_findings_write_json(FILE *out, const struct hesper_findings *f)
{
	fputc('[', out);
	for (size_t i = 0; i < f->count; i++) {
		const struct hesper_finding *x = &f->items[i];

		fprintf(out, "%s{\"kind\": \"%s\", \"time_at_stake_ns\": %" PRIu64 ", \"numbers\": {",
			i ? ",\n    " : "\n    ", hesper_finding_kind_name(x->kind), x->time_at_stake_ns);
		for (size_t k = 0; k < x->number_count; k++) {
			fprintf(out, "%s\"%s\": ", k ? ", " : "", x->numbers[k].key);
			put_number(out, x->numbers[k].value);
		}
		fputs("}, \"about\": [", out);
		hesper_json_write_string(out, x->about);
		fputs("], \"advice\": ", out);
		hesper_json_write_string(out, x->advice);
		if (x->queue) {
			fputs(", \"gaps\": [", out);
			for (uint32_t g = 0; g < x->queue->gap_count; g++) {
				const struct hesper_gap *gap = &x->queue->gaps[g];

				fprintf(out,
					"%s{\"start_ns\": %" PRIu64 ", \"length_ns\": %" PRIu64
					", \"waiting_ns\": %" PRIu64 ", \"recording_ns\": %" PRIu64
					", \"submitting_ns\": %" PRIu64 ", \"other_ns\": %" PRIu64
					", \"thread\": %" PRIu32 ", \"submission\": %" PRIu64 ", \"doing\": \"%s\"}",
					g ? ", " : "", gap->start_ns, gap->length_ns, gap->waiting_ns,
					gap->recording_ns, gap->submitting_ns, gap->other_ns, gap->thread,
					gap->submission, hesper_gap_activity(gap));
			}
			fputc(']', out);
		}
		fputc('}', out);
	}
	fputs(f->count ? "\n  ]" : "]", out);
	return ferror(out) ? -1 : 0;
}

int
hesper_findings_write_text(FILE *out, const struct hesper_findings *f)
{
	if (!f->count)
		return 0;
	fputs("\nFindings (largest time at stake first):\n", out);
	for (size_t i = 0; i < f->count; i++) {
		const struct hesper_finding *x = &f->items[i];
		char at[32];

		hesper_format_duration(at, sizeof(at), (double)x->time_at_stake_ns);
		fprintf(out, "  %zu. %s, %s: %s at stake\n", i + 1, hesper_finding_kind_name(x->kind), x->about, at);
		fputs("     ", out);
		for (size_t k = 0; k < x->number_count; k++) {
			double v = x->numbers[k].value;

			fprintf(out, "%s%s=", k ? " " : "", x->numbers[k].key);
			if (v == floor(v) && fabs(v) < 9e15)
				fprintf(out, "%.0f", v);
			else
				fprintf(out, "%.3g", v);
		}
		fputc('\n', out);
		for (uint32_t g = 0; x->queue && g < x->queue->gap_count; g++) {
			const struct hesper_gap *gap = &x->queue->gaps[g];
			char len[32];

			hesper_format_duration(len, sizeof(len), (double)gap->length_ns);
			fprintf(out,
				"     gap %" PRIu32 ": %s before submission %" PRIu64 " (thread %" PRIu32 "): %s\n",
				g + 1, len, gap->submission, gap->thread, hesper_gap_activity(gap));
		}
		fprintf(out, "     %s\n", x->advice);
	}
	return ferror(out) ? -1 : 0;
}
