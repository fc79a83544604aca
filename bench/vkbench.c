/*
 * vkbench: the workload side of Hesper's overhead and accuracy benchmark.
 *
 * One process runs one workload, one way, R times after a warm-up iteration, and
 * prints one JSON line with every repeat's measurements and their medians:
 *
 *   vkbench --workload empty|short|long|resubmit|threads|million|indirect|tiny --way WAY
 *           [--repeat R] [--scale S] [--count-scale C] [--iters N] [--json] ...
 *   vkbench --calibrate short|long [--scale S] ...      (prints the loop length to use)
 *
 * Ways: "plain" adds no timestamps of its own around dispatches; "manual" puts the
 * program's own TOP_OF_PIPE/BOTTOM_OF_PIPE pair around every dispatch (queries reset
 * once per command buffer, at its start): the floor any per-dispatch timer pays;
 * "chained" writes one BOTTOM_OF_PIPE timestamp after every dispatch (and one before
 * the first), the scheme Hesper itself uses, so Hesper's cost beyond its timestamps
 * shows against it; "barriers" puts a compute-to-compute barrier between dispatches
 * (isolated kernels, for comparing per-kernel means between Hesper's modes); the
 * barrier-* ways and chained-compute time barrier-separated or back-to-back dispatches
 * with timestamps placed or staged otherwise (vkbench_vk.h lists them), to measure what
 * each placement costs the GPU.
 * Hesper's modes are chosen from outside (LD_PRELOAD, HESPER_MODE, HESPER_SAMPLE);
 * this program does not know about Hesper.
 *
 * Every command buffer starts and ends with the program's own timestamp pair, so
 * "GPU time" is always whole-submission time read after the fence (summed over the
 * submissions of a repeat, and over the threads' command buffers). Host times come
 * from CLOCK_MONOTONIC: recording (vkBeginCommandBuffer..vkEndCommandBuffer), the
 * vkQueueSubmit call, and "wall" (submit + fence wait; for "threads", the whole
 * parallel iteration from release to the last thread done, recording included).
 * Peak memory is getrusage's ru_maxrss at the end of the run.
 *
 * Exit status: 0 ok, 1 bad usage, 2 a Vulkan call failed.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "write/write.h"
#include "vkbench_vk.h"

#define DEFAULT_REPEAT 5u
#define DEFAULT_GROUPS 1056u      /* 8 work groups of 64 per SM of an H200 (132 SMs) */
#define SHORT_TARGET_NS 7000.0    /* the "~7 µs" kernel, back-to-back, on an H200 */
#define LONG_TARGET_NS 10000000.0 /* the "~10 ms" kernel */
#define MAX_ITERS (1u << 28)
#define MAX_THREADS 64u

struct workload {
	const char *name;
	enum vb_kernel_kind kernel;
	uint32_t dispatches; /* per command buffer (per thread for "threads") */
	uint32_t submits;    /* per repeat */
	bool record_once;    /* one recording, resubmitted; else re-recorded every repeat */
	uint32_t threads;
	bool indirect; /* vkCmdDispatchIndirect from host-written arguments */
};

static const struct workload workloads[] = {
	{"empty", VB_KERNEL_EMPTY, 20000, 1, false, 1, false},
	{"short", VB_KERNEL_SHORT, 2000, 1, false, 1, false},
	{"long", VB_KERNEL_LONG, 200, 1, false, 1, false},
	{"resubmit", VB_KERNEL_SHORT, 1000, 10, true, 1, false},
	{"threads", VB_KERNEL_EMPTY, 2500, 1, false, 8, false},
	{"million", VB_KERNEL_EMPTY, 100000, 100, true, 1, false},
	{"indirect", VB_KERNEL_SHORT, 2000, 1, false, 1, true},
	{"tiny", VB_KERNEL_TINY, 20000, 1, false, 1, false},
};

#define WORKLOAD_COUNT (sizeof(workloads) / sizeof(workloads[0]))

