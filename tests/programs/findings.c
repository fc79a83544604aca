/*
 * findings: small programs with and without each defect Hesper's findings point at, run
 * as `findings CASE`. Each prints one "HESPER-TRUTH {json}" line with what it did and
 * what it measured itself (CLOCK_MONOTONIC around its own waits), and exits 0 (2 when a
 * Vulkan call failed).
 *
 *   idle       15 rounds: submit one batch, wait for its fence, sleep 30 ms (the GPU idles
 *              between submissions; every submission is a round trip)
 *   busy       40 batches of busy work kept two in flight, no sleeping (neither)
 *   waits      every kind of host wait, each timed by the program: vkWaitForFences,
 *              vkQueueWaitIdle, vkDeviceWaitIdle, vkWaitSemaphores, vkGetQueryPoolResults
 *              with WAIT_BIT, vkGetFenceStatus polling loops (and calls that are no waits:
 *              a status check of a signalled fence, results read without WAIT_BIT)
 *   launch     300 back-to-back dispatches of an empty kernel in one submission (launch-bound)
 *   heavy      120 dispatches of one long work group (not launch-bound: about 10 ms on
 *              lavapipe, hundreds of µs on a GPU, against a dispatch cost of a few µs)
 *   underfill  150 dispatches of one work group each (under-filled where the device has
 *              more compute units than that)
 *   slowcopy   2,000 copies of 256 bytes and one of 4 MiB, buffer to buffer (the small ones,
 *              each paying a fixed cost, make the kind's mean GB/s far below its best)
 *   fastcopy   8 copies of 4 MiB (the mean is the best: no slow_memory)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vk_common.h"

#define BUSY_N 4096u

struct push {
	uint32_t iters, n;
};

struct prog {
	struct vkc_ctx vk;
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkDescriptorPool dpool;
	VkDescriptorSet set;
	struct vkc_buffer out;
	VkShaderModule busy_mod, empty_mod;
	VkPipeline busy, empty;
};

static VkPhysicalDeviceVulkan12Features features12 = {
	.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	.timelineSemaphore = VK_TRUE,
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void prog_init(struct prog *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	vkc_init_opts(&p->vk, name, &(struct vkc_options){ .device_pnext = &features12 });
	vkc_buffer_create(&p->vk, &p->out, BUSY_N * 4, 0);
	p->dsl = vkc_set_layout(&p->vk, 1);
	p->layout = vkc_pipeline_layout(&p->vk, p->dsl, sizeof(struct push));
	p->dpool = vkc_descriptor_pool(&p->vk, 1, 1);
	struct vkc_buffer *b[] = { &p->out };
	p->set = vkc_descriptor_set(&p->vk, p->dpool, p->dsl, b, 1);
	p->busy_mod = vkc_shader_module(&p->vk, "busy.spv");
	p->empty_mod = vkc_shader_module(&p->vk, "empty.spv");
	p->busy = vkc_compute_pipeline(&p->vk, p->layout, p->busy_mod, 0);
	p->empty = vkc_compute_pipeline(&p->vk, p->layout, p->empty_mod, 0);
	vkc_name_pipeline(&p->vk, p->busy, "busy");
	vkc_name_pipeline(&p->vk, p->empty, "empty");
}

static void prog_finish(struct prog *p)
{
	VkDevice d = p->vk.device;
	VKC_CHECK(vkDeviceWaitIdle(d));
	vkDestroyPipeline(d, p->busy, NULL);
	vkDestroyPipeline(d, p->empty, NULL);
	vkDestroyShaderModule(d, p->busy_mod, NULL);
	vkDestroyShaderModule(d, p->empty_mod, NULL);
	vkDestroyDescriptorPool(d, p->dpool, NULL);
	vkDestroyPipelineLayout(d, p->layout, NULL);
	vkDestroyDescriptorSetLayout(d, p->dsl, NULL);
	vkc_buffer_destroy(&p->vk, &p->out);
	vkc_finish(&p->vk);
}

/* Records @count dispatches of @pipe (busy: @iters steps each) of @groups work groups into a new command buffer. */
static VkCommandBuffer record(struct prog *p, VkPipeline pipe, uint32_t count, uint32_t groups, uint32_t iters)
{
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	struct push pc = { iters, BUSY_N };
	vkc_begin(cb, 0);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->set, 0, NULL);
	vkCmdPushConstants(cb, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
	for (uint32_t i = 0; i < count; i++) {
		vkCmdDispatch(cb, groups, 1, 1);
		if (pipe == p->busy)
			vkc_barrier(cb); /* the busy kernels write the same buffer */
	}
	vkc_end(cb);
	return cb;
}

