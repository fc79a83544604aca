/*
 * Query blocks: Hesper's timestamp query pools, kept per device on free lists by size and
 * handed to recordings (and to Hesper's own work), bounded by HESPER_MAX_QUERIES.
 */
#include <stdlib.h>

#include "objects.h"
#include "process.h"
#include "query_blocks.h"

/* Puts @block on @dev's free list; the caller holds dev->lock. */
static void push_free(struct hesper_device *dev, struct hesper_query_block *block)
{
	block->next_free = dev->free_blocks[block->size_class];
	dev->free_blocks[block->size_class] = block;
}

/* Free blocks looked at for one that command buffer @owner had at @position. */
#define AFFINITY_SCAN 64

struct hesper_query_block *hesper_query_block_take_at(struct hesper_device *dev, uint32_t size_class, uint64_t owner,
						      uint32_t position)
{
	uint32_t size = HESPER_BLOCK_QUERIES << size_class;
	uint64_t limit = hesper_process()->settings.max_queries;
	pthread_mutex_lock(&dev->lock);
	struct hesper_query_block **link = &dev->free_blocks[size_class];
	bool found = false;
	for (unsigned n = 0; *link && n < AFFINITY_SCAN && !found; n++) {
		found = (*link)->owner == owner && (*link)->position == position;
		if (!found)
			link = &(*link)->next_free;
	}
	if (!found)
		link = &dev->free_blocks[size_class]; /* the most recently freed */
	struct hesper_query_block *block = *link;
	if (block) {
		*link = block->next_free;
		block->owner = owner;
		block->position = position;
	}
	/* Reserve the new block's queries under the lock, so threads together stay under the limit. */
	bool may_create = !block && dev->queries_made + size <= limit;
	if (may_create)
		dev->queries_made += size;
	pthread_mutex_unlock(&dev->lock);
	if (block || !may_create)
		return block;
	block = calloc(1, sizeof(*block));
	if (!block)
		goto undo;
	block->size_class = size_class;
	block->owner = owner;
	block->position = position;
	VkQueryPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = size,
	};
	if (dev->next.CreateQueryPool(dev->handle, &info, NULL, &block->pool) != VK_SUCCESS) {
		free(block);
		goto undo;
	}
	return block;
undo:
	pthread_mutex_lock(&dev->lock);
	dev->queries_made -= size;
	pthread_mutex_unlock(&dev->lock);
	return NULL;
}

struct hesper_query_block *hesper_query_block_take(struct hesper_device *dev)
{
	return hesper_query_block_take_at(dev, 0, 0, 0);
}

void hesper_query_block_give(struct hesper_device *dev, struct hesper_query_block *block)
{
	hesper_query_blocks_give(dev, &block, 1);
}

void hesper_query_blocks_give(struct hesper_device *dev, struct hesper_query_block *const *blocks, uint32_t count)
{
	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < count; i++)
		push_free(dev, blocks[i]);
	pthread_mutex_unlock(&dev->lock);
}

void hesper_query_blocks_destroy(struct hesper_device *dev)
{
	for (uint32_t c = 0; c < HESPER_BLOCK_CLASSES; c++) {
		pthread_mutex_lock(&dev->lock);
		struct hesper_query_block *block = dev->free_blocks[c];
		dev->free_blocks[c] = NULL;
		pthread_mutex_unlock(&dev->lock);
		while (block) {
			struct hesper_query_block *next = block->next_free;
			dev->next.DestroyQueryPool(dev->handle, block->pool, NULL);
			free(block);
			block = next;
		}
	}
}
