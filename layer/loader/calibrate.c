/* The measured cost of a dispatch on a device (loader.h). */
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "loader.h"
#include "state/state.h"

/* glslc -O of: #version 450 / layout(local_size_x = 1) in; / void main() {} */
static const uint32_t empty_shader[] = {
	0x07230203, 0x00010000, 0x000d000b, 0x0000000a, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001,
	0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0005000f, 0x00000005,
	0x00000004, 0x6e69616d, 0x00000000, 0x00060010, 0x00000004, 0x00000011, 0x00000001, 0x00000001, 0x00000001,
	0x00040047, 0x00000009, 0x0000000b, 0x00000019, 0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002,
	0x00040015, 0x00000006, 0x00000020, 0x00000000, 0x00040017, 0x00000007, 0x00000006, 0x00000003, 0x0004002b,
	0x00000006, 0x00000008, 0x00000001, 0x0006002c, 0x00000007, 0x00000009, 0x00000008, 0x00000008, 0x00000008,
	0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x000100fd, 0x00010038,
};

/* Single dispatches timed alone, and dispatches back to back (plain, then each followed by a timestamp). */
#define SINGLES 16
#define BACK_TO_BACK 64
#define QUERIES (2 * SINGLES + 2 + BACK_TO_BACK + 1)
#define WAIT_NS 10000000000ull

/* The objects of one measurement, destroyed together. */
struct bench {
	VkShaderModule module;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkCommandPool pool;
	VkCommandBuffer cb;
	VkQueryPool queries;
	VkFence fence;
};

/* The queue family of @info that can run a timed compute dispatch, or UINT32_MAX. */
static uint32_t compute_family(const struct hesper_device *dev, const VkDeviceCreateInfo *info)
{
	for (uint32_t i = 0; i < info->queueCreateInfoCount; i++) {
		const VkDeviceQueueCreateInfo *q = &info->pQueueCreateInfos[i];
		uint32_t f = q->queueFamilyIndex;
		if (q->flags == 0 && q->queueCount > 0 && f < dev->family_count &&
		    (dev->families[f].props.queueFlags & VK_QUEUE_COMPUTE_BIT) &&
		    dev->families[f].props.timestampValidBits)
			return f;
	}
	return UINT32_MAX;
}

static int create_objects(struct hesper_device *dev, uint32_t family, struct bench *b)
{
	const struct hesper_device_table *n = &dev->next;
	VkDevice d = dev->handle;
	VkShaderModuleCreateInfo module = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
					   .codeSize = sizeof(empty_shader),
					   .pCode = empty_shader};
	VkPipelineLayoutCreateInfo layout = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
	VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.queueFamilyIndex = family};
	VkQueryPoolCreateInfo queries = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
					 .queryType = VK_QUERY_TYPE_TIMESTAMP,
					 .queryCount = QUERIES};
	VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	if (!n->CreatePipelineLayout || !n->DestroyPipelineLayout ||
	    n->CreateShaderModule(d, &module, NULL, &b->module) != VK_SUCCESS ||
	    n->CreatePipelineLayout(d, &layout, NULL, &b->layout) != VK_SUCCESS)
		return -1;
	VkComputePipelineCreateInfo pipeline = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
			  .module = b->module,
			  .pName = "main"},
		.layout = b->layout,
	};
	if (n->CreateComputePipelines(d, VK_NULL_HANDLE, 1, &pipeline, NULL, &b->pipeline) != VK_SUCCESS ||
	    n->CreateCommandPool(d, &pool, NULL, &b->pool) != VK_SUCCESS ||
	    n->CreateQueryPool(d, &queries, NULL, &b->queries) != VK_SUCCESS ||
	    n->CreateFence(d, &fence, NULL, &b->fence) != VK_SUCCESS)
		return -1;
	VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					     .commandPool = b->pool,
					     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					     .commandBufferCount = 1};
	if (n->AllocateCommandBuffers(d, &alloc, &b->cb) != VK_SUCCESS)
		return -1;
	/* Made below the loader: the layers below find their state through the loader's pointer. */
	return dev->set_loader_data(d, b->cb) == VK_SUCCESS ? 0 : -1;
}

static void destroy_objects(struct hesper_device *dev, struct bench *b)
{
	const struct hesper_device_table *n = &dev->next;
	VkDevice d = dev->handle;
	if (b->fence)
		n->DestroyFence(d, b->fence, NULL);
	if (b->queries)
		n->DestroyQueryPool(d, b->queries, NULL);
	if (b->pool)
		n->DestroyCommandPool(d, b->pool, NULL); /* frees the command buffer */
	if (b->pipeline)
		n->DestroyPipeline(d, b->pipeline, NULL);
	if (b->layout)
		n->DestroyPipelineLayout(d, b->layout, NULL);
	if (b->module)
		n->DestroyShaderModule(d, b->module, NULL);
}

