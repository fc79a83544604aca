/*
 * clock_fallback: a kernel whose pipeline layout uses every descriptor set the device
 * binds (maxBoundDescriptorSets; the kernel's buffer at set 0, empty set layouts after
 * it), so that HESPER_MODE=clock has no set index of its own for it and must time it
 * with timestamps, saying why; a kernel whose layout holds every storage buffer the
 * device allows a pipeline layout (the kernel's one at set 0, the rest in an unused set 1),
 * so that Hesper's set would pass the limit; and a plain kernel beside them that clock mode
 * times by the clock. Debug names "full_layout" (3 dispatches), "full_buffers" (2; left
 * out where the limit is over 2^20, NVIDIA's for one) and "roomy_layout" (2 dispatches);
 * prints its HESPER-TRUTH line and checks the kernels' results.
 */
#include <stdio.h>
#include <stdlib.h>

#include "vk_common.h"

#define N 256u
#define MAX_BUFFERS (1u << 20) /* a larger limit is not tried */

/* The fewest storage buffers a compute pipeline layout can hold by the device's limits. */
static uint32_t buffer_limit(const VkPhysicalDeviceLimits *l)
{
	uint32_t n = l->maxPerStageDescriptorStorageBuffers;
	if (l->maxDescriptorSetStorageBuffers < n)
		n = l->maxDescriptorSetStorageBuffers;
	if (l->maxPerStageResources < n)
		n = l->maxPerStageResources;
	return n;
}

int main(void)
{
	struct vkc_ctx vk;
	vkc_init(&vk, "clock_fallback");
	uint32_t sets = vk.props.limits.maxBoundDescriptorSets;
	if (sets > 64)
		sets = 64;

	VkShaderModule module = vkc_shader_module(&vk, "busy.spv");
	VkDescriptorSetLayout buffer_layout = vkc_set_layout(&vk, 1), empty_layout = vkc_set_layout(&vk, 0);
	VkDescriptorSetLayout layouts[64];
	layouts[0] = buffer_layout;
	for (uint32_t i = 1; i < sets; i++)
		layouts[i] = empty_layout;
	VkPushConstantRange range = { .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = 8 };
	VkPipelineLayoutCreateInfo li = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
					  .setLayoutCount = sets,
					  .pSetLayouts = layouts,
					  .pushConstantRangeCount = 1,
					  .pPushConstantRanges = &range };
	VkPipelineLayout full;
	VKC_CHECK(vkCreatePipelineLayout(vk.device, &li, NULL, &full));
	VkPipelineLayout roomy = vkc_pipeline_layout(&vk, buffer_layout, 8);

	/* set 1: the limit's other storage buffers, never bound (the kernel does not use it) */
	uint32_t limit = buffer_limit(&vk.props.limits);
	bool wide = limit >= 2 && limit <= MAX_BUFFERS;
	VkDescriptorSetLayout rest_layout = VK_NULL_HANDLE;
	VkPipelineLayout full_buffers = VK_NULL_HANDLE;
	if (wide) {
		VkDescriptorSetLayoutBinding rest = { .binding = 0,
						      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
						      .descriptorCount = limit - 1,
						      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT };
		VkDescriptorSetLayoutCreateInfo ri = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
						       .bindingCount = 1,
						       .pBindings = &rest };
		VKC_CHECK(vkCreateDescriptorSetLayout(vk.device, &ri, NULL, &rest_layout));
		VkDescriptorSetLayout pair[2] = { buffer_layout, rest_layout };
		VkPipelineLayoutCreateInfo wi = li;
		wi.setLayoutCount = 2;
		wi.pSetLayouts = pair;
		VKC_CHECK(vkCreatePipelineLayout(vk.device, &wi, NULL, &full_buffers));
	}

	struct vkc_buffer buf;
	vkc_buffer_create(&vk, &buf, N * 4, 0);
	struct vkc_buffer *bufs[] = { &buf };
	VkDescriptorPool pool = vkc_descriptor_pool(&vk, 1, 1);
	VkDescriptorSet set = vkc_descriptor_set(&vk, pool, buffer_layout, bufs, 1);
	VkPipeline p_full = vkc_compute_pipeline(&vk, full, module, 0);
	VkPipeline p_roomy = vkc_compute_pipeline(&vk, roomy, module, 0);
	vkc_name_pipeline(&vk, p_full, "full_layout");
	vkc_name_pipeline(&vk, p_roomy, "roomy_layout");
	VkPipeline p_buffers = VK_NULL_HANDLE;
	if (wide) {
		p_buffers = vkc_compute_pipeline(&vk, full_buffers, module, 0);
		vkc_name_pipeline(&vk, p_buffers, "full_buffers");
	}

	uint32_t push[2] = { 100, N };
	VkCommandBuffer cmd = vkc_command_buffer(&vk);
	vkc_begin(cmd, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	for (int i = 0; i < (wide ? 7 : 5); i++) {
		VkPipelineLayout layout = i < 3 ? full : i < 5 ? roomy : full_buffers;
		vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, i < 3 ? p_full : i < 5 ? p_roomy : p_buffers);
		vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
		vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
		vkCmdDispatch(cmd, N / 64, 1, 1);
		vkc_barrier(cmd);
	}
	vkc_end(cmd);
	VkFence fence = vkc_fence(&vk);
	vkc_submit_wait(&vk, cmd, fence);

	int ok = 1;
	const uint32_t *out = buf.map;
	for (uint32_t j = 0; j < N; j++) {
		uint32_t h = j;
		for (uint32_t k = 0; k < push[0]; k++)
			h = h * 1664525u + 1013904223u;
		ok &= out[j] == h;
	}
	vkc_truth_begin("clock_fallback");
	vkc_truth_kernel("busy.spv", "busy.comp", "full_layout", false, 3, -1.0);
	vkc_truth_kernel("busy.spv", "busy.comp", "roomy_layout", false, 2, -1.0);
	if (wide)
		vkc_truth_kernel("busy.spv", "busy.comp", "full_buffers", false, 2, -1.0);
	vkc_truth_end(true);
	printf("clock_fallback: %u sets, %u storage buffers%s, %s\n", sets, limit, wide ? "" : " (not tried)",
	       ok ? "results ok" : "results WRONG");

	vkDestroyFence(vk.device, fence, NULL);
	vkDestroyPipeline(vk.device, p_full, NULL);
	vkDestroyPipeline(vk.device, p_roomy, NULL);
	if (wide) {
		vkDestroyPipeline(vk.device, p_buffers, NULL);
		vkDestroyPipelineLayout(vk.device, full_buffers, NULL);
		vkDestroyDescriptorSetLayout(vk.device, rest_layout, NULL);
	}
	vkDestroyDescriptorPool(vk.device, pool, NULL);
	vkc_buffer_destroy(&vk, &buf);
	vkDestroyPipelineLayout(vk.device, full, NULL);
	vkDestroyPipelineLayout(vk.device, roomy, NULL);
	vkDestroyDescriptorSetLayout(vk.device, buffer_layout, NULL);
	vkDestroyDescriptorSetLayout(vk.device, empty_layout, NULL);
	vkDestroyShaderModule(vk.device, module, NULL);
	vkc_finish(&vk);
	return ok ? 0 : 1;
}
