/*
 * copy_probe: what the device charges for the two things Hesper adds to a
 * submission, measured without Hesper.
 *
 *  1. Copying N timestamp queries to a buffer on the GPU, four ways:
 *     wait           vkCmdCopyQueryPoolResults(64 | WAIT)
 *     barrier        pipeline barrier ALL_COMMANDS -> TRANSFER, then copy(64)
 *     barrier_avail  the same barrier, copy(64 | WITH_AVAILABILITY)
 *     avail          copy(64 | WITH_AVAILABILITY), no barrier
 *     Each runs right after a command buffer that wrote the N queries (a
 *     TOP_OF_PIPE/BOTTOM_OF_PIPE pair around each of N/2 empty dispatches), in the
 *     same vkQueueSubmit, as Hesper does. Printed: wall time of submit + fence wait
 *     against the work alone, the copy's own GPU time (a pair of its own), and how
 *     many copied values disagree with vkGetQueryPoolResults(WAIT) or came back
 *     unavailable.
 *  2. Host time inside vkQueueSubmit for a small command buffer, submitted alone,
 *     followed by a copy batch, followed by a copy batch that signals a timeline
 *     semaphore, and with the copy and the signal folded into the program's batch.
 *
 *     (10 pairs, copied with WAIT, unless --submit-pairs and --submit-copy say otherwise).
 *
 *   copy_probe [--spv-dir DIR] [--repeat R] [--submits S] [--queries N]...
 *              [--submit-pairs N] [--submit-copy wait|barrier|barrier_avail|avail]
 *
 * One JSON line per measurement on stdout. Results: bench/results/.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkbench_vk.h"

enum copy_way { COPY_WAIT, COPY_BARRIER, COPY_BARRIER_AVAIL, COPY_AVAIL, COPY_WAYS };

static const char *const copy_way_name[COPY_WAYS] = {"wait", "barrier", "barrier_avail", "avail"};

/* The copy way named @name; COPY_WAYS when none is. */
static enum copy_way copy_way(const char *name)
{
	enum copy_way w = COPY_WAIT;
	while (w < COPY_WAYS && strcmp(copy_way_name[w], name) != 0)
		w++;
	return w;
}

struct probe {
	struct vb_ctx vk;
	struct vb_kernel empty;
	VkCommandPool pool;
	VkFence fence;
	VkQueryPool own; /* the copy's own pair */
	VkBuffer results;
	VkDeviceMemory results_memory;
	uint64_t *mapped;
	uint64_t *truth;
	VkSemaphore timeline;
	uint64_t timeline_value;
};

static VkCommandBuffer new_cmd(struct probe *p)
{
	VkCommandBuffer cmd;
	VkCommandBufferAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = p->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};

	VB_CHECK(vkAllocateCommandBuffers(p->vk.device, &info, &cmd));
	return cmd;
}

static void begin(VkCommandBuffer cmd)
{
	VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};

	VB_CHECK(vkBeginCommandBuffer(cmd, &info));
}

/* The program's work: @pairs empty dispatches, each inside a timestamp pair in @pool. */
static VkCommandBuffer record_work(struct probe *p, VkQueryPool pool, uint32_t pairs)
{
	VkCommandBuffer cmd = new_cmd(p);

	begin(cmd);
	vkCmdResetQueryPool(cmd, pool, 0, 2 * pairs);
	vb_kernel_bind(&p->vk, cmd, &p->empty);
	for (uint32_t i = 0; i < pairs; i++) {
		vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 2 * i);
		vkCmdDispatch(cmd, 1, 1, 1);
		vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2 * i + 1);
	}
	VB_CHECK(vkEndCommandBuffer(cmd));
	return cmd;
}

