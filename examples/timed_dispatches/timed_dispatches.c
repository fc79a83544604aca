/*
 * timed_dispatches: a Vulkan compute program that times its own dispatches and prints
 * Hesper's report of them through the profiling library (<hesper/profiling.h>).
 *
 * Each round fills two buffers (kernel "fill") and computes y = a x + y ("saxpy"). A
 * timestamp query pair around every dispatch, read back after the work finished, becomes
 * one struct hesper_event (hesper_event_from_ticks: valid bits and period from the
 * device); at the end the program prints Hesper's kernel table, a summary per kernel,
 * and, given an output prefix, writes PREFIX.json (hesper-summary/1) and
 * PREFIX.trace.json (open it in https://ui.perfetto.dev).
 *
 *     timed_dispatches [ROUNDS [PREFIX]]     (default 20 rounds)
 *
 * Exit status: 0 when the results check out, 1 when they do not, 2 when Vulkan or the
 * library failed. Build: see meson.build or Makefile beside this file.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hesper/profiling.h>
#include <vulkan/vulkan.h>

#include "shaders.h"

#define ELEMENTS (1u << 20)
#define GROUP_SIZE 64u /* local_size_x of both shaders */
#define MAX_ROUNDS 1000u
#define SAXPY_A 2.0f

enum { FILL, SAXPY, KERNELS };
static const char *const kernel_names[KERNELS] = {"fill", "saxpy"};

struct push {
	float a;
	uint32_t n;
};

struct app {
	VkInstance instance;
	VkPhysicalDevice gpu;
	VkPhysicalDeviceProperties props;
	uint32_t family, valid_bits;
	VkDevice device;
	VkQueue queue;
	VkBuffer buffers[2];
	VkDeviceMemory memory[2];
	float *mapped[2];
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkDescriptorPool descriptor_pool;
	VkDescriptorSet set;
	VkShaderModule modules[KERNELS];
	VkPipeline pipelines[KERNELS];
	VkCommandPool command_pool;
	VkCommandBuffer cmd;
	VkQueryPool queries;
	VkFence fence;
};

/* Prints the failed call and its VkResult and jumps to the function's "out" label. */
#define VK(call)                                                                                       \
	do {                                                                                           \
		VkResult r_ = (call);                                                                  \
		if (r_ != VK_SUCCESS) {                                                                \
			fprintf(stderr, "timed_dispatches: %s failed: VkResult %d\n", #call, (int)r_); \
			goto out;                                                                      \
		}                                                                                      \
	} while (0)

/* The first device with a compute queue family that writes timestamps. */
static bool
pick_gpu(struct app *a)
{
	VkPhysicalDevice gpus[16];
	uint32_t n = 16;
	VkResult r = vkEnumeratePhysicalDevices(a->instance, &n, gpus);
	bool ok = false;

	if (r != VK_SUCCESS && r != VK_INCOMPLETE) /* more than 16 devices: the first 16 will do */
		n = 0;
	for (uint32_t i = 0; i < n && !ok; i++) {
		VkQueueFamilyProperties families[16];
		uint32_t nf = 16;

		vkGetPhysicalDeviceQueueFamilyProperties(gpus[i], &nf, families);
		for (uint32_t f = 0; f < nf && !ok; f++) {
			if (!(families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) || families[f].timestampValidBits == 0)
				continue;
			a->gpu = gpus[i];
			a->family = f;
			a->valid_bits = families[f].timestampValidBits;
			ok = true;
		}
	}
	if (!ok)
		fprintf(stderr, "timed_dispatches: no Vulkan device with timestamps on a compute queue\n");
	else
		vkGetPhysicalDeviceProperties(a->gpu, &a->props);
	return ok;
}

static bool
create_device(struct app *a)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "timed_dispatches",
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo instance_info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	float priority = 1.0f;
	VkDeviceQueueCreateInfo queue_info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo device_info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue_info,
	};

	VK(vkCreateInstance(&instance_info, NULL, &a->instance));
	if (!pick_gpu(a))
		return false;
	queue_info.queueFamilyIndex = a->family;
	VK(vkCreateDevice(a->gpu, &device_info, NULL, &a->device));
	vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
	return true;
