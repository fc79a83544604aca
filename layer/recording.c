/* Recordings: what a command buffer's commands were, and the timestamp queries they write. */
#include <stdlib.h>

#include "layer.h"

struct hesper_recording *hesper_recording_create(struct hesper_device *dev, uint32_t family, bool primary,
						 bool can_query)
{
	struct hesper_recording *rec = calloc(1, sizeof(*rec));
	if (!rec)
		return NULL;
	atomic_init(&rec->refs, 1);
	rec->dev = dev;
	rec->family = family;
	rec->primary = primary;
	rec->can_query = can_query;
	rec->cb_query = HESPER_NO_QUERY;
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
	hesper_add_record_hook_ns(rec->hook_ns);
	if (rec->block_count) {
		/* No submission uses these queries any more: give them to the next recording. */
		pthread_mutex_lock(&dev->lock);
		for (uint32_t i = 0; i < rec->block_count; i++) {
			rec->blocks[i]->next_free = dev->free_blocks;
			dev->free_blocks = rec->blocks[i];
		}
		pthread_mutex_unlock(&dev->lock);
	}
	for (size_t i = 0; i < rec->secondary_count; i++)
		hesper_recording_unref(rec->secondaries[i]);
	free(rec->blocks);
	free(rec->dispatches);
	free(rec->regions);
	free(rec->secondaries);
	free(rec);
}

/* A query block from @dev's free list or a new query pool; NULL when none can be had. */
static struct hesper_query_block *take_block(struct hesper_device *dev)
{
	uint64_t limit = hesper_process()->settings.max_queries / HESPER_BLOCK_QUERIES;
	pthread_mutex_lock(&dev->lock);
	struct hesper_query_block *block = dev->free_blocks;
	if (block)
		dev->free_blocks = block->next_free;
	/* Reserve the new block's place under the lock, so threads together stay under the limit. */
	bool may_create = !block && dev->block_count < limit;
	if (may_create)
		dev->block_count++;
	pthread_mutex_unlock(&dev->lock);
	if (block || !may_create)
		return block;
	block = calloc(1, sizeof(*block));
	if (!block)
		goto undo;
	VkQueryPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = HESPER_BLOCK_QUERIES,
	};
	if (dev->next.CreateQueryPool(dev->handle, &info, NULL, &block->pool) != VK_SUCCESS) {
		free(block);
		goto undo;
	}
	return block;
undo:
	pthread_mutex_lock(&dev->lock);
	dev->block_count--;
	pthread_mutex_unlock(&dev->lock);
	return NULL;
}

uint32_t hesper_recording_take_pair(struct hesper_recording *rec, VkCommandBuffer cb)
{
	if (!rec->can_query)
		return HESPER_NO_QUERY;
	uint32_t query = rec->queries_used;
	if (query + 2 > rec->block_count * HESPER_BLOCK_QUERIES) {
		if (rec->block_count == rec->block_capacity) {
			uint32_t capacity = rec->block_capacity ? rec->block_capacity * 2 : 4;
			void *blocks = realloc(rec->blocks, capacity * sizeof(*rec->blocks));
			if (!blocks)
				return HESPER_NO_QUERY;
			rec->blocks = blocks;
			rec->block_capacity = capacity;
		}
		struct hesper_query_block *block = take_block(rec->dev);
		if (!block)
			return HESPER_NO_QUERY;
		rec->blocks[rec->block_count++] = block;
	}
	/* Pairs start at even indices and chunks are even, so a pair never straddles a reset. */
	if (query % HESPER_RESET_CHUNK == 0) {
		VkQueryPool pool;
		uint32_t index;
		hesper_recording_query(rec, query, &pool, &index);
		rec->dev->next.CmdResetQueryPool(cb, pool, index, HESPER_RESET_CHUNK);
	}
	rec->queries_used += 2;
	return query;
}

void hesper_recording_query(const struct hesper_recording *rec, uint32_t query, VkQueryPool *pool, uint32_t *index)
{
	*pool = rec->blocks[query / HESPER_BLOCK_QUERIES]->pool;
	*index = query % HESPER_BLOCK_QUERIES;
}

void hesper_query_blocks_destroy(struct hesper_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	struct hesper_query_block *block = dev->free_blocks;
	dev->free_blocks = NULL;
	pthread_mutex_unlock(&dev->lock);
	while (block) {
		struct hesper_query_block *next = block->next_free;
		dev->next.DestroyQueryPool(dev->handle, block->pool, NULL);
		free(block);
		block = next;
	}
}
