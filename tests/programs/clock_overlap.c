/*
 * clock_overlap: two independent dispatches of the busy kernel (debug names "ov_a" and
 * "ov_b", separate buffers) recorded back to back in one command buffer with no barrier,
 * between the program's own pair of timestamps; before that, each alone between its own
 * pair (five times each, a and b taking turns; the shortest counts, as a busy machine
 * only makes runs longer, and a burst of load then cannot make one of them look long).
 * The pair really overlapped on the GPU when its span is clearly shorter than the two
 * alone: span < 0.8 * (alone_a + alone_b). Prints that verdict in its HESPER-TRUTH
 * line ("overlapped", "span_ns", "alone_ns"); the runner (tests/e2e/run_clock.py) checks
 * Hesper's trace against it. Env TEST_OVERLAP_ITERS (loop length, default 50000; lavapipe
 * computes 65536 and more wrongly, with or without Hesper) and TEST_OVERLAP_GROUPS (work
 * groups per dispatch, default 8) size the kernel.
 */
#include <stdio.h>
#include <string.h>

#include "vk_common.h"

/* Runs of each dispatch alone; each kernel runs 1 + ALONE_RUNS + 1 times in all. */
#define ALONE_RUNS 5

struct kernel {
	VkPipeline pipeline;
	VkDescriptorSet set;
	struct vkc_buffer buf;
};

struct push {
	uint32_t iters, n;
};

static void dispatch(VkCommandBuffer cmd, VkPipelineLayout layout, const struct kernel *k, const struct push *pc,
		     uint32_t groups)
{
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &k->set, 0, NULL);
	vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(*pc), pc);
	vkCmdDispatch(cmd, groups, 1, 1);
}

/* Records pair @pair of @timer around @count kernels of @ks (no barrier between them). */
static void record(VkCommandBuffer cmd, const struct vkc_timer *timer, uint32_t pair, VkPipelineLayout layout,
		   struct kernel *const *ks, uint32_t count, const struct push *pc, uint32_t groups)
{
	vkc_begin(cmd, 0);
	vkc_timer_reset(cmd, timer, pair, 1);
	vkc_timer_mark(cmd, timer, pair, false);
	for (uint32_t i = 0; i < count; i++)
		dispatch(cmd, layout, ks[i], pc, groups);
	vkc_timer_mark(cmd, timer, pair, true);
	vkc_end(cmd);
}

int main(void)
{
	struct vkc_ctx vk;
	vkc_init(&vk, "clock_overlap");
	uint32_t groups = vkc_env_u32("TEST_OVERLAP_GROUPS", 8);
	struct push pc = { .iters = vkc_env_u32("TEST_OVERLAP_ITERS", 50000), .n = groups * 64 };

	VkShaderModule module = vkc_shader_module(&vk, "busy.spv");
	VkDescriptorSetLayout set_layout = vkc_set_layout(&vk, 1);
	VkPipelineLayout layout = vkc_pipeline_layout(&vk, set_layout, sizeof(pc));
	VkDescriptorPool pool = vkc_descriptor_pool(&vk, 2, 2);
	struct kernel a = { 0 }, b = { 0 };
	struct kernel *both[] = { &a, &b };
	const char *names[] = { "ov_a", "ov_b" };
	for (int i = 0; i < 2; i++) {
		struct vkc_buffer *buf = &both[i]->buf;
		vkc_buffer_create(&vk, buf, (VkDeviceSize)pc.n * 4, 0);
		both[i]->set = vkc_descriptor_set(&vk, pool, set_layout, &buf, 1);
		both[i]->pipeline = vkc_compute_pipeline(&vk, layout, module, 0);
		vkc_name_pipeline(&vk, both[i]->pipeline, names[i]);
	}

	/* pairs: 0 the warm-up pair, 1 a alone, 2 b alone, 3 the measured pair */
	struct vkc_timer timer;
	vkc_timer_create(&vk, &timer, 4);
	VkFence fence = vkc_fence(&vk);
	VkCommandBuffer cmd[4];
	struct kernel *only_a[] = { &a }, *only_b[] = { &b };
	for (int i = 0; i < 4; i++)
		cmd[i] = vkc_command_buffer(&vk);
	record(cmd[0], &timer, 0, layout, both, 2, &pc, groups);
	record(cmd[1], &timer, 1, layout, only_a, 1, &pc, groups);
	record(cmd[2], &timer, 2, layout, only_b, 1, &pc, groups);
	record(cmd[3], &timer, 3, layout, both, 2, &pc, groups);
	double ns[4];
	vkc_submit_wait(&vk, cmd[0], fence);
	for (int k = 0; k < ALONE_RUNS; k++) {
		for (int i = 1; i <= 2; i++) {
			double t;
			vkc_submit_wait(&vk, cmd[i], fence);
			vkc_timer_read(&vk, &timer, (uint32_t)i, 1, &t);
			ns[i] = k == 0 || t < ns[i] ? t : ns[i];
		}
	}
	vkc_submit_wait(&vk, cmd[3], fence);
	vkc_timer_read(&vk, &timer, 3, 1, &ns[3]);

	/* the kernel's result: an LCG run pc.iters steps from each index */
	int ok = 1;
	for (int i = 0; i < 2; i++) {
		const uint32_t *out = both[i]->buf.map;
		for (uint32_t j = 0; j < pc.n; j += 97) {
			uint32_t h = j;
			for (uint32_t k = 0; k < pc.iters; k++)
				h = h * 1664525u + 1013904223u;
			ok &= out[j] == h;
		}
	}
	int overlapped = ns[3] < 0.8 * (ns[1] + ns[2]);
	printf("HESPER-TRUTH {\"program\":\"clock_overlap\",\"kernels\":["
	       "{\"spv\":\"busy.spv\",\"source\":\"busy.comp\",\"debug_name\":\"ov_a\",\"source_named\":false,\"count\":7,\"own_mean_ns\":null},"
	       "{\"spv\":\"busy.spv\",\"source\":\"busy.comp\",\"debug_name\":\"ov_b\",\"source_named\":false,\"count\":7,\"own_mean_ns\":null}],"
	       "\"overlapped\":%s,\"span_ns\":%.0f,\"alone_ns\":[%.0f,%.0f],\"validation_expected_clean\":true}\n",
	       overlapped ? "true" : "false", ns[3], ns[1], ns[2]);
	printf("clock_overlap: %s\n", ok ? "results ok" : "results WRONG");

	vkDestroyFence(vk.device, fence, NULL);
	vkc_timer_destroy(&vk, &timer);
	for (int i = 0; i < 2; i++) {
		vkDestroyPipeline(vk.device, both[i]->pipeline, NULL);
		vkc_buffer_destroy(&vk, &both[i]->buf);
	}
	vkDestroyDescriptorPool(vk.device, pool, NULL);
	vkDestroyPipelineLayout(vk.device, layout, NULL);
	vkDestroyDescriptorSetLayout(vk.device, set_layout, NULL);
	vkDestroyShaderModule(vk.device, module, NULL);
	vkc_finish(&vk);
	return ok ? 0 : 1;
}