static void submit(struct prog *p, VkCommandBuffer cb, VkFence fence)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb };
	VKC_CHECK(vkQueueSubmit(p->vk.queue, 1, &si, fence));
}

#define IDLE_ROUNDS 15
#define IDLE_SLEEP_NS 30000000ull

static int c_idle(struct prog *p)
{
	VkCommandBuffer cb = record(p, p->busy, 1, BUSY_N / 64, 200);
	VkFence fence = vkc_fence(&p->vk);
	uint64_t wait_ns = 0, slept[IDLE_ROUNDS];
	for (int r = 0; r < IDLE_ROUNDS; r++) {
		submit(p, cb, fence);
		uint64_t t0 = now_ns();
		VKC_CHECK(vkWaitForFences(p->vk.device, 1, &fence, VK_TRUE, UINT64_MAX));
		wait_ns += now_ns() - t0;
		VKC_CHECK(vkResetFences(p->vk.device, 1, &fence));
		/* A loaded machine oversleeps: the time really slept is the truth. */
		t0 = now_ns();
		sleep_ns(IDLE_SLEEP_NS);
		slept[r] = now_ns() - t0;
	}
	vkDestroyFence(p->vk.device, fence, NULL);
	printf("HESPER-TRUTH {\"program\": \"findings\", \"case\": \"idle\", \"rounds\": %d, \"sleep_ns\": %llu, "
	       "\"untimed_after\": {\"vkDeviceWaitIdle\": 2}, "
	       "\"waits\": {\"vkWaitForFences\": {\"count\": %d, \"total_ns\": %llu}}, \"slept_ns\": [",
	       IDLE_ROUNDS, IDLE_SLEEP_NS, IDLE_ROUNDS, (unsigned long long)wait_ns);
	for (int r = 0; r < IDLE_ROUNDS; r++)
		printf("%s%llu", r ? ", " : "", (unsigned long long)slept[r]);
	printf("]}\n");
	return 0;
}

#define BUSY_BATCHES 40

static int c_busy(struct prog *p)
{
	VkCommandBuffer cb[2] = { record(p, p->busy, 4, BUSY_N / 64, 3000), record(p, p->busy, 4, BUSY_N / 64, 3000) };
	VkFence fence[2] = { vkc_fence(&p->vk), vkc_fence(&p->vk) };
	bool pending[2] = { false, false };
	for (int i = 0; i < BUSY_BATCHES; i++) {
		int k = i % 2;
		/* Two in flight: wait for the one before the last, never for the last one. */
		if (pending[k]) {
			VKC_CHECK(vkWaitForFences(p->vk.device, 1, &fence[k], VK_TRUE, UINT64_MAX));
			VKC_CHECK(vkResetFences(p->vk.device, 1, &fence[k]));
		}
		submit(p, cb[k], fence[k]);
		pending[k] = true;
	}
	VKC_CHECK(vkWaitForFences(p->vk.device, 2, fence, VK_TRUE, UINT64_MAX));
	for (int k = 0; k < 2; k++)
		vkDestroyFence(p->vk.device, fence[k], NULL);
	printf("HESPER-TRUTH {\"program\": \"findings\", \"case\": \"busy\", \"batches\": %d}\n", BUSY_BATCHES);
	return 0;
}

#define WAIT_ROUNDS 6

/* One call's count and time as the program measured them. */
struct own {
	const char *name;
	int count;
	uint64_t total_ns;
};

