/*
 * hostcost: Hesper's host cost per recorded dispatch and per submission, measured in one
 * process against a baseline that runs beside it.
 *
 *   hostcost [--rounds R] [--dispatches N] [--only CASE] [--spv-dir DIR] [--json]
 *
 * Two Vulkan instances on one device: "plain", with no layer, and "hesper", with
 * VK_LAYER_HESPER_profiler enabled by name (the runner points VK_ADD_LAYER_PATH at the
 * build's layer directory; nothing is preloaded, and the plain instance is created
 * first, so Hesper never sees it). The cases run one after another; every round of a
 * case runs it once on each side, in an order that alternates between rounds, so the
 * machine's drift (clock speed, other load) hits both sides alike. A case's result is
 * the median, over rounds, of the paired difference hesper - plain, with its
 * interquartile range and each side's median beside it. Separate processes, as
 * bench/run's sweep uses, differ from each other by more than the cost being measured.
 *
 * Cases (empty kernel; N dispatches, default 1000):
 *   record    vkBeginCommandBuffer..vkEndCommandBuffer of N dispatches, re-recorded every
 *             round (so the implicit reset of the last recording counts), ns per dispatch.
 *             The plain side also records them "manual" (the program's own pair per
 *             dispatch) and "chained" (one timestamp per dispatch, Hesper's scheme by
 *             hand): what the driver charges for the timestamps alone.
 *   submit1   vkQueueSubmit of a recording of 1 dispatch, resubmitted (µs per call).
 *   fresh1    the same, re-recorded before every submission (recording not timed).
 *   submitN   vkQueueSubmit of a recording of N dispatches, resubmitted; plain also
 *             submits its manual and chained recordings.
 *   frame     a program's loop: record N dispatches, submit, wait. Timed: recording and
 *             vkQueueSubmit (µs per frame), with Hesper's collector harvesting the
 *             previous frame meanwhile.
 *   wait      vkWaitForFences on a fence that has signalled, 100 calls (ns per call): what
 *             Hesper's host-wait hook adds to every wait (docs/findings.md).
 * Each submission is waited for before the next, outside the timed call.
 *
 * Exit status: 0 ok, 1 bad usage, 2 a Vulkan call failed (or the layer is missing).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkbench_vk.h"

#define HESPER_LAYER "VK_LAYER_HESPER_profiler"
#define DEFAULT_ROUNDS 200u
#define DEFAULT_DISPATCHES 1000u
#define WARMUP_ROUNDS 5u

enum side {
	SIDE_PLAIN,
	SIDE_HESPER,
	SIDE_COUNT,
};

/* One side: its instance and device, the kernel and the recordings it submits. */
struct side_ctx {
	struct vb_ctx vk;
	struct vb_kernel kernel;
	struct vb_slot one;                           /* 1 dispatch, plain way */
	struct vb_slot fresh;                         /* 1 dispatch, re-recorded per submission */
	struct vb_slot frame;                         /* N dispatches, re-recorded per submission */
	struct vb_slot many[VB_WAY_COUNT];            /* N dispatches, per way (plain side: every way) */
	struct vb_slot scratch[VB_WAY_COUNT];         /* recorded by the record case, never submitted: one per
					      way, so each re-recording frees one of its own kind */
	struct vb_slot graph;                         /* recorded by the graph case, never submitted */
	PFN_vkCmdBeginDebugUtilsLabelEXT begin_label; /* NULL without VK_EXT_debug_utils */
	PFN_vkCmdEndDebugUtilsLabelEXT end_label;
};

/* What one case measured over the rounds: one value per round and way. */
struct series {
	const char *name;
	const char *unit;
	double *plain[VB_WAY_COUNT]; /* plain side, per way (NULL where not measured) */
	double *hesper;
};

struct options {
	uint32_t rounds;
	uint32_t dispatches;
	const char *only; /* run this case alone (profiling), or NULL for all */
	const char *spv_dir;
	bool json;
};

static void bad_usage(const char *fmt, const char *arg)
{
	fputs("hostcost: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nusage: hostcost [--rounds R] [--dispatches N] [--only CASE] [--spv-dir DIR] [--json]\n", stderr);
	exit(1);
}

static uint32_t parse_u32(const char *opt, const char *s)
{
	uint32_t v;

	if (!vb_parse_u32(s, 1, 1000000, &v))
		bad_usage("bad number for %s", opt);
	return v;
}

