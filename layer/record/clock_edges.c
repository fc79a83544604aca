/* Clock mode's barrier timestamps around dispatches the program isolates (clock_edges.h). */
#include "clock_edges.h"
#include "state/state.h"
#include "recording.h"

/*
 * The stages that make a barrier wait for, and hold back, compute work. DRAW_INDIRECT in
 * the second scope: an indirect dispatch reads its arguments there, before its compute.
 */
#define COMPUTE_FIRST (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT)
#define COMPUTE_SECOND (COMPUTE_FIRST | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT)
#define COMPUTE_FIRST2 (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT)
#define COMPUTE_SECOND2 (COMPUTE_FIRST2 | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT)

bool hesper_stages_order_compute(VkPipelineStageFlags src, VkPipelineStageFlags dst)
{
	return (src & COMPUTE_FIRST) && (dst & COMPUTE_SECOND);
}

/* Whether one barrier of a VkDependencyInfo, from @src to @dst, orders compute after compute. */
static bool orders2(VkPipelineStageFlags2 src, VkPipelineStageFlags2 dst)
{
	return (src & COMPUTE_FIRST2) && (dst & COMPUTE_SECOND2);
}

bool hesper_dependency_orders_compute(const VkDependencyInfo *d)
{
	if (!d)
		return false;
	for (uint32_t i = 0; i < d->memoryBarrierCount; i++)
		if (orders2(d->pMemoryBarriers[i].srcStageMask, d->pMemoryBarriers[i].dstStageMask))
			return true;
	for (uint32_t i = 0; i < d->bufferMemoryBarrierCount; i++)
		if (orders2(d->pBufferMemoryBarriers[i].srcStageMask, d->pBufferMemoryBarriers[i].dstStageMask))
			return true;
	for (uint32_t i = 0; i < d->imageMemoryBarrierCount; i++)
		if (orders2(d->pImageMemoryBarriers[i].srcStageMask, d->pImageMemoryBarriers[i].dstStageMask))
			return true;
	return false;
}

/*
 * BOTTOM_OF_PIPE, as dispatch mode's pairs: written once the work before it has finished,
 * which right after a compute barrier is no later than the dispatch may start anyway.
 */
static void write_edge(struct hesper_recording *rec, VkCommandBuffer cb, uint32_t query)
{
	hesper_recording_write_timestamp(rec, cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query);
}

uint32_t hesper_clock_edge_open(struct hesper_recording *rec, VkCommandBuffer cb)
{
	if (!rec->after_compute_barrier || !hesper_process()->settings.clock_isolated)
		return HESPER_NO_QUERY;
	/*
	 * Written once all earlier work finished, with only barriers after it: the barrier
	 * leaves the GPU nothing to wait for, so this dispatch opens from it, one timestamp a
	 * dispatch rather than two (docs/timing.md#barrier-separated-dispatches).
	 */
	if (rec->last_end != HESPER_NO_QUERY)
		return rec->last_end;
	uint32_t q = hesper_recording_take(rec, cb, 1);
	if (q != HESPER_NO_QUERY)
		write_edge(rec, cb, q);
	return q;
}

void hesper_clock_edge_close(struct hesper_recording *rec, VkCommandBuffer cb)
{
	if (rec->open_edge == HESPER_NO_QUERY || !rec->work_count)
		return;
	struct hesper_work_record *last = &rec->work[rec->work_count - 1];
	/* open_edge is the repeat's last dispatch's opening query (record_hooks.c) */
	if (!last->clock || last->closed || last->end == HESPER_NO_QUERY ||
	    rec->open_edge != last->end + (last->repeat - 1))
		return;
	uint32_t q = hesper_recording_take(rec, cb, 1);
	if (q == HESPER_NO_QUERY)
		return;
	write_edge(rec, cb, q);
	/* the query right after the opening one: nothing took a query since */
	last->closed = q == rec->open_edge + 1;
	rec->last_end = q; /* kept by a barrier that moves no image (record_hooks.c) */
}
