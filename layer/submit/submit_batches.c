/* The batches a submit call passes down (submit_batches.h). */
#include "submit_batches.h"

#include <stdlib.h>
#include <string.h>

/* Memory for the batches passed down: @bytes from @sub's scratch space; NULL when memory runs out. */
static void *scratch(struct hesper_submission *sub, size_t bytes)
{
	if (bytes > sub->scratch_capacity) {
		void *grown = realloc(sub->scratch, bytes);
		if (!grown)
			return NULL;
		sub->scratch = grown;
		sub->scratch_capacity = bytes;
	}
	return sub->scratch;
}

bool hesper_call_may_insert(const struct call *c, uint32_t b)
{
	if (c->v2)
		return !(c->infos2[b].flags & VK_SUBMIT_PROTECTED_BIT);
	for (const VkBaseInStructure *p = c->infos[b].pNext; p; p = p->pNext) {
		if (p->sType == VK_STRUCTURE_TYPE_DEVICE_GROUP_SUBMIT_INFO)
			return false;
		if (p->sType == VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO &&
		    ((const VkProtectedSubmitInfo *)p)->protectedSubmit)
			return false;
	}
	return true;
}

VkResult hesper_call_down(const struct call *c, VkQueue queue, const void *batches, uint32_t count, VkFence fence)
{
	return c->v2 ? c->next2(queue, count, batches, fence) : c->next(queue, count, batches, fence);
}

/* Hesper's batch of @cb (or none) and @signal (or none), for vkQueueSubmit. */
static VkSubmitInfo batch_v1(const VkCommandBuffer *cb, const VkSemaphore *signal, const void *next)
{
	return (VkSubmitInfo){
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = next,
		.commandBufferCount = cb != NULL,
		.pCommandBuffers = cb,
		.signalSemaphoreCount = signal != NULL,
		.pSignalSemaphores = signal,
	};
}

/* Hesper's batch of @cb (or none) and @signal (or none), for vkQueueSubmit2. */
static VkSubmitInfo2 batch_v2(const VkCommandBufferSubmitInfo *cb, const VkSemaphoreSubmitInfo *signal)
{
	return (VkSubmitInfo2){
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
		.commandBufferInfoCount = cb != NULL,
		.pCommandBufferInfos = cb,
		.signalSemaphoreInfoCount = signal != NULL,
		.pSignalSemaphoreInfos = signal,
	};
}

/* Program batch @b with @sub's insertions from *@k into @room; returns the room left. */
static void *program_batch(const struct call *c, const struct hesper_submission *sub, uint32_t b, size_t *k, void *out,
			   void *room)
{
	if (c->v2)
		*(VkSubmitInfo2 *)out = c->infos2[b];
	else
		*(VkSubmitInfo *)out = c->infos[b];
	if (*k >= sub->insert_count || sub->inserts[*k].batch != b)
		return room;
	VkCommandBuffer *cbs = room;
	VkCommandBufferSubmitInfo *cbis = room;
	size_t n = 0;
	for (uint32_t i = 0; i < hesper_call_cb_count(c, b); i++) {
		for (; *k < sub->insert_count && sub->inserts[*k].batch == b && sub->inserts[*k].before == i;
		     ++*k, n++) {
			if (c->v2)
				cbis[n] = (VkCommandBufferSubmitInfo){
					.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
					.commandBuffer = sub->inserts[*k].cb};
			else
				cbs[n] = sub->inserts[*k].cb;
		}
		if (c->v2)
			cbis[n++] = c->infos2[b].pCommandBufferInfos[i];
		else
			cbs[n++] = c->infos[b].pCommandBuffers[i];
	}
	if (c->v2) {
		((VkSubmitInfo2 *)out)->pCommandBufferInfos = cbis;
		((VkSubmitInfo2 *)out)->commandBufferInfoCount = (uint32_t)n;
		return cbis + n;
	}
	((VkSubmitInfo *)out)->pCommandBuffers = cbs;
	((VkSubmitInfo *)out)->commandBufferCount = (uint32_t)n;
	return cbs + n;
}