static void parse_options(struct options *o, int argc, char **argv)
{
	*o = (struct options){.rounds = DEFAULT_ROUNDS, .dispatches = DEFAULT_DISPATCHES};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--json") == 0) {
			o->json = true;
			continue;
		}
		if (i + 1 >= argc)
			bad_usage("%s needs a value (or is unknown)", a);
		const char *v = argv[++i];
		if (strcmp(a, "--rounds") == 0)
			o->rounds = parse_u32(a, v);
		else if (strcmp(a, "--dispatches") == 0)
			o->dispatches = parse_u32(a, v);
		else if (strcmp(a, "--only") == 0)
			o->only = v;
		else if (strcmp(a, "--spv-dir") == 0)
			o->spv_dir = v;
		else
			bad_usage("unknown option '%s'", a);
	}
	if (!o->spv_dir)
		o->spv_dir = getenv("VKBENCH_SPV_DIR");
	if (!o->spv_dir || !*o->spv_dir)
		o->spv_dir = vb_own_dir();
}

static double *new_values(uint32_t n)
{
	double *v = calloc(n, sizeof(double));

	if (!v)
		vb_fail("out of memory");
	return v;
}

static void side_create(struct side_ctx *s, const char *layer, const struct options *o, bool every_way)
{
	memset(s, 0, sizeof(*s));
	vb_init_with_layer(&s->vk, layer, -1, 1, 64);
	vb_kernel_create(&s->vk, &s->kernel, VB_KERNEL_EMPTY, o->spv_dir, "hostcost_empty", 1);
	vb_slot_create(&s->vk, &s->one, 1, VB_WAY_PLAIN);
	vb_slot_create(&s->vk, &s->fresh, 1, VB_WAY_PLAIN);
	vb_slot_create(&s->vk, &s->frame, o->dispatches, VB_WAY_PLAIN);
	for (int w = 0; w < VB_WAY_COUNT; w++) {
		if (w != VB_WAY_PLAIN && !every_way)
			continue;
		vb_slot_create(&s->vk, &s->scratch[w], o->dispatches, (enum vb_way)w);
		vb_slot_create(&s->vk, &s->many[w], o->dispatches, (enum vb_way)w);
		vb_record(&s->vk, &s->many[w], &s->kernel, o->dispatches, (enum vb_way)w, 0);
	}
	vb_record(&s->vk, &s->one, &s->kernel, 1, VB_WAY_PLAIN, 0);
	vb_slot_create(&s->vk, &s->graph, o->dispatches, VB_WAY_PLAIN);
	if (s->vk.set_object_name) {
		s->begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(
			s->vk.instance, "vkCmdBeginDebugUtilsLabelEXT");
		s->end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(s->vk.instance,
										     "vkCmdEndDebugUtilsLabelEXT");
	}
}

static void side_destroy(struct side_ctx *s)
{
	VB_CHECK(vkDeviceWaitIdle(s->vk.device));
	vb_slot_destroy(&s->vk, &s->one);
	vb_slot_destroy(&s->vk, &s->fresh);
	vb_slot_destroy(&s->vk, &s->frame);
	vb_slot_destroy(&s->vk, &s->graph);
	for (int w = 0; w < VB_WAY_COUNT; w++) {
		if (!s->many[w].cmd)
			continue;
		vb_slot_destroy(&s->vk, &s->scratch[w]);
		vb_slot_destroy(&s->vk, &s->many[w]);
	}
	vb_kernel_destroy(&s->vk, &s->kernel);
	vb_finish(&s->vk);
}

/*
 * Host ns per dispatch to record @n dispatches the way @way says, the implicit reset of
 * the previous recording of the same way included (Hesper's own clean-up is a cost of
 * re-recording too).
 */
static double time_record(struct side_ctx *s, uint32_t n, enum vb_way way)
{
	double t0 = vb_now_ns();

	vb_record(&s->vk, &s->scratch[way], &s->kernel, n, way, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	return (vb_now_ns() - t0) / n;
}

/* Distinct label names of the graph case. */
#define GRAPH_NAMES 64u

/* Host ns per dispatch to record @n graph nodes (see the graph case above). */
static double time_graph(struct side_ctx *s, uint32_t n)
{
	static char names[GRAPH_NAMES][16];
	if (!names[0][0])
		for (uint32_t i = 0; i < GRAPH_NAMES; i++)
			snprintf(names[i], sizeof(names[i]), "node-%u", i);
	VkCommandBuffer cmd = s->graph.cmd;
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					  .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
	VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				   .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
				   .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
	double t0 = vb_now_ns();

	VB_CHECK(vkBeginCommandBuffer(cmd, &begin));
	for (uint32_t i = 0; i < n; i++) {
		VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
					      .pLabelName = names[i % GRAPH_NAMES]};
		if (s->begin_label)
			s->begin_label(cmd, &label);
		vb_kernel_bind(&s->vk, cmd, &s->kernel);
		vkCmdDispatch(cmd, s->kernel.groups, 1, 1);
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
				     1, &barrier, 0, NULL, 0, NULL);
		if (s->end_label)
			s->end_label(cmd);
	}
	VB_CHECK(vkEndCommandBuffer(cmd));
	return (vb_now_ns() - t0) / n;
}

