/* Submission records: taken per submit call, recycled per queue, and the queue's warm-up. */
#include <stdlib.h>

#include "copies.h"
#include "result_slots.h"
#include "state/state.h"
#include "record/record.h"
#include "submission.h"

struct hesper_submission *hesper_submission_take(struct hesper_queue *q)
{
	pthread_mutex_lock(&q->lock);
	struct hesper_submission *sub = q->free_list;
	if (sub) {
		q->free_list = sub->next;
		q->free_count--;
	}
	pthread_mutex_unlock(&q->lock);
	if (!sub)
		sub = calloc(1, sizeof(*sub));
	if (!sub)
		return NULL;
	sub->next = NULL;
	sub->queue = q;
	sub->run_count = 0;
	sub->insert_count = 0;
	sub->between_count = 0;
	sub->batch_count = 0;
	sub->slots = 0;
	sub->sync = HESPER_SYNC_NONE;
	sub->failed = false;
	sub->submitted = false;
	sub->copies_adopted = false;
	return sub;
}

bool hesper_submission_done(const struct hesper_submission *sub)
{
	const struct hesper_queue *q = sub->queue;
	struct hesper_device *dev = q->dev;
	uint64_t value = 0;
	switch (sub->sync) {
	case HESPER_SYNC_TIMELINE:
		return dev->next.GetSemaphoreCounterValueKHR(dev->handle, q->timeline, &value) == VK_SUCCESS &&
		       value >= sub->sync_value;
	case HESPER_SYNC_FENCE:
		return dev->next.GetFenceStatus(dev->handle, sub->fence) == VK_SUCCESS;
	case HESPER_SYNC_NONE:
		break;
	}
	return true;
}

/*
 * Spare records (hesper_submissions_stock): at most this many on a queue's free list, with
 * at most SPARE_BYTES of results buffers among them, so a program with a deep queue of
 * large submissions does not have its memory doubled by them.
 */
#define SPARE_RECORDS 64u
#define SPARE_BYTES (2u << 20)

/* The slots spare records on @queue are made with, or 0 when too large to keep spares of. */
static uint32_t spare_slots(struct hesper_queue *queue)
{
	uint32_t peak = atomic_load_explicit(&queue->result_peak, memory_order_relaxed);
	uint32_t slots = hesper_result_slots(peak, peak);
	return (uint64_t)slots * sizeof(uint64_t) <= SPARE_BYTES / 4 ? slots : 0;
}

/* Puts @sub on @queue's free list. */
static void put_free(struct hesper_queue *queue, struct hesper_submission *sub)
{
	pthread_mutex_lock(&queue->lock);
	sub->next = queue->free_list;
	queue->free_list = sub;
	queue->free_count++;
	pthread_mutex_unlock(&queue->lock);
}

void hesper_submission_keep(struct hesper_queue *queue, struct hesper_submission *sub)
{
	hesper_copies_mark_unwritten(&sub->kit, sub->slots);
	sub->slots = 0;
	/* Grown here, on the collector's thread, rather than in a later submit call of the program's. */
	uint32_t spare = spare_slots(queue);
	if (sub->kit.out.slots < spare)
		hesper_copies_reserve(queue->dev, sub, spare); /* on failure the submit path tries again */
	put_free(queue, sub);
}

void hesper_submissions_stock(struct hesper_queue *queue)
{
	uint32_t slots = spare_slots(queue);
	if (!slots)
		return;
	pthread_mutex_lock(&queue->lock);
	unsigned want = 2 * queue->pending_peak + 2, have = queue->free_count + queue->pending_count;
	pthread_mutex_unlock(&queue->lock);
	unsigned most = SPARE_BYTES / (slots * (unsigned)sizeof(uint64_t));
	if (want > SPARE_RECORDS)
		want = SPARE_RECORDS;
	if (want > most)
		want = most;
	for (; have < want; have++) {
		struct hesper_submission *sub = calloc(1, sizeof(*sub));
		if (!sub)
			return;
		sub->queue = queue;
		if (hesper_copies_reserve(queue->dev, sub, slots) != 0) {
			hesper_submission_free(sub);
			return;
		}
		put_free(queue, sub);
	}
}

/* How long the queue's first run of Hesper's work may take before Hesper stops waiting for it. */
#define WARM_UP_WAIT_NS 10000000000ull

/*
 * Runs the kinds of work Hesper adds to a submission (a query reset, a timestamp, the copy
 * of its value, the completion signal) once on @q, alone, and waits for it. NVIDIA's driver
 * (580) can otherwise stall every queue of the device for good when several threads' first
 * submissions on several queues carry this work at once (docs/measurements.md, "the queue
 * warm-up"). The program has not got @q's handle yet, so nothing else is using it.
 */
