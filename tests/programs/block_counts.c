/*
 * block_counts: runs hot_lines.comp, rewritten to count its blocks (layer/clock/
 * spirv_blocks.h), on the default Vulkan device without Hesper's layer, and checks the
 * counts against what the test knows: the loop body runs N x trips times, the branch as
 * often as its condition holds, the store N times; and that the loop's lines (marked LOOP
 * and HOT), as analysis/model/hot_lines.h attributes the blocks' time to lines, hold at
 * least 80 % of the clock time with many trips, and more than with few.
 *
 *   block_counts HOT_LINES_COMP [TRIPS_FEW TRIPS_MANY]
 *
 * HOT_LINES_COMP is the shader's source, where the marked lines are found. Exit status 0
 * when every check holds, 1 when one fails, 2 when Vulkan fails, 77 when the device lacks
 * the shader clock, 64-bit integers, their atomics or subgroup arithmetic (a skip).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "spirv_blocks.h"
#include "spirv_lines.h"
#include "vk_common.h"

#define GROUPS 100u
#define INVOCATIONS (GROUPS * 64u)
#define TAKEN 37u /* of every 100 invocations, those that take the branch */
#define SKIP 77

static int failures;
static uint32_t validation_errors;

#define CHECK(cond, ...)                              \
	do {                                          \
		if (!(cond)) {                        \
			printf("FAIL: " __VA_ARGS__); \
			printf("\n");                 \
			failures++;                   \
		} else {                              \
			printf("ok: " __VA_ARGS__);   \
			printf("\n");                 \
		}                                     \
	} while (0)

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
						 VkDebugUtilsMessageTypeFlagsEXT types,
						 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	(void)types;
	(void)user;
	if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
		validation_errors++;
		fprintf(stderr, "validation: %s\n", data->pMessage);
	}
	return VK_FALSE;
}

/* The whole file at @path as words; exits when it cannot be read. */
static uint32_t *read_words(const char *path, size_t *count)
{
	FILE *f = fopen(path, "rb");
	long len = -1;
	uint32_t *w = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0)
		w = malloc((size_t)len);
	if (!w || fread(w, 1, (size_t)len, f) != (size_t)len)
		vkc_fail("cannot read %s", path);
	fclose(f);
	*count = (size_t)len / 4;
	return w;
}

/* The 1-based line of @path holding @marker. */
static uint32_t marked_line(const char *path, const char *marker)
{
	FILE *f = fopen(path, "r");
	char text[512];
	uint32_t n = 0;
	while (f && fgets(text, sizeof(text), f)) {
		n++;
		if (strstr(text, marker)) {
			fclose(f);
			return n;
		}
	}
	vkc_fail("no line of %s holds %s", path, marker);
}

/* Whether block @b has instructions from @line. */
static bool block_has(const struct hesper_spirv_lines *l, size_t b, uint32_t line)
{
	for (size_t k = 0; k < l->blocks[b].runs; k++)
		if (l->runs[l->blocks[b].first_run + k].line == line)
			return true;
	return false;
}

/* The index of the first block whose instructions come from @line. */
static uint32_t block_of(const struct hesper_spirv_lines *l, uint32_t line)
{
	for (size_t b = 0; b < l->block_count; b++)
		if (block_has(l, b, line))
			return (uint32_t)b;
	vkc_fail("no block holds line %u", line);
}

/* Whether the device has what the rewrite needs. */
static bool device_can(const struct vkc_ctx *probe)
{
	VkPhysicalDeviceShaderClockFeaturesKHR clock = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR
	};
	VkPhysicalDeviceVulkan12Features v12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
						 .pNext = &clock };
	VkPhysicalDeviceFeatures2 f = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &v12 };
	vkGetPhysicalDeviceFeatures2(probe->physical_device, &f);
	return clock.shaderSubgroupClock && v12.shaderSubgroupExtendedTypes && v12.shaderBufferInt64Atomics &&
	       f.features.shaderInt64;
}

