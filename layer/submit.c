/*
 * vkQueueSubmit and vkQueueSubmit2: after the program's batches Hesper appends one batch
 * of its own whose command buffer copies every timestamp the submitted command buffers
 * wrote into a host-visible buffer, then signals a timeline semaphore (or fence) of
 * Hesper's. Query commands on one queue run in submission order, so the copy always sees
 * this submission's values, even when the same command buffer is submitted again before
 * this one finished.
 *
 * How the copy waits for the timestamp writes (HESPER_COPY, hesper_device.copy_wait):
 * per query, with VK_QUERY_RESULT_WAIT_BIT, which the specification guarantees; or after
 * one pipeline barrier, which NVIDIA's driver does far faster (it waits for each query on
 * its own: about 1 µs a query, bench/results/h200-2026-11-30b). Each value is copied with
 * its availability either way. When a barrier copy still finds a query unavailable, the
 * collector counts that run's dispatches as dropped and the device's copies wait per
 * query from then on.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layer.h"
#include "submission.h"

/* Deepest chain of secondaries executing secondaries that Hesper follows. */
#define MAX_NESTING 8

/* Adds one run of @rec in batch @batch to @sub; false when memory runs out. */
static bool add_occurrence(struct hesper_submission *sub, struct hesper_recording *rec, uint32_t batch)
{
	for (size_t i = 0; i < sub->occ_count; i++) {
		if (sub->occ[i].rec == rec) {
			/* It ran again before Hesper's copy: only its last run's timestamps survive. */
			sub->occ[i].executions++;
			return true;
		}
	}
	if (!hesper_reserve_one((void **)&sub->occ, sub->occ_count, &sub->occ_capacity, sizeof(*sub->occ)))
		return false;
	hesper_recording_ref(rec);
	struct hesper_occurrence *o = &sub->occ[sub->occ_count++];
	o->rec = rec;
	o->executions = 1;
	o->batch = batch;
	atomic_init(&o->conflict, false);
	o->unavailable = false;
	return true;
}

/* Adds @rec and, recursively, the secondaries it executes. */
static bool add_recording(struct hesper_submission *sub, struct hesper_recording *rec, uint32_t batch, int depth)
{
	if (!add_occurrence(sub, rec, batch))
		return false;
	if (depth >= MAX_NESTING)
		return true;
	for (size_t i = 0; i < rec->secondary_count; i++)
		if (!add_recording(sub, rec->secondaries[i], batch, depth + 1))
			return false;
	return true;
}

/* Adds the program's command buffer @cb of batch @batch. */
static void add_command_buffer(struct hesper_submission *sub, VkCommandBuffer cb, uint32_t batch)
{
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	if (s && s->rec && !add_recording(sub, s->rec, batch, 0))
		sub->failed = true;
}

/* A memory type for the results: host visible, preferably cached and coherent; UINT32_MAX if none. */
static uint32_t pick_memory_type(const struct hesper_device *dev, uint32_t allowed, bool *coherent)
{
	static const VkMemoryPropertyFlags wanted[] = {
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT |
			VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
	};
	for (size_t w = 0; w < sizeof(wanted) / sizeof(wanted[0]); w++) {
		for (uint32_t i = 0; i < dev->memory.memoryTypeCount; i++) {
			VkMemoryPropertyFlags flags = dev->memory.memoryTypes[i].propertyFlags;
			if ((allowed & (1u << i)) && (flags & wanted[w]) == wanted[w]) {
				*coherent = flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
				return i;
			}
		}
	}
	return UINT32_MAX;
}

/* Frees @sub's results buffer. */
static void free_buffer(struct hesper_device *dev, struct hesper_submission *sub)
{
	if (sub->kit.memory) {
		if (sub->kit.results)
			dev->next.UnmapMemory(dev->handle, sub->kit.memory);
		dev->next.FreeMemory(dev->handle, sub->kit.memory, NULL);
	}
	if (sub->kit.buffer)
		dev->next.DestroyBuffer(dev->handle, sub->kit.buffer, NULL);
	sub->kit.memory = VK_NULL_HANDLE;
	sub->kit.buffer = VK_NULL_HANDLE;
	sub->kit.results = NULL;
	sub->kit.capacity = 0;
	sub->kit.key_valid = false; /* a recorded copy names the old buffer */
}

