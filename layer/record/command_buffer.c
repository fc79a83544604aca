/*
 * Command pools and command buffers: which recording each command buffer holds. Each
 * primary gets a timestamp pair around its whole body (for submission and queue busy
 * time); what is recorded in between is in record_hooks.c.
 */
#include <stdlib.h>
#include <string.h>

#include "command_buffer.h"
#include "record_hooks.h"
#include "state/state.h"
#include "recording.h"

#define SHARDS (sizeof(((struct hesper_process *)0)->command_buffers) / sizeof(struct hesper_map))

static struct hesper_map *shard_of(VkCommandBuffer cb)
{
	uint64_t h = (uint64_t)(uintptr_t)cb;
	return &hesper_process()->command_buffers[(h >> 6 ^ h >> 12) % SHARDS];
}

/* Last command buffer looked up by this thread: recording is single-threaded per buffer. */
static _Thread_local struct {
	VkCommandBuffer handle;
	struct hesper_command_buffer *state;
	uint64_t epoch;
} last_lookup;

struct hesper_command_buffer *hesper_command_buffer_from(VkCommandBuffer cb)
{
	struct hesper_process *proc = hesper_process();
	uint64_t epoch = atomic_load_explicit(&proc->command_buffer_epoch, memory_order_acquire);
	if (last_lookup.handle == cb && last_lookup.epoch == epoch)
		return last_lookup.state;
	struct hesper_command_buffer *state = hesper_map_get(shard_of(cb), (uint64_t)(uintptr_t)cb);
	last_lookup.handle = cb;
	last_lookup.state = state;
	last_lookup.epoch = epoch;
	return state;
}

/* Drops @s from the maps and frees it; its recording lives on while submissions use it. */
static void forget_command_buffer(struct hesper_command_buffer *s)
{
	struct hesper_process *proc = hesper_process();
	hesper_map_remove(shard_of(s->handle), (uint64_t)(uintptr_t)s->handle);
	/* Invalidate every thread's cached lookup: the handle may come back for another buffer. */
	atomic_fetch_add_explicit(&proc->command_buffer_epoch, 1, memory_order_acq_rel);
	if (s->pool) {
		if (s->pool_prev)
			s->pool_prev->pool_next = s->pool_next;
		else
			s->pool->buffers = s->pool_next;
		if (s->pool_next)
			s->pool_next->pool_prev = s->pool_prev;
	}
	hesper_recording_unref(s->rec);
	free(s);
}

