/*
 * The batches a submit call passes down (submit.c plans them): the program's, with Hesper's
 * copies inserted between command buffers, Hesper's batch before them, and its completion
 * (its copy and signal) joined to the program's last batch or in a batch of its own.
 */
#ifndef HESPER_SUBMIT_BATCHES_H
#define HESPER_SUBMIT_BATCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/state.h"
#include "submission.h"

/* One program call, vkQueueSubmit (v2 false) or vkQueueSubmit2 (v2 true), seen the same way. */
struct call {
	bool v2;
	const VkSubmitInfo *infos;
	const VkSubmitInfo2 *infos2;
	uint32_t count;
	VkFence fence;
	PFN_vkQueueSubmit next;
	PFN_vkQueueSubmit2 next2;
};

/*
 * Everything Hesper adds to one submit call, planned before the call: the batches before
 * and after the program's, and how completion is signalled.
 */
struct plan {
	bool ours;                  /* Hesper adds anything at all */
	bool before;                /* a batch of copies of earlier runs goes first */
	bool after_copy;            /* the last batch holds the copy of this call's runs */
	struct hesper_run **copied; /* runs the batch before copies (host way) */
	size_t copied_count;
	VkCommandBufferSubmitInfo before_info, after_info; /* Hesper's command buffers, for vkQueueSubmit2 */
	VkTimelineSemaphoreSubmitInfo timeline_info;
	VkSemaphoreSubmitInfo semaphore_info;
	uint64_t value;
	VkFence fence; /* the fence to pass to the program's call */
};

/* Command buffers of batch @b of @c. */
static inline uint32_t hesper_call_cb_count(const struct call *c, uint32_t b)
{
	return c->v2 ? c->infos2[b].commandBufferInfoCount : c->infos[b].commandBufferCount;
}

/* Command buffer @i of batch @b of @c. */
static inline VkCommandBuffer hesper_call_cb_at(const struct call *c, uint32_t b, uint32_t i)
{
	return c->v2 ? c->infos2[b].pCommandBufferInfos[i].commandBuffer : c->infos[b].pCommandBuffers[i];
}

/* Whether Hesper may add command buffers to batch @b (their counts are tied to the program's otherwise). */
bool hesper_call_may_insert(const struct call *c, uint32_t b);

/* Calls the next layer with @count batches @batches (of the call's kind) and @fence. */
VkResult hesper_call_down(const struct call *c, VkQueue queue, const void *batches, uint32_t count, VkFence fence);

/*
 * The batches to pass down: Hesper's before, the program's with insertions, and Hesper's
 * completion (its copy and signal), joined to the program's last batch where it can be,
 * else a batch of its own; their number in *@out_count. NULL when memory runs out.
 */
void *hesper_call_batches(const struct call *c, struct hesper_queue *q, struct hesper_submission *sub, struct plan *p,
			  uint32_t *out_count);

#endif
