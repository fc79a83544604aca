/*
 * Command pools and command buffers: which recording each command buffer holds, from its
 * allocation to its freeing. Where a recording begins and ends is in begin_end_hooks.c;
 * what is recorded in between in record_hooks.c and label_hooks.c.
 */
#include <stdlib.h>
#include <string.h>

#include "command_buffer.h"
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
