/*
 * rss_probe: what each kind of Vulkan object Hesper creates costs in resident host
 * memory on this device, measured without Hesper. After the device is made, it creates
 * Hesper's per-queue objects one at a time (a command pool and its command buffer, a
 * query pool, a host-visible results buffer, a fence, a timeline semaphore), runs
 * Hesper's kind of first submission, then more command buffers, another thread waiting
 * on the timeline (as Hesper's collector), 200 copy batches that each signal it, and the
 * objects a long command buffer adds (a query pool of 8,192 queries, a results
 * buffer for 100,000 queries). It prints the process's resident set (VmRSS) after each
 * step, with the change.
 *
 *   rss_probe      one JSON line per step on stdout
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkbench_vk.h"

static long last_kib;

/* Prints the resident set after @step and its change since the last step. */
static void step(const char *what)
{
	long now = vb_rss_kib();
	printf("{\"probe\": \"rss\", \"step\": \"%s\", \"rss_kib\": %ld, \"added_kib\": %ld}\n", what, now,
	       now - last_kib);
	fflush(stdout);
	last_kib = now;
}

/* A results buffer of @bytes as Hesper makes it, every page touched as Hesper marks its slots. */
static void results_buffer(struct vb_ctx *vk, VkDeviceSize bytes, VkBuffer *buffer, VkDeviceMemory *memory)
{
	memset(vb_host_buffer(vk, bytes, true, buffer, memory), 0xff, (size_t)bytes);
}

static VkQueryPool timestamp_pool(struct vb_ctx *vk, uint32_t count)
{
	VkQueryPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = count,
	};
	VkQueryPool pool;
	VB_CHECK(vkCreateQueryPool(vk->device, &info, NULL, &pool));
	return pool;
}

struct waiter {
	struct vb_ctx *vk;
	VkSemaphore timeline;
};

/* Hesper's collector: a thread of its own that reads and waits on the timeline semaphore. */
static void *wait_on_timeline(void *arg)
{
	struct waiter *w = arg;
	uint64_t value = 0, want = 1;
	VB_CHECK(vkGetSemaphoreCounterValue(w->vk->device, w->timeline, &value));
	VkSemaphoreWaitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1,
		.pSemaphores = &w->timeline,
		.pValues = &want,
	};
	VB_CHECK(vkWaitSemaphores(w->vk->device, &info, 1000000000ull));
	void *scratch = malloc(4096); /* its first allocation, as the collector's */
	free(scratch);
	return NULL;
}