static void warm_up(struct hesper_queue *q, struct hesper_submission *sub)
{
	struct hesper_device *dev = q->dev;
	/*
	 * The loader gives the queue its dispatch pointer only once vkGetDeviceQueue returns;
	 * layers below Hesper find their state through it, so it is given here first.
	 */
	if (!dev->set_loader_data || dev->set_loader_data(dev->handle, q->handle) != VK_SUCCESS)
		return;
	struct hesper_query_block *block = hesper_query_block_take(dev);
	if (!block)
		return;
	/* Devices without timelines have the record's unsignalled fence already; others get one here. */
	VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	if (!sub->fence && dev->next.CreateFence(dev->handle, &fence_info, NULL, &sub->fence) != VK_SUCCESS) {
		sub->fence = VK_NULL_HANDLE;
		goto out;
	}
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	sub->kit.key_valid = false; /* the command buffer is about to hold other commands */
	if (dev->next.BeginCommandBuffer(sub->kit.cb, &begin) != VK_SUCCESS)
		goto out;
	dev->next.CmdResetQueryPool(sub->kit.cb, block->pool, 0, 1);
	dev->next.CmdWriteTimestamp(sub->kit.cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, block->pool, 0);
	dev->next.CmdCopyQueryPoolResults(sub->kit.cb, block->pool, 0, 1, sub->kit.out.buffer, 0, sizeof(uint64_t),
					  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
	sub->slots = 1; /* marked unwritten again when the record is recycled */
	if (dev->next.EndCommandBuffer(sub->kit.cb) != VK_SUCCESS)
		goto out;
	uint64_t value = q->timeline_value + 1;
	VkTimelineSemaphoreSubmitInfo timeline_info = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.signalSemaphoreValueCount = 1,
		.pSignalSemaphoreValues = &value,
	};
	VkSubmitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = dev->timeline ? &timeline_info : NULL,
		.commandBufferCount = 1,
		.pCommandBuffers = &sub->kit.cb,
		.signalSemaphoreCount = dev->timeline,
		.pSignalSemaphores = &q->timeline,
	};
	VkResult result = dev->next.QueueSubmit(q->handle, 1, &info, sub->fence);
	if (dev->timeline)
		q->timeline_value = value; /* later signals stay above it, whether or not it was signalled */
	if (result == VK_SUCCESS)
		result = dev->next.WaitForFences(dev->handle, 1, &sub->fence, VK_TRUE, WARM_UP_WAIT_NS);
	if (result != VK_SUCCESS) {
		/*
		 * Still running, or the device is lost: the command buffer is never used again (it
		 * goes with Hesper's pool), and the fence stays with the record until vkDestroyDevice.
		 */
		hesper_log("its own first submission on a queue did not finish (VkResult %d); going on", (int)result);
		sub->kit.cb = VK_NULL_HANDLE;
		goto out;
	}
	if (dev->timeline) {
		dev->next.DestroyFence(dev->handle, sub->fence, NULL);
		sub->fence = VK_NULL_HANDLE;
	}
out:
	hesper_query_block_give(dev, block);
}

void hesper_queue_prepare(struct hesper_queue *queue)
{
	/* Programs that get their queues from several threads must not make the warm-ups race instead. */
	static pthread_mutex_t warm_up_lock = PTHREAD_MUTEX_INITIALIZER;
	const struct hesper_device *dev = queue->dev;
	if (queue->family >= dev->family_count || !dev->families[queue->family].timed)
		return;
	struct hesper_submission *sub = hesper_submission_take(queue);
	if (!sub)
		return;
	/* Room for a command buffer of about 1,000 back-to-back timed dispatches before the buffer grows. */
	if (hesper_copies_reserve(queue->dev, sub, 1024) == 0 && hesper_copies_prepare_objects(queue, sub, true) == 0) {
		pthread_mutex_lock(&warm_up_lock);
		warm_up(queue, sub);
		pthread_mutex_unlock(&warm_up_lock);
	}
	hesper_submission_keep(queue, sub);
}

void hesper_submissions_release(struct hesper_queue *queue)
{
	struct hesper_device *dev = queue->dev;
	pthread_mutex_lock(&queue->lock);
	struct hesper_submission *sub = queue->free_list;
	queue->free_list = NULL;
	queue->free_count = 0;
	pthread_mutex_unlock(&queue->lock);
	while (sub) {
		struct hesper_submission *next = sub->next;
		hesper_copies_free_buffer(dev, sub);
		if (sub->fence)
			dev->next.DestroyFence(dev->handle, sub->fence, NULL);
		if (sub->kit.cb)
			dev->next.FreeCommandBuffers(dev->handle, queue->pool, 1, &sub->kit.cb);
		if (sub->spare_count)
			dev->next.FreeCommandBuffers(dev->handle, queue->pool, (uint32_t)sub->spare_count,
						     sub->spare_cbs);
		hesper_submission_free(sub);
		sub = next;
	}
	if (queue->timeline)
		dev->next.DestroySemaphore(dev->handle, queue->timeline, NULL);
	queue->timeline = VK_NULL_HANDLE;
}

void hesper_submission_free(struct hesper_submission *sub)
{
	free(sub->runs);
	free(sub->kit.key);
	free(sub->inserts);
	free(sub->between);
	free(sub->spare_cbs);
	free(sub->scratch);
	free(sub->taken);
	free(sub);
}