/* Hesper-like copy batch: the copy of @count queries of @pool, way @way, inside its own pair. */
static VkCommandBuffer record_copy(struct probe *p, VkQueryPool pool, uint32_t count, enum copy_way way)
{
	VkCommandBuffer cmd = new_cmd(p);
	bool avail = way == COPY_BARRIER_AVAIL || way == COPY_AVAIL;
	VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT;

	begin(cmd);
	vkCmdResetQueryPool(cmd, p->own, 0, 2);
	vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, p->own, 0);
	if (way == COPY_BARRIER || way == COPY_BARRIER_AVAIL)
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
				     NULL, 0, NULL, 0, NULL);
	if (way == COPY_WAIT)
		flags |= VK_QUERY_RESULT_WAIT_BIT;
	if (avail)
		flags |= VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
	vkCmdCopyQueryPoolResults(cmd, pool, 0, count, p->results, 0, avail ? 16 : 8, flags);
	VkMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL,
			     0, NULL);
	vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, p->own, 1);
	VB_CHECK(vkEndCommandBuffer(cmd));
	return cmd;
}

/* Submits @n batches of one command buffer each; the last may signal the timeline. Returns ns in vkQueueSubmit. */
static double submit(struct probe *p, VkCommandBuffer *cmds, uint32_t per_batch, uint32_t batches, bool signal)
{
	VkSubmitInfo info[2];
	VkTimelineSemaphoreSubmitInfo tl = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
	uint64_t value = ++p->timeline_value;

	for (uint32_t b = 0; b < batches; b++)
		info[b] = (VkSubmitInfo){
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = per_batch,
			.pCommandBuffers = cmds + b * per_batch,
		};
	if (signal) {
		tl.signalSemaphoreValueCount = 1;
		tl.pSignalSemaphoreValues = &value;
		info[batches - 1].pNext = &tl;
		info[batches - 1].signalSemaphoreCount = 1;
		info[batches - 1].pSignalSemaphores = &p->timeline;
	}
	double t0 = vb_now_ns();
	VB_CHECK(vkQueueSubmit(p->vk.queues[0], batches, info, p->fence));
	return vb_now_ns() - t0;
}

static void wait_fence(struct probe *p)
{
	VB_CHECK(vkWaitForFences(p->vk.device, 1, &p->fence, VK_TRUE, UINT64_MAX));
	VB_CHECK(vkResetFences(p->vk.device, 1, &p->fence));
}