/* Marks the first @count result slots of @kit unwritten, for the device to see. */
static void mark_unwritten(const struct hesper_device *dev, struct hesper_copy_kit *kit, uint32_t count)
{
	if (!kit->results || count == 0)
		return;
	memset(kit->results, 0xff, (size_t)count * sizeof(uint64_t));
	if (!kit->coherent) {
		VkMappedMemoryRange range = {
			.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
			.memory = kit->memory,
			.size = VK_WHOLE_SIZE,
		};
		dev->next.FlushMappedMemoryRanges(dev->handle, 1, &range);
	}
}

/* Makes @sub's results buffer hold at least @slots; 0 on success. */
static int reserve_slots(struct hesper_device *dev, struct hesper_submission *sub, uint32_t slots)
{
	if (sub->kit.capacity >= slots)
		return 0;
	free_buffer(dev, sub);
	uint32_t capacity = slots < 1024 ? 1024 : slots;
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = (VkDeviceSize)capacity * sizeof(uint64_t),
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	if (dev->next.CreateBuffer(dev->handle, &info, NULL, &sub->kit.buffer) != VK_SUCCESS)
		goto fail;
	VkMemoryRequirements req;
	dev->next.GetBufferMemoryRequirements(dev->handle, sub->kit.buffer, &req);
	uint32_t type = pick_memory_type(dev, req.memoryTypeBits, &sub->kit.coherent);
	if (type == UINT32_MAX)
		goto fail;
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = type,
	};
	if (dev->next.AllocateMemory(dev->handle, &alloc, NULL, &sub->kit.memory) != VK_SUCCESS)
		goto fail;
	if (dev->next.BindBufferMemory(dev->handle, sub->kit.buffer, sub->kit.memory, 0) != VK_SUCCESS)
		goto fail;
	void *mapped = NULL;
	if (dev->next.MapMemory(dev->handle, sub->kit.memory, 0, VK_WHOLE_SIZE, 0, &mapped) != VK_SUCCESS)
		goto fail;
	sub->kit.results = mapped;
	sub->kit.capacity = capacity;
	mark_unwritten(dev, &sub->kit, capacity);
	return 0;
fail:
	free_buffer(dev, sub);
	return -1;
}

/* Creates the command pool Hesper records its copies in, on first use. */
static int ensure_pool(struct hesper_queue *q)
{
	if (q->pool)
		return 0;
	VkCommandPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
		.queueFamilyIndex = q->family,
	};
	return q->dev->next.CreateCommandPool(q->dev->handle, &info, NULL, &q->pool) == VK_SUCCESS ? 0 : -1;
}

/* A submission record from @q's free list or a new one; NULL when none can be had. */
static struct hesper_submission *take_submission(struct hesper_queue *q)
{
	pthread_mutex_lock(&q->lock);
	struct hesper_submission *sub = q->free_list;
	if (sub)
		q->free_list = sub->next;
	pthread_mutex_unlock(&q->lock);
	if (!sub)
		sub = calloc(1, sizeof(*sub));
	if (!sub)
		return NULL;
	sub->next = NULL;
	sub->occ_count = 0;
	sub->batch_count = 0;
	sub->slots = 0;
	sub->sync = HESPER_SYNC_NONE;
	sub->failed = false;
	sub->submitted = false;
	return sub;
}

/* Creates @q's timeline semaphore on first use; 0 on success. */
static int ensure_timeline(struct hesper_queue *q)
{
	if (q->timeline)
		return 0;
	VkSemaphoreTypeCreateInfo type = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
	};
	VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
	return q->dev->next.CreateSemaphore(q->dev->handle, &info, NULL, &q->timeline) == VK_SUCCESS ? 0 : -1;
}

