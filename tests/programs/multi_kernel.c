/*
 * multi_kernel: five distinct compute kernels, all with entry point "main", run through
 * every dispatch and submission shape Hesper has to handle, with exact per-kernel
 * dispatch counts and the program's own timing of the "busy" kernel.
 *
 *   kernel   naming                          dispatch            count
 *   fill     plain ("main#<hash>")           Dispatch/Indirect   7
 *   saxpy    debug-utils name "saxpy_named"  Dispatch            13
 *   reduce   source name (glslc -g)          DispatchBase        29
 *   busy     plain, takes milliseconds       Dispatch            5
 *   scale    plain, 3 pipelines, 1 SPIR-V    Dispatch            41
 *
 * Submissions: one command buffer recorded once and submitted 4 times (fence wait
 * between), one vkQueueSubmit with 2 batches, one batch with 2 command buffers.
 * Env TEST_BUSY_ITERS sets the busy kernel's loop length.
 * Prints one HESPER-TRUTH line; exits 0 when every result checks out, 1 otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_common.h"

#define N 4096u            /* elements in every data buffer */
#define GROUP 64u          /* local_size_x of every shader */
#define GROUPS (N / GROUP) /* work groups covering N */
#define MAIN_SUBMITS 4u    /* times the recorded command buffer is submitted */
#define REDUCE_CHUNK 8u    /* work groups per reduce dispatch */
#define SCALE_PER_MAIN 10u /* scale dispatches in the main command buffer */
#define SAXPY_PER_MAIN 3u  /* saxpy dispatches in the main command buffer */
#define DEFAULT_BUSY_ITERS 2500u
#define SAXPY_NAME "saxpy_named"

struct push {
	uint32_t a; /* a float's bits or a uint, per shader */
	uint32_t n;
};

struct kernel {
	VkShaderModule module;
	VkPipeline pipeline;
	VkPipelineLayout layout;
	VkDescriptorSet set;
};

struct app {
	struct vkc_ctx vk;
	VkDescriptorSetLayout set1, set2;
	VkPipelineLayout layout1, layout2;
	VkDescriptorPool pool;
	struct vkc_buffer fill_buf, indirect, x, y, src, sums, busy_buf, scale_buf;
	struct kernel fill, saxpy, reduce, busy;
	struct kernel scale[3]; /* same SPIR-V: [0] and [1] share a module, [2] has its own */
	struct vkc_timer timer;
	uint32_t busy_iters;
	bool saxpy_named;
	double busy_ns_sum;
	uint32_t busy_timed;
	uint32_t isolated; /* dispatches run with a compute barrier right before and right after them */
};

/* Bit pattern of @f for a push constant. */
static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* Binds @k with push constants {@a, @n}. */
static void bind(VkCommandBuffer cmd, const struct kernel *k, uint32_t a, uint32_t n, bool push)
{
	struct push pc = { a, n };

	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &k->set, 0, NULL);
	if (push)
		vkCmdPushConstants(cmd, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
}

/* fill with @base through vkCmdDispatchIndirect (group count read from the indirect buffer). */
static void rec_fill_indirect(struct app *a, VkCommandBuffer cmd, uint32_t base)
{
	bind(cmd, &a->fill, base, N, true);
	vkCmdDispatchIndirect(cmd, a->indirect.buffer, 0);
	vkc_barrier(cmd);
}

/* fill with @base through vkCmdDispatch. */
static void rec_fill(struct app *a, VkCommandBuffer cmd, uint32_t base)
{
	bind(cmd, &a->fill, base, N, true);
	vkCmdDispatch(cmd, GROUPS, 1, 1);
	vkc_barrier(cmd);
}

/* One saxpy y += 1.0 * x. */
static void rec_saxpy(struct app *a, VkCommandBuffer cmd)
{
	bind(cmd, &a->saxpy, float_bits(1.0f), N, true);
	vkCmdDispatch(cmd, GROUPS, 1, 1);
	vkc_barrier(cmd);
}

/* Reduce of work groups [first, first + REDUCE_CHUNK) through vkCmdDispatchBase. */
static void rec_reduce(struct app *a, VkCommandBuffer cmd, uint32_t first)
{
	bind(cmd, &a->reduce, 0, 0, false);
	vkCmdDispatchBase(cmd, first, 0, 0, REDUCE_CHUNK, 1, 1);
	vkc_barrier(cmd);
}

