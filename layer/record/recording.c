/* Recordings: what a command buffer's commands were, and the timestamp queries they write. */
#include <stdlib.h>

#include "clock/clock.h"
#include "state/state.h"
#include "indirect.h"
#include "recording.h"
#include "recording_spares.h"

struct hesper_recording *hesper_recording_create(struct hesper_device *dev, uint32_t family, bool primary,
						 bool can_query)
{
	struct hesper_recording *rec = calloc(1, sizeof(*rec));
	if (!rec)
		return NULL;
	static atomic_uint_fast64_t next_id = 1;
	atomic_init(&rec->refs, 1);
	rec->id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
	rec->dev = dev;
	rec->family = family;
	rec->primary = primary;
	rec->can_query = can_query;
	rec->cb_query = HESPER_NO_QUERY;
	rec->last_end = HESPER_NO_QUERY;
	rec->open_edge = HESPER_NO_QUERY;
	struct hesper_recording_arrays a;
	hesper_recording_spares_take(&a);
	rec->work = a.work;
	rec->work_capacity = a.work_capacity;
	rec->regions = a.regions;
	rec->region_capacity = a.region_capacity;
	rec->blocks = a.blocks;
	rec->block_capacity = (uint32_t)a.block_capacity;
	rec->secondaries = a.secondaries;
	rec->secondary_capacity = a.secondary_capacity;
	return rec;
}

void hesper_recording_ref(struct hesper_recording *rec)
{
	atomic_fetch_add_explicit(&rec->refs, 1, memory_order_relaxed);
}

void hesper_recording_unref(struct hesper_recording *rec)
{
	if (!rec || atomic_fetch_sub_explicit(&rec->refs, 1, memory_order_acq_rel) != 1)
		return;
	struct hesper_device *dev = rec->dev;
	if (rec->block_count) {
		/* No submission uses these queries any more: give them to the next recording. */
		hesper_query_blocks_give(dev, rec->blocks, rec->block_count);
	}
	if (rec->clock.chunk_count)
		hesper_clock_release_chunks(rec->dev, &rec->clock);
	if (rec->args_chunk_count)
		hesper_indirect_release_chunks(rec);
	for (size_t i = 0; i < rec->secondary_count; i++)
		hesper_recording_unref(rec->secondaries[i].rec);
	for (uint32_t i = 0; i < rec->shadow_count; i++)
		hesper_host_buffer_destroy(dev, &rec->shadows[i]);
	free(rec->shadows);
	struct hesper_recording_arrays a = {
		.work = rec->work,
		.work_capacity = rec->work_capacity,
		.regions = rec->regions,
		.region_capacity = rec->region_capacity,
		.blocks = rec->blocks,
		.block_capacity = rec->block_capacity,
		.secondaries = rec->secondaries,
		.secondary_capacity = rec->secondary_capacity,
		.bytes = rec->work_capacity * sizeof(*rec->work) + rec->region_capacity * sizeof(*rec->regions) +
			 rec->block_capacity * sizeof(*rec->blocks) +
			 rec->secondary_capacity * sizeof(*rec->secondaries),
	};
	if (!hesper_recording_spares_keep(&a)) {
		free(rec->blocks);
		free(rec->work);
		free(rec->regions);
		free(rec->secondaries);
	}
	free(rec);
}

/* Adds the next block to @rec; false when none can be had. */
static bool grow(struct hesper_recording *rec)
{
	if (rec->block_count == rec->block_capacity) {
		uint32_t capacity = rec->block_capacity ? rec->block_capacity * 2 : 4;
		void *blocks = realloc(rec->blocks, capacity * sizeof(*rec->blocks));
		if (!blocks)
			return false;
		rec->blocks = blocks;
		rec->block_capacity = capacity;
	}
	uint32_t i = rec->block_count;
	uint32_t size_class = i < HESPER_BLOCK_CLASSES ? i : HESPER_BLOCK_CLASSES - 1;
	uint64_t rare = hesper_now_ns(); /* a query pool may be made: rare work (hook_time.h) */
	struct hesper_query_block *block = hesper_query_block_take_at(rec->dev, size_class, rec->command_buffer, i);
	hesper_hook_rare_end(rare);
	if (!block)
		return false;
	rec->blocks[rec->block_count++] = block;
	rec->query_capacity += hesper_block_size(i);
	return true;
}

uint32_t hesper_recording_take(struct hesper_recording *rec, VkCommandBuffer cb, uint32_t count)
{
	if (!rec->can_query)
		return HESPER_NO_QUERY;
	uint32_t first = rec->queries_used;
	if (first > UINT32_MAX - 2 * hesper_block_size(HESPER_BLOCK_CLASSES) - 2)
		return HESPER_NO_QUERY;
	/* Blocks hold at least HESPER_BLOCK_QUERIES: one more block always makes room. */
	if (first + count > rec->query_capacity && !grow(rec))
		return HESPER_NO_QUERY;
	/*
	 * Queries are taken in order, so only the newest block can start among these (a pair
	 * may straddle two blocks): it is reset where its first query is taken.
	 */
	uint32_t newest = rec->block_count - 1;
	uint32_t newest_start = hesper_block_start(newest);
	if (newest_start >= first && newest_start < first + count)
		rec->dev->next.CmdResetQueryPool(cb, rec->blocks[newest]->pool, 0, hesper_block_size(newest));
	rec->queries_used += count;
	return first;
}

/* The block of @rec holding @query, and @query's index in it. */
static uint32_t block_of(uint32_t query, uint32_t *index)
{
	uint32_t geometric_end = hesper_block_start(HESPER_BLOCK_CLASSES - 1);
	if (query >= geometric_end) {
		uint32_t big = hesper_block_size(HESPER_BLOCK_CLASSES - 1);
		*index = (query - geometric_end) % big;
		return HESPER_BLOCK_CLASSES - 1 + (query - geometric_end) / big;
	}
	uint32_t i = 31 - (uint32_t)__builtin_clz(query / HESPER_BLOCK_QUERIES + 1);
	*index = query - hesper_block_start(i);
	return i;
}

void hesper_recording_query(const struct hesper_recording *rec, uint32_t query, VkQueryPool *pool, uint32_t *index)
{
	*pool = rec->blocks[block_of(query, index)]->pool;
}

struct hesper_queue *hesper_recording_submitted(struct hesper_recording *rec, struct hesper_queue *queue)
{
	struct hesper_queue *other = atomic_exchange(&rec->pending_queue, queue);
	bool was_pending = atomic_fetch_add(&rec->pending, 1) > 0;
	return was_pending && other != queue ? other : NULL;
}

void hesper_recording_harvested(struct hesper_recording *rec)
{
	atomic_fetch_sub(&rec->pending, 1);
}

void hesper_recording_write_timestamp(struct hesper_recording *rec, VkCommandBuffer cb, VkPipelineStageFlagBits stage,
				      uint32_t query)
{
	VkQueryPool pool;
	uint32_t index;
	hesper_recording_query(rec, query, &pool, &index);
	rec->dev->next.CmdWriteTimestamp(cb, stage, pool, index);
}
