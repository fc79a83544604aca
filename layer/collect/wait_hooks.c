/*
 * The program's own waits (vkQueueWaitIdle, vkDeviceWaitIdle, vkWaitForFences,
 * vkWaitSemaphores, vkGetFenceStatus, vkGetQueryPoolResults with WAIT_BIT): a good moment
 * to collect what has finished. Each is timed (two clock reads and a lock-free add,
 * state/waits.h) and, once it succeeded, may close a round trip on the queues it covers.
 * Hesper's own part of each counts in its hook time (state/hook_time.h), the wait not.
 */
#include "state/state.h"
#include "submit/submit.h"

/* Passes @result on, first asking the collector to look for finished work if the wait succeeded. */
static VkResult after_wait(VkResult result)
{
	if (result == VK_SUCCESS)
		hesper_pending_nudge();
	return result;
}

/* The queues of @dev whose last submit call had one of @fences, each counted as drained. */
static void fences_drained(struct hesper_device *dev, uint32_t count, const VkFence *fences)
{
	pthread_mutex_lock(&dev->lock);
	for (struct hesper_queue *q = dev->queues; q; q = q->next_in_device) {
		uint64_t last = atomic_load_explicit(&q->last_fence, memory_order_relaxed);
		for (uint32_t i = 0; last && i < count; i++)
			if ((uint64_t)fences[i] == last)
				hesper_waits_drained(q);
	}
	pthread_mutex_unlock(&dev->lock);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueWaitIdle(VkQueue queue)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(queue);
	uint64_t t0 = hesper_now_ns();
	h = hesper_hook_pause(h);
	VkResult r = dev->next.QueueWaitIdle(queue);
	h = hesper_hook_resume(h);
	hesper_waits_add(HESPER_WAIT_QUEUE_IDLE, dev->profile_device, t0, hesper_now_ns());
	if (r == VK_SUCCESS)
		hesper_waits_drained(hesper_queue_from(queue));
	r = after_wait(r);
	hesper_hook_pause(h);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_DeviceWaitIdle(VkDevice device)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	uint64_t t0 = hesper_now_ns();
	h = hesper_hook_pause(h);
	VkResult r = dev->next.DeviceWaitIdle(device);
	h = hesper_hook_resume(h);
	hesper_waits_add(HESPER_WAIT_DEVICE_IDLE, dev->profile_device, t0, hesper_now_ns());
	if (r == VK_SUCCESS) {
		pthread_mutex_lock(&dev->lock);
		for (struct hesper_queue *q = dev->queues; q; q = q->next_in_device)
			hesper_waits_drained(q);
		pthread_mutex_unlock(&dev->lock);
	}
	r = after_wait(r);
	hesper_hook_pause(h);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
						    VkBool32 wait_all, uint64_t timeout)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	uint64_t t0 = hesper_now_ns();
	h = hesper_hook_pause(h);
	VkResult r = dev->next.WaitForFences(device, count, fences, wait_all, timeout);
	h = hesper_hook_resume(h);
	hesper_waits_add(HESPER_WAIT_FENCES, dev->profile_device, t0, hesper_now_ns());
	if (r == VK_SUCCESS)
		fences_drained(dev, count, fences);
	r = after_wait(r);
	hesper_hook_pause(h);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info, uint64_t timeout)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	uint64_t t0 = hesper_now_ns();
	h = hesper_hook_pause(h);
	VkResult r = dev->next.WaitSemaphores(device, info, timeout);
	h = hesper_hook_resume(h);
	hesper_waits_add(HESPER_WAIT_SEMAPHORES, dev->profile_device, t0, hesper_now_ns());
	r = after_wait(r);
	hesper_hook_pause(h);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitSemaphoresKHR(VkDevice device, const VkSemaphoreWaitInfo *info,
							uint64_t timeout)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	uint64_t t0 = hesper_now_ns();
	h = hesper_hook_pause(h);
	VkResult r = dev->next.WaitSemaphoresKHR(device, info, timeout);
	h = hesper_hook_resume(h);
	hesper_waits_add(HESPER_WAIT_SEMAPHORES, dev->profile_device, t0, hesper_now_ns());
	r = after_wait(r);
	hesper_hook_pause(h);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_GetFenceStatus(VkDevice device, VkFence fence)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	/* A poll that continues a wait reads the clock only where it ends it (waits.h). */
	bool polling = hesper_waits_polling((uint64_t)fence);
	uint64_t t0 = polling ? 0 : hesper_now_ns();
	h = hesper_hook_pause(h);
	VkResult r = dev->next.GetFenceStatus(device, fence);
	h = hesper_hook_resume(h);
	uint64_t t1 = polling && r == VK_SUCCESS ? hesper_now_ns() : 0;
	if (hesper_waits_poll((uint64_t)fence, r, dev->profile_device, t0, t1))
		fences_drained(dev, 1, &fence);
	hesper_hook_pause(h);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_GetQueryPoolResults(VkDevice device, VkQueryPool pool, uint32_t first,
							  uint32_t count, size_t size, void *data, VkDeviceSize stride,
							  VkQueryResultFlags flags)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	if (!(flags & VK_QUERY_RESULT_WAIT_BIT)) {
		hesper_hook_pause(h);
		return dev->next.GetQueryPoolResults(device, pool, first, count, size, data, stride, flags);
	}
	uint64_t t0 = hesper_now_ns();
	h = hesper_hook_pause(h);
	VkResult r = dev->next.GetQueryPoolResults(device, pool, first, count, size, data, stride, flags);
	h = hesper_hook_resume(h);
	hesper_waits_add(HESPER_WAIT_QUERY_RESULTS, dev->profile_device, t0, hesper_now_ns());
	hesper_hook_pause(h);
	return r;
}