/* Creates @sub's command buffer and its completion signal on first use; 0 on success. */
static int prepare_objects(struct hesper_queue *q, struct hesper_submission *sub)
{
	struct hesper_device *dev = q->dev;
	if (ensure_pool(q) != 0)
		return -1;
	if (!sub->kit.cb) {
		VkCommandBufferAllocateInfo info = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = q->pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 1,
		};
		if (dev->next.AllocateCommandBuffers(dev->handle, &info, &sub->kit.cb) != VK_SUCCESS) {
			sub->kit.cb = VK_NULL_HANDLE;
			return -1;
		}
		/* A command buffer made below the loader needs the loader's dispatch pointer. */
		if (dev->set_loader_data)
			dev->set_loader_data(dev->handle, sub->kit.cb);
		sub->kit.key_valid = false;
	}
	if (dev->timeline)
		return ensure_timeline(q);
	if (!sub->fence) {
		VkFenceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
		if (dev->next.CreateFence(dev->handle, &info, NULL, &sub->fence) != VK_SUCCESS) {
			sub->fence = VK_NULL_HANDLE;
			return -1;
		}
	} else if (dev->next.ResetFences(dev->handle, 1, &sub->fence) != VK_SUCCESS) {
		return -1;
	}
	return 0;
}

/* Walks the copy commands @sub needs, in order: start with *i = *b = 0; false at the end. */
static bool next_copy(const struct hesper_submission *sub, size_t *i, uint32_t *b, struct hesper_copy_key *out)
{
	for (; *i < sub->occ_count; ++*i, *b = 0) {
		const struct hesper_occurrence *o = &sub->occ[*i];
		const struct hesper_recording *rec = o->rec;
		if (o->base == HESPER_NO_SLOT || *b >= rec->block_count || hesper_block_start(*b) >= rec->queries_used)
			continue;
		uint32_t count = rec->queries_used - hesper_block_start(*b);
		if (count > hesper_block_size(*b))
			count = hesper_block_size(*b);
		*out = (struct hesper_copy_key){rec->blocks[*b]->pool, count, o->base + hesper_block_start(*b)};
		++*b;
		return true;
	}
	return false;
}

/* True when @kit's recorded command buffer copies exactly what @sub must copy now. */
static bool copies_match(const struct hesper_device *dev, const struct hesper_submission *sub,
			 const struct hesper_copy_kit *kit)
{
	if (!kit->key_valid || kit->key_wait != atomic_load_explicit(&dev->copy_wait, memory_order_relaxed))
		return false;
	size_t i = 0, k = 0;
	uint32_t b = 0;
	struct hesper_copy_key c;
	for (; next_copy(sub, &i, &b, &c); k++) {
		if (k == kit->key_count)
			return false;
		const struct hesper_copy_key *had = &kit->key[k];
		if (had->pool != c.pool || had->count != c.count || had->slot != c.slot)
			return false;
	}
	return k == kit->key_count;
}

/*
 * Where @sub's own command buffer copies something else, takes a recorded one that copies
 * exactly this from a finished submission record of @q (its buffer with it), leaving
 * @sub's in its place. Programs that record afresh each frame get the same query blocks
 * back, but not always in the same record. Returns whether @sub's copies are ready.
 */
static bool adopt_matching_copies(struct hesper_queue *q, struct hesper_submission *sub)
{
	if (copies_match(q->dev, sub, &sub->kit))
		return true;
	bool found = false;
	pthread_mutex_lock(&q->lock);
	unsigned looked = 0;
	for (struct hesper_submission *other = q->free_list; other && looked < 16 && !found;
	     other = other->next, looked++) {
		if (!other->kit.cb || other->kit.capacity < sub->kit.capacity || !copies_match(q->dev, sub, &other->kit))
			continue;
		struct hesper_copy_kit mine = sub->kit;
		sub->kit = other->kit;
		other->kit = mine;
		found = true;
	}
	pthread_mutex_unlock(&q->lock);
	return found;
}

/* Appends @c to what @sub's command buffer copies; false when memory runs out. */
static bool remember_copy(struct hesper_submission *sub, const struct hesper_copy_key *c)
{
	if (!hesper_reserve_one((void **)&sub->kit.key, sub->kit.key_count, &sub->kit.key_capacity, sizeof(*sub->kit.key)))
		return false;
	sub->kit.key[sub->kit.key_count++] = *c;
	return true;
}