/* Whether vkQueueSubmit batch @b's pNext chain holds a VkTimelineSemaphoreSubmitInfo. */
static bool has_timeline_info(const VkSubmitInfo *b)
{
	for (const VkBaseInStructure *s = b->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
			return true;
	return false;
}

/* Command buffers and signals of batch @b of @c. */
static uint32_t signal_count(const struct call *c, uint32_t b)
{
	return c->v2 ? c->infos2[b].signalSemaphoreInfoCount : c->infos[b].signalSemaphoreCount;
}

/*
 * Bytes of room joining Hesper's completion to the program's last batch takes (join_last),
 * or 0 when it cannot join: no batch, or, in vkQueueSubmit, a last batch with the
 * program's own VkTimelineSemaphoreSubmitInfo, which Hesper's signal would need to extend
 * in a chain it cannot change.
 */
static size_t join_room(const struct call *c, const struct hesper_submission *sub, bool timeline)
{
	if (!c->count)
		return 0;
	uint32_t b = c->count - 1;
	/* the batch as passed down may hold Hesper's insertions too */
	size_t cbs = hesper_call_cb_count(c, b) + sub->insert_count + 1, signals = signal_count(c, b) + 1;
	if (c->v2)
		return cbs * sizeof(VkCommandBufferSubmitInfo) + signals * sizeof(VkSemaphoreSubmitInfo);
	if (timeline && has_timeline_info(&c->infos[b]))
		return 0;
	return cbs * sizeof(VkCommandBuffer) + signals * (sizeof(VkSemaphore) + sizeof(uint64_t));
}

/*
 * Joins Hesper's completion to the program's last batch @last (as passed down, its
 * insertions made) in @room: its copy as the batch's last command buffer, its signal as
 * the batch's last. A batch of its own cost llama.cpp's decoding about 13 % of its time
 * per token on the H200 in submit mode, joined about 1 %. A signal of vkQueueSubmit(2)
 * covers every command earlier in submission order, as the batch of its own did, and the
 * program's own signals and fence now wait for Hesper's copy too (a few microseconds).
 */
static void join_last(const struct call *c, struct hesper_queue *q, struct hesper_submission *sub, struct plan *p,
		      bool timeline, void *last, char *room)
{
	if (c->v2) {
		VkSubmitInfo2 *b = last;
		VkCommandBufferSubmitInfo *cbs = (VkCommandBufferSubmitInfo *)room;
		uint32_t n = b->commandBufferInfoCount, m = b->signalSemaphoreInfoCount;
		VkSemaphoreSubmitInfo *signals = (VkSemaphoreSubmitInfo *)(cbs + n + 1);
		if (p->after_copy) {
			if (n)
				memcpy(cbs, b->pCommandBufferInfos, n * sizeof(*cbs));
			cbs[n] = p->after_info;
			b->pCommandBufferInfos = cbs;
			b->commandBufferInfoCount = n + 1;
		}
		if (timeline) {
			if (m)
				memcpy(signals, b->pSignalSemaphoreInfos, m * sizeof(*signals));
			signals[m] = p->semaphore_info;
			b->pSignalSemaphoreInfos = signals;
			b->signalSemaphoreInfoCount = m + 1;
		}
		return;
	}
	VkSubmitInfo *b = last;
	VkCommandBuffer *cbs = (VkCommandBuffer *)room;
	uint32_t n = b->commandBufferCount, m = b->signalSemaphoreCount;
	VkSemaphore *signals = (VkSemaphore *)(cbs + n + 1);
	uint64_t *values = (uint64_t *)(signals + m + 1);
	if (p->after_copy) {
		if (n)
			memcpy(cbs, b->pCommandBuffers, n * sizeof(*cbs));
		cbs[n] = sub->after_cb;
		b->pCommandBuffers = cbs;
		b->commandBufferCount = n + 1;
	}
	if (timeline) {
		if (m)
			memcpy(signals, b->pSignalSemaphores, m * sizeof(*signals));
		signals[m] = q->timeline;
		/* the program's are binary here (no timeline info of its own): their values are ignored */
		if (m)
			memset(values, 0, m * sizeof(*values));
		values[m] = p->value;
		p->timeline_info.signalSemaphoreValueCount = m + 1;
		p->timeline_info.pSignalSemaphoreValues = values;
		p->timeline_info.pNext = b->pNext;
		b->pNext = &p->timeline_info;
		b->pSignalSemaphores = signals;
		b->signalSemaphoreCount = m + 1;
	}
}

void *hesper_call_batches(const struct call *c, struct hesper_queue *q, struct hesper_submission *sub, struct plan *p,
			  uint32_t *out_count)
{
	size_t cbs = sub->insert_count;
	for (uint32_t b = 0; b < c->count; b++)
		cbs += hesper_call_cb_count(c, b);
	size_t batch_size = c->v2 ? sizeof(VkSubmitInfo2) : sizeof(VkSubmitInfo);
	size_t cb_size = c->v2 ? sizeof(VkCommandBufferSubmitInfo) : sizeof(VkCommandBuffer);
	size_t slots = (size_t)c->count + 2;
	bool timeline = sub->sync == HESPER_SYNC_TIMELINE;
	size_t join = (p->after_copy || timeline) ? join_room(c, sub, timeline) : 0;
	char *all = scratch(sub, slots * batch_size + cbs * cb_size + join);
	if (!all)
		return NULL;
	void *room = all + slots * batch_size;
	p->before_info = (VkCommandBufferSubmitInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
						     .commandBuffer = sub->kit.cb};
	p->after_info = (VkCommandBufferSubmitInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
						    .commandBuffer = sub->after_cb};
	uint32_t n = 0;
	if (p->before) {
		if (c->v2)
			((VkSubmitInfo2 *)all)[n++] = batch_v2(&p->before_info, NULL);
		else
			((VkSubmitInfo *)all)[n++] = batch_v1(&sub->kit.cb, NULL, NULL);
	}
	size_t k = 0;
	for (uint32_t b = 0; b < c->count; b++, n++)
		room = program_batch(c, sub, b, &k, all + n * batch_size, room);
	if (join) {
		join_last(c, q, sub, p, timeline, all + (n - 1) * batch_size, room);
		*out_count = n;
		return all;
	}
	if (!p->after_copy && !timeline) {
		*out_count = n; /* completion by the fence alone */
		return all;
	}
	if (c->v2)
		((VkSubmitInfo2 *)all)[n++] = batch_v2(p->after_copy ? &p->after_info : NULL,
						       timeline ? &p->semaphore_info : NULL);
	else
		((VkSubmitInfo *)all)[n++] = batch_v1(p->after_copy ? &sub->after_cb : NULL,
						      timeline ? &q->timeline : NULL,
						      timeline ? &p->timeline_info : NULL);
	*out_count = n;
	return all;
}