/* Part 1: the copy of @queries queries, every way, @repeat times each. */
static void probe_copies(struct probe *p, uint32_t queries, unsigned repeat)
{
	uint32_t pairs = queries / 2;
	VkQueryPool pool;
	VkQueryPoolCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 2 * pairs,
	};
	double *wall = calloc(repeat, sizeof(double)), *gpu = calloc(repeat, sizeof(double));

	if (!wall || !gpu)
		vb_fail("out of memory");
	VB_CHECK(vkCreateQueryPool(p->vk.device, &qinfo, NULL, &pool));
	VkCommandBuffer cmds[2] = {record_work(p, pool, pairs), VK_NULL_HANDLE};

	/* The work alone, then each way: one warm-up, then @repeat timed runs. */
	for (int way = -1; way < COPY_WAYS; way++) {
		uint64_t wrong = 0, unavailable = 0;

		if (way >= 0)
			cmds[1] = record_copy(p, pool, 2 * pairs, (enum copy_way)way);
		for (unsigned r = 0; r <= repeat; r++) {
			double t0 = vb_now_ns();
			submit(p, cmds, 1, way >= 0 ? 2 : 1, false);
			wait_fence(p);
			double t = vb_now_ns() - t0;
			if (r == 0)
				continue;
			wall[r - 1] = t;
			gpu[r - 1] = 0;
			if (way < 0)
				continue;
			uint64_t own[2];
			VB_CHECK(vkGetQueryPoolResults(p->vk.device, p->own, 0, 2, sizeof(own), own, sizeof(uint64_t),
						       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
			gpu[r - 1] = vb_ticks_ns(&p->vk, own[0], own[1]);
			VB_CHECK(vkGetQueryPoolResults(p->vk.device, pool, 0, 2 * pairs, 2 * pairs * sizeof(uint64_t),
						       p->truth, sizeof(uint64_t),
						       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
			bool avail = way == COPY_BARRIER_AVAIL || way == COPY_AVAIL;
			for (uint32_t q = 0; q < 2 * pairs; q++) {
				uint64_t v = p->mapped[avail ? 2 * q : q];
				if (avail && p->mapped[2 * q + 1] == 0)
					unavailable++;
				else if (v != p->truth[q])
					wrong++;
			}
			/* Poison the buffer so the next run cannot pass on stale values. */
			memset(p->mapped, 0xa5, 2 * pairs * 16);
		}
		printf("{\"probe\": \"copy\", \"queries\": %u, \"way\": \"%s\", \"wall_ns\": %.0f, \"copy_gpu_ns\": %.0f,"
		       " \"wrong\": %llu, \"unavailable\": %llu, \"repeat\": %u}\n",
		       2 * pairs, way < 0 ? "none" : copy_way_name[way], vb_median(wall, repeat),
		       vb_median(gpu, repeat), (unsigned long long)wrong, (unsigned long long)unavailable, repeat);
		fflush(stdout);
		if (way >= 0)
			vkFreeCommandBuffers(p->vk.device, p->pool, 1, &cmds[1]);
	}
	vkFreeCommandBuffers(p->vk.device, p->pool, 1, &cmds[0]);
	vkDestroyQueryPool(p->vk.device, pool, NULL);
	free(wall);
	free(gpu);
}

/* Part 2: host time in vkQueueSubmit for a small command buffer and Hesper-like additions. */
static void probe_submits(struct probe *p, unsigned submits, uint32_t pairs, enum copy_way way)
{
	VkQueryPool pool;
	VkQueryPoolCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 2 * pairs,
	};
	double *t = calloc(submits, sizeof(double));

	if (!t)
		vb_fail("out of memory");
	VB_CHECK(vkCreateQueryPool(p->vk.device, &qinfo, NULL, &pool));
	VkCommandBuffer work = record_work(p, pool, pairs);
	VkCommandBuffer copy = record_copy(p, pool, 2 * pairs, way);
	VkCommandBuffer cmds[2] = {work, copy};
	static const struct {
		const char *name;
		uint32_t per_batch, batches;
		bool signal, needs_timeline;
	} shapes[] = {
		{"program_only", 1, 1, false, false},     {"extra_batch", 1, 2, false, false},
		{"extra_batch_signal", 1, 2, true, true}, {"same_batch", 2, 1, false, false},
		{"same_batch_signal", 2, 1, true, true},  {"program_signal", 1, 1, true, true},
	};
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		if (shapes[s].needs_timeline && !p->vk.has_timeline)
			continue;
		for (unsigned i = 0; i <= submits; i++) {
			double ns = submit(p, cmds, shapes[s].per_batch, shapes[s].batches, shapes[s].signal);
			wait_fence(p);
			if (i > 0)
				t[i - 1] = ns;
		}
		printf("{\"probe\": \"submit\", \"shape\": \"%s\", \"queries\": %u, \"copy\": \"%s\", \"submit_ns\": %.0f, "
		       "\"submits\": %u}\n",
		       shapes[s].name, 2 * pairs, copy_way_name[way], vb_median(t, submits), submits);
		fflush(stdout);
	}
	vkFreeCommandBuffers(p->vk.device, p->pool, 2, cmds);
	vkDestroyQueryPool(p->vk.device, pool, NULL);
	free(t);
}

static void create_results(struct probe *p, uint32_t max_queries)
{
	p->mapped = vb_host_buffer(&p->vk, (VkDeviceSize)max_queries * 16, false, &p->results, &p->results_memory);
	p->truth = calloc(max_queries, sizeof(uint64_t));
	if (!p->truth)
		vb_fail("out of memory");
}

int main(int argc, char **argv)
{
	const char *spv_dir = getenv("VKBENCH_SPV_DIR");
	unsigned repeat = 5, submits = 200;
	uint32_t submit_pairs = 10;
	enum copy_way submit_copy = COPY_WAIT;
	uint32_t queries[8], n_queries = 0, max_queries = 0;
	struct probe p = {0};

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--spv-dir") == 0 && i + 1 < argc)
			spv_dir = argv[++i];
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
			repeat = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--submits") == 0 && i + 1 < argc)
			submits = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--queries") == 0 && i + 1 < argc && n_queries < 8)
			queries[n_queries++] = (uint32_t)strtoul(argv[++i], NULL, 10) & ~1u;
		else if (strcmp(argv[i], "--submit-pairs") == 0 && i + 1 < argc)
			submit_pairs = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--submit-copy") == 0 && i + 1 < argc && copy_way(argv[i + 1]) != COPY_WAYS)
			submit_copy = copy_way(argv[++i]);
		else {
			fprintf(stderr, "usage: copy_probe [--spv-dir DIR] [--repeat R] [--submits S] [--queries N]... "
					"[--submit-pairs N] [--submit-copy wait|barrier|barrier_avail|avail]\n");
			return 1;
		}
	}
	if (!n_queries) {
		queries[n_queries++] = 5000;
		queries[n_queries++] = 40000;
	}
	if (repeat == 0 || submits == 0 || submit_pairs == 0 || submit_pairs > 100000)
		vb_fail("--repeat, --submits and --submit-pairs must be positive (pairs at most 100000)");
	if (2 * submit_pairs > max_queries)
		max_queries = 2 * submit_pairs;
	for (uint32_t i = 0; i < n_queries; i++)
		if (queries[i] > max_queries)
			max_queries = queries[i];
	if (!spv_dir || !*spv_dir)
		spv_dir = vb_own_dir();

	vb_init(&p.vk, -1, 1, 64);
	vb_kernel_create(&p.vk, &p.empty, VB_KERNEL_EMPTY, spv_dir, "copy_probe_empty", 1);
	VkCommandPoolCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.queueFamilyIndex = p.vk.family,
	};
	VB_CHECK(vkCreateCommandPool(p.vk.device, &pinfo, NULL, &p.pool));
	VkFenceCreateInfo finfo = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VB_CHECK(vkCreateFence(p.vk.device, &finfo, NULL, &p.fence));
	VkQueryPoolCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 2,
	};
	VB_CHECK(vkCreateQueryPool(p.vk.device, &qinfo, NULL, &p.own));
	if (p.vk.has_timeline) {
		VkSemaphoreTypeCreateInfo type = {
			.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
			.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
		};
		VkSemaphoreCreateInfo sinfo = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
		VB_CHECK(vkCreateSemaphore(p.vk.device, &sinfo, NULL, &p.timeline));
	}
	create_results(&p, max_queries);
	printf("{\"probe\": \"device\", \"name\": \"%s\", \"driver_version\": %u, \"timeline\": %s}\n",
	       p.vk.props.deviceName, p.vk.props.driverVersion, p.vk.has_timeline ? "true" : "false");

	for (uint32_t i = 0; i < n_queries; i++)
		probe_copies(&p, queries[i], repeat);
	probe_submits(&p, submits, submit_pairs, submit_copy);

	VB_CHECK(vkDeviceWaitIdle(p.vk.device));
	vkUnmapMemory(p.vk.device, p.results_memory);
	vkDestroyBuffer(p.vk.device, p.results, NULL);
	vkFreeMemory(p.vk.device, p.results_memory, NULL);
	if (p.timeline)
		vkDestroySemaphore(p.vk.device, p.timeline, NULL);
	vkDestroyQueryPool(p.vk.device, p.own, NULL);
	vkDestroyFence(p.vk.device, p.fence, NULL);
	vkDestroyCommandPool(p.vk.device, p.pool, NULL);
	vb_kernel_destroy(&p.vk, &p.empty);
	free(p.truth);
	vb_finish(&p.vk);
	return 0;
}
