/*
 * Query blocks: the timestamp query pools Hesper writes into. A recording's i-th block is
 * a VkQueryPool of HESPER_BLOCK_QUERIES << i queries (i capped at HESPER_BLOCK_CLASSES -
 * 1): few pools for long command buffers, little unused query memory (some drivers keep
 * query pools in host memory, NVIDIA's at about 180 bytes a query). Each block is reset
 * whole, in the command buffer, just before its first query is written. A device keeps
 * the blocks no recording holds for the next ones.
 */
#ifndef HESPER_QUERY_BLOCKS_H
#define HESPER_QUERY_BLOCKS_H

#include <stdint.h>

#include <vulkan/vulkan.h>

#define HESPER_NO_QUERY UINT32_MAX
#define HESPER_BLOCK_QUERIES 1024u
#define HESPER_BLOCK_CLASSES 4u

struct hesper_device;

struct hesper_query_block {
	VkQueryPool pool;
	uint32_t size_class; /* holds HESPER_BLOCK_QUERIES << size_class queries */
	uint32_t position;   /* its index among the last recording's blocks */
	uint64_t owner;      /* the command buffer that recording was made in */
	struct hesper_query_block *next_free;
};

/* Queries in block @i of a recording. */
static inline uint32_t hesper_block_size(uint32_t i)
{
	return HESPER_BLOCK_QUERIES << (i < HESPER_BLOCK_CLASSES ? i : HESPER_BLOCK_CLASSES - 1);
}

/* The index within the recording of the first query of block @i. */
static inline uint32_t hesper_block_start(uint32_t i)
{
	uint32_t geometric = i < HESPER_BLOCK_CLASSES ? i : HESPER_BLOCK_CLASSES - 1;
	uint32_t start = HESPER_BLOCK_QUERIES * ((1u << geometric) - 1);
	return start + (i - geometric) * hesper_block_size(HESPER_BLOCK_CLASSES - 1);
}

/* Queries used in block @i of a recording that used @used queries in all (0 past the last). */
static inline uint32_t hesper_block_used(uint32_t i, uint32_t used)
{
	uint32_t start = hesper_block_start(i);
	if (start >= used)
		return 0;
	return used - start < hesper_block_size(i) ? used - start : hesper_block_size(i);
}

/* A query block of the smallest size for Hesper's own use (reset before use), or NULL. */
struct hesper_query_block *hesper_query_block_take(struct hesper_device *dev);

/*
 * Block @position of a recording in command buffer @owner, of @size_class: from @dev's free
 * list or a new query pool; NULL when none can be had. A command buffer recorded again gets
 * the blocks it had before where they are free, so Hesper's copy of its timestamps is the
 * same command and the recorded copy is reused (submit/copies.c), even with threads
 * recording side by side.
 */
struct hesper_query_block *hesper_query_block_take_at(struct hesper_device *dev, uint32_t size_class, uint64_t owner,
						      uint32_t position);

/* Returns @count blocks, whose queries the device no longer uses, to @dev's free blocks. */
void hesper_query_blocks_give(struct hesper_device *dev, struct hesper_query_block *const *blocks, uint32_t count);

/* Returns @block, whose queries the device no longer uses, to @dev's free blocks. */
void hesper_query_block_give(struct hesper_device *dev, struct hesper_query_block *block);

/* Gives every free query block of @dev back to the driver. */
void hesper_query_blocks_destroy(struct hesper_device *dev);

#endif
