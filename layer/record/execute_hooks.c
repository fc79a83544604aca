/*
 * The hook of vkCmdExecuteCommands: secondaries executed by a primary, each execution
 * noted in order, and the queries of a secondary executed again by the same primary saved
 * to a shadow buffer of the primary's before they are written again.
 */
#include <stdlib.h>
#include <string.h>

#include "command_buffer.h"
#include "record_hooks.h"
#include "recording.h"
#include "state/state.h"

/* Slots per shadow buffer, unless one copy needs more. */
#define SHADOW_SLOTS 4096u

/* Room for @count slots in @rec's shadow buffers: which buffer and its first slot; false when none can be had. */
static bool shadow_room(struct hesper_recording *rec, uint32_t count, uint32_t *index, uint32_t *slot)
{
	if (!rec->shadow_count || rec->shadow_used + count > rec->shadows[rec->shadow_count - 1].slots) {
		size_t capacity = rec->shadow_count;
		struct hesper_host_buffer *grown = realloc(rec->shadows, (capacity + 1) * sizeof(*grown));
		if (!grown)
			return false;
		rec->shadows = grown;
		if (hesper_host_buffer_create(rec->dev, count > SHADOW_SLOTS ? count : SHADOW_SLOTS,
					      &rec->shadows[rec->shadow_count]) != 0)
			return false;
		rec->shadow_count++;
		rec->shadow_used = 0;
	}
	*index = rec->shadow_count - 1;
	*slot = rec->shadow_used;
	rec->shadow_used += count;
	return true;
}

/*
 * Copies the queries of execution @e of a secondary, recorded in primary @rec, into a
 * shadow buffer of @rec before @cb executes that secondary again (which resets them).
 * The copy waits for each query (VK_QUERY_RESULT_WAIT_BIT: ordered after this
 * execution's timestamp writes), after a barrier that keeps it behind Hesper's reading of
 * the shadow buffer from @rec's previous run. Left unsaved (and untimed) when no buffer
 * can be had.
 */
static void save_execution(struct hesper_recording *rec, VkCommandBuffer cb, struct hesper_secondary_execution *e)
{
	const struct hesper_recording *sec = e->rec;
	uint32_t index, slot;
	if (!shadow_room(rec, sec->queries_used, &index, &slot))
		return;
	const struct hesper_device *dev = rec->dev;
	dev->next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0,
				     NULL, 0, NULL);
	uint32_t n;
	for (uint32_t b = 0; b < sec->block_count && (n = hesper_block_used(b, sec->queries_used)); b++) {
		dev->next.CmdCopyQueryPoolResults(cb, sec->blocks[b]->pool, 0, n, rec->shadows[index].buffer,
						  ((VkDeviceSize)slot + hesper_block_start(b)) * sizeof(uint64_t),
						  sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
	}
	e->shadow = index;
	e->shadow_slot = slot;
}

/*
 * The index in @rec's executions of the last execution of secondary @sec, or SIZE_MAX.
 * Each secondary is stamped with the primary recording and index of its last execution
 * (O(1) per execution); a secondary executed by primaries on two threads at once may be
 * stamped by the other, so the entry is checked.
 */
static size_t last_execution(const struct hesper_recording *rec, struct hesper_recording *sec, size_t index)
{
	uint64_t seen = atomic_exchange_explicit(&sec->executed, hesper_stamp(rec->id, index), memory_order_relaxed);
	size_t last;
	if (!hesper_stamp_of(seen, rec->id, &last) || last >= index || rec->secondaries[last].rec != sec)
		return SIZE_MAX;
	return last;
}

VKAPI_ATTR void VKAPI_CALL hesper_CmdExecuteCommands(VkCommandBuffer cb, uint32_t count,
						     const VkCommandBuffer *secondaries)
{
	/* Hesper's time: all but the last call down (the earlier ones split the program's for it). */
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	struct hesper_device *dev = s ? s->dev : hesper_device_from(cb);
	struct hesper_recording *rec = s ? s->rec : NULL;
	uint32_t from = 0; /* the first secondary not passed down yet */
	for (uint32_t i = 0; rec && i < count; i++) {
		struct hesper_command_buffer *sec = hesper_command_buffer_from(secondaries[i]);
		if (!sec || !sec->rec)
			continue;
		if (!hesper_reserve_one((void **)&rec->secondaries, rec->secondary_count, &rec->secondary_capacity,
					sizeof(*rec->secondaries))) {
			for (size_t k = 0; k < sec->rec->work_count; k++)
				rec->lost_dispatches += sec->rec->work[k].memop ? 0 : sec->rec->work[k].repeat;
			continue;
		}
		size_t index = rec->secondary_count++;
		size_t last = last_execution(rec, sec->rec, index);
		if (last != SIZE_MAX && sec->rec->queries_used && rec->can_query) {
			/* Its queries are about to be written again: what the last execution wrote is saved first. */
			if (i > from)
				dev->next.CmdExecuteCommands(cb, i - from, secondaries + from);
			from = i;
			save_execution(rec, cb, &rec->secondaries[last]);
		}
		hesper_recording_ref(sec->rec);
		rec->secondaries[index] = (struct hesper_secondary_execution){.rec = sec->rec,
									      .shadow = HESPER_NO_SHADOW};
	}
	hesper_record_busy_again(s);
	hesper_hook_pause(t);
	if (count > from)
		dev->next.CmdExecuteCommands(cb, count - from, secondaries + from);
}
