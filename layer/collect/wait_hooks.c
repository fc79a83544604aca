/*
 * The program's own waits (vkQueueWaitIdle, vkDeviceWaitIdle, vkWaitForFences,
 * vkWaitSemaphores, vkGetFenceStatus, vkGetQueryPoolResults with WAIT_BIT): a good moment
 * to collect what has finished. Each is timed (two clock reads and a lock-free add,
 * state/waits.h) and, once it succeeded, may close a round trip on the queues it covers.
 * Hesper's own part of each counts in its hook time (state/hook_time.h), the wait not.
 */
#include "state/state.h"
#include "submit/submit.h"

/* A wait's span, and the hook's sampled time (hesper_hook_start's) paused around the driver's wait. */
struct wait_span {
	uint64_t hook, start;
};

/* The wait begins now, after the hook's own lookups; the hook time pauses. */
static struct wait_span wait_begin(uint64_t hook)
{
	struct wait_span w = {.start = hesper_now_ns()};
	w.hook = hesper_hook_pause(hook);
	return w;
}

/* The wait of @w, a @call on device @device, ended: counted (state/waits.h), the hook time resumed. */
static void wait_end(struct wait_span *w, enum hesper_wait_call call, uint32_t device)
{
	w->hook = hesper_hook_resume(w->hook);
	hesper_waits_add(call, device, w->start, hesper_now_ns());
}

/*
 * Passes @result on, first asking the collector to look for finished work if the wait
 * succeeded; the hook's time of @w ends.
 */
static VkResult after_wait(VkResult result, const struct wait_span *w)
{
	if (result == VK_SUCCESS)
		hesper_pending_nudge();
	hesper_hook_pause(w->hook);
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
	struct wait_span w = wait_begin(h);
	VkResult r = dev->next.QueueWaitIdle(queue);
	wait_end(&w, HESPER_WAIT_QUEUE_IDLE, dev->profile_device);
	if (r == VK_SUCCESS)
		hesper_waits_drained(hesper_queue_from(queue));
	return after_wait(r, &w);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_DeviceWaitIdle(VkDevice device)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	struct wait_span w = wait_begin(h);
	VkResult r = dev->next.DeviceWaitIdle(device);
	wait_end(&w, HESPER_WAIT_DEVICE_IDLE, dev->profile_device);
	if (r == VK_SUCCESS) {
		pthread_mutex_lock(&dev->lock);
		for (struct hesper_queue *q = dev->queues; q; q = q->next_in_device)
			hesper_waits_drained(q);
		pthread_mutex_unlock(&dev->lock);
	}
	return after_wait(r, &w);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
						    VkBool32 wait_all, uint64_t timeout)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	struct wait_span w = wait_begin(h);
	VkResult r = dev->next.WaitForFences(device, count, fences, wait_all, timeout);
	wait_end(&w, HESPER_WAIT_FENCES, dev->profile_device);
	if (r == VK_SUCCESS)
		fences_drained(dev, count, fences);
	return after_wait(r, &w);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info, uint64_t timeout)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	struct wait_span w = wait_begin(h);
	VkResult r = dev->next.WaitSemaphores(device, info, timeout);
	wait_end(&w, HESPER_WAIT_SEMAPHORES, dev->profile_device);
	return after_wait(r, &w);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitSemaphoresKHR(VkDevice device, const VkSemaphoreWaitInfo *info,
							uint64_t timeout)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	struct wait_span w = wait_begin(h);
	VkResult r = dev->next.WaitSemaphoresKHR(device, info, timeout);
	wait_end(&w, HESPER_WAIT_SEMAPHORES, dev->profile_device);
	return after_wait(r, &w);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_GetFenceStatus(VkDevice device, VkFence fence)
{
	uint64_t h = hesper_hook_start();
	struct hesper_device *dev = hesper_device_from(device);
	/* A poll that continues a wait reads the clock only where it ends it (waits.h). */
	bool polling = hesper_waits_polling((uint64_t)fence);
	uint64_t t0 = polling ? 0 : hesper_now_ns();
	VkResult r;
	HESPER_HOOK_CALL_DOWN(h, r = dev->next.GetFenceStatus(device, fence));
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
	struct wait_span w = wait_begin(h);
	VkResult r = dev->next.GetQueryPoolResults(device, pool, first, count, size, data, stride, flags);
	wait_end(&w, HESPER_WAIT_QUERY_RESULTS, dev->profile_device);
	hesper_hook_pause(w.hook);
	return r;
}
