/*
 * indirect: indirect dispatches whose work-group counts change from dispatch to dispatch
 * and from run to run of ONE command buffer, recorded once (SIMULTANEOUS_USE) and run
 * three times: alone, then twice in one vkQueueSubmit (tests/e2e/run_indirect.py):
 *   (a) a kernel writes the arguments (3,2,1) into buffer B; after a barrier, two
 *       dispatches read them;
 *   (b) the kernel rewrites B with (5,1,1) (write-after-read and read-after-write
 *       barriers); one dispatch reads them;
 *   (c) one dispatch reads host-written arguments at offset 16 of buffer H, made without
 *       TRANSFER_SRC: (7,1,1) in the first run, (9,1,1) in the other two;
 *   (d) a secondary command buffer dispatches from offset 32 of H: (2,1,1);
 *   (e) the kernel writes (10 + runs so far, 1, 1) at offset 16 of B; one dispatch reads
 *       them: different in each run, also between two runs of one submission.
 * The dispatched kernel counts its own work groups (one atomicAdd per group, a counter
 * per dispatch): the program checks every count against the arguments it expects and
 * prints them, then its ground truth as one "HESPER-TRUTH {json}" line. With
 * TEST_PROVOKE_HAZARD=1 the read-after-write barrier of (a) is left out (a hazard the
 * synchronization validation must report).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_common.h"

#define RUNS 3
#define SLOTS 6

struct push {
	uint32_t at, x, y, z; /* indirect_args: where and what; count: at is the counter slot */
};

/* One dispatch of the counting kernel: its counter, arguments per run, place in the recording. */
struct dispatch {
	uint32_t groups[RUNS][3];
	uint32_t order; /* the kernel's dispatches recorded before it */
	bool secondary;
};

static struct dispatch truth[SLOTS];

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
		    VkAccessFlags dst_access)
{
	VkMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			      .srcAccessMask = src_access,
			      .dstAccessMask = dst_access };
	vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