static const char *const kernel_names[VB_KERNEL_COUNT] = {
	[VB_KERNEL_EMPTY] = "vkbench_empty",
	[VB_KERNEL_SHORT] = "vkbench_short",
	[VB_KERNEL_LONG] = "vkbench_long",
	[VB_KERNEL_TINY] = "vkbench_tiny",
};

static const char *const kernel_words[VB_KERNEL_COUNT] = {
	[VB_KERNEL_EMPTY] = "empty",
	[VB_KERNEL_SHORT] = "short",
	[VB_KERNEL_LONG] = "long",
	[VB_KERNEL_TINY] = "tiny",
};

struct options {
	struct workload w;
	bool have_workload;
	enum vb_way way;
	uint32_t repeat;
	double scale;       /* multiplies the kernels' target durations */
	double count_scale; /* multiplies dispatches per command buffer */
	uint32_t iters;     /* 0: calibrate in-process */
	double target_ns;   /* 0: from the kernel and --scale */
	uint32_t groups;
	int queue_family;
	const char *spv_dir;
	const char *tag;
	bool json;
	int calibrate; /* kernel kind to calibrate, or -1 */
};

/* One repeat's measurements. */
struct sample {
	double gpu_ns;
	double wall_ns;
	double record_ns;
	double submit_ns;
	double gpu_span_ns; /* threads: earliest start to latest end across the threads */
};

/* The program's own per-dispatch durations (manual and chained ways). */
struct own_stats {
	double sum_ns;
	uint64_t count;
};

struct bench {
	struct vb_ctx vk;
	struct options opt;
	struct vb_kernel kernel;
	uint32_t dispatches;    /* per command buffer, after --count-scale */
	uint32_t iterations;    /* warm-up + repeats */
	struct sample *samples; /* one per iteration; [0] is the warm-up */
	double record_once_ns;
	struct own_stats own_all; /* warm-up included: what Hesper sees */
	struct own_stats own_measured;
	double calibrated_ns; /* back-to-back ns per dispatch at the chosen iters; <0 if not calibrated */
	uint32_t queues_used;
};

static long maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* ---------------------------------------------------------------- usage */

static void usage(FILE *f)
{
	fputs("usage: vkbench --workload empty|short|long|resubmit|threads|million|indirect|tiny --way "
	      "plain|manual|chained|barriers|barrier-pairs|barrier-chained|barrier-compute|barrier-top|chained-compute\n"
	      "               [--repeat R] [--scale S] [--count-scale C] [--iters N] [--groups G]\n"
	      "               [--dispatches N] [--submits N] [--threads N] [--kernel empty|short|long]\n"
	      "               [--target-us T] [--queue-family F] [--spv-dir DIR] [--tag TEXT] [--json]\n"
	      "       vkbench --calibrate short|long [--scale S] [--target-us T] [--groups G] [--json]\n",
	      f);
}

static void bad_usage(const char *fmt, const char *arg)
{
	fputs("vkbench: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr);
	exit(1);
}

static uint32_t parse_u32(const char *opt, const char *s, uint32_t min)
{
	uint32_t v;

	if (!vb_parse_u32(s, min, UINT32_MAX, &v))
		bad_usage("bad number for %s", opt);
	return v;
}

static double parse_positive(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !*s || !(v > 0) || !isfinite(v))
		bad_usage("bad value for %s", opt);
	return v;
}

static int kernel_by_word(const char *s)
{
	for (int i = 0; i < VB_KERNEL_COUNT; i++)
		if (strcmp(s, kernel_words[i]) == 0)
			return i;
	return -1;
}