/* Records the copies of every timestamp of @sub into its command buffer; 0 on success. */
static int record_copies(struct hesper_queue *q, struct hesper_submission *sub)
{
	struct hesper_device *dev = q->dev;
	/* Not one-time: a program that resubmits the same work gets the same copies resubmitted. */
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	sub->kit.key_valid = false;
	sub->kit.key_count = 0;
	sub->kit.key_wait = atomic_load_explicit(&dev->copy_wait, memory_order_relaxed);
	VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT | (sub->kit.key_wait ? VK_QUERY_RESULT_WAIT_BIT : 0);
	if (dev->next.BeginCommandBuffer(sub->kit.cb, &begin) != VK_SUCCESS)
		return -1;
	/* Everything submitted before on this queue, the timestamp writes included, is done. */
	dev->next.CmdPipelineBarrier(sub->kit.cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
				     NULL, 0, NULL, 0, NULL);
	const VkDeviceSize stride = sizeof(uint64_t);
	bool remembered = true;
	size_t i = 0;
	uint32_t b = 0;
	struct hesper_copy_key c;
	while (next_copy(sub, &i, &b, &c)) {
		dev->next.CmdCopyQueryPoolResults(sub->kit.cb, c.pool, 0, c.count, sub->kit.buffer, c.slot * stride, stride,
						  flags);
		remembered = remembered && remember_copy(sub, &c);
	}
	VkMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	dev->next.CmdPipelineBarrier(sub->kit.cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
				     &to_host, 0, NULL, 0, NULL);
	if (dev->next.EndCommandBuffer(sub->kit.cb) != VK_SUCCESS)
		return -1;
	sub->kit.key_valid = remembered;
	return 0;
}

/*
 * Gives every occurrence of @sub its result slots and readies the copy. Returns true
 * when Hesper's batch must be submitted, false when there is nothing to copy (or it
 * cannot be done, in which case sub->failed is set).
 */
static bool prepare_copy(struct hesper_queue *q, struct hesper_submission *sub)
{
	uint64_t slots = 0;
	for (size_t i = 0; i < sub->occ_count; i++) {
		struct hesper_occurrence *o = &sub->occ[i];
		/* Recorded for another queue family (invalid use): its queries are not read here. */
		bool copied = o->rec->queries_used && o->rec->family == q->family;
		o->base = copied ? (uint32_t)slots : HESPER_NO_SLOT;
		if (copied)
			slots += o->rec->queries_used;
	}
	if (slots == 0 || sub->failed)
		return false;
	if (slots > UINT32_MAX / 2 || reserve_slots(q->dev, sub, (uint32_t)slots) != 0 ||
	    prepare_objects(q, sub) != 0 || (!adopt_matching_copies(q, sub) && record_copies(q, sub) != 0)) {
		sub->failed = true;
		return false;
	}
	sub->slots = (uint32_t)slots;
	return true;
}

/* Host time Hesper spent in submit hooks, ns. */
static atomic_uint_fast64_t submit_hook_ns;

uint64_t hesper_submit_hook_ns(void)
{
	return atomic_load(&submit_hook_ns);
}

/* True when @sub's copies are done, asked without waiting. */
static bool finished(struct hesper_queue *q, const struct hesper_submission *sub)
{
	struct hesper_device *dev = q->dev;
	uint64_t value = 0;
	switch (sub->sync) {
	case HESPER_SYNC_FENCE:
		return dev->next.GetFenceStatus(dev->handle, sub->fence) == VK_SUCCESS;
	case HESPER_SYNC_TIMELINE:
		return dev->next.GetSemaphoreCounterValueKHR(dev->handle, q->timeline, &value) == VK_SUCCESS &&
		       value >= sub->sync_value;
	case HESPER_SYNC_NONE:
		break;
	}
	return true;
}

/*
 * A command buffer (SIMULTANEOUS_USE) or secondary submitted while still running on
 * @other: both runs write the same queries, so neither run's times can be trusted. Marks
 * the runs of @rec still unfinished on @other; returns whether there were any. Runs that
 * finished but are not harvested yet keep their times: their copies are done.
 */