/* Forgets every buffer of @pool. */
static void forget_pool_buffers(struct hesper_command_pool *pool)
{
	while (pool->buffers)
		forget_command_buffer(pool->buffers);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
							const VkAllocationCallbacks *allocator, VkCommandPool *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	VkResult result = dev->next.CreateCommandPool(device, info, allocator, out);
	if (result != VK_SUCCESS)
		return result;
	struct hesper_command_pool *pool = calloc(1, sizeof(*pool));
	if (!pool || hesper_map_put(&dev->pools, (uint64_t)*out, pool) != 0) {
		free(pool);
		hesper_log("out of memory tracking a command pool; its command buffers will not be timed");
		return VK_SUCCESS;
	}
	pool->handle = *out;
	pool->family = info->queueFamilyIndex;
	pool->protected_pool = info->flags & VK_COMMAND_POOL_CREATE_PROTECTED_BIT;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyCommandPool(VkDevice device, VkCommandPool handle,
						     const VkAllocationCallbacks *allocator)
{
	struct hesper_device *dev = hesper_device_from(device);
	struct hesper_command_pool *pool = handle ? hesper_map_remove(&dev->pools, (uint64_t)handle) : NULL;
	if (pool) {
		forget_pool_buffers(pool);
		free(pool);
	}
	dev->next.DestroyCommandPool(device, handle, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_ResetCommandPool(VkDevice device, VkCommandPool handle,
						       VkCommandPoolResetFlags flags)
{
	struct hesper_device *dev = hesper_device_from(device);
	struct hesper_command_pool *pool = hesper_map_get(&dev->pools, (uint64_t)handle);
	for (struct hesper_command_buffer *s = pool ? pool->buffers : NULL; s; s = s->pool_next) {
		hesper_recording_unref(s->rec);
		s->rec = NULL;
	}
	return dev->next.ResetCommandPool(device, handle, flags);
}

static int pool_free(void *value, void *ctx)
{
	(void)ctx;
	struct hesper_command_pool *pool = value;
	forget_pool_buffers(pool);
	free(pool);
	return 1;
}

void hesper_command_pools_release_all(struct hesper_device *dev)
{
	hesper_map_remove_if(&dev->pools, pool_free, NULL);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
							     VkCommandBuffer *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	VkResult result = dev->next.AllocateCommandBuffers(device, info, out);
	if (result != VK_SUCCESS)
		return result;
	struct hesper_command_pool *pool = hesper_map_get(&dev->pools, (uint64_t)info->commandPool);
	for (uint32_t i = 0; i < info->commandBufferCount; i++) {
		struct hesper_command_buffer *s = calloc(1, sizeof(*s));
		if (!s || hesper_map_put(shard_of(out[i]), (uint64_t)(uintptr_t)out[i], s) != 0) {
			free(s);
			hesper_log("out of memory tracking a command buffer; its dispatches will not be counted");
			continue;
		}
		s->handle = out[i];
		s->dev = dev;
		s->pool = pool;
		s->primary = info->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		if (pool) {
			s->pool_next = pool->buffers;
			if (pool->buffers)
				pool->buffers->pool_prev = s;
			pool->buffers = s;
		}
	}
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL hesper_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
						     const VkCommandBuffer *buffers)
{
	struct hesper_device *dev = hesper_device_from(device);
	for (uint32_t i = 0; i < count; i++) {
		struct hesper_command_buffer *s = buffers[i] ? hesper_command_buffer_from(buffers[i]) : NULL;
		if (s)
			forget_command_buffer(s);
	}
	dev->next.FreeCommandBuffers(device, pool, count, buffers);
}

/* True when @info makes a secondary continue a render pass, where no query may be reset. */
static bool continues_render_pass(const VkCommandBufferBeginInfo *info)
{
	return info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info)
{
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	if (!s)
		return hesper_device_from(cb)->next.BeginCommandBuffer(cb, info);
	struct hesper_device *dev = s->dev;
	/* For the gap findings: when this thread was recording (one clock read per command buffer). */
	hesper_waits_begin_recording(hesper_now_ns());
	VkResult result = dev->next.BeginCommandBuffer(cb, info);
	if (result != VK_SUCCESS)
		return result;
	/* Beginning implicitly resets: the old recording belongs to its submissions now. */
	hesper_recording_unref(s->rec);
	s->bound_kernel = NULL;
	s->clock_layout = VK_NULL_HANDLE;
	uint32_t family = s->pool ? s->pool->family : UINT32_MAX;
	bool timed_family = family < dev->family_count && dev->families[family].timed;
	bool can_query = timed_family && s->pool && !s->pool->protected_pool &&
			 !(!s->primary && continues_render_pass(info));
	s->rec = hesper_recording_create(dev, family, s->primary, can_query);
	if (!s->rec)
		return VK_SUCCESS; /* counted nowhere: the report's dispatch count will miss these */
	s->rec->command_buffer = (uint64_t)(uintptr_t)cb;
	if (s->primary) {
		uint32_t q = hesper_recording_take(s->rec, cb, 2);
		if (q != HESPER_NO_QUERY) {
			s->rec->cb_query = q;
			hesper_recording_write_timestamp(s->rec, cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, q);
		}
	}
	return VK_SUCCESS;
}

/*
 * Clock mode, host way: the kernels' atomics into the clock slots made visible to the
 * host, which reads the slots once Hesper's signal after the batch is reached (a signal
 * alone makes device writes available, not visible to the host). No device stage waits
 * on it.
 */
static void clock_writes_to_host(struct hesper_device *dev, VkCommandBuffer cb)
{
	VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				   .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
				   .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
	dev->next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
				     &to_host, 0, NULL, 0, NULL);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_EndCommandBuffer(VkCommandBuffer cb)
{
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	if (!s)
		return hesper_device_from(cb)->next.EndCommandBuffer(cb);
	struct hesper_recording *rec = s->rec;
	if (rec) {
		/* Labels still open end here, so every query taken is written. */
		uint32_t open = rec->label_depth < HESPER_MAX_LABEL_DEPTH ? rec->label_depth : HESPER_MAX_LABEL_DEPTH;
		for (uint32_t i = open; i-- > 0;) {
			if (rec->open_regions[i] == HESPER_NO_REGION)
				continue;
			hesper_label_close(s, cb, &rec->regions[rec->open_regions[i]]);
		}
		rec->label_depth = 0;
		if (rec->clock.chunk_count && s->dev->copy_way == HESPER_WAY_HOST)
			clock_writes_to_host(s->dev, cb);
		if (rec->cb_query != HESPER_NO_QUERY)
			hesper_recording_write_timestamp(rec, cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
							 rec->cb_query + 1);
	}
	VkResult result = s->dev->next.EndCommandBuffer(cb);
	hesper_waits_end_recording(hesper_now_ns());
	return result;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags)
{
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	if (!s)
		return hesper_device_from(cb)->next.ResetCommandBuffer(cb, flags);
	hesper_recording_unref(s->rec);
	s->rec = NULL;
	return s->dev->next.ResetCommandBuffer(cb, flags);
}