/* One scale v *= 2 with pipeline @which. */
static void rec_scale(struct app *a, VkCommandBuffer cmd, unsigned which)
{
	bind(cmd, &a->scale[which], float_bits(2.0f), N, true);
	vkCmdDispatch(cmd, GROUPS, 1, 1);
	vkc_barrier(cmd);
}

/* One busy dispatch between the program's own timestamps of pair @pair. */
static void rec_busy(struct app *a, VkCommandBuffer cmd, uint32_t pair)
{
	bind(cmd, &a->busy, a->busy_iters, N, true);
	vkc_timer_mark(cmd, &a->timer, pair, false);
	vkCmdDispatch(cmd, GROUPS, 1, 1);
	vkc_timer_mark(cmd, &a->timer, pair, true);
	vkc_barrier(cmd);
}

/* Adds the busy timing of pair @pair (after its submission finished) to the running sum. */
static void collect_busy(struct app *a, uint32_t pair)
{
	double ns;

	vkc_timer_read(&a->vk, &a->timer, pair, 1, &ns);
	a->busy_ns_sum += ns;
	a->busy_timed++;
}

/* Creates a kernel from @spv on @layout/@set (module reused when @module is given). */
static void make_kernel(struct app *a, struct kernel *k, const char *spv, VkShaderModule module,
			VkPipelineLayout layout, VkDescriptorSetLayout set_layout, struct vkc_buffer *const *bufs,
			uint32_t nbufs, VkPipelineCreateFlags flags)
{
	k->module = module ? module : vkc_shader_module(&a->vk, spv);
	k->layout = layout;
	k->pipeline = vkc_compute_pipeline(&a->vk, layout, k->module, flags);
	k->set = vkc_descriptor_set(&a->vk, a->pool, set_layout, bufs, nbufs);
}

/* Creates buffers with their initial contents, layouts, pipelines and descriptor sets. */
static void setup(struct app *a)
{
	vkc_buffer_create(&a->vk, &a->fill_buf, N * 4, 0);
	vkc_buffer_create(&a->vk, &a->indirect, sizeof(VkDispatchIndirectCommand), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
	vkc_buffer_create(&a->vk, &a->x, N * 4, 0);
	vkc_buffer_create(&a->vk, &a->y, N * 4, 0);
	vkc_buffer_create(&a->vk, &a->src, N * 4, 0);
	vkc_buffer_create(&a->vk, &a->sums, GROUPS * 4, 0);
	vkc_buffer_create(&a->vk, &a->busy_buf, N * 4, 0);
	vkc_buffer_create(&a->vk, &a->scale_buf, N * 4, 0);

	*(VkDispatchIndirectCommand *)a->indirect.map = (VkDispatchIndirectCommand){ GROUPS, 1, 1 };
	for (uint32_t i = 0; i < N; i++) {
		((float *)a->x.map)[i] = (float)(i % 5);
		((float *)a->y.map)[i] = 1.0f;
		((uint32_t *)a->src.map)[i] = i % 1000;
		((float *)a->scale_buf.map)[i] = (float)(1 + i % 7);
	}

	a->set1 = vkc_set_layout(&a->vk, 1);
	a->set2 = vkc_set_layout(&a->vk, 2);
	a->layout1 = vkc_pipeline_layout(&a->vk, a->set1, sizeof(struct push));
	a->layout2 = vkc_pipeline_layout(&a->vk, a->set2, sizeof(struct push));
	a->pool = vkc_descriptor_pool(&a->vk, 16, 16);

	struct vkc_buffer *fill_b[] = { &a->fill_buf }, *saxpy_b[] = { &a->x, &a->y };
	struct vkc_buffer *reduce_b[] = { &a->src, &a->sums }, *busy_b[] = { &a->busy_buf };
	struct vkc_buffer *scale_b[] = { &a->scale_buf };

	make_kernel(a, &a->fill, "fill.spv", 0, a->layout1, a->set1, fill_b, 1, 0);
	make_kernel(a, &a->saxpy, "saxpy.spv", 0, a->layout2, a->set2, saxpy_b, 2, 0);
	make_kernel(a, &a->reduce, "reduce_g.spv", 0, a->layout2, a->set2, reduce_b, 2,
		    VK_PIPELINE_CREATE_DISPATCH_BASE_BIT);
	make_kernel(a, &a->busy, "busy.spv", 0, a->layout1, a->set1, busy_b, 1, 0);
	make_kernel(a, &a->scale[0], "scale.spv", 0, a->layout1, a->set1, scale_b, 1, 0);
	make_kernel(a, &a->scale[1], NULL, a->scale[0].module, a->layout1, a->set1, scale_b, 1, 0);
	make_kernel(a, &a->scale[2], "scale.spv", 0, a->layout1, a->set1, scale_b, 1, 0);
	a->saxpy_named = vkc_name_pipeline(&a->vk, a->saxpy.pipeline, SAXPY_NAME);
	vkc_timer_create(&a->vk, &a->timer, 2);
}

/* Destroys everything setup() created. */
static void teardown(struct app *a)
{
	struct kernel *ks[] = { &a->fill, &a->saxpy, &a->reduce, &a->busy, &a->scale[0], &a->scale[1], &a->scale[2] };
	VkDevice dev = a->vk.device;

	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		vkDestroyPipeline(dev, ks[i]->pipeline, NULL);
		if (ks[i] != &a->scale[1])
			vkDestroyShaderModule(dev, ks[i]->module, NULL);
	}
	vkc_timer_destroy(&a->vk, &a->timer);
	vkDestroyDescriptorPool(dev, a->pool, NULL);
	vkDestroyPipelineLayout(dev, a->layout1, NULL);
	vkDestroyPipelineLayout(dev, a->layout2, NULL);
	vkDestroyDescriptorSetLayout(dev, a->set1, NULL);
	vkDestroyDescriptorSetLayout(dev, a->set2, NULL);
	struct vkc_buffer *bs[] = { &a->fill_buf, &a->indirect, &a->x,        &a->y,
				    &a->src,      &a->sums,     &a->busy_buf, &a->scale_buf };
	for (size_t i = 0; i < sizeof(bs) / sizeof(bs[0]); i++)
		vkc_buffer_destroy(&a->vk, bs[i]);
}