static bool mark_running_elsewhere(struct hesper_queue *other, struct hesper_recording *rec)
{
	bool any = false;
	pthread_mutex_lock(&other->lock);
	for (struct hesper_submission *s = other->pending_head; s; s = s->next) {
		for (size_t i = 0; i < s->occ_count; i++) {
			if (s->occ[i].rec == rec && !finished(other, s)) {
				atomic_store(&s->occ[i].conflict, true);
				any = true;
			}
		}
	}
	pthread_mutex_unlock(&other->lock);
	return any;
}

/* Ends the bookkeeping of a submit call that ran from @begin_ns to @end_ns: on success the collector takes @sub. */
static void finish(struct hesper_queue *q, struct hesper_submission *sub, VkResult result, uint64_t begin_ns,
		   uint64_t end_ns)
{
	if (result != VK_SUCCESS) {
		/* The program's batches were not submitted either: nothing ran, nothing to count. */
		hesper_submission_recycle(q, sub);
		return;
	}
	for (size_t i = 0; i < sub->occ_count; i++) {
		struct hesper_queue *other = hesper_recording_submitted(sub->occ[i].rec, q);
		if (other && mark_running_elsewhere(other, sub->occ[i].rec))
			atomic_store(&sub->occ[i].conflict, true);
	}
	sub->submitted = true;
	sub->index = q->submit_index++;
	sub->host_ns = begin_ns;
	sub->host_end_ns = end_ns;
	sub->thread = (uint32_t)gettid();
	hesper_collector_enqueue(q, sub);
}

/*
 * How Hesper's batch says it is done: a signal of the queue's timeline semaphore when the
 * device has them; else Hesper's fence, passed in the same call when the program brought
 * none, or in an empty submission after it (fence_after) when it did.
 */
struct completion {
	VkTimelineSemaphoreSubmitInfo timeline_info;
	VkSemaphoreSubmitInfo semaphore_info;
	uint64_t value;
	VkFence fence;                      /* the fence to pass to the program's call */
};

static void plan_completion(struct hesper_queue *q, struct hesper_submission *sub, VkFence app_fence,
			    struct completion *c)
{
	c->value = q->timeline_value + 1;
	c->fence = app_fence;
	if (q->dev->timeline) {
		sub->sync = HESPER_SYNC_TIMELINE;
		sub->sync_value = c->value;
		c->timeline_info = (VkTimelineSemaphoreSubmitInfo){
			.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
			.signalSemaphoreValueCount = 1,
			.pSignalSemaphoreValues = &c->value,
		};
		c->semaphore_info = (VkSemaphoreSubmitInfo){
			.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
			.semaphore = q->timeline,
			.value = c->value,
			.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
		};
		return;
	}
	sub->sync = HESPER_SYNC_FENCE;
	if (!app_fence)
		c->fence = sub->fence;
}

/* After the program's call returned @result: commits the timeline value or adds the fence. */
static void complete_after(struct hesper_queue *q, struct hesper_submission *sub, VkFence app_fence,
			   VkResult result, const struct completion *c)
{
	if (result != VK_SUCCESS)
		return;
	if (sub->sync == HESPER_SYNC_TIMELINE) {
		q->timeline_value = c->value;
		return;
	}
	if (app_fence && q->dev->next.QueueSubmit(q->handle, 0, NULL, sub->fence) != VK_SUCCESS) {
		sub->sync = HESPER_SYNC_NONE;
		sub->failed = true;
	}
}

/* Hesper's batch for vkQueueSubmit: @sub's command buffer, then the completion signal planned in @c. */
static VkSubmitInfo our_batch(const struct hesper_queue *q, const struct hesper_submission *sub,
			      const struct completion *c)
{
	bool timeline = sub->sync == HESPER_SYNC_TIMELINE;
	return (VkSubmitInfo){
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = timeline ? &c->timeline_info : NULL,
		.commandBufferCount = 1,
		.pCommandBuffers = &sub->kit.cb,
		.signalSemaphoreCount = timeline,
		.pSignalSemaphores = &q->timeline,
	};
}

/*
 * The program's @count batches of @size bytes copied with room for Hesper's after them:
 * in @local (room for @local_count) when they fit, else on the heap. NULL when Hesper has
 * nothing to copy for @sub or memory runs out (then @sub is marked failed).
 */
