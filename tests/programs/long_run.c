/*
 * long_run: a program that runs for a while, for Hesper's reports while the program runs
 * and its capture window (tests/e2e/run_live.py). Every dispatch is one work group of the
 * "count" shader adding 1 to a counter, so the GPU confirms how many ran; the kernel is
 * named "live_step" by debug-utils name. Prints one "HESPER-TRUTH {json}" line on stdout
 * (kernel count, and the dispatches the window holds where the pattern knows them) and
 * exits 0 when the counters agree (1 when not, 2 when a Vulkan call failed).
 *
 *   steps N D MS     N submissions of one command buffer (recorded once) holding D
 *                    dispatches inside label "step", MS milliseconds of sleep after each;
 *                    prints "long_run: ready" after the first
 *   label            the label window in execution order: command buffer A (label
 *                    "capture" around a buffer fill and 5 dispatches, then 2 more)
 *                    recorded before B (a fill, 3 dispatches, no label); submitted B, A,
 *                    B, A, then C (a fill, 4 dispatches, recorded last). Truth: "inside",
 *                    "fills_inside", "submits_inside" and "regions_inside" for
 *                    HESPER_START=label:capture with HESPER_STOP unset, label:capture
 *                    and label:capture#2
 *   phases N1 N2 N3 MS  three phases of N1, N2, N3 one-dispatch submissions, MS ms of
 *                    sleep between them; the truth's volatile "t_*_ms" say when (ms since
 *                    just before the Vulkan instance was created, and since it was)
 *
 * Env LONG_RUN_OWN_USR1=1: the program installs its own SIGUSR1 handler before creating
 * its instance, and says at the end whether it ran.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vk_common.h"

#define KERNEL_NAME "live_step"

struct app {
	struct vkc_ctx vk;
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkDescriptorPool pool;
	VkDescriptorSet set;
	struct vkc_buffer counter;
	VkShaderModule module;
	VkPipeline pipe;
	VkFence fence;
	uint64_t dispatched;
};

static volatile sig_atomic_t own_handler_ran;

static void own_usr1(int sig)
{
	(void)sig;
	own_handler_ran = 1;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void app_init(struct app *a)
{
	memset(a, 0, sizeof(*a));
	vkc_init(&a->vk, "long_run");
	if (!a->vk.has_debug_utils)
		vkc_fail("VK_EXT_debug_utils is needed (kernel names and labels)");
	vkc_buffer_create(&a->vk, &a->counter, 4, 0);
	*(uint32_t *)a->counter.map = 0;
	a->dsl = vkc_set_layout(&a->vk, 1);
	a->layout = vkc_pipeline_layout(&a->vk, a->dsl, 8);
	a->pool = vkc_descriptor_pool(&a->vk, 1, 1);
	struct vkc_buffer *b[] = { &a->counter };
	a->set = vkc_descriptor_set(&a->vk, a->pool, a->dsl, b, 1);
	a->module = vkc_shader_module(&a->vk, "count.spv");
	a->pipe = vkc_compute_pipeline(&a->vk, a->layout, a->module, 0);
	if (!vkc_name_pipeline(&a->vk, a->pipe, KERNEL_NAME))
		vkc_fail("cannot name the pipeline");
	a->fence = vkc_fence(&a->vk);
}

/* Records @n dispatches of the kernel into @cb (bound first). */
static void rec_dispatches(struct app *a, VkCommandBuffer cb, uint32_t n)
{
	uint32_t push[2] = { 0, 0 };
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->pipe);
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &a->set, 0, NULL);
	vkCmdPushConstants(cb, a->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
	for (uint32_t i = 0; i < n; i++) {
		vkCmdDispatch(cb, 1, 1, 1);
		vkc_barrier(cb); /* the atomic adds of one dispatch before the next's */
	}
}

/* Submits @cb holding @n dispatches and waits for it. */
static void run(struct app *a, VkCommandBuffer cb, uint32_t n)
{
	vkc_submit_wait(&a->vk, cb, a->fence);
	a->dispatched += n;
}