/* µs inside vkQueueSubmit for @slot; waits for it afterwards, untimed. */
static double time_submit(struct side_ctx *s, struct vb_slot *slot)
{
	VkSubmitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &slot->cmd,
	};
	double t0 = vb_now_ns();
	VkResult r = vkQueueSubmit(s->vk.queues[0], 1, &info, slot->fence);
	double t = vb_now_ns() - t0;

	VB_CHECK(r);
	VB_CHECK(vkWaitForFences(s->vk.device, 1, &slot->fence, VK_TRUE, UINT64_MAX));
	VB_CHECK(vkResetFences(s->vk.device, 1, &slot->fence));
	return t / 1e3;
}

static double time_fresh(struct side_ctx *s)
{
	vb_record(&s->vk, &s->fresh, &s->kernel, 1, VB_WAY_PLAIN, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	return time_submit(s, &s->fresh);
}

/* µs recording @n dispatches and submitting them (the wait afterwards untimed). */
static double time_frame(struct side_ctx *s, uint32_t n)
{
	double t0 = vb_now_ns();

	vb_record(&s->vk, &s->frame, &s->kernel, n, VB_WAY_PLAIN, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	return (vb_now_ns() - t0) / 1e3 + time_submit(s, &s->frame);
}

/* Calls of the wait case per round. */
#define WAIT_CALLS 100

/* ns per vkWaitForFences on a signalled fence: submits one dispatch and waits (untimed) first. */
static double time_wait(struct side_ctx *s)
{
	struct vb_slot *slot = &s->one;
	VkSubmitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &slot->cmd,
	};
	VB_CHECK(vkQueueSubmit(s->vk.queues[0], 1, &info, slot->fence));
	VB_CHECK(vkWaitForFences(s->vk.device, 1, &slot->fence, VK_TRUE, UINT64_MAX));
	double t0 = vb_now_ns();
	for (int i = 0; i < WAIT_CALLS; i++)
		VB_CHECK(vkWaitForFences(s->vk.device, 1, &slot->fence, VK_TRUE, 0));
	double t = (vb_now_ns() - t0) / WAIT_CALLS;
	VB_CHECK(vkResetFences(s->vk.device, 1, &slot->fence));
	return t;
}

enum case_id {
	CASE_RECORD,
	CASE_SUBMIT1,
	CASE_FRESH1,
	CASE_SUBMITN,
	CASE_FRAME,
	CASE_WAIT,
	CASE_GRAPH,
	CASE_COUNT,
};

/* Runs case @c once on side @side, every way that side measures; stores round @r's values. */
static void run_case(struct side_ctx *sides, enum side side, enum case_id c, struct series *out, uint32_t r, uint32_t n)
{
	struct side_ctx *s = &sides[side];
	double *mine = side == SIDE_HESPER ? &out->hesper[r] : &out->plain[VB_WAY_PLAIN][r];
	/* The plain side also runs the program's own timestamp ways where the case has them. */
	bool other_ways = side == SIDE_PLAIN && out->plain[VB_WAY_MANUAL];

	switch (c) {
	case CASE_RECORD:
		*mine = time_record(s, n, VB_WAY_PLAIN);
		for (int w = VB_WAY_PLAIN + 1; other_ways && w < VB_WAY_COUNT; w++)
			out->plain[w][r] = time_record(s, n, (enum vb_way)w);
		return;
	case CASE_SUBMIT1:
		*mine = time_submit(s, &s->one);
		return;
	case CASE_FRESH1:
		*mine = time_fresh(s);
		return;
	case CASE_SUBMITN:
		*mine = time_submit(s, &s->many[VB_WAY_PLAIN]);
		for (int w = VB_WAY_PLAIN + 1; other_ways && w < VB_WAY_COUNT; w++)
			out->plain[w][r] = time_submit(s, &s->many[w]);
		return;
	case CASE_FRAME:
		*mine = time_frame(s, n);
		return;
	case CASE_WAIT:
		*mine = time_wait(s);
		return;
	case CASE_GRAPH:
		*mine = time_graph(s, n);
		return;
	default:
		return;
	}
}

/* Median of @v[0..n) without disturbing it. */
static double median_copy(const double *v, uint32_t n)
{
	double *c = new_values(n);

	memcpy(c, v, n * sizeof(double));
	double m = vb_median(c, n);
	free(c);
	return m;
}

static void print_series(const struct series *s, uint32_t n, uint32_t dispatches, bool json)
{
	double *diff = new_values(n);

	for (uint32_t i = 0; i < n; i++)
		diff[i] = s->hesper[i] - s->plain[VB_WAY_PLAIN][i];
	double added = vb_median(diff, n); /* sorts diff */
	double q1 = vb_quantile_sorted(diff, n, 0.25), q3 = vb_quantile_sorted(diff, n, 0.75);
	double plain = median_copy(s->plain[VB_WAY_PLAIN], n), hesper = median_copy(s->hesper, n);

	if (json) {
		printf("{\"hostcost\":1,\"case\":\"%s\",\"unit\":\"%s\",\"rounds\":%u,\"dispatches\":%u,"
		       "\"plain\":%.4f,\"hesper\":%.4f,\"added\":%.4f,\"added_q1\":%.4f,\"added_q3\":%.4f",
		       s->name, s->unit, n, dispatches, plain, hesper, added, q1, q3);
		for (int w = VB_WAY_PLAIN + 1; w < VB_WAY_COUNT; w++) {
			if (!s->plain[w])
				continue;
			for (uint32_t i = 0; i < n; i++)
				diff[i] = s->plain[w][i] - s->plain[VB_WAY_PLAIN][i];
			printf(",\"%s\":%.4f,\"%s_added\":%.4f", vb_way_word((enum vb_way)w),
			       median_copy(s->plain[w], n), vb_way_word((enum vb_way)w), vb_median(diff, n));
		}
		puts("}");
	} else {
		printf("%-8s plain %10.3f  hesper %10.3f  added %+9.3f [%+.3f..%+.3f] %s\n", s->name, plain, hesper,
		       added, q1, q3, s->unit);
	}
	free(diff);
}

int main(int argc, char **argv)
{
	static const char *const names[CASE_COUNT] = {"record", "submit1", "fresh1", "submitN",
						      "frame",  "wait",    "graph"};
	static const char *const units[CASE_COUNT] = {"ns_per_dispatch", "us_per_submit", "us_per_submit",
						      "us_per_submit",   "us_per_frame",  "ns_per_wait",
						      "ns_per_dispatch"};
	struct options o;
	struct side_ctx sides[SIDE_COUNT];
	struct series series[CASE_COUNT];
	uint32_t total;

	parse_options(&o, argc, argv);
	total = o.rounds + WARMUP_ROUNDS;
	/* Plain first: creating the Hesper instance loads the layer, whose library edits the environment. */
	side_create(&sides[SIDE_PLAIN], NULL, &o, true);
	side_create(&sides[SIDE_HESPER], HESPER_LAYER, &o, false);
	for (int c = 0; c < CASE_COUNT; c++) {
		series[c] = (struct series){.name = names[c], .unit = units[c], .hesper = new_values(total)};
		series[c].plain[VB_WAY_PLAIN] = new_values(total);
		if (c == CASE_RECORD || c == CASE_SUBMITN)
			for (int w = VB_WAY_PLAIN + 1; w < VB_WAY_COUNT; w++)
				series[c].plain[w] = new_values(total);
	}
	for (int c = 0; c < CASE_COUNT; c++)
		for (uint32_t r = 0; r < total; r++) {
			enum side first = r % 2 ? SIDE_HESPER : SIDE_PLAIN;

			if (o.only && strcmp(o.only, names[c]) != 0)
				break;

			run_case(sides, first, (enum case_id)c, &series[c], r, o.dispatches);
			run_case(sides, (enum side)(SIDE_COUNT - 1 - first), (enum case_id)c, &series[c], r,
				 o.dispatches);
		}
	for (int c = 0; c < CASE_COUNT; c++) {
		struct series warm = series[c];

		/* Leave the warm-up rounds out. */
		for (int w = 0; w < VB_WAY_COUNT; w++)
			if (warm.plain[w])
				warm.plain[w] += WARMUP_ROUNDS;
		warm.hesper += WARMUP_ROUNDS;
		if (!o.only || strcmp(o.only, names[c]) == 0)
			print_series(&warm, o.rounds, o.dispatches, o.json);
		for (int w = 0; w < VB_WAY_COUNT; w++)
			free(series[c].plain[w]);
		free(series[c].hesper);
	}
	fflush(stdout);
	side_destroy(&sides[SIDE_HESPER]);
	side_destroy(&sides[SIDE_PLAIN]);
	return 0;
}
