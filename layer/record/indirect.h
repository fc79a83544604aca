/*
 * The work-group counts of indirect dispatches (vkCmdDispatchIndirect), read back: right
 * before each timed indirect dispatch of a primary, Hesper copies its 12 argument bytes
 * into a slot of an argument chunk of the recording (a buffer of Hesper's); after each run
 * Hesper's own copy puts the slots into the run's result words, after its timestamps and
 * clock slots (copies.c), where the collector reads them (docs/timing.md).
 */
#ifndef HESPER_INDIRECT_H
#define HESPER_INDIRECT_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "state/state.h"

struct hesper_device;
struct hesper_recording;

/* Argument slots per chunk; a slot is 16 bytes: the 12 argument bytes, then 4 never written. */
#define HESPER_ARGS_CHUNK_SLOTS 256u
#define HESPER_ARGS_SLOT_WORDS 2u
#define HESPER_ARGS_CHUNK_WORDS (HESPER_ARGS_CHUNK_SLOTS * HESPER_ARGS_SLOT_WORDS)

/* A chunk of argument slots in host-visible memory; recycled per device. */
struct hesper_args_chunk {
	struct hesper_host_buffer buf; /* the padding words zeroed once */
	struct hesper_args_chunk *next_free;
};

/*
 * Records into @cb (recording @rec, a primary) the copy of the arguments at @offset of
 * @buffer into the next argument slot, between the barriers that order it after the
 * program's writes of them and before its later writes. Returns 1 + the slot, or 0 when
 * they cannot be read (a buffer no transfer may read, no slot): the dispatch's counts
 * then stay unknown. Call right before the dispatch is recorded, for a timed one only.
 */
uint64_t hesper_indirect_copy_args(struct hesper_recording *rec, VkCommandBuffer cb, VkBuffer buffer,
				   VkDeviceSize offset);

/* The result word of argument slot @slot of @rec, from the run's first. */
uint32_t hesper_indirect_slot_word(const struct hesper_recording *rec, uint32_t slot);

/*
 * The work-group counts of an indirect dispatch read back into argument slot @args - 1
 * (hesper_indirect_copy_args) of a run of @rec whose result words start at @ts. False when
 * they are not known (no slot, no words, or the copy did not happen).
 */
bool hesper_indirect_groups(const struct hesper_recording *rec, uint64_t args, const uint64_t *ts, uint32_t out[3]);

/* Gives @rec's argument chunks back to its device. */
void hesper_indirect_release_chunks(struct hesper_recording *rec);

/* Destroys @dev's free argument chunks. */
void hesper_indirect_device_release(struct hesper_device *dev);

#endif