/* Checks the GPU's counter, prints the truth (@extra: more keys, may be ""), tears down. */
static int finish(struct app *a, const char *pattern, const char *extra)
{
	uint32_t counted = *(volatile uint32_t *)a->counter.map;
	int rc = counted == a->dispatched ? 0 : 1;
	if (rc)
		fprintf(stderr, "long_run: the GPU counted %u dispatches, %llu were submitted\n", counted,
			(unsigned long long)a->dispatched);
	if (getenv("LONG_RUN_OWN_USR1"))
		printf("long_run: own SIGUSR1 handler %s\n", own_handler_ran ? "ran" : "did not run");
	printf("HESPER-TRUTH {\"program\": \"long_run\", \"pattern\": \"%s\", \"kernels\": [{\"name\": \"%s\", "
	       "\"count\": %llu}]%s%s}\n",
	       pattern, KERNEL_NAME, (unsigned long long)a->dispatched, extra[0] ? ", " : "", extra);
	fflush(stdout);
	VkDevice d = a->vk.device;
	VKC_CHECK(vkDeviceWaitIdle(d));
	vkDestroyFence(d, a->fence, NULL);
	vkDestroyPipeline(d, a->pipe, NULL);
	vkDestroyShaderModule(d, a->module, NULL);
	vkDestroyDescriptorPool(d, a->pool, NULL);
	vkDestroyPipelineLayout(d, a->layout, NULL);
	vkDestroyDescriptorSetLayout(d, a->dsl, NULL);
	vkc_buffer_destroy(&a->vk, &a->counter);
	vkc_finish(&a->vk);
	return rc;
}

static int p_steps(struct app *a, uint32_t n, uint32_t d, uint32_t ms)
{
	app_init(a);
	VkCommandBuffer cb = vkc_command_buffer(&a->vk);
	vkc_begin(cb, 0);
	vkc_label_begin(&a->vk, cb, "step");
	rec_dispatches(a, cb, d);
	vkc_label_end(&a->vk, cb);
	vkc_end(cb);
	for (uint32_t i = 0; i < n; i++) {
		run(a, cb, d);
		if (i == 0) {
			printf("long_run: ready\n");
			fflush(stdout);
		}
		sleep_ms(ms);
	}
	char extra[128];
	snprintf(extra, sizeof(extra), "\"per_submission\": %u, \"regions\": [{\"name\": \"step\", \"count\": %u}]", d,
		 n);
	return finish(a, "steps", extra);
}

/* Records a 16-byte fill of @scratch into @cb: a memory operation, for the capture window. */
static void rec_fill(VkCommandBuffer cb, struct vkc_buffer *scratch)
{
	vkCmdFillBuffer(cb, scratch->buffer, 0, 16, 0x5a5a5a5au);
}