static int c_waits(struct prog *p)
{
	VkDevice d = p->vk.device;
	VkCommandBuffer cb = record(p, p->busy, 2, BUSY_N / 64, 400);
	VkFence fence = vkc_fence(&p->vk);
	struct own own[6] = { { "vkWaitForFences", 0, 0 },       { "vkQueueWaitIdle", 0, 0 },
			      { "vkDeviceWaitIdle", 0, 0 },      { "vkWaitSemaphores", 0, 0 },
			      { "vkGetQueryPoolResults", 0, 0 }, { "vkGetFenceStatus", 0, 0 } };
	VkSemaphoreTypeCreateInfo type = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
					   .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
	VkSemaphoreCreateInfo sem_info = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type };
	VkSemaphore timeline;
	VKC_CHECK(vkCreateSemaphore(d, &sem_info, NULL, &timeline));
	struct vkc_timer timer;
	vkc_timer_create(&p->vk, &timer, 1);
	VkCommandBuffer timed = vkc_command_buffer(&p->vk);
	vkc_begin(timed, 0);
	vkc_timer_reset(timed, &timer, 0, 1);
	vkc_timer_mark(timed, &timer, 0, false);
	struct push pc = { 400, BUSY_N };
	vkCmdBindPipeline(timed, VK_PIPELINE_BIND_POINT_COMPUTE, p->busy);
	vkCmdBindDescriptorSets(timed, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->set, 0, NULL);
	vkCmdPushConstants(timed, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
	vkCmdDispatch(timed, BUSY_N / 64, 1, 1);
	vkc_timer_mark(timed, &timer, 0, true);
	vkc_end(timed);

	for (int r = 0; r < WAIT_ROUNDS; r++) {
		uint64_t t0;
		/* vkWaitForFences */
		submit(p, cb, fence);
		t0 = now_ns();
		VKC_CHECK(vkWaitForFences(d, 1, &fence, VK_TRUE, UINT64_MAX));
		own[0].total_ns += now_ns() - t0;
		own[0].count++;
		/* Not a wait: the fence has signalled already. */
		if (vkGetFenceStatus(d, fence) != VK_SUCCESS)
			vkc_fail("fence not signalled after its wait");
		VKC_CHECK(vkResetFences(d, 1, &fence));
		/* vkQueueWaitIdle */
		submit(p, cb, VK_NULL_HANDLE);
		t0 = now_ns();
		VKC_CHECK(vkQueueWaitIdle(p->vk.queue));
		own[1].total_ns += now_ns() - t0;
		own[1].count++;
		/* vkDeviceWaitIdle */
		submit(p, cb, VK_NULL_HANDLE);
		t0 = now_ns();
		VKC_CHECK(vkDeviceWaitIdle(d));
		own[2].total_ns += now_ns() - t0;
		own[2].count++;
		/* vkWaitSemaphores */
		uint64_t value = (uint64_t)r + 1;
		VkTimelineSemaphoreSubmitInfo tsi = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
						      .signalSemaphoreValueCount = 1,
						      .pSignalSemaphoreValues = &value };
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
				    .pNext = &tsi,
				    .commandBufferCount = 1,
				    .pCommandBuffers = &cb,
				    .signalSemaphoreCount = 1,
				    .pSignalSemaphores = &timeline };
		VKC_CHECK(vkQueueSubmit(p->vk.queue, 1, &si, VK_NULL_HANDLE));
		VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
					   .semaphoreCount = 1,
					   .pSemaphores = &timeline,
					   .pValues = &value };
		t0 = now_ns();
		VKC_CHECK(vkWaitSemaphores(d, &wi, UINT64_MAX));
		own[3].total_ns += now_ns() - t0;
		own[3].count++;
		/* vkGetQueryPoolResults with WAIT_BIT, then once without (no wait) */
		submit(p, timed, fence);
		uint64_t ts[2];
		t0 = now_ns();
		VKC_CHECK(vkGetQueryPoolResults(d, timer.pool, 0, 2, sizeof(ts), ts, sizeof(ts[0]),
						VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
		own[4].total_ns += now_ns() - t0;
		own[4].count++;
		/*
		 * Not ready is a fair answer: from the second round on, the WAIT call above can
		 * return on the previous round's results before the GPU has run this round's
		 * query reset (a fast GPU does), and the reset then makes them unavailable.
		 */
		VkResult nowait = vkGetQueryPoolResults(d, timer.pool, 0, 2, sizeof(ts), ts, sizeof(ts[0]),
							VK_QUERY_RESULT_64_BIT);
		if (nowait != VK_NOT_READY)
			VKC_CHECK(nowait);
		t0 = now_ns();
		VKC_CHECK(vkWaitForFences(d, 1, &fence, VK_TRUE, UINT64_MAX));
		own[0].total_ns += now_ns() - t0;
		own[0].count++;
		VKC_CHECK(vkResetFences(d, 1, &fence));
		/* A polling loop of vkGetFenceStatus: one wait, from the first poll to the last */
		submit(p, cb, fence);
		t0 = now_ns();
		VkResult s;
		while ((s = vkGetFenceStatus(d, fence)) == VK_NOT_READY)
			sleep_ns(200000);
		VKC_CHECK(s);
		own[5].total_ns += now_ns() - t0;
		own[5].count++;
		VKC_CHECK(vkResetFences(d, 1, &fence));
	}
	uint64_t t0 = now_ns();
	VKC_CHECK(vkQueueWaitIdle(p->vk.queue));
	own[1].total_ns += now_ns() - t0;
	own[1].count++;
	vkc_timer_destroy(&p->vk, &timer);
	vkDestroySemaphore(d, timeline, NULL);
	vkDestroyFence(d, fence, NULL);
	/* Every wait the program makes is counted and timed here, but prog_finish's vkDeviceWaitIdle calls (after). */
	printf("HESPER-TRUTH {\"program\": \"findings\", \"case\": \"waits\", \"rounds\": %d, "
	       "\"untimed_after\": {\"vkDeviceWaitIdle\": 2}, \"waits\": {",
	       WAIT_ROUNDS);
	for (int i = 0; i < 6; i++)
		printf("%s\"%s\": {\"count\": %d, \"total_ns\": %llu}", i ? ", " : "", own[i].name, own[i].count,
		       (unsigned long long)own[i].total_ns);
	printf("}}\n");
	return 0;
}