/* Records into @cb what Hesper's first submission on a queue runs (@stamp), or a copy alone. */
static void record_copy(VkCommandBuffer cb, VkQueryPool queries, VkBuffer results, bool stamp)
{
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VB_CHECK(vkBeginCommandBuffer(cb, &begin));
	if (stamp) {
		vkCmdResetQueryPool(cb, queries, 0, 1);
		vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 0);
	}
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0,
			     NULL, 0, NULL);
	vkCmdCopyQueryPoolResults(cb, queries, 0, 1, results, 0, sizeof(uint64_t),
				  VK_QUERY_RESULT_64_BIT | (stamp ? VK_QUERY_RESULT_WAIT_BIT : 0));
	VB_CHECK(vkEndCommandBuffer(cb));
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "rss_probe: unexpected argument %s\n", argv[1]);
		return 1;
	}
	last_kib = vb_rss_kib();
	struct vb_ctx vk;
	vb_init(&vk, -1, 1, 1024);
	step("device");

	VkCommandPoolCreateInfo pool_info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
		.queueFamilyIndex = vk.family,
	};
	VkCommandPool pool;
	VB_CHECK(vkCreateCommandPool(vk.device, &pool_info, NULL, &pool));
	step("command pool");
	VkCommandBufferAllocateInfo cb_info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkCommandBuffer cb;
	VB_CHECK(vkAllocateCommandBuffers(vk.device, &cb_info, &cb));
	step("command buffer");
	VkQueryPool queries = timestamp_pool(&vk, 1024);
	step("query pool, 1024 timestamps");
	VkBuffer small;
	VkDeviceMemory small_memory;
	results_buffer(&vk, 1024 * sizeof(uint64_t), &small, &small_memory);
	step("results buffer, 1024 slots, mapped");
	VkFence fence;
	VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VB_CHECK(vkCreateFence(vk.device, &fence_info, NULL, &fence));
	step("fence");
	VkSemaphore timeline = VK_NULL_HANDLE;
	if (vk.has_timeline) {
		VkSemaphoreTypeCreateInfo type = {
			.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
			.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
		};
		VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
		VB_CHECK(vkCreateSemaphore(vk.device, &info, NULL, &timeline));
		step("timeline semaphore");
	}

	record_copy(cb, queries, small, true);
	step("recorded: reset, timestamp, barrier, copy");
	uint64_t one = 1;
	VkTimelineSemaphoreSubmitInfo values = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.signalSemaphoreValueCount = 1,
		.pSignalSemaphoreValues = &one,
	};
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = timeline ? &values : NULL,
		.commandBufferCount = 1,
		.pCommandBuffers = &cb,
		.signalSemaphoreCount = timeline ? 1 : 0,
		.pSignalSemaphores = &timeline,
	};
	VB_CHECK(vkQueueSubmit(vk.queues[0], 1, &submit, fence));
	VB_CHECK(vkWaitForFences(vk.device, 1, &fence, VK_TRUE, 10000000000ull));
	step("submitted and waited");

	/* More command buffers of the same pool, each recorded with the same copy, as each
	 * submission record of Hesper's has its own; then one more pool. */
	VkCommandBuffer more[3];
	cb_info.commandBufferCount = 3;
	VB_CHECK(vkAllocateCommandBuffers(vk.device, &cb_info, more));
	step("3 more command buffers");
	for (int i = 0; i < 3; i++) {
		record_copy(more[i], queries, small, false);
		step(i == 0 ? "2nd recorded" : i == 1 ? "3rd recorded" : "4th recorded");
	}
	VkCommandPool pool2;
	VB_CHECK(vkCreateCommandPool(vk.device, &pool_info, NULL, &pool2));
	cb_info.commandPool = pool2;
	cb_info.commandBufferCount = 1;
	VkCommandBuffer other;
	VB_CHECK(vkAllocateCommandBuffers(vk.device, &cb_info, &other));
	record_copy(other, queries, small, false);
	step("a second pool, one command buffer recorded");

	if (timeline) {
		struct waiter w = {.vk = &vk, .timeline = timeline};
		pthread_t thread;
		if (pthread_create(&thread, NULL, wait_on_timeline, &w) != 0 || pthread_join(thread, NULL) != 0)
			vb_fail("cannot run the waiting thread");
		step("another thread waited on the timeline");
	}

	/* Hesper's batch after each of the program's submissions: its copy and the signal. */
	submit.pCommandBuffers = &more[0];
	for (uint64_t v = 2; v < 202; v++) {
		one = v;
		VB_CHECK(vkResetFences(vk.device, 1, &fence));
		VB_CHECK(vkQueueSubmit(vk.queues[0], 1, &submit, fence));
		VB_CHECK(vkWaitForFences(vk.device, 1, &fence, VK_TRUE, 10000000000ull));
	}
	step("200 copy batches, each signalling the timeline");

	VkQueryPool big_queries = timestamp_pool(&vk, 8192);
	step("query pool, 8192 timestamps");
	VkBuffer big;
	VkDeviceMemory big_memory;
	results_buffer(&vk, 100000 * sizeof(uint64_t), &big, &big_memory);
	step("results buffer, 100000 slots, mapped");

	vkDestroyBuffer(vk.device, big, NULL);
	vkFreeMemory(vk.device, big_memory, NULL);
	vkDestroyQueryPool(vk.device, big_queries, NULL);
	if (timeline)
		vkDestroySemaphore(vk.device, timeline, NULL);
	vkDestroyFence(vk.device, fence, NULL);
	vkDestroyBuffer(vk.device, small, NULL);
	vkFreeMemory(vk.device, small_memory, NULL);
	vkDestroyQueryPool(vk.device, queries, NULL);
	vkDestroyCommandPool(vk.device, pool2, NULL);
	vkDestroyCommandPool(vk.device, pool, NULL);
	vb_finish(&vk);
	return 0;
}