static int p_label(struct app *a)
{
	app_init(a);
	struct vkc_buffer scratch;
	vkc_buffer_create(&a->vk, &scratch, 16, 0);
	VkCommandBuffer A = vkc_command_buffer(&a->vk), B = vkc_command_buffer(&a->vk), C = vkc_command_buffer(&a->vk);
	/* A is recorded first, but runs after B's first run. */
	vkc_begin(A, 0);
	vkc_label_begin(&a->vk, A, "capture");
	rec_fill(A, &scratch);
	rec_dispatches(a, A, 5);
	vkc_label_end(&a->vk, A);
	rec_dispatches(a, A, 2);
	vkc_end(A);
	vkc_begin(B, 0);
	rec_fill(B, &scratch);
	rec_dispatches(a, B, 3);
	vkc_end(B);
	run(a, B, 3); /* before the label ran: outside */
	run(a, A, 7); /* 5 inside the label, 2 after it */
	run(a, B, 3);
	run(a, A, 7);
	/* Recorded now: after the window closed, when it closed at the first or second run. */
	vkc_begin(C, 0);
	rec_fill(C, &scratch);
	rec_dispatches(a, C, 4);
	vkc_end(C);
	run(a, C, 4);
	vkc_buffer_destroy(&a->vk, &scratch);
	/*
	 * Inside with the start label only: from A's label to the end: 5 + 2 + 3 + 7 + 4
	 * dispatches, the fills of A, B, A and C. Closed by the label's end: 5 and A's fill.
	 * By its second run's end: 5 + 2 + 3 + 5, the fills of A, B and A. Submissions (of 5)
	 * and runs of the label inside likewise: A B A C and both; A and one; A B A and both.
	 */
	return finish(a, "label",
		      "\"inside\": {\"open\": 21, \"capture#1\": 5, \"capture#2\": 15}, "
		      "\"fills\": 5, \"fills_inside\": {\"open\": 4, \"capture#1\": 1, \"capture#2\": 3}, "
		      "\"submits\": 5, \"submits_inside\": {\"open\": 4, \"capture#1\": 1, \"capture#2\": 3}, "
		      "\"regions\": [{\"name\": \"capture\", \"count\": 2}], "
		      "\"regions_inside\": {\"open\": 2, \"capture#1\": 1, \"capture#2\": 2}");
}

static int p_phases(struct app *a, double t0, uint32_t n1, uint32_t n2, uint32_t n3, uint32_t ms)
{
	app_init(a);
	double t1 = now_ms(); /* the instance exists: Hesper started before this */
	VkCommandBuffer cb = vkc_command_buffer(&a->vk);
	vkc_begin(cb, 0);
	rec_dispatches(a, cb, 1);
	vkc_end(cb);
	uint32_t counts[3] = { n1, n2, n3 };
	double begin[3], end[3];
	for (int p = 0; p < 3; p++) {
		if (p)
			sleep_ms(ms);
		begin[p] = now_ms();
		for (uint32_t i = 0; i < counts[p]; i++)
			run(a, cb, 1);
		end[p] = now_ms();
	}
	char extra[512];
	snprintf(extra, sizeof(extra),
		 "\"phases\": [%u, %u, %u], \"t_init_ms\": %.1f, \"t_phase_begin_ms\": [%.1f, %.1f, %.1f], "
		 "\"t_phase_end_ms\": [%.1f, %.1f, %.1f], \"volatile\": [\"t_init_ms\", \"t_phase_begin_ms\", "
		 "\"t_phase_end_ms\"]",
		 n1, n2, n3, t1 - t0, begin[0] - t0, begin[1] - t0, begin[2] - t0, end[0] - t0, end[1] - t0,
		 end[2] - t0);
	return finish(a, "phases", extra);
}

static uint32_t arg(int argc, char **argv, int i)
{
	if (i >= argc)
		vkc_fail("missing argument %d (see the comment at the top of long_run.c)", i);
	char *end;
	unsigned long v = strtoul(argv[i], &end, 10);
	if (*end || v > UINT32_MAX)
		vkc_fail("bad argument '%s'", argv[i]);
	return (uint32_t)v;
}

int main(int argc, char **argv)
{
	static struct app a;
	double t0 = now_ms();
	if (getenv("LONG_RUN_OWN_USR1")) {
		struct sigaction sa = { .sa_handler = own_usr1, .sa_flags = SA_RESTART };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
	}
	if (argc < 2)
		vkc_fail("usage: long_run steps N D MS | label | phases N1 N2 N3 MS");
	if (strcmp(argv[1], "steps") == 0)
		return p_steps(&a, arg(argc, argv, 2), arg(argc, argv, 3), arg(argc, argv, 4));
	if (strcmp(argv[1], "label") == 0)
		return p_label(&a);
	if (strcmp(argv[1], "phases") == 0)
		return p_phases(&a, t0, arg(argc, argv, 2), arg(argc, argv, 3), arg(argc, argv, 4), arg(argc, argv, 5));
	vkc_fail("unknown pattern '%s'", argv[1]);
}