static int c_dispatches(struct prog *p, const char *name, VkPipeline pipe, uint32_t count, uint32_t groups,
			uint32_t iters)
{
	VkCommandBuffer cb = record(p, pipe, count, groups, iters);
	VkFence fence = vkc_fence(&p->vk);
	vkc_submit_wait(&p->vk, cb, fence);
	vkDestroyFence(p->vk.device, fence, NULL);
	printf("HESPER-TRUTH {\"program\": \"findings\", \"case\": \"%s\", \"kernel\": \"%s\", \"dispatches\": %u, "
	       "\"groups\": %u}\n",
	       name, pipe == p->busy ? "busy" : "empty", count, groups);
	return 0;
}

#define COPY_BIG (4u << 20)
#define COPY_SMALL 256u
#define COPY_SMALL_N 2000u
#define COPY_BIG_N_FAST 8u

/* Buffer-to-buffer copies: @small copies of COPY_SMALL bytes, then @big of COPY_BIG, in one submission. */
static int c_copies(struct prog *p, const char *name, uint32_t small, uint32_t big)
{
	struct vkc_buffer src, dst;
	vkc_buffer_create(&p->vk, &src, COPY_BIG, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
	vkc_buffer_create(&p->vk, &dst, COPY_BIG, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
	memset(src.map, 0x5a, COPY_BIG);
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	vkc_begin(cb, 0);
	for (uint32_t i = 0; i < small; i++) {
		VkBufferCopy r = { (VkDeviceSize)(i % 1024) * COPY_SMALL, (VkDeviceSize)(i % 1024) * COPY_SMALL,
				   COPY_SMALL };
		vkCmdCopyBuffer(cb, src.buffer, dst.buffer, 1, &r);
	}
	for (uint32_t i = 0; i < big; i++) {
		VkBufferCopy r = { 0, 0, COPY_BIG };
		vkCmdCopyBuffer(cb, src.buffer, dst.buffer, 1, &r);
	}
	vkc_end(cb);
	VkFence fence = vkc_fence(&p->vk);
	vkc_submit_wait(&p->vk, cb, fence);
	vkDestroyFence(p->vk.device, fence, NULL);
	int same = memcmp(src.map, dst.map, COPY_BIG) == 0;
	vkc_buffer_destroy(&p->vk, &src);
	vkc_buffer_destroy(&p->vk, &dst);
	printf("HESPER-TRUTH {\"program\": \"findings\", \"case\": \"%s\", \"copies\": %u, \"bytes\": %llu, "
	       "\"copied_ok\": %s}\n",
	       name, small + big, (unsigned long long)small * COPY_SMALL + (unsigned long long)big * COPY_BIG,
	       same ? "true" : "false");
	return same ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct prog p;
	const char *c = argc > 1 ? argv[1] : "";
	int rc;

	if (strcmp(c, "idle") && strcmp(c, "busy") && strcmp(c, "waits") && strcmp(c, "launch") && strcmp(c, "heavy") &&
	    strcmp(c, "underfill") && strcmp(c, "slowcopy") && strcmp(c, "fastcopy"))
		vkc_fail("usage: findings idle|busy|waits|launch|heavy|underfill|slowcopy|fastcopy");
	prog_init(&p, "findings");
	if (!strcmp(c, "idle"))
		rc = c_idle(&p);
	else if (!strcmp(c, "busy"))
		rc = c_busy(&p);
	else if (!strcmp(c, "waits"))
		rc = c_waits(&p);
	else if (!strcmp(c, "launch"))
		rc = c_dispatches(&p, c, p.empty, 300, 1, 0);
	else if (!strcmp(c, "heavy"))
		/* One work group: its time is one thread's loop on a GPU, and cheap on lavapipe. */
		rc = c_dispatches(&p, c, p.busy, 120, 1, 200000);
	else if (!strcmp(c, "slowcopy"))
		rc = c_copies(&p, c, COPY_SMALL_N, 1);
	else if (!strcmp(c, "fastcopy"))
		rc = c_copies(&p, c, 0, COPY_BIG_N_FAST);
	else
		rc = c_dispatches(&p, c, p.empty, 150, 1, 0);
	prog_finish(&p);
	return rc;
}