static void *batches_with_ours(struct hesper_queue *q, struct hesper_submission *sub, const void *infos,
			       uint32_t count, size_t size, void *local, size_t local_count)
{
	if (!prepare_copy(q, sub))
		return NULL;
	void *all = count < local_count ? local : malloc(((size_t)count + 1) * size);
	if (!all) {
		sub->failed = true;
		return NULL;
	}
	if (count)
		memcpy(all, infos, count * size);
	return all;
}

/* Hands @sub on after the program's call, which ran from @t1 to @t2 in a hook entered at @t0. */
static void end_submit(struct hesper_queue *q, struct hesper_submission *sub, VkResult result, uint64_t t0,
		       uint64_t t1, uint64_t t2)
{
	finish(q, sub, result, t1, t2);
	atomic_fetch_add_explicit(&submit_hook_ns, (t1 - t0) + (hesper_now_ns() - t2), memory_order_relaxed);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *infos,
						  VkFence fence)
{
	uint64_t t0 = hesper_now_ns();
	struct hesper_queue *q = hesper_queue_from(queue);
	struct hesper_submission *sub = q ? take_submission(q) : NULL;
	if (!sub) {
		struct hesper_device *dev = q ? q->dev : hesper_device_from(queue);
		return dev->next.QueueSubmit(queue, count, infos, fence);
	}
	sub->batch_count = count;
	for (uint32_t b = 0; b < count; b++)
		for (uint32_t i = 0; i < infos[b].commandBufferCount; i++)
			add_command_buffer(sub, infos[b].pCommandBuffers[i], b);

	VkSubmitInfo local[8];
	VkSubmitInfo *all = batches_with_ours(q, sub, infos, count, sizeof(*infos), local, 8);
	VkResult result;
	uint64_t t1, t2;
	if (!all) {
		sub->slots = 0;
		t1 = hesper_now_ns();
		result = q->dev->next.QueueSubmit(queue, count, infos, fence);
		t2 = hesper_now_ns();
	} else {
		struct completion c;
		plan_completion(q, sub, fence, &c);
		all[count] = our_batch(q, sub, &c);
		t1 = hesper_now_ns();
		result = q->dev->next.QueueSubmit(queue, count + 1, all, c.fence);
		t2 = hesper_now_ns();
		complete_after(q, sub, fence, result, &c);
		if (all != local)
			free(all);
	}
	end_submit(q, sub, result, t0, t1, t2);
	return result;
}

