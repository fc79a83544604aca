/*
 * Indirect dispatches' work-group counts read back (see indirect.h): the copy of the
 * arguments in the program's command buffer, the recording's argument chunks, and the
 * counts as a run's result words hold them.
 */
#include <stdlib.h>
#include <string.h>

#include "state/state.h"
#include "indirect.h"
#include "memory_ops.h"
#include "recording.h"

/* Chunks one recording may hold: a million indirect dispatches. */
#define MAX_CHUNKS 4096u

uint32_t hesper_indirect_slot_word(const struct hesper_recording *rec, uint32_t slot)
{
	uint32_t clock = rec->clock.used ? hesper_clock_result_words(rec->dev, &rec->clock) : 0;
	return rec->queries_used + clock + slot * HESPER_ARGS_SLOT_WORDS;
}

/*
 * A chunk from @dev's free list, or a new one with its padding zeroed; NULL on failure.
 * Timed as a recording hook's rare work (hook_time.h), like the query blocks and clock chunks.
 */
static struct hesper_args_chunk *take_chunk(struct hesper_device *dev)
{
	uint64_t begun = hesper_now_ns();
	pthread_mutex_lock(&dev->lock);
	struct hesper_args_chunk *c = dev->free_args;
	if (c)
		dev->free_args = c->next_free;
	pthread_mutex_unlock(&dev->lock);
	if (c)
		goto out;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto out;
	if (hesper_host_buffer_create(dev, HESPER_ARGS_CHUNK_WORDS, &c->buf) != 0) {
		free(c);
		c = NULL;
		goto out;
	}
	/* The GPU writes 12 bytes of each 16: the rest stays zero, so a run's copy tells a written slot. */
	memset(c->buf.mapped, 0, (size_t)HESPER_ARGS_CHUNK_WORDS * sizeof(uint64_t));
out:
	hesper_hook_rare_end(begun);
	return c;
}

/* The next argument slot of @rec, or UINT32_MAX when none can be had. */
static uint32_t take_slot(struct hesper_recording *rec)
{
	if (rec->args_slots % HESPER_ARGS_CHUNK_SLOTS == 0) {
		struct hesper_args_chunk *c = NULL;
		if (rec->args_chunk_count >= MAX_CHUNKS ||
		    !hesper_reserve_one((void **)&rec->args_chunks, rec->args_chunk_count, &rec->args_chunk_capacity,
					sizeof(*rec->args_chunks)) ||
		    !(c = take_chunk(rec->dev)))
			return UINT32_MAX;
		rec->args_chunks[rec->args_chunk_count++] = c;
		rec->args_words = (uint32_t)rec->args_chunk_count * HESPER_ARGS_CHUNK_WORDS;
	}
	return rec->args_slots++;
}

uint64_t hesper_indirect_copy_args(struct hesper_recording *rec, VkCommandBuffer cb, VkBuffer buffer,
				   VkDeviceSize offset)
{
	struct hesper_device *dev = rec->dev;
	struct hesper_buffer_info info;
	if (!rec->primary || !hesper_buffer_info(dev, buffer, &info) || !info.transfer_readable ||
	    offset + 3 * sizeof(uint32_t) > info.size)
		return 0;
	uint32_t slot = take_slot(rec);
	if (slot == UINT32_MAX)
		return 0;
	struct hesper_args_chunk *c = rec->args_chunks[slot / HESPER_ARGS_CHUNK_SLOTS];
	/*
	 * Before the copy. The program must already have made its device writes of the
	 * arguments available and visible to INDIRECT_COMMAND_READ with a dependency whose
	 * second synchronization scope includes DRAW_INDIRECT (that is what the indirect read
	 * needs). This barrier's first scope is DRAW_INDIRECT, so its execution dependency
	 * chains after that one; the writes are available already, and its visibility
	 * operation makes them visible to the transfer read. Host writes before the submission
	 * are covered by the submission itself. No availability operation is needed here:
	 * nothing is written before the copy that it must see.
	 */
	VkMemoryBarrier before = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				  .srcAccessMask = 0,
				  .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT};
	dev->next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
				     &before, 0, NULL, 0, NULL);
	VkBufferCopy region = {.srcOffset = offset,
			       .dstOffset = (VkDeviceSize)(slot % HESPER_ARGS_CHUNK_SLOTS) * HESPER_ARGS_SLOT_WORDS *
					    sizeof(uint64_t),
			       .size = 3 * sizeof(uint32_t)};
	dev->next.CmdCopyBuffer(cb, buffer, c->buf.buffer, 1, &region);
	/*
	 * After the copy: an execution dependency from it to the indirect read and compute
	 * stages of later commands. A later write of the arguments by the program must wait
	 * for the indirect read (a write-after-read hazard) with a dependency whose first scope
	 * has DRAW_INDIRECT (or COMPUTE_SHADER, or ALL_COMMANDS), which chains after this one,
	 * so it waits for Hesper's read too. The slot's written bytes are read only by
	 * Hesper's copy after the program's batch, behind its own barrier (copies.c).
	 */
	dev->next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
				     VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
				     NULL, 0, NULL, 0, NULL);
	return (uint64_t)slot + 1;
}

bool hesper_indirect_groups(const struct hesper_recording *rec, uint64_t args, const uint64_t *ts, uint32_t out[3])
{
	if (!args || !ts || args > rec->args_slots)
		return false;
	const uint64_t *slot = ts + hesper_indirect_slot_word(rec, (uint32_t)(args - 1));
	uint32_t words[4];
	memcpy(words, slot, sizeof(words));
	/* The padding is zero once the copy wrote the slot; HESPER_UNWRITTEN's half before. */
	if (words[3] != 0)
		return false;
	memcpy(out, words, 3 * sizeof(uint32_t));
	return true;
}

void hesper_indirect_release_chunks(struct hesper_recording *rec)
{
	struct hesper_device *dev = rec->dev;
	pthread_mutex_lock(&dev->lock);
	for (size_t i = 0; i < rec->args_chunk_count; i++) {
		rec->args_chunks[i]->next_free = dev->free_args;
		dev->free_args = rec->args_chunks[i];
	}
	pthread_mutex_unlock(&dev->lock);
	free(rec->args_chunks);
	rec->args_chunks = NULL;
	rec->args_chunk_count = rec->args_chunk_capacity = 0;
}

void hesper_indirect_device_release(struct hesper_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	struct hesper_args_chunk *c = dev->free_args;
	dev->free_args = NULL;
	pthread_mutex_unlock(&dev->lock);
	while (c) {
		struct hesper_args_chunk *next = c->next_free;
		hesper_host_buffer_destroy(dev, &c->buf);
		free(c);
		c = next;
	}
}