/* One dispatch of @pipeline with @trips; the counters read into @counters (2 * @blocks words). */
static void run(struct vkc_ctx *vk, VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet sets[2],
		struct vkc_buffer *values, struct vkc_buffer *counts, uint32_t trips, uint64_t *counters,
		uint32_t blocks)
{
	VkCommandBuffer cmd;
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					   .commandPool = vk->cmd_pool,
					   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					   .commandBufferCount = 1 };
	uint32_t push[2] = { trips, TAKEN };
	VKC_CHECK(vkAllocateCommandBuffers(vk->device, &ai, &cmd));
	for (uint32_t i = 0; i < INVOCATIONS; i++)
		((float *)values->map)[i] = (float)i;
	memset(counts->map, 0, (size_t)blocks * 16 * HESPER_BLOCKS_COPIES);
	vkc_begin(cmd, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, sets, 0, NULL);
	vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
	vkCmdDispatch(cmd, GROUPS, 1, 1);
	vkc_end(cmd);
	VkFence fence;
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VKC_CHECK(vkCreateFence(vk->device, &fi, NULL, &fence));
	vkc_submit_wait(vk, cmd, fence);
	vkDestroyFence(vk->device, fence, NULL);
	vkFreeCommandBuffers(vk->device, vk->cmd_pool, 1, &cmd);
	/* the copies of the counters added up, as Hesper's reader does */
	const uint64_t *copies = counts->map;
	memset(counters, 0, (size_t)blocks * 16);
	for (uint32_t c = 0; c < HESPER_BLOCKS_COPIES; c++)
		for (size_t k = 0; k < (size_t)blocks * 2; k++)
			counters[k] += copies[(size_t)c * blocks * 2 + k];
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: %s HOT_LINES_COMP [TRIPS_FEW TRIPS_MANY]\n", argv[0]);
		return 2;
	}
	const char *source = argv[1];
	uint32_t trips[2] = { argc == 4 ? (uint32_t)atoi(argv[2]) : 4u, argc == 4 ? (uint32_t)atoi(argv[3]) : 4000u };

	/* The blocks and lines of the module as built, and the rewrite. */
	char path[4096];
	const char *dir = getenv("TEST_SPV_DIR");
	snprintf(path, sizeof(path), "%s/hot_lines_g.spv", dir ? dir : HESPER_SPV_DIR);
	size_t count = 0, out_words = 0;
	uint32_t *code = read_words(path, &count), *out = NULL, blocks = 0;
	struct hesper_spirv_lines lines;
	const char *why = hesper_spirv_lines_read(code, count, &lines);
	if (why)
		vkc_fail("%s: %s", path, why);
	struct hesper_blocks_target target = { .entry = "main", .set = 1, .binding = 0, .subgroup_clock = true };
	if (hesper_spirv_blocks_instrument(code, count * 4, &target, &out, &out_words, &blocks, &why) != 0)
		vkc_fail("%s: %s", path, why);
	uint32_t hot = block_of(&lines, marked_line(source, "// HOT")),
		 branch = block_of(&lines, marked_line(source, "// BRANCH")),
		 store = block_of(&lines, marked_line(source, "// STORE"));
	uint32_t loop_line = marked_line(source, "// LOOP"), hot_line = marked_line(source, "// HOT");

	struct vkc_ctx probe;
	vkc_init(&probe, "block_counts");
	bool can = device_can(&probe);
	vkc_finish(&probe);
	if (!can) {
		printf("skip: the device lacks the subgroup clock, 64-bit integers or 64-bit subgroup arithmetic\n");
		return SKIP;
	}
	VkPhysicalDeviceShaderClockFeaturesKHR clock = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR, .shaderSubgroupClock = VK_TRUE
	};
	VkPhysicalDeviceVulkan12Features v12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
						 .pNext = &clock,
						 .shaderBufferInt64Atomics = VK_TRUE,
						 .shaderSubgroupExtendedTypes = VK_TRUE };
	VkPhysicalDeviceFeatures core = { .shaderInt64 = VK_TRUE };
	const char *extensions[] = { VK_KHR_SHADER_CLOCK_EXTENSION_NAME };
	struct vkc_options opts = {
		.device_extensions = extensions, .device_extension_count = 1, .device_pnext = &v12, .features = &core
	};
	struct vkc_ctx vk;
	vkc_init_opts(&vk, "block_counts", &opts);
	VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
	PFN_vkCreateDebugUtilsMessengerEXT create_messenger = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
		vk.instance, "vkCreateDebugUtilsMessengerEXT");
	if (vk.has_debug_utils && create_messenger) {
		VkDebugUtilsMessengerCreateInfoEXT mi = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
			.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
			.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
				       VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
			.pfnUserCallback = on_message
		};
		VKC_CHECK(create_messenger(vk.instance, &mi, NULL, &messenger));
	}

	VkShaderModuleCreateInfo mi = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
					.codeSize = out_words * 4,
					.pCode = out };
	VkShaderModule module;
	VKC_CHECK(vkCreateShaderModule(vk.device, &mi, NULL, &module));
	VkDescriptorSetLayout set_layout = vkc_set_layout(&vk, 1);
	VkDescriptorSetLayout set_layouts[2] = { set_layout, set_layout };
	VkPushConstantRange range = { .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = 8 };
	VkPipelineLayoutCreateInfo li = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
					  .setLayoutCount = 2,
					  .pSetLayouts = set_layouts,
					  .pushConstantRangeCount = 1,
					  .pPushConstantRanges = &range };
	VkPipelineLayout layout;
	VKC_CHECK(vkCreatePipelineLayout(vk.device, &li, NULL, &layout));
	VkPipeline pipeline = vkc_compute_pipeline(&vk, layout, module, 0);
	struct vkc_buffer values, counts;
	vkc_buffer_create(&vk, &values, INVOCATIONS * sizeof(float), 0);
	vkc_buffer_create(&vk, &counts, (VkDeviceSize)blocks * 16 * HESPER_BLOCKS_COPIES, 0);
	VkDescriptorPool pool = vkc_descriptor_pool(&vk, 2, 2);
	struct vkc_buffer *v[1] = { &values }, *c[1] = { &counts };
	VkDescriptorSet sets[2] = { vkc_descriptor_set(&vk, pool, set_layout, v, 1),
				    vkc_descriptor_set(&vk, pool, set_layout, c, 1) };

	uint64_t *counters = calloc((size_t)blocks * 2, sizeof(uint64_t));
	uint32_t taken = 0;
	for (uint32_t i = 0; i < INVOCATIONS; i++)
		taken += i % 100u < TAKEN;
	double share[2] = { 0, 0 };
	for (int r = 0; r < 2; r++) {
		run(&vk, pipeline, layout, sets, &values, &counts, trips[r], counters, blocks);
		/* The blocks' counts attributed to lines as Hesper's report does (analysis/model/hot_lines.h). */
		struct hesper_counted_block *counted = calloc(blocks, sizeof(*counted));
		struct hesper_line_run *runs = calloc(lines.run_count ? lines.run_count : 1, sizeof(*runs));
		for (size_t k = 0; k < lines.run_count; k++) {
			const struct hesper_spirv_file *f = hesper_spirv_lines_file(&lines, lines.runs[k].file);
			runs[k] = (struct hesper_line_run){ f ? f->name : NULL, lines.runs[k].line,
							    lines.runs[k].instructions };
		}
		for (uint32_t b = 0; b < blocks; b++)
			counted[b] = (struct hesper_counted_block){ counters[2 * b],
								    counters[2 * b + 1],
								    runs + lines.blocks[b].first_run,
								    lines.blocks[b].runs,
								    NULL,
								    NULL };
		struct hesper_hot_line *hot_lines = NULL;
		size_t hot_count = 0;
		if (hesper_hot_lines(counted, blocks, &hot_lines, &hot_count) != 0)
			vkc_fail("out of memory");
		for (size_t k = 0; k < hot_count; k++) {
			if (hot_lines[k].line == loop_line || hot_lines[k].line == hot_line)
				share[r] += hot_lines[k].share;
			if (k < 3)
				printf("  line %u: %.1f %%, %llu executions\n", hot_lines[k].line,
				       100 * hot_lines[k].share, (unsigned long long)hot_lines[k].executions);
		}
		printf("trips %u: %u blocks, loop body %llu executions, the loop's lines %.1f %% of the clock time\n",
		       trips[r], blocks, (unsigned long long)counters[2 * hot + 1], 100 * share[r]);
		free(hot_lines);
		free(runs);
		free(counted);
		CHECK(counters[2 * hot + 1] == (uint64_t)INVOCATIONS * trips[r],
		      "trips %u: the loop body ran %llu times, N x trips = %llu", trips[r],
		      (unsigned long long)counters[2 * hot + 1], (unsigned long long)INVOCATIONS * trips[r]);
		CHECK(counters[2 * branch + 1] == taken, "trips %u: the branch ran %llu times, its condition held %u",
		      trips[r], (unsigned long long)counters[2 * branch + 1], taken);
		CHECK(counters[2 * store + 1] == INVOCATIONS, "trips %u: the store ran %llu times, N = %u", trips[r],
		      (unsigned long long)counters[2 * store + 1], INVOCATIONS);
		CHECK(counters[1] == INVOCATIONS, "trips %u: the entry block ran %llu times, N = %u", trips[r],
		      (unsigned long long)counters[1], INVOCATIONS);
	}
	CHECK(share[1] >= 0.8, "with %u trips the loop's lines hold %.1f %% of the clock time (at least 80 %%)",
	      trips[1], 100 * share[1]);
	CHECK(share[1] > share[0], "its share grows with the trips: %.1f %% (%u) against %.1f %% (%u)", 100 * share[1],
	      trips[1], 100 * share[0], trips[0]);
	/* The program's own results are what the plain shader computes: the last invocation's value. */
	float expect = (float)(INVOCATIONS - 1);
	for (uint32_t k = 0; k < trips[1]; k++)
		expect = expect * 1.0001f + 0.5f;
	float got = ((float *)values.map)[INVOCATIONS - 1];
	CHECK(got > expect * 0.999f && got < expect * 1.001f, "the kernel's own result: %g against %g", (double)got,
	      (double)expect);

	free(counters);
	vkc_buffer_destroy(&vk, &values);
	vkc_buffer_destroy(&vk, &counts);
	vkDestroyDescriptorPool(vk.device, pool, NULL);
	vkDestroyPipeline(vk.device, pipeline, NULL);
	vkDestroyPipelineLayout(vk.device, layout, NULL);
	vkDestroyDescriptorSetLayout(vk.device, set_layout, NULL);
	vkDestroyShaderModule(vk.device, module, NULL);
	if (messenger) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(vk.instance, "vkDestroyDebugUtilsMessengerEXT");
		destroy(vk.instance, messenger, NULL);
	}
	vkc_finish(&vk);
	CHECK(validation_errors == 0, "no validation error (%u)", validation_errors);
	hesper_spirv_lines_free(&lines);
	free(out);
	free(code);
	return failures ? 1 : 0;
}