static void parse_options(struct options *o, int argc, char **argv)
{
	long dispatches = -1, submits = -1, threads = -1;
	int kernel = -1;

	memset(o, 0, sizeof(*o));
	o->repeat = DEFAULT_REPEAT;
	o->scale = 1.0;
	o->count_scale = 1.0;
	o->groups = DEFAULT_GROUPS;
	o->queue_family = -1;
	o->calibrate = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--json") == 0) {
			o->json = true;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			exit(0);
		}
		if (!v)
			bad_usage("%s needs a value (or is unknown)", a);
		i++;
		if (strcmp(a, "--workload") == 0) {
			size_t k;

			for (k = 0; k < WORKLOAD_COUNT; k++)
				if (strcmp(v, workloads[k].name) == 0)
					break;
			if (k == WORKLOAD_COUNT)
				bad_usage("unknown workload '%s'", v);
			o->w = workloads[k];
			o->have_workload = true;
		} else if (strcmp(a, "--way") == 0) {
			int way = vb_way_by_word(v);

			if (way < 0)
				bad_usage("unknown way '%s'", v);
			o->way = (enum vb_way)way;
		} else if (strcmp(a, "--repeat") == 0) {
			o->repeat = parse_u32(a, v, 1);
		} else if (strcmp(a, "--scale") == 0) {
			o->scale = parse_positive(a, v);
		} else if (strcmp(a, "--count-scale") == 0) {
			o->count_scale = parse_positive(a, v);
		} else if (strcmp(a, "--iters") == 0) {
			o->iters = parse_u32(a, v, 0);
		} else if (strcmp(a, "--target-us") == 0) {
			o->target_ns = parse_positive(a, v) * 1e3;
		} else if (strcmp(a, "--groups") == 0) {
			o->groups = parse_u32(a, v, 1);
		} else if (strcmp(a, "--dispatches") == 0) {
			dispatches = parse_u32(a, v, 1);
		} else if (strcmp(a, "--submits") == 0) {
			submits = parse_u32(a, v, 1);
		} else if (strcmp(a, "--threads") == 0) {
			threads = parse_u32(a, v, 1);
			if (threads > MAX_THREADS)
				bad_usage("at most 64 threads (%s)", v);
		} else if (strcmp(a, "--kernel") == 0) {
			kernel = kernel_by_word(v);
			if (kernel < 0)
				bad_usage("unknown kernel '%s'", v);
		} else if (strcmp(a, "--queue-family") == 0) {
			o->queue_family = (int)parse_u32(a, v, 0);
		} else if (strcmp(a, "--spv-dir") == 0) {
			o->spv_dir = v;
		} else if (strcmp(a, "--tag") == 0) {
			o->tag = v;
		} else if (strcmp(a, "--calibrate") == 0) {
			o->calibrate = kernel_by_word(v);
			if (o->calibrate != VB_KERNEL_SHORT && o->calibrate != VB_KERNEL_LONG)
				bad_usage("--calibrate takes short or long, not '%s'", v);
		} else {
			bad_usage("unknown option '%s'", a);
		}
	}
	if (!o->have_workload && o->calibrate < 0)
		bad_usage("%s", "--workload or --calibrate is required");
	if (o->have_workload) {
		if (kernel >= 0)
			o->w.kernel = (enum vb_kernel_kind)kernel;
		if (dispatches > 0)
			o->w.dispatches = (uint32_t)dispatches;
		else
			o->w.dispatches = (uint32_t)fmax(1.0, round(o->w.dispatches * o->count_scale));
		if (submits > 0)
			o->w.submits = (uint32_t)submits;
		if (threads > 0)
			o->w.threads = (uint32_t)threads;
	}
	if (!o->spv_dir)
		o->spv_dir = getenv("VKBENCH_SPV_DIR");
	if (!o->spv_dir || !*o->spv_dir)
		o->spv_dir = vb_own_dir();
}

/* ---------------------------------------------------------------- recording */

/* Records @n dispatches of @k into @s the program's way. Returns the host nanoseconds recording took. */
static double record(struct bench *b, struct vb_slot *s, VkCommandBufferUsageFlags flags)
{
	double t0 = vb_now_ns();

	vb_record(&b->vk, s, &b->kernel, b->dispatches, b->opt.way, flags);
	return vb_now_ns() - t0;
}

