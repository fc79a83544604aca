/*
 * kernel_stats: three kernels built to differ where a driver's pipeline statistics look
 * (VK_KHR_pipeline_executable_properties): "stats_light" (a multiply-add), "stats_registers"
 * (96 floats live at once) and "stats_shared" (16 KiB of workgroup memory), each dispatched
 * ROUNDS times over one buffer, with barriers between. Checks its results on the host
 * (the light and shared kernels exactly, the register kernel as finite), then prints its
 * HESPER-TRUTH line. tests/e2e/run_kernel_stats.py holds Hesper's statistics against them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vk_common.h"

#define ROUNDS 4
#define GROUPS 16
#define N (GROUPS * 64)
#define TILE 4096

static const char *const kernels[] = { "stats_light", "stats_registers", "stats_shared" };
#define KERNELS (sizeof(kernels) / sizeof(kernels[0]))

/* What one dispatch of the shared kernel adds to every value: its invocation's eight tile reads. */
static float shared_sum(unsigned l)
{
	float s = 0;
	for (unsigned k = l; k < TILE; k += 512)
		s += (float)((k * 7) % TILE) * 0.5f;
	return s;
}

int main(void)
{
	struct vkc_ctx vk;
	vkc_init(&vk, "kernel_stats");
	VkDescriptorSetLayout set_layout = vkc_set_layout(&vk, 1);
	VkPipelineLayout layout = vkc_pipeline_layout(&vk, set_layout, 0);
	VkDescriptorPool pool = vkc_descriptor_pool(&vk, KERNELS, KERNELS);
	struct vkc_buffer bufs[KERNELS];
	VkDescriptorSet sets[KERNELS];
	VkPipeline pipelines[KERNELS];
	VkShaderModule modules[KERNELS];
	for (size_t k = 0; k < KERNELS; k++) {
		char spv[64];
		snprintf(spv, sizeof(spv), "%s.spv", kernels[k]);
		struct vkc_buffer *buf = &bufs[k];
		vkc_buffer_create(&vk, buf, N * sizeof(float), 0);
		float *v = buf->map;
		for (unsigned i = 0; i < N; i++)
			v[i] = (float)(i % 17);
		sets[k] = vkc_descriptor_set(&vk, pool, set_layout, &buf, 1);
		modules[k] = vkc_shader_module(&vk, spv);
		pipelines[k] = vkc_compute_pipeline(&vk, layout, modules[k], 0);
		vkc_name_pipeline(&vk, pipelines[k], kernels[k]);
	}

	VkCommandBuffer cmd = vkc_command_buffer(&vk);
	VkFence fence = vkc_fence(&vk);
	vkc_begin(cmd, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	for (unsigned r = 0; r < ROUNDS; r++)
		for (size_t k = 0; k < KERNELS; k++) {
			vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[k]);
			vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &sets[k], 0, NULL);
			vkCmdDispatch(cmd, GROUPS, 1, 1);
			vkc_barrier(cmd);
		}
	vkc_end(cmd);
	vkc_submit_wait(&vk, cmd, fence);

	int bad = 0;
	const float *light = bufs[0].map, *regs = bufs[1].map, *shared = bufs[2].map;
	for (unsigned i = 0; i < N; i++) {
		float want = (float)(i % 17), add = 0;
		for (unsigned r = 0; r < ROUNDS; r++)
			want = want * 2.0f + 1.0f;
		for (unsigned r = 0; r < ROUNDS; r++)
			add += shared_sum(i % 64);
		bad += light[i] != want;
		bad += fabsf(shared[i] - ((float)(i % 17) + add)) > 1e-3f * fabsf(add);
		bad += !isfinite(regs[i]);
	}
	printf("kernel_stats: %zu kernels, %u dispatches each, results %s\n", KERNELS, ROUNDS, bad ? "WRONG" : "ok");
	vkc_truth_begin("kernel_stats");
	for (size_t k = 0; k < KERNELS; k++) {
		char spv[64], source[64];
		snprintf(spv, sizeof(spv), "%s.spv", kernels[k]);
		snprintf(source, sizeof(source), "%s.comp", kernels[k]);
		vkc_truth_kernel(spv, source, kernels[k], false, ROUNDS, -1);
	}
	vkc_truth_end(true);

	for (size_t k = 0; k < KERNELS; k++) {
		vkDestroyPipeline(vk.device, pipelines[k], NULL);
		vkDestroyShaderModule(vk.device, modules[k], NULL);
		vkc_buffer_destroy(&vk, &bufs[k]);
	}
	vkDestroyFence(vk.device, fence, NULL);
	vkDestroyDescriptorPool(vk.device, pool, NULL);
	vkDestroyPipelineLayout(vk.device, layout, NULL);
	vkDestroyDescriptorSetLayout(vk.device, set_layout, NULL);
	vkc_finish(&vk);
	return bad ? 1 : 0;
}