out:
	return false;
}

/* A host-visible, coherent memory type allowed by @bits. */
static int32_t
host_memory_type(const struct app *a, uint32_t bits)
{
	const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	VkPhysicalDeviceMemoryProperties mem;

	vkGetPhysicalDeviceMemoryProperties(a->gpu, &mem);
	for (uint32_t i = 0; i < mem.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want)
			return (int32_t)i;
	return -1;
}

static bool
create_buffers(struct app *a)
{
	for (int i = 0; i < 2; i++) {
		VkBufferCreateInfo info = {
			.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
			.size = ELEMENTS * sizeof(float),
			.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
		};
		VkMemoryRequirements req;
		void *map;

		VK(vkCreateBuffer(a->device, &info, NULL, &a->buffers[i]));
		vkGetBufferMemoryRequirements(a->device, a->buffers[i], &req);
		int32_t type = host_memory_type(a, req.memoryTypeBits);
		if (type < 0) {
			fprintf(stderr, "timed_dispatches: no host-visible coherent memory\n");
			return false;
		}
		VkMemoryAllocateInfo alloc = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
			.allocationSize = req.size,
			.memoryTypeIndex = (uint32_t)type,
		};
		VK(vkAllocateMemory(a->device, &alloc, NULL, &a->memory[i]));
		VK(vkBindBufferMemory(a->device, a->buffers[i], a->memory[i], 0));
		VK(vkMapMemory(a->device, a->memory[i], 0, VK_WHOLE_SIZE, 0, &map));
		a->mapped[i] = map;
	}
	return true;
out:
	return false;
}

/* Descriptor set (x, y), a push-constant layout and the two pipelines from shaders.h. */
static bool
create_pipelines(struct app *a)
{
	static const struct {
		const uint32_t *code;
		size_t size;
	} spirv[KERNELS] = {{fill_spv, sizeof(fill_spv)}, {saxpy_spv, sizeof(saxpy_spv)}};
	VkDescriptorSetLayoutBinding bindings[2];
	VkDescriptorBufferInfo buffer_info[2];
	VkWriteDescriptorSet writes[2];

	for (uint32_t i = 0; i < 2; i++) {
		bindings[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
							     VK_SHADER_STAGE_COMPUTE_BIT, NULL};
		buffer_info[i] = (VkDescriptorBufferInfo){a->buffers[i], 0, VK_WHOLE_SIZE};
	}
	VkDescriptorSetLayoutCreateInfo set_info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = 2,
		.pBindings = bindings,
	};
	VK(vkCreateDescriptorSetLayout(a->device, &set_info, NULL, &a->set_layout));
	VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct push)};
	VkPipelineLayoutCreateInfo layout_info = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &a->set_layout,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &push,
	};
	VK(vkCreatePipelineLayout(a->device, &layout_info, NULL, &a->layout));

	VkDescriptorPoolSize pool_size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
	VkDescriptorPoolCreateInfo pool_info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 1,
		.poolSizeCount = 1,
		.pPoolSizes = &pool_size,
	};
	VK(vkCreateDescriptorPool(a->device, &pool_info, NULL, &a->descriptor_pool));
	VkDescriptorSetAllocateInfo set_alloc = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = a->descriptor_pool,
		.descriptorSetCount = 1,
		.pSetLayouts = &a->set_layout,
	};
	VK(vkAllocateDescriptorSets(a->device, &set_alloc, &a->set));
	for (uint32_t i = 0; i < 2; i++)
		writes[i] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = a->set,
			.dstBinding = i,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &buffer_info[i],
		};
	vkUpdateDescriptorSets(a->device, 2, writes, 0, NULL);

	for (int k = 0; k < KERNELS; k++) {
		VkShaderModuleCreateInfo module_info = {
			.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
			.codeSize = spirv[k].size,
			.pCode = spirv[k].code,
		};
		VK(vkCreateShaderModule(a->device, &module_info, NULL, &a->modules[k]));
		VkComputePipelineCreateInfo pipeline_info = {
			.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
			.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
				  .module = a->modules[k],
				  .pName = "main"},
			.layout = a->layout,
		};
		VK(vkCreateComputePipelines(a->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &a->pipelines[k]));
	}
	return true;