/* Records the three measurements into @b->cb; 0 on success. */
static int record(struct hesper_device *dev, struct bench *b)
{
	const struct hesper_device_table *n = &dev->next;
	const VkPipelineStageFlagBits bottom = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	if (n->BeginCommandBuffer(b->cb, &begin) != VK_SUCCESS)
		return -1;
	n->CmdResetQueryPool(b->cb, b->queries, 0, QUERIES);
	n->CmdBindPipeline(b->cb, VK_PIPELINE_BIND_POINT_COMPUTE, b->pipeline);
	/* Some drivers (lavapipe) compile the shader at its first dispatch: this one, before any timestamp. */
	n->CmdDispatch(b->cb, 1, 1, 1);
	/* As Hesper times a dispatch: a timestamp after the work before it, and one after it. */
	for (uint32_t i = 0; i < SINGLES; i++) {
		n->CmdWriteTimestamp(b->cb, bottom, b->queries, 2 * i);
		n->CmdDispatch(b->cb, 1, 1, 1);
		n->CmdWriteTimestamp(b->cb, bottom, b->queries, 2 * i + 1);
	}
	uint32_t plain = 2 * SINGLES, stamped = plain + 2;
	n->CmdWriteTimestamp(b->cb, bottom, b->queries, plain);
	for (uint32_t i = 0; i < BACK_TO_BACK; i++)
		n->CmdDispatch(b->cb, 1, 1, 1);
	n->CmdWriteTimestamp(b->cb, bottom, b->queries, plain + 1);
	n->CmdWriteTimestamp(b->cb, bottom, b->queries, stamped);
	for (uint32_t i = 0; i < BACK_TO_BACK; i++) {
		n->CmdDispatch(b->cb, 1, 1, 1);
		n->CmdWriteTimestamp(b->cb, bottom, b->queries, stamped + 1 + i);
	}
	return n->EndCommandBuffer(b->cb) == VK_SUCCESS ? 0 : -1;
}

/* Submits @b->cb on @queue and waits for it; 0 when it completed. */
static int run(struct hesper_device *dev, VkQueue queue, struct bench *b)
{
	const struct hesper_device_table *n = &dev->next;
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &b->cb};
	if (n->QueueSubmit(queue, 1, &submit, b->fence) != VK_SUCCESS)
		return -1;
	return n->WaitForFences(dev->handle, 1, &b->fence, VK_TRUE, WAIT_NS) == VK_SUCCESS ? 0 : -1;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void hesper_device_measure_dispatch(struct hesper_device *dev, const VkDeviceCreateInfo *info,
				    struct hesper_device_info *out)
{
	uint32_t family = compute_family(dev, info);
	struct bench b = {0};
	VkQueue queue = VK_NULL_HANDLE;
	if (family == UINT32_MAX || !dev->set_loader_data)
		return;
	dev->next.GetDeviceQueue(dev->handle, family, 0, &queue);
	if (!queue || dev->set_loader_data(dev->handle, queue) != VK_SUCCESS)
		goto out;
	/* One submit call: layers below that count the program's calls see one more. */
	if (create_objects(dev, family, &b) != 0 || record(dev, &b) != 0 || run(dev, queue, &b) != 0)
		goto out;
	uint64_t ts[QUERIES];
	if (dev->next.GetQueryPoolResults(dev->handle, b.queries, 0, QUERIES, sizeof(ts), ts, sizeof(uint64_t),
					  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
		goto out;
	uint64_t mask = dev->families[family].tick_mask;
	double period = dev->props.limits.timestampPeriod;
	uint64_t singles[SINGLES];
	for (uint32_t i = 0; i < SINGLES; i++)
		singles[i] = (ts[2 * i + 1] - ts[2 * i]) & mask;
	qsort(singles, SINGLES, sizeof(singles[0]), by_value);
	uint32_t plain = 2 * SINGLES, stamped = plain + 2;
	double plain_each = (double)((ts[plain + 1] - ts[plain]) & mask) * period / BACK_TO_BACK;
	double stamped_each = (double)((ts[stamped + BACK_TO_BACK] - ts[stamped]) & mask) * period / BACK_TO_BACK;
	uint64_t median = (uint64_t)llround((double)singles[SINGLES / 2] * period);
	out->dispatch_cost_ns = median ? median : 1;
	out->timestamp_cost_ns = stamped_each > plain_each ? (uint64_t)llround(stamped_each - plain_each) : 0;
out:
	destroy_objects(dev, &b);
}