/* vkQueueSubmit2 and its KHR alias, calling down through @next. */
static VkResult submit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *infos, VkFence fence,
			PFN_vkQueueSubmit2 next)
{
	uint64_t t0 = hesper_now_ns();
	struct hesper_queue *q = hesper_queue_from(queue);
	struct hesper_submission *sub = q ? take_submission(q) : NULL;
	if (!sub)
		return next(queue, count, infos, fence);
	sub->batch_count = count;
	for (uint32_t b = 0; b < count; b++)
		for (uint32_t i = 0; i < infos[b].commandBufferInfoCount; i++)
			add_command_buffer(sub, infos[b].pCommandBufferInfos[i].commandBuffer, b);

	VkSubmitInfo2 local[8];
	VkSubmitInfo2 *all = batches_with_ours(q, sub, infos, count, sizeof(*infos), local, 8);
	VkResult result;
	uint64_t t1, t2;
	if (!all) {
		sub->slots = 0;
		t1 = hesper_now_ns();
		result = next(queue, count, infos, fence);
		t2 = hesper_now_ns();
	} else {
		struct completion c;
		plan_completion(q, sub, fence, &c);
		VkCommandBufferSubmitInfo copy_cb = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
			.commandBuffer = sub->kit.cb,
		};
		all[count] = (VkSubmitInfo2){
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
			.commandBufferInfoCount = 1,
			.pCommandBufferInfos = &copy_cb,
			.signalSemaphoreInfoCount = sub->sync == HESPER_SYNC_TIMELINE,
			.pSignalSemaphoreInfos = &c.semaphore_info,
		};
		t1 = hesper_now_ns();
		result = next(queue, count + 1, all, c.fence);
		t2 = hesper_now_ns();
		complete_after(q, sub, fence, result, &c);
		if (all != local)
			free(all);
	}
	end_submit(q, sub, result, t0, t1, t2);
	return result;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *infos,
						   VkFence fence)
{
	struct hesper_device *dev = hesper_device_from(queue);
	return submit2(queue, count, infos, fence, dev->next.QueueSubmit2);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit2KHR(VkQueue queue, uint32_t count, const VkSubmitInfo2 *infos,
						      VkFence fence)
{
	struct hesper_device *dev = hesper_device_from(queue);
	return submit2(queue, count, infos, fence, dev->next.QueueSubmit2KHR);
}

void hesper_submission_release_recordings(struct hesper_submission *sub)
{
	for (size_t i = 0; i < sub->occ_count; i++) {
		if (sub->submitted)
			hesper_recording_harvested(sub->occ[i].rec);
		hesper_recording_unref(sub->occ[i].rec);
	}
	sub->submitted = false;
}

void hesper_submission_recycle(struct hesper_queue *queue, struct hesper_submission *sub)
{
	hesper_submission_release_recordings(sub);
	sub->occ_count = 0;
	mark_unwritten(queue->dev, &sub->kit, sub->slots);
	sub->slots = 0;
	pthread_mutex_lock(&queue->lock);
	sub->next = queue->free_list;
	queue->free_list = sub;
	pthread_mutex_unlock(&queue->lock);
}

/* How long the queue's first run of Hesper's work may take before Hesper stops waiting for it. */
#define WARM_UP_WAIT_NS 10000000000ull

/*
 * Runs the kinds of work Hesper adds to a submission (a query reset, a timestamp, the copy
 * of its value, the completion signal) once on @q, alone, and waits for it. NVIDIA's driver
 * (580) can otherwise stall every queue of the device for good when several threads' first
 * submissions on several queues carry this work at once; see
 * bench/results/h200-2026-11-30d/hangs.md. The program has not got @q's handle yet, so
 * nothing else is using it.
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
	dev->next.CmdPipelineBarrier(sub->kit.cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
				     NULL, 0, NULL, 0, NULL);
	dev->next.CmdCopyQueryPoolResults(sub->kit.cb, block->pool, 0, 1, sub->kit.buffer, 0, sizeof(uint64_t),
					  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
	sub->slots = 1; /* marked unwritten again when the record is recycled */
	if (dev->next.EndCommandBuffer(sub->kit.cb) != VK_SUCCESS)
		goto out;
	struct completion c;
	plan_completion(q, sub, sub->fence, &c);
	VkSubmitInfo info = our_batch(q, sub, &c);
	VkResult result = dev->next.QueueSubmit(q->handle, 1, &info, sub->fence);
	if (sub->sync == HESPER_SYNC_TIMELINE)
		q->timeline_value = c.value; /* later signals stay above it, whether or not it was signalled */
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
	struct hesper_submission *sub = take_submission(queue);
	if (!sub)
		return;
	/* Room for a command buffer of about 1,000 back-to-back timed dispatches before the buffer grows. */
	if (reserve_slots(queue->dev, sub, 1024) == 0 && prepare_objects(queue, sub) == 0) {
		pthread_mutex_lock(&warm_up_lock);
		warm_up(queue, sub);
		pthread_mutex_unlock(&warm_up_lock);
	}
	hesper_submission_recycle(queue, sub);
}

void hesper_submissions_release(struct hesper_queue *queue)
{
	struct hesper_device *dev = queue->dev;
	pthread_mutex_lock(&queue->lock);
	struct hesper_submission *sub = queue->free_list;
	queue->free_list = NULL;
	pthread_mutex_unlock(&queue->lock);
	while (sub) {
		struct hesper_submission *next = sub->next;
		free_buffer(dev, sub);
		if (sub->fence)
			dev->next.DestroyFence(dev->handle, sub->fence, NULL);
		if (sub->kit.cb)
			dev->next.FreeCommandBuffers(dev->handle, queue->pool, 1, &sub->kit.cb);
		free(sub->occ);
		free(sub->kit.key);
		free(sub);
		sub = next;
	}
	if (queue->timeline)
		dev->next.DestroySemaphore(dev->handle, queue->timeline, NULL);
	queue->timeline = VK_NULL_HANDLE;
}