out:
	return false;
}

/* Makes the shader writes before it visible to the next dispatch (and to the host). */
static void
barrier(VkCommandBuffer cmd, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
	VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
		.dstAccessMask = dst_access,
	};

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst_stage, 0, 1, &b, 0, NULL, 0, NULL);
}

/* One command buffer: @rounds x (fill, saxpy), each dispatch between queries 2i and 2i + 1. */
static bool
record(struct app *a, uint32_t rounds)
{
	VkCommandPoolCreateInfo pool_info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.queueFamilyIndex = a->family,
	};
	VkQueryPoolCreateInfo query_info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 2 * KERNELS * rounds,
	};
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	struct push push = {SAXPY_A, ELEMENTS};
	uint32_t q = 0;

	VK(vkCreateCommandPool(a->device, &pool_info, NULL, &a->command_pool));
	VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = a->command_pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VK(vkAllocateCommandBuffers(a->device, &alloc, &a->cmd));
	VK(vkCreateQueryPool(a->device, &query_info, NULL, &a->queries));

	VK(vkBeginCommandBuffer(a->cmd, &begin));
	vkCmdResetQueryPool(a->cmd, a->queries, 0, query_info.queryCount);
	vkCmdBindDescriptorSets(a->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &a->set, 0, NULL);
	vkCmdPushConstants(a->cmd, a->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
	for (uint32_t r = 0; r < rounds; r++) {
		for (int k = 0; k < KERNELS; k++) {
			vkCmdBindPipeline(a->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, a->pipelines[k]);
			vkCmdWriteTimestamp(a->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, a->queries, q++);
			vkCmdDispatch(a->cmd, ELEMENTS / GROUP_SIZE, 1, 1);
			vkCmdWriteTimestamp(a->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, a->queries, q++);
			barrier(a->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
				VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
		}
	}
	barrier(a->cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
	VK(vkEndCommandBuffer(a->cmd));
	return true;
out:
	return false;
}

/* Submits, waits, and turns every query pair into an event of @events (2 x rounds of them). */
static bool
run(struct app *a, uint32_t rounds, struct hesper_event *events)
{
	VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &a->cmd,
	};
	uint32_t n = KERNELS * rounds;
	uint64_t *ticks = calloc(2 * (size_t)n, sizeof(*ticks));
	bool ok = false;

	if (!ticks) {
		fprintf(stderr, "timed_dispatches: out of memory\n");
		return false;
	}
	VK(vkCreateFence(a->device, &fence_info, NULL, &a->fence));
	VK(vkQueueSubmit(a->queue, 1, &submit, a->fence));
	VK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
	VK(vkGetQueryPoolResults(a->device, a->queries, 0, 2 * n, 2 * n * sizeof(*ticks), ticks, sizeof(*ticks),
				 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
	for (uint32_t i = 0; i < n; i++)
		events[i] = hesper_event_from_ticks(kernel_names[i % KERNELS], ticks[2 * i], ticks[2 * i + 1],
						    a->props.limits.timestampPeriod, a->valid_bits);
	ok = true;
out:
	free(ticks);
	return ok;
}

/* y = a x + 1 with x = i mod 1024, exactly, after the last round. */
static bool
results_ok(const struct app *a)
{
	for (uint32_t i = 0; i < ELEMENTS; i++) {
		float x = (float)(i % 1024u);

		if (a->mapped[0][i] != x || a->mapped[1][i] != SAXPY_A * x + 1.0f)
			return false;
	}
	return true;
}

static void
destroy(struct app *a)
{
	if (a->device) {
		vkDeviceWaitIdle(a->device);
		vkDestroyFence(a->device, a->fence, NULL);
		vkDestroyQueryPool(a->device, a->queries, NULL);
		vkDestroyCommandPool(a->device, a->command_pool, NULL);
		for (int k = 0; k < KERNELS; k++) {
			vkDestroyPipeline(a->device, a->pipelines[k], NULL);
			vkDestroyShaderModule(a->device, a->modules[k], NULL);
		}
		vkDestroyDescriptorPool(a->device, a->descriptor_pool, NULL);
		vkDestroyPipelineLayout(a->device, a->layout, NULL);
		vkDestroyDescriptorSetLayout(a->device, a->set_layout, NULL);
		for (int i = 0; i < 2; i++) {
			vkDestroyBuffer(a->device, a->buffers[i], NULL);
			vkFreeMemory(a->device, a->memory[i], NULL);
		}
		vkDestroyDevice(a->device, NULL);
	}
	if (a->instance)
		vkDestroyInstance(a->instance, NULL);
}

/* Writes Hesper's report of @events in @format to @path; false (with a line on stderr) when that fails. */
static bool
write_file(const char *path, enum hesper_report_format format, const struct hesper_event *events, size_t n,
	   const struct hesper_report_info *info)
{
	FILE *f = fopen(path, "w");
	int status = f ? hesper_write_report(f, format, events, n, info) : HESPER_ERROR_IO;

	if (f && fclose(f) != 0 && status == HESPER_OK)
		status = HESPER_ERROR_IO;
	if (status != HESPER_OK)
		fprintf(stderr, "timed_dispatches: %s: %s\n", path, hesper_status_string(status));
	return status == HESPER_OK;
}

/* Hesper's table, one summary line per kernel, and the files under @prefix (may be NULL). */
static bool
report(const struct app *a, const struct hesper_event *events, size_t n, const char *prefix)
{
	struct hesper_report_info info = {
		.program = "timed_dispatches",
		.device = a->props.deviceName,
		.timestamp_period_ns = a->props.limits.timestampPeriod,
	};
	struct hesper_kernel_group *groups = NULL;
	size_t n_groups;
	char line[512], path[4096];
	bool ok = true;

	if (hesper_print_report(stdout, events, n) != HESPER_OK)
		return false;
	n_groups = hesper_group_by_kernel(events, n, &groups);
	if (n_groups == 0 && n > 0)
		return false;
	printf("\nPer kernel\n");
	for (size_t i = 0; i < n_groups; i++) {
		hesper_summary_format(line, sizeof(line), &groups[i].summary);
		printf("  %-6s %s\n", groups[i].name, line);
	}
	hesper_kernel_groups_free(groups, n_groups);
	if (prefix) {
		snprintf(path, sizeof(path), "%s.json", prefix);
		ok &= write_file(path, HESPER_REPORT_JSON, events, n, &info);
		snprintf(path, sizeof(path), "%s.trace.json", prefix);
		ok &= write_file(path, HESPER_REPORT_TRACE, events, n, &info);
	}
	return ok;
}

int
main(int argc, char **argv)
{
	struct app a = {0};
	struct hesper_event *events = NULL;
	uint32_t rounds = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 20;
	int status = 2;

	if (argc > 3 || rounds == 0 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: timed_dispatches [ROUNDS (1..%u) [OUTPUT_PREFIX]]\n", MAX_ROUNDS);
		return 2;
	}
	events = calloc((size_t)KERNELS * rounds, sizeof(*events));
	if (!events || !create_device(&a) || !create_buffers(&a) || !create_pipelines(&a) || !record(&a, rounds) ||
	    !run(&a, rounds, events))
		goto out;
	bool ok = results_ok(&a);
	printf("timed_dispatches: %u rounds of %u dispatches on %s, results %s\n\n", rounds, KERNELS,
	       a.props.deviceName, ok ? "ok" : "WRONG");
	if (!report(&a, events, (size_t)KERNELS * rounds, argc > 2 ? argv[2] : NULL))
		goto out;
	status = ok ? 0 : 1;
out:
	destroy(&a);
	free(events);
	return status;
}