/* The kernel's writes of B (and of the counters) before the indirect read and later dispatches. */
static void written_to_indirect(VkCommandBuffer cmd)
{
	barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
		VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

/* One counting dispatch's atomics before the next one's. */
static void counters_written(VkCommandBuffer cmd)
{
	barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
		VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

/* The indirect reads and counting of earlier dispatches before a kernel writes B (and the counters) again. */
static void read_before_write(VkCommandBuffer cmd)
{
	barrier(cmd, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

static void push(VkCommandBuffer cmd, VkPipelineLayout layout, uint32_t at, uint32_t x, uint32_t y, uint32_t z)
{
	struct push p = { at, x, y, z };
	vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(p), &p);
}

/* Notes that counting dispatch @slot asks for (x, y, z) in run @run. */
static void expect(uint32_t slot, uint32_t run, uint32_t x, uint32_t y, uint32_t z)
{
	truth[slot].groups[run][0] = x;
	truth[slot].groups[run][1] = y;
	truth[slot].groups[run][2] = z;
}

int main(void)
{
	struct vkc_ctx ctx;
	vkc_init(&ctx, "indirect");
	bool hazard = vkc_env_u32("TEST_PROVOKE_HAZARD", 0) != 0;
	struct vkc_buffer counters, args, host;
	vkc_buffer_create(&ctx, &counters, 64, 0);
	vkc_buffer_create(&ctx, &args, 64, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
	vkc_buffer_create(&ctx, &host, 64, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT); /* no TRANSFER_SRC */
	uint32_t *h = host.map;
	memset(h, 0, 64);
	h[8] = 2, h[9] = 1, h[10] = 1; /* offset 32: the secondary's */

	VkShaderModule count = vkc_shader_module(&ctx, "count.spv");
	VkShaderModule write = vkc_shader_module(&ctx, "indirect_args.spv");
	VkDescriptorSetLayout set_layout = vkc_set_layout(&ctx, 2);
	VkPipelineLayout layout = vkc_pipeline_layout(&ctx, set_layout, sizeof(struct push));
	VkDescriptorPool pool = vkc_descriptor_pool(&ctx, 1, 2);
	struct vkc_buffer *bufs[2] = { &counters, &args };
	VkDescriptorSet set = vkc_descriptor_set(&ctx, pool, set_layout, bufs, 2);
	VkPipeline count_pipe = vkc_compute_pipeline(&ctx, layout, count, 0);
	VkPipeline write_pipe = vkc_compute_pipeline(&ctx, layout, write, 0);
	bool named = vkc_name_pipeline(&ctx, count_pipe, "count_groups");
	named = vkc_name_pipeline(&ctx, write_pipe, "write_args") && named;

	/* (d) the secondary, recorded first: the counting kernel's first dispatch recorded. */
	VkCommandBuffer sec = vkc_command_buffer_from(&ctx, ctx.cmd_pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
	VkCommandBufferInheritanceInfo inherit = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
	VkCommandBufferBeginInfo sec_begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					       .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
					       .pInheritanceInfo = &inherit };
	VKC_CHECK(vkBeginCommandBuffer(sec, &sec_begin));
	vkCmdBindPipeline(sec, VK_PIPELINE_BIND_POINT_COMPUTE, count_pipe);
	vkCmdBindDescriptorSets(sec, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	push(sec, layout, 4, 0, 0, 0);
	vkCmdDispatchIndirect(sec, host.buffer, 32);
	vkc_end(sec);
	truth[4] = (struct dispatch){ .order = 0, .secondary = true };
	for (uint32_t r = 0; r < RUNS; r++)
		expect(4, r, 2, 1, 1);

	VkCommandBuffer cmd = vkc_command_buffer(&ctx);
	vkc_begin(cmd, VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT); /* run twice in one submission */
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	read_before_write(cmd); /* after the run before in the same submission */
	/* (a) */
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, write_pipe);
	push(cmd, layout, 0, 3, 2, 1);
	vkCmdDispatch(cmd, 1, 1, 1);
	if (hazard)
		counters_written(cmd); /* no DRAW_INDIRECT in it: the indirect read races the write */
	else
		written_to_indirect(cmd);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, count_pipe);
	push(cmd, layout, 0, 0, 0, 0);
	vkCmdDispatchIndirect(cmd, args.buffer, 0);
	counters_written(cmd);
	push(cmd, layout, 1, 0, 0, 0);
	vkCmdDispatchIndirect(cmd, args.buffer, 0);
	/* (b) B rewritten once its indirect reads are done (write after read), then read again. */
	read_before_write(cmd);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, write_pipe);
	push(cmd, layout, 0, 5, 1, 1);
	vkCmdDispatch(cmd, 1, 1, 1);
	written_to_indirect(cmd);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, count_pipe);
	push(cmd, layout, 2, 0, 0, 0);
	vkCmdDispatchIndirect(cmd, args.buffer, 0);
	/* (c) */
	counters_written(cmd);
	push(cmd, layout, 3, 0, 0, 0);
	vkCmdDispatchIndirect(cmd, host.buffer, 16);
	/* (e) */
	read_before_write(cmd);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, write_pipe);
	push(cmd, layout, 4, 10, 0, 0);
	vkCmdDispatch(cmd, 1, 1, 1);
	written_to_indirect(cmd);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, count_pipe);
	push(cmd, layout, 5, 0, 0, 0);
	vkCmdDispatchIndirect(cmd, args.buffer, 16);
	/* (d) */
	counters_written(cmd);
	vkCmdExecuteCommands(cmd, 1, &sec);
	barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
		VK_ACCESS_HOST_READ_BIT);
	vkc_end(cmd);
	for (uint32_t r = 0; r < RUNS; r++) {
		expect(0, r, 3, 2, 1);
		expect(1, r, 3, 2, 1);
		expect(2, r, 5, 1, 1);
		expect(3, r, r ? 9 : 7, 1, 1);
		expect(5, r, 10 + r, 1, 1);
	}
	for (uint32_t s = 0; s < 4; s++)
		truth[s].order = 1 + s;
	truth[5].order = 5;

	VkFence fence = vkc_fence(&ctx);
	memset(args.map, 0, 64);
	int rc = 0;
	/* Run 0 alone; runs 1 and 2 in one call, after the host changed (c)'s arguments. */
	const uint32_t first_run[] = { 0, 1 }, runs_in[] = { 1, 2 };
	for (uint32_t k = 0; k < 2; k++) {
		memset(counters.map, 0, 64);
		h[4] = truth[3].groups[first_run[k]][0], h[5] = 1, h[6] = 1; /* (c): the host's arguments */
		VkCommandBuffer both[2] = { cmd, cmd };
		VkSubmitInfo submit = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
					.commandBufferCount = runs_in[k],
					.pCommandBuffers = both };
		VKC_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, fence));
		vkc_wait_fence(&ctx, fence);
		const uint32_t *got = counters.map;
		printf("indirect: submission %u groups", k);
		for (uint32_t s = 0; s < SLOTS; s++) {
			uint32_t want = 0;
			for (uint32_t r = first_run[k]; r < first_run[k] + runs_in[k]; r++)
				want += truth[s].groups[r][0] * truth[s].groups[r][1] * truth[s].groups[r][2];
			printf(" %u", got[s]);
			if (got[s] != want && !hazard) {
				fprintf(stderr, "indirect: dispatch %u of submission %u ran %u groups, not %u\n", s, k,
					got[s], want);
				rc = 1;
			}
		}
		printf("\n");
	}

	/* The counting kernel's dispatches per run; the writing kernel's are direct (1,1,1). */
	printf("HESPER-TRUTH {\"program\":\"indirect\",\"named\":%s,\"runs\":%u,\"count_groups\":[",
	       named ? "true" : "false", RUNS);
	for (uint32_t s = 0; s < SLOTS; s++) {
		printf("%s{\"order\":%u,\"secondary\":%s,\"groups\":[", s ? "," : "", truth[s].order,
		       truth[s].secondary ? "true" : "false");
		for (uint32_t r = 0; r < RUNS; r++)
			printf("%s[%u,%u,%u]", r ? "," : "", truth[s].groups[r][0], truth[s].groups[r][1],
			       truth[s].groups[r][2]);
		printf("]}");
	}
	printf("],\"write_args\":{\"count\":%u,\"groups\":[1,1,1]},\"validation_expected_clean\":%s}\n", 3 * RUNS,
	       hazard ? "false" : "true");

	vkDestroyFence(ctx.device, fence, NULL);
	vkDestroyPipeline(ctx.device, count_pipe, NULL);
	vkDestroyPipeline(ctx.device, write_pipe, NULL);
	vkDestroyDescriptorPool(ctx.device, pool, NULL);
	vkDestroyPipelineLayout(ctx.device, layout, NULL);
	vkDestroyDescriptorSetLayout(ctx.device, set_layout, NULL);
	vkDestroyShaderModule(ctx.device, count, NULL);
	vkDestroyShaderModule(ctx.device, write, NULL);
	vkc_buffer_destroy(&ctx, &counters);
	vkc_buffer_destroy(&ctx, &args);
	vkc_buffer_destroy(&ctx, &host);
	vkc_finish(&ctx);
	return rc;
}