/* Submits @s to queue @q (under the program's own queue lock). Returns ns inside vkQueueSubmit. */
static double submit(struct vb_ctx *vk, struct vb_slot *s, uint32_t q)
{
	VkSubmitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &s->cmd,
	};
	double t0, t1;
	VkResult r;

	pthread_mutex_lock(&vk->queue_locks[q]);
	t0 = vb_now_ns();
	r = vkQueueSubmit(vk->queues[q], 1, &info, s->fence);
	t1 = vb_now_ns();
	pthread_mutex_unlock(&vk->queue_locks[q]);
	VB_CHECK(r);
	return t1 - t0;
}

static void wait_fence(struct vb_ctx *vk, struct vb_slot *s)
{
	VB_CHECK(vkWaitForFences(vk->device, 1, &s->fence, VK_TRUE, UINT64_MAX));
	VB_CHECK(vkResetFences(vk->device, 1, &s->fence));
}

/* Reads @s's results; adds per-dispatch durations to @own. Returns whole-buffer ns. */
static double harvest(struct bench *b, struct vb_slot *s, struct own_stats *own)
{
	return vb_harvest(&b->vk, s, b->dispatches, b->opt.way, &own->sum_ns, &own->count);
}

static void add_own(struct own_stats *dst, const struct own_stats *src)
{
	dst->sum_ns += src->sum_ns;
	dst->count += src->count;
}

/* ---------------------------------------------------------------- calibration */