/* Records and runs every submission; returns the number of dispatches issued. */
static uint32_t run(struct app *a)
{
	VkCommandBuffer main_cb = vkc_command_buffer(&a->vk);
	VkCommandBuffer cb_b = vkc_command_buffer(&a->vk), cb_c = vkc_command_buffer(&a->vk);
	VkCommandBuffer cb_d = vkc_command_buffer(&a->vk), cb_e = vkc_command_buffer(&a->vk);
	VkFence fence = vkc_fence(&a->vk);
	uint32_t dispatches = 0;

	/* Recorded once, submitted MAIN_SUBMITS times. */
	vkc_begin(main_cb, 0);
	vkc_timer_reset(main_cb, &a->timer, 0, 1);
	rec_fill_indirect(a, main_cb, 1000);
	for (uint32_t i = 0; i < SAXPY_PER_MAIN; i++)
		rec_saxpy(a, main_cb);
	for (uint32_t g = 0; g + REDUCE_CHUNK < GROUPS; g += REDUCE_CHUNK)
		rec_reduce(a, main_cb, g);
	for (uint32_t i = 0; i < SCALE_PER_MAIN; i++)
		rec_scale(a, main_cb, i % 3);
	rec_busy(a, main_cb, 0);
	vkc_end(main_cb);
	for (uint32_t s = 0; s < MAIN_SUBMITS; s++) {
		vkc_submit_wait(&a->vk, main_cb, fence);
		collect_busy(a, 0);
	}
	dispatches += MAIN_SUBMITS * (1 + SAXPY_PER_MAIN + (GROUPS / REDUCE_CHUNK - 1) + SCALE_PER_MAIN + 1);
	/* Each rec_* ends with a barrier: every dispatch but a command buffer's first is isolated. */
	a->isolated += MAIN_SUBMITS * (SAXPY_PER_MAIN + (GROUPS / REDUCE_CHUNK - 1) + SCALE_PER_MAIN + 1);

	/* One vkQueueSubmit, two batches. */
	vkc_begin(cb_b, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	rec_fill(a, cb_b, 2000);
	rec_saxpy(a, cb_b);
	vkc_end(cb_b);
	vkc_begin(cb_c, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	vkc_timer_reset(cb_c, &a->timer, 1, 1);
	rec_reduce(a, cb_c, GROUPS - REDUCE_CHUNK);
	rec_busy(a, cb_c, 1);
	vkc_end(cb_c);
	VkSubmitInfo two_batches[2] = {
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb_b },
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb_c },
	};
	VKC_CHECK(vkQueueSubmit(a->vk.queue, 2, two_batches, fence));
	vkc_wait_fence(&a->vk, fence);
	collect_busy(a, 1);
	dispatches += 4;
	a->isolated += 2; /* cb_b's saxpy, cb_c's busy */

	/* One batch, two command buffers. */
	vkc_begin(cb_d, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	rec_fill(a, cb_d, 2500);
	rec_fill(a, cb_d, 3000);
	vkc_end(cb_d);
	vkc_begin(cb_e, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	rec_scale(a, cb_e, 0);
	vkc_end(cb_e);
	VkCommandBuffer pair[2] = { cb_d, cb_e };
	VkSubmitInfo one_batch = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 2,
		.pCommandBuffers = pair,
	};
	VKC_CHECK(vkQueueSubmit(a->vk.queue, 1, &one_batch, fence));
	vkc_wait_fence(&a->vk, fence);
	dispatches += 3;
	a->isolated += 1; /* cb_d's second fill */

	vkDestroyFence(a->vk.device, fence, NULL);
	VkCommandBuffer all[] = { main_cb, cb_b, cb_c, cb_d, cb_e };
	vkFreeCommandBuffers(a->vk.device, a->vk.cmd_pool, 5, all);
	return dispatches;
}

/* LCG state after @iters steps from @seed, as the busy shader computes it. */
static uint32_t lcg(uint32_t seed, uint32_t iters)
{
	for (uint32_t k = 0; k < iters; k++)
		seed = seed * 1664525u + 1013904223u;
	return seed;
}

/* Compares the GPU results with the CPU's; prints the first mismatch per buffer. Returns the error count. */
static int verify(const struct app *a)
{
	const uint32_t *fill = a->fill_buf.map, *sums = a->sums.map, *busy = a->busy_buf.map;
	const float *y = a->y.map, *scale = a->scale_buf.map;
	int errors = 0;

	for (uint32_t i = 0; i < N; i++) {
		float want_y = 1.0f + 13.0f * (float)(i % 5);
		float want_s = ldexpf((float)(1 + i % 7), 41);

		if (fill[i] != 3000 + i && errors++ == 0)
			printf("multi_kernel: fill[%u] = %u, want %u\n", i, fill[i], 3000 + i);
		if (y[i] != want_y && errors++ == 0)
			printf("multi_kernel: y[%u] = %g, want %g\n", i, y[i], want_y);
		if (scale[i] != want_s && errors++ == 0)
			printf("multi_kernel: scale[%u] = %g, want %g\n", i, scale[i], want_s);
	}
	for (uint32_t g = 0; g < GROUPS; g++) {
		uint32_t want = 0;

		for (uint32_t i = g * GROUP; i < (g + 1) * GROUP; i++)
			want += i % 1000;
		if (sums[g] != want && errors++ == 0)
			printf("multi_kernel: sums[%u] = %u, want %u\n", g, sums[g], want);
	}
	for (uint32_t i = 0; i < N; i++) {
		uint32_t want;

		if (i % 61 != 0 && i != N - 1)
			continue; /* a sample keeps the CPU side cheap */
		want = lcg(i, a->busy_iters);

		if (busy[i] != want && errors++ == 0)
			printf("multi_kernel: busy[%u] = %u, want %u\n", i, busy[i], want);
	}
	return errors;
}

int main(void)
{
	struct app a;
	uint32_t dispatches;
	int errors;

	memset(&a, 0, sizeof(a));
	a.busy_iters = vkc_env_u32("TEST_BUSY_ITERS", DEFAULT_BUSY_ITERS);
	vkc_init(&a.vk, "multi_kernel");
	setup(&a);
	dispatches = run(&a);
	errors = verify(&a);

	vkc_truth_begin("multi_kernel");
	vkc_truth_kernel("fill.spv", "fill.comp", NULL, false, MAIN_SUBMITS + 1 + 2, -1);
	vkc_truth_kernel("saxpy.spv", "saxpy.comp", a.saxpy_named ? SAXPY_NAME : NULL, false,
			 MAIN_SUBMITS * SAXPY_PER_MAIN + 1, -1);
	vkc_truth_kernel("reduce_g.spv", "reduce.comp", NULL, true, MAIN_SUBMITS * (GROUPS / REDUCE_CHUNK - 1) + 1, -1);
	vkc_truth_kernel("busy.spv", "busy.comp", NULL, false, MAIN_SUBMITS + 1, a.busy_ns_sum / a.busy_timed);
	vkc_truth_kernel("scale.spv", "scale.comp", NULL, false, MAIN_SUBMITS * SCALE_PER_MAIN + 1, -1);
	vkc_truth_isolated(a.isolated);
	vkc_truth_end(!vkc_provoke_validation());

	printf("multi_kernel: %u dispatches, %s\n", dispatches, errors ? "WRONG RESULTS" : "results ok");
	teardown(&a);
	vkc_finish(&a.vk);
	return errors ? 1 : 0;
}
