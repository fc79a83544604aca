/*
 * hot_lines: runs hot_lines.comp (built with -g, so its SPIR-V carries its source lines;
 * with HOT_LINES_MODULE=plain in the environment, built without) as any program would, for
 * HESPER_LINES's end-to-end test (tests/e2e/run_lines.py).
 *
 *   hot_lines TRIPS DISPATCHES [NAME]
 *
 * DISPATCHES dispatches of GROUPS work groups of 64 invocations, a compute barrier after
 * each, with the loop's trip count TRIPS and the branch taken by TAKEN of every 100
 * invocations; NAME, when given, names the pipeline after it is made
 * (vkSetDebugUtilsObjectNameEXT). Prints the last invocation's value (checked against the host's own
 * arithmetic) and one "HESPER-LINES-TRUTH {json}" line: what the counts of the kernel's
 * blocks must be. Exit status 0, 1 when its result is wrong, 2 on bad usage or Vulkan
 * failure.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_common.h"

#define GROUPS 100u
#define INVOCATIONS (GROUPS * 64u)
#define TAKEN 37u

int main(int argc, char **argv)
{
	char *end1 = NULL, *end2 = NULL;
	bool usage = argc != 3 && argc != 4;
	unsigned long trips = usage ? 0 : strtoul(argv[1], &end1, 10);
	unsigned long dispatches = usage ? 0 : strtoul(argv[2], &end2, 10);
	if (usage || *end1 || *end2 || trips > 1000000 || dispatches < 1 || dispatches > 1000) {
		fprintf(stderr, "usage: %s TRIPS DISPATCHES [NAME] (TRIPS up to 1000000, DISPATCHES 1 to 1000)\n",
			argv[0]);
		return 2;
	}
	struct vkc_ctx vk;
	vkc_init(&vk, "hot_lines");
	const char *which = getenv("HOT_LINES_MODULE");
	bool lines = !(which && strcmp(which, "plain") == 0);
	VkShaderModule module = vkc_shader_module(&vk, lines ? "hot_lines_g.spv" : "hot_lines.spv");
	VkDescriptorSetLayout set_layout = vkc_set_layout(&vk, 1);
	VkPipelineLayout layout = vkc_pipeline_layout(&vk, set_layout, 8);
	VkPipeline pipeline = vkc_compute_pipeline(&vk, layout, module, 0);
	bool named = argc == 4 && vkc_name_pipeline(&vk, pipeline, argv[3]);
	struct vkc_buffer values;
	vkc_buffer_create(&vk, &values, INVOCATIONS * sizeof(float), 0);
	for (uint32_t i = 0; i < INVOCATIONS; i++)
		((float *)values.map)[i] = (float)i;
	VkDescriptorPool pool = vkc_descriptor_pool(&vk, 1, 1);
	struct vkc_buffer *bufs[1] = { &values };
	VkDescriptorSet set = vkc_descriptor_set(&vk, pool, set_layout, bufs, 1);

	uint32_t push[2] = { (uint32_t)trips, TAKEN };
	VkCommandBuffer cmd = vkc_command_buffer(&vk);
	vkc_begin(cmd, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
	for (unsigned long d = 0; d < dispatches; d++) {
		vkCmdDispatch(cmd, GROUPS, 1, 1);
		vkc_barrier(cmd);
	}
	vkc_end(cmd);
	VkFence fence = vkc_fence(&vk);
	vkc_submit_wait(&vk, cmd, fence);

	/* The last invocation (index 6399: 99 of 100, so past TAKEN): the loop alone, each dispatch. */
	float expect = (float)(INVOCATIONS - 1);
	for (unsigned long d = 0; d < dispatches; d++)
		for (unsigned long k = 0; k < trips; k++)
			expect = expect * 1.0001f + 0.5f;
	float got = ((float *)values.map)[INVOCATIONS - 1];
	int status = got > expect * 0.999f && got < expect * 1.001f ? 0 : 1;
	printf("last value %.4g (%s)\n", (double)got, status ? "WRONG" : "right");
	uint32_t taken = 0;
	for (uint32_t i = 0; i < INVOCATIONS; i++)
		taken += i % 100u < TAKEN;
	printf("HESPER-LINES-TRUTH {\"source\": \"hot_lines.comp\", \"dispatches\": %lu, \"invocations\": %u, "
	       "\"trips\": %lu, \"taken\": %u, \"named\": %s, \"lines\": %s}\n",
	       dispatches, INVOCATIONS, trips, taken, named ? "true" : "false", lines ? "true" : "false");
	fflush(stdout);

	vkDestroyFence(vk.device, fence, NULL);
	vkc_buffer_destroy(&vk, &values);
	vkDestroyDescriptorPool(vk.device, pool, NULL);
	vkDestroyPipeline(vk.device, pipeline, NULL);
	vkDestroyPipelineLayout(vk.device, layout, NULL);
	vkDestroyDescriptorSetLayout(vk.device, set_layout, NULL);
	vkDestroyShaderModule(vk.device, module, NULL);
	vkc_finish(&vk);
	return status;
}