/* Back-to-back GPU ns per dispatch of @k with @iters, median of 3 submissions of @m dispatches. */
static double measure_kernel(struct bench *b, struct vb_slot *s, struct vb_kernel *k, uint32_t iters, uint32_t m)
{
	double t[3];

	k->iters = iters;
	for (int i = 0; i < 3; i++) {
		vb_record(&b->vk, s, k, m, VB_WAY_PLAIN, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
		submit(&b->vk, s, 0);
		wait_fence(&b->vk, s);
		t[i] = vb_harvest(&b->vk, s, m, VB_WAY_PLAIN, NULL, NULL) / m;
	}
	if (t[0] > t[1]) {
		double x = t[0];
		t[0] = t[1];
		t[1] = x;
	}
	if (t[2] < t[0])
		return t[0];
	return t[2] < t[1] ? t[2] : t[1];
}

static double target_ns(const struct options *o, enum vb_kernel_kind kind)
{
	if (o->target_ns > 0)
		return o->target_ns;
	return (kind == VB_KERNEL_LONG ? LONG_TARGET_NS : SHORT_TARGET_NS) * o->scale;
}

/*
 * Finds the loop length that makes @kind take the target time per dispatch when
 * dispatched back to back (the way the workloads run it), with a pipeline of its own
 * ("vkbench_calibrate"), so the calibration never shows up in the workload's rows.
 * Time per dispatch only grows with the loop length, but not in proportion: back to
 * back, short dispatches overlap and sit on the launch rate's floor, so a line through
 * two points overshoots by orders of magnitude. The length is bracketed by doubling,
 * then bisected.
 */
static uint32_t calibrate(struct bench *b, enum vb_kernel_kind kind, double *out_ns)
{
	double target = target_ns(&b->opt, kind);
	/* enough dispatches that back-to-back overlap settles as in the 2,000-dispatch workload */
	uint32_t m = target >= 1e6 ? 3 : 200;
	struct vb_kernel k;
	struct vb_slot s;

	vb_kernel_create(&b->vk, &k, kind, b->opt.spv_dir, "vkbench_calibrate", b->opt.groups);
	vb_slot_create(&b->vk, &s, 0, VB_WAY_PLAIN);
	measure_kernel(b, &s, &k, 1, 1); /* first-use compilation (lavapipe) out of the way */
	/*
	 * Half a second of work first: a GPU that was idle runs its first milliseconds at
	 * lower clocks, and a search started there lands far off.
	 */
	for (double t_start = vb_now_ns(); vb_now_ns() - t_start < 5e8;)
		if (measure_kernel(b, &s, &k, 1024, 20) <= 0)
			break;
	uint32_t lo = 1, hi = 1;
	double t_lo = measure_kernel(b, &s, &k, 1, m), t_hi = t_lo;
	while (t_hi < target && hi < MAX_ITERS) {
		lo = hi;
		t_lo = t_hi;
		hi = hi > MAX_ITERS / 2 ? MAX_ITERS : hi * 2;
		t_hi = measure_kernel(b, &s, &k, hi, m);
	}
	/* t(lo) < target <= t(hi) unless the bounds were hit; narrow to 1 % of the loop length */
	while (t_lo < target && hi - lo > 1 && hi - lo > lo / 100) {
		uint32_t mid = lo + (hi - lo) / 2;
		double t = measure_kernel(b, &s, &k, mid, m);

		if (t < target) {
			lo = mid;
			t_lo = t;
		} else {
			hi = mid;
			t_hi = t;
		}
	}
	bool take_lo = t_lo >= target || fabs(t_lo - target) < fabs(t_hi - target);
	vb_slot_destroy(&b->vk, &s);
	vb_kernel_destroy(&b->vk, &k);
	*out_ns = take_lo ? t_lo : t_hi;
	return take_lo ? lo : hi;
}

/* ---------------------------------------------------------------- workloads */

/* empty, short, long: one command buffer, re-recorded every repeat, one submission. */
static void run_single(struct bench *b)
{
	struct vb_slot s;

	vb_slot_create(&b->vk, &s, b->dispatches, b->opt.way);
	for (uint32_t it = 0; it < b->iterations; it++) {
		struct sample *x = &b->samples[it];
		struct own_stats own = {0};
		double t0;

		x->record_ns = record(b, &s, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
		t0 = vb_now_ns();
		x->submit_ns = submit(&b->vk, &s, 0);
		wait_fence(&b->vk, &s);
		x->wall_ns = vb_now_ns() - t0;
		x->gpu_ns = harvest(b, &s, &own);
		add_own(&b->own_all, &own);
		if (it > 0)
			add_own(&b->own_measured, &own);
	}
	vb_slot_destroy(&b->vk, &s);
}

/* resubmit, million: one recording, submitted (and waited for) several times per repeat. */
static void run_resubmit(struct bench *b)
{
	struct vb_slot s;

	vb_slot_create(&b->vk, &s, b->dispatches, b->opt.way);
	b->record_once_ns = record(b, &s, 0);
	for (uint32_t it = 0; it < b->iterations; it++) {
		struct sample *x = &b->samples[it];

		x->record_ns = b->record_once_ns;
		for (uint32_t j = 0; j < b->opt.w.submits; j++) {
			struct own_stats own = {0};
			double t0 = vb_now_ns();

			x->submit_ns += submit(&b->vk, &s, 0);
			wait_fence(&b->vk, &s);
			x->wall_ns += vb_now_ns() - t0;
			x->gpu_ns += harvest(b, &s, &own);
			add_own(&b->own_all, &own);
			if (it > 0)
				add_own(&b->own_measured, &own);
		}
	}
	vb_slot_destroy(&b->vk, &s);
}

struct worker {
	pthread_t thread;
	struct bench *b;
	uint32_t index;
	struct vb_slot slot;
	pthread_barrier_t *start, *done;
	/* this iteration */
	double record_ns, submit_ns;
	uint64_t begin_tick, end_tick;
	struct own_stats own;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	uint32_t q = w->index % b->vk.queue_count;

	for (uint32_t it = 0; it < b->iterations; it++) {
		pthread_barrier_wait(w->start);
		w->own = (struct own_stats){0};
		w->record_ns = record(b, &w->slot, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
		w->submit_ns = submit(&b->vk, &w->slot, q);
		wait_fence(&b->vk, &w->slot);
		harvest(b, &w->slot, &w->own);
		w->begin_tick = w->slot.ticks[0];
		w->end_tick = w->slot.ticks[1];
		pthread_barrier_wait(w->done);
	}
	return NULL;
}

/* Signed ns from @ref to @t on the masked timestamp clock. */
static double tick_offset_ns(const struct vb_ctx *vk, uint64_t ref, uint64_t t)
{
	uint64_t d = (t - ref) & vk->timestamp_mask;

	if (d > vk->timestamp_mask / 2)
		return -(double)((ref - t) & vk->timestamp_mask) * vk->period_ns;
	return (double)d * vk->period_ns;
}

/*
 * threads: T threads, each with its own pool and command buffer, record and submit
 * concurrently (to distinct queues when the family has enough, else sharing them under
 * the program's own lock). GPU time is the sum of the command buffers' own times; the
 * span from the earliest start to the latest end timestamp of the iteration (one device
 * clock for all queues of a family) is reported beside it.
 */
static void run_threads(struct bench *b)
{
	uint32_t n = b->opt.w.threads;
	struct worker *w = calloc(n, sizeof(*w));
	pthread_barrier_t start, done;

	if (!w)
		vb_fail("out of memory");
	pthread_barrier_init(&start, NULL, n + 1);
	pthread_barrier_init(&done, NULL, n + 1);
	for (uint32_t i = 0; i < n; i++) {
		w[i].b = b;
		w[i].index = i;
		w[i].start = &start;
		w[i].done = &done;
		vb_slot_create(&b->vk, &w[i].slot, b->dispatches, b->opt.way);
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0)
			vb_fail("pthread_create failed");
	}
	for (uint32_t it = 0; it < b->iterations; it++) {
		struct sample *x = &b->samples[it];
		double t0, lo = 0, hi = 0;

		pthread_barrier_wait(&start);
		t0 = vb_now_ns();
		pthread_barrier_wait(&done);
		x->wall_ns = vb_now_ns() - t0;
		for (uint32_t i = 0; i < n; i++) {
			double s = tick_offset_ns(&b->vk, w[0].begin_tick, w[i].begin_tick);
			double e = tick_offset_ns(&b->vk, w[0].begin_tick, w[i].end_tick);

			lo = i == 0 || s < lo ? s : lo;
			hi = i == 0 || e > hi ? e : hi;
			x->gpu_ns += vb_ticks_ns(&b->vk, w[i].begin_tick, w[i].end_tick);
			x->record_ns += w[i].record_ns;
			x->submit_ns += w[i].submit_ns;
			add_own(&b->own_all, &w[i].own);
			if (it > 0)
				add_own(&b->own_measured, &w[i].own);
		}
		x->gpu_span_ns = hi - lo;
	}
	for (uint32_t i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		vb_slot_destroy(&b->vk, &w[i].slot);
	}
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&done);
	free(w);
}

/* ---------------------------------------------------------------- output */

/* Median of field @off of the measured samples (warm-up excluded). */
static double median_of(const struct bench *b, size_t off)
{
	uint32_t n = b->iterations - 1;
	double *v = calloc(n, sizeof(double));
	double m;

	if (!v)
		vb_fail("out of memory");
	for (uint32_t i = 0; i < n; i++)
		memcpy(&v[i], (const char *)&b->samples[i + 1] + off, sizeof(double));
	m = vb_median(v, n);
	free(v);
	return m;
}

static void json_array(FILE *f, const char *key, const struct bench *b, size_t off)
{
	fprintf(f, ",\"%s\":[", key);
	for (uint32_t i = 1; i < b->iterations; i++) {
		double v;

		memcpy(&v, (const char *)&b->samples[i] + off, sizeof(double));
		fprintf(f, "%s%.1f", i > 1 ? "," : "", v);
	}
	fputc(']', f);
}

static void json_own(FILE *f, const char *key, const struct own_stats *o)
{
	fprintf(f, ",\"%s\":{\"count\":%llu,\"mean_ns\":", key, (unsigned long long)o->count);
	if (o->count)
		fprintf(f, "%.3f}", o->sum_ns / (double)o->count);
	else
		fputs("null}", f);
}

static void print_result(const struct bench *b, long rss_setup_kib, long rss_end_kib)
{
	const struct workload *w = &b->opt.w;
	uint64_t per_repeat = (uint64_t)b->dispatches * w->submits * w->threads;
	uint64_t submits_per_repeat = (uint64_t)w->submits * w->threads;
	double gpu = median_of(b, offsetof(struct sample, gpu_ns));
	double wall = median_of(b, offsetof(struct sample, wall_ns));
	double rec = median_of(b, offsetof(struct sample, record_ns));
	double sub = median_of(b, offsetof(struct sample, submit_ns));
	/* Dispatches recorded per repeat: resubmitted workloads record once. */
	uint64_t recorded = (uint64_t)b->dispatches * w->threads;
	FILE *f = stdout;

	if (!b->opt.json) {
		printf("%s/%s: %u x %llu dispatches (%s, iters %u): GPU %.3f us/dispatch, wall %.3f ms, "
		       "record %.1f ns/dispatch, submit %.2f us, own mean %.3f us, maxrss %ld KiB\n",
		       w->name, vb_way_word(b->opt.way), b->opt.repeat, (unsigned long long)per_repeat,
		       kernel_names[w->kernel], b->kernel.iters, gpu / per_repeat / 1e3, wall / 1e6, rec / recorded,
		       sub / submits_per_repeat / 1e3,
		       b->own_measured.count ? b->own_measured.sum_ns / b->own_measured.count / 1e3 : 0.0, rss_end_kib);
		return;
	}
	fputs("{\"vkbench\":1,\"workload\":", f);
	hesper_json_write_string(f, w->name);
	fputs(",\"way\":", f);
	hesper_json_write_string(f, vb_way_word(b->opt.way));
	fputs(",\"tag\":", f);
	hesper_json_write_string(f, b->opt.tag ? b->opt.tag : "");
	fputs(",\"device\":", f);
	hesper_json_write_string(f, b->vk.props.deviceName);
	fprintf(f,
		",\"driver_version\":%u,\"api_version\":%u,\"queue_family\":%u,\"family_queues\":%u,"
		"\"queues_used\":%u,\"timestamp_bits\":%u,\"timestamp_period_ns\":%.6g",
		b->vk.props.driverVersion, b->vk.props.apiVersion, b->vk.family, b->vk.family_queues, b->queues_used,
		b->vk.timestamp_bits, b->vk.period_ns);
	fputs(",\"kernel\":", f);
	hesper_json_write_string(f, kernel_names[w->kernel]);
	fprintf(f, ",\"iters\":%u,\"groups\":%u,\"calibrated_ns\":", b->kernel.iters, b->kernel.groups);
	if (b->calibrated_ns >= 0)
		fprintf(f, "%.1f", b->calibrated_ns);
	else
		fputs("null", f);
	fprintf(f,
		",\"scale\":%g,\"count_scale\":%g,\"repeat\":%u,\"warmup\":1,\"threads\":%u,"
		"\"dispatches_per_cb\":%u,\"submits_per_repeat\":%llu,\"dispatches_per_repeat\":%llu,"
		"\"recorded_per_repeat\":%llu,\"record_once\":%s",
		b->opt.scale, b->opt.count_scale, b->opt.repeat, w->threads, b->dispatches,
		(unsigned long long)submits_per_repeat, (unsigned long long)per_repeat, (unsigned long long)recorded,
		w->record_once ? "true" : "false");
	fprintf(f, ",\"total_dispatches\":%llu,\"total_submits\":%llu", (unsigned long long)per_repeat * b->iterations,
		(unsigned long long)submits_per_repeat * b->iterations);
	json_array(f, "gpu_ns", b, offsetof(struct sample, gpu_ns));
	json_array(f, "wall_ns", b, offsetof(struct sample, wall_ns));
	json_array(f, "record_ns", b, offsetof(struct sample, record_ns));
	json_array(f, "submit_ns", b, offsetof(struct sample, submit_ns));
	if (w->threads > 1)
		json_array(f, "gpu_span_ns", b, offsetof(struct sample, gpu_span_ns));
	fprintf(f,
		",\"median\":{\"gpu_ns\":%.1f,\"gpu_ns_per_dispatch\":%.3f,\"wall_ns\":%.1f,"
		"\"wall_ns_per_dispatch\":%.3f,\"record_ns_per_dispatch\":%.3f,\"submit_ns_per_submit\":%.1f}",
		gpu, gpu / per_repeat, wall, wall / per_repeat, rec / recorded, sub / submits_per_repeat);
	json_own(f, "own", &b->own_measured);
	json_own(f, "own_all", &b->own_all);
	fprintf(f, ",\"maxrss_setup_kib\":%ld,\"maxrss_kib\":%ld}\n", rss_setup_kib, rss_end_kib);
	fflush(f);
}

/* ---------------------------------------------------------------- main */

static int run_calibration(struct bench *b)
{
	double ns;
	uint32_t iters = calibrate(b, (enum vb_kernel_kind)b->opt.calibrate, &ns);

	if (b->opt.json) {
		printf("{\"calibrate\":\"%s\",\"iters\":%u,\"ns_per_dispatch\":%.1f,\"target_ns\":%.1f,\"groups\":%u,"
		       "\"device\":",
		       kernel_words[b->opt.calibrate], iters, ns, target_ns(&b->opt, b->opt.calibrate), b->opt.groups);
		hesper_json_write_string(stdout, b->vk.props.deviceName);
		puts("}");
	} else {
		printf("%s: iters %u -> %.1f ns per dispatch (target %.1f)\n", kernel_words[b->opt.calibrate], iters,
		       ns, target_ns(&b->opt, b->opt.calibrate));
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench *b = calloc(1, sizeof(*b));
	long rss_setup;

	if (!b)
		vb_fail("out of memory");
	parse_options(&b->opt, argc, argv);
	b->calibrated_ns = -1;
	vb_init(&b->vk, b->opt.queue_family, b->opt.have_workload ? b->opt.w.threads : 1, b->opt.groups * 64u);
	if (b->opt.calibrate >= 0) {
		int rc = run_calibration(b);

		vb_finish(&b->vk);
		free(b);
		return rc;
	}

	b->queues_used = b->vk.queue_count;
	b->dispatches = b->opt.w.dispatches;
	b->iterations = b->opt.repeat + 1;
	b->samples = calloc(b->iterations, sizeof(*b->samples));
	if (!b->samples)
		vb_fail("out of memory");
	vb_kernel_create(&b->vk, &b->kernel, b->opt.w.kernel, b->opt.spv_dir, kernel_names[b->opt.w.kernel],
			 b->opt.groups);
	if (b->kernel.kind != VB_KERNEL_EMPTY && b->kernel.kind != VB_KERNEL_TINY) {
		if (b->opt.iters)
			b->kernel.iters = b->opt.iters;
		else
			b->kernel.iters = calibrate(b, b->kernel.kind, &b->calibrated_ns);
	}
	if (b->opt.w.indirect) /* after the calibration, which dispatches directly */
		vb_indirect_args(&b->vk, b->kernel.groups);
	rss_setup = maxrss_kib();

	if (b->opt.w.threads > 1)
		run_threads(b);
	else if (b->opt.w.record_once)
		run_resubmit(b);
	else
		run_single(b);

	print_result(b, rss_setup, maxrss_kib());
	vb_kernel_destroy(&b->vk, &b->kernel);
	vb_finish(&b->vk);
	free(b->samples);
	free(b);
	return 0;
}
