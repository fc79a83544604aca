/*
 * The results buffer of a submission record and the command buffers that copy timestamps
 * into it. Every copy here passes VK_QUERY_RESULT_WAIT_BIT: with it, the specification
 * makes vkCmdCopyQueryPoolResults wait until each query is available and see the most
 * recent use of the query on the same queue, which is what makes the values this run's
 * (docs/timing.md). A pipeline barrier alone orders commands, not query availability: a
 * copy after one ran ahead of the timestamp writes on NVIDIA's driver and on lavapipe.
 */
#include <string.h>

#include "clock/clock.h"
#include "copies.h"
#include "result_slots.h"
#include "state/state.h"
#include "record/record.h"

void hesper_copies_free_buffer(struct hesper_device *dev, struct hesper_submission *sub)
{
	hesper_host_buffer_destroy(dev, &sub->kit.out);
	sub->kit.key_valid = false; /* a recorded copy names the old buffer */
}

void hesper_copies_mark_unwritten(struct hesper_copy_kit *kit, uint32_t count)
{
	if (kit->out.mapped && count)
		memset(kit->out.mapped, 0xff, (size_t)count * sizeof(uint64_t));
}

void hesper_copies_note_need(struct hesper_queue *q, uint32_t slots)
{
	unsigned peak = atomic_load_explicit(&q->result_peak, memory_order_relaxed);
	while (slots > peak && !atomic_compare_exchange_weak_explicit(&q->result_peak, &peak, slots,
								      memory_order_relaxed, memory_order_relaxed))
		;
}

int hesper_copies_reserve(struct hesper_device *dev, struct hesper_submission *sub, uint32_t slots)
{
	if (sub->kit.out.slots >= slots)
		return 0;
	uint32_t peak = sub->queue ? atomic_load_explicit(&sub->queue->result_peak, memory_order_relaxed) : 0;
	/*
	 * Sized for the queue's largest need so far, rounded up to a power of two, rather than
	 * for this one: recycled records then stop growing after one step. Growing to each new
	 * need made one buffer per submission whose need rose a little (clock mode's slots take
	 * 34 words a dispatch; on the H200 llama.cpp's submissions spent 30-60 µs each in here,
	 * against 1-2 in dispatch mode). The collector makes spare records ahead of the program
	 * (hesper_submissions_stock), so this runs on the program's thread only when it outruns
	 * that.
	 */
	uint32_t want = hesper_result_slots(slots, peak);
	hesper_copies_free_buffer(dev, sub);
	if (hesper_host_buffer_create(dev, want, &sub->kit.out) != 0)
		return -1;
	hesper_copies_mark_unwritten(&sub->kit, sub->kit.out.slots);
	return 0;
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

/* A new command buffer from @q's pool, usable below the loader; VK_NULL_HANDLE on failure. */
static VkCommandBuffer new_command_buffer(struct hesper_queue *q)
{
	struct hesper_device *dev = q->dev;
	if (ensure_pool(q) != 0)
		return VK_NULL_HANDLE;
	VkCommandBufferAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = q->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkCommandBuffer cb = VK_NULL_HANDLE;
	if (dev->next.AllocateCommandBuffers(dev->handle, &info, &cb) != VK_SUCCESS)
		return VK_NULL_HANDLE;
	/* A command buffer made below the loader needs the loader's dispatch pointer. */
	if (dev->set_loader_data)
		dev->set_loader_data(dev->handle, cb);
	return cb;
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

int hesper_copies_prepare_objects(struct hesper_queue *q, struct hesper_submission *sub, bool with_cb)
{
	struct hesper_device *dev = q->dev;
	if (with_cb && !sub->kit.cb) {
		sub->kit.cb = new_command_buffer(q);
		if (!sub->kit.cb)
			return -1;
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

/* Flags of every copy: one 64-bit value per query, after the query is available. */
#define COPY_FLAGS (VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT)

/* The copy command for block @b of run @o (false past its last used block). */
static bool block_copy(const struct hesper_run *o, uint32_t b, struct hesper_copy_key *out)
{
	const struct hesper_recording *rec = o->rec;
	uint32_t count = b < rec->block_count ? hesper_block_used(b, rec->queries_used) : 0;
	if (!count)
		return false;
	*out = (struct hesper_copy_key){
		.pool = rec->blocks[b]->pool, .count = count, .slot = o->base + hesper_block_start(b)};
	return true;
}

/* Marks the copies of clock chunks among the copy commands (bit of the block index). */
#define CLOCK_DONE 0x80000000u

/* The copy of clock chunk @j of run @o (false past its last chunk). */
static bool chunk_copy(const struct hesper_run *o, uint32_t j, struct hesper_copy_key *out)
{
	const struct hesper_recording *rec = o->rec;
	if (j >= rec->clock.chunk_count)
		return false;
	const struct hesper_device *dev = rec->dev;
	*out = (struct hesper_copy_key){.shadow = rec->clock.chunks[j]->b.buffer,
					.first = 0,
					.count = hesper_clock_chunk_used(&rec->clock, j),
					.slot = o->base + hesper_clock_slot_word(dev, rec->queries_used, &rec->clock,
										 j * HESPER_CLOCK_CHUNK_SLOTS, 0),
					.clock = true};
	return true;
}

/* Marks the copies of argument chunks among the copy commands (bit of the block index). */
#define ARGS_DONE 0x40000000u

/* The copy of argument chunk @j of run @o (false past its last chunk). */
static bool args_copy(const struct hesper_run *o, uint32_t j, struct hesper_copy_key *out)
{
	const struct hesper_recording *rec = o->rec;
	if (j >= rec->args_chunk_count)
		return false;
	uint32_t slots = rec->args_slots - j * HESPER_ARGS_CHUNK_SLOTS;
	if (slots > HESPER_ARGS_CHUNK_SLOTS)
		slots = HESPER_ARGS_CHUNK_SLOTS;
	*out = (struct hesper_copy_key){.shadow = rec->args_chunks[j]->buf.buffer,
					.first = 0,
					.count = slots * HESPER_ARGS_SLOT_WORDS,
					.slot = o->base + hesper_indirect_slot_word(rec, j * HESPER_ARGS_CHUNK_SLOTS)};
	return true;
}

/*
 * What the copy after the program's batches does for run @o: copy its queries, clock and
 * argument chunks (1), its shadow (2), only its argument chunks (3: the host way reads the
 * queries from their pools), nothing (0).
 */
static int copied_after(const struct hesper_run *o, bool queries)
{
	if (o->base == HESPER_NO_SLOT || o->copied_between || o->overwritten)
		return 0;
	if (o->shadow)
		return 2;
	if (queries)
		return 1;
	return o->rec->args_chunk_count ? 3 : 0;
}

/*
 * Walks the copy commands after the program's batches, in order: start with *i = *b = 0;
 * false at the end. Runs copy their queries block by block (@queries), saved runs their
 * shadow slots in one piece.
 */
static bool next_copy(const struct hesper_submission *sub, bool queries, size_t *i, uint32_t *b,
		      struct hesper_copy_key *out)
{
	for (; *i < sub->run_count; ++*i, *b = 0) {
		const struct hesper_run *o = &sub->runs[*i];
		switch (copied_after(o, queries)) {
		case 1:
			if (!(*b & CLOCK_DONE) && block_copy(o, *b, out)) {
				++*b;
				return true;
			}
			/* then its clock chunks, counted from CLOCK_DONE, then its argument chunks */
			if (!(*b & CLOCK_DONE))
				*b = CLOCK_DONE;
			if (!(*b & ARGS_DONE) && chunk_copy(o, *b & ~CLOCK_DONE, out)) {
				++*b;
				return true;
			}
			if (!(*b & ARGS_DONE))
				*b = CLOCK_DONE | ARGS_DONE;
			if (args_copy(o, *b & ~(CLOCK_DONE | ARGS_DONE), out)) {
				++*b;
				return true;
			}
			break;
		case 3:
			if (args_copy(o, *b, out)) {
				++*b;
				return true;
			}
			break;
		case 2:
			if (*b == 0) {
				*out = (struct hesper_copy_key){.shadow = o->shadow,
								.first = o->shadow_slot,
								.count = o->rec->queries_used,
								.slot = o->base};
				++*b;
				return true;
			}
			break;
		}
	}
	return false;
}

/* True when @kit's recorded command buffer copies exactly what @sub must copy now (wait way). */
static bool copies_match(const struct hesper_submission *sub, const struct hesper_copy_kit *kit)
{
	if (!kit->key_valid)
		return false;
	size_t i = 0, k = 0;
	uint32_t b = 0;
	struct hesper_copy_key c;
	for (; next_copy(sub, true, &i, &b, &c); k++) {
		if (k == kit->key_count)
			return false;
		const struct hesper_copy_key *had = &kit->key[k];
		if (had->pool != c.pool || had->shadow != c.shadow || had->first != c.first || had->count != c.count ||
		    had->slot != c.slot || had->clock != c.clock)
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
	if (copies_match(sub, &sub->kit))
		return true;
	bool found = false;
	pthread_mutex_lock(&q->lock);
	unsigned looked = 0;
	for (struct hesper_submission *other = q->free_list; other && looked < 16 && !found;
	     other = other->next, looked++) {
		if (!other->kit.cb || other->kit.out.slots < sub->kit.out.slots || !copies_match(sub, &other->kit))
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
	if (!hesper_reserve_one((void **)&sub->kit.key, sub->kit.key_count, &sub->kit.key_capacity,
				sizeof(*sub->kit.key)))
		return false;
	sub->kit.key[sub->kit.key_count++] = *c;
	return true;
}

/* Begins @cb for a copy that may be submitted again (resubmitted work resubmits its copy). */
static int begin(const struct hesper_device *dev, VkCommandBuffer cb)
{
	VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	return dev->next.BeginCommandBuffer(cb, &info) == VK_SUCCESS ? 0 : -1;
}

/*
 * Makes the copies' writes visible to the host and ends @cb. The barrier's second scope
 * holds later transfers too: the copy of a later run's indirect arguments into an argument
 * chunk read here (indirect.c) waits for this read (write after read).
 */
static int end_for_host(const struct hesper_device *dev, VkCommandBuffer cb)
{
	VkMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	dev->next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
				     VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &to_host, 0,
				     NULL, 0, NULL);
	return dev->next.EndCommandBuffer(cb) == VK_SUCCESS ? 0 : -1;
}

/*
 * Clock chunks: the kernels' atomics (compute shader writes) before the copy and the
 * clearing fill; the fill before any later run's atomics on the queue. No barrier is put
 * between the program's dispatches: these come after its batches (or between two runs of
 * one recording).
 */
static void clock_barrier(const struct hesper_device *dev, VkCommandBuffer cb, bool before)
{
	VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = before ? VK_ACCESS_SHADER_WRITE_BIT : VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = before ? VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT
					: VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
	};
	dev->next.CmdPipelineBarrier(cb, before ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT : VK_PIPELINE_STAGE_TRANSFER_BIT,
				     before ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
				     1, &b, 0, NULL, 0, NULL);
}

/*
 * Copies clock chunk copy @c into @buffer, each row cut to the used slots, and clears the
 * chunk's slots for the next run.
 */
static void copy_chunk(const struct hesper_device *dev, VkCommandBuffer cb, const struct hesper_copy_key *c,
		       VkBuffer buffer)
{
	const struct hesper_clock_device *cd = dev->clock_mode;
	VkDeviceSize row = (VkDeviceSize)cd->row_words * 8, used = (VkDeviceSize)c->count * cd->pitch;
	VkBufferCopy regions[HESPER_CLOCK_ROWS];
	for (uint32_t r = 0; r < HESPER_CLOCK_ROWS; r++)
		regions[r] = (VkBufferCopy){.srcOffset = r * row,
					    .dstOffset = (VkDeviceSize)c->slot * sizeof(uint64_t) + r * used,
					    .size = used};
	dev->next.CmdCopyBuffer(cb, c->shadow, buffer, HESPER_CLOCK_ROWS, regions);
	/* The fill writes after the copy read: a transfer-to-transfer dependency in between. */
	VkMemoryBarrier read_done = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				     .srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
				     .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT};
	dev->next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
				     &read_done, 0, NULL, 0, NULL);
	/* In the device's memory one fill over the rows costs less than one per row; across PCIe, not. */
	if (cd->device_local) {
		dev->next.CmdFillBuffer(cb, c->shadow, 0, HESPER_CLOCK_LANES * row + used, 0);
		return;
	}
	for (uint32_t r = 0; r < HESPER_CLOCK_ROWS; r++)
		dev->next.CmdFillBuffer(cb, c->shadow, r * row, used, 0);
}

/* The barrier before copies from Hesper's buffers written by earlier commands (shadows, argument chunks). */
static void written_before(const struct hesper_device *dev, VkCommandBuffer cb)
{
	VkMemoryBarrier written = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
	};
	dev->next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &written,
				     0, NULL, 0, NULL);
}

/*
 * Records the copy of every block of run @o into @buffer, of its clock chunks, and with
 * @args of its argument chunks (the host way's runs copied before a later run had theirs
 * copied after their own batches already).
 */
static void copy_run(const struct hesper_device *dev, VkCommandBuffer cb, const struct hesper_run *o, VkBuffer buffer,
		     bool args)
{
	struct hesper_copy_key c;
	for (uint32_t b = 0; block_copy(o, b, &c); b++)
		dev->next.CmdCopyQueryPoolResults(cb, c.pool, 0, c.count, buffer, c.slot * sizeof(uint64_t),
						  sizeof(uint64_t), COPY_FLAGS);
	if (args && o->rec->args_chunk_count) {
		written_before(dev, cb);
		for (uint32_t j = 0; args_copy(o, j, &c); j++) {
			VkBufferCopy region = {.srcOffset = 0,
					       .dstOffset = (VkDeviceSize)c.slot * sizeof(uint64_t),
					       .size = (VkDeviceSize)c.count * sizeof(uint64_t)};
			dev->next.CmdCopyBuffer(cb, c.shadow, buffer, 1, &region);
		}
	}
	if (!o->rec->clock.chunk_count)
		return;
	clock_barrier(dev, cb, true);
	for (uint32_t j = 0; chunk_copy(o, j, &c); j++)
		copy_chunk(dev, cb, &c, buffer);
	clock_barrier(dev, cb, false);
}

/* Records into @cb the copies after the program's batches (see next_copy); false when memory runs out for the key. */
static bool record_copies(const struct hesper_device *dev, struct hesper_submission *sub, VkCommandBuffer cb,
			  bool queries, bool remember)
{
	size_t i = 0;
	uint32_t b = 0;
	struct hesper_copy_key c;
	bool remembered = true, barrier = false, clock = false;
	while (next_copy(sub, queries, &i, &b, &c)) {
		if (c.clock) {
			if (!clock)
				clock_barrier(dev, cb, true);
			clock = true;
			copy_chunk(dev, cb, &c, sub->kit.out.buffer);
		} else if (c.pool) {
			dev->next.CmdCopyQueryPoolResults(cb, c.pool, 0, c.count, sub->kit.out.buffer,
							  c.slot * sizeof(uint64_t), sizeof(uint64_t), COPY_FLAGS);
		} else {
			if (!barrier) {
				/*
				 * The primaries' copies into their shadow buffers and argument chunks
				 * came before, in submission order.
				 */
				written_before(dev, cb);
				barrier = true;
			}
			VkBufferCopy region = {.srcOffset = (VkDeviceSize)c.first * sizeof(uint64_t),
					       .dstOffset = (VkDeviceSize)c.slot * sizeof(uint64_t),
					       .size = (VkDeviceSize)c.count * sizeof(uint64_t)};
			dev->next.CmdCopyBuffer(cb, c.shadow, sub->kit.out.buffer, 1, &region);
		}
		remembered = remembered && (!remember || remember_copy(sub, &c));
	}
	if (clock)
		clock_barrier(dev, cb, false);
	return remembered;
}

/* Whether anything is copied after the program's batches. */
static bool any_copy_after(const struct hesper_submission *sub, bool queries)
{
	size_t i = 0;
	uint32_t b = 0;
	struct hesper_copy_key c;
	return next_copy(sub, queries, &i, &b, &c);
}

/* A command buffer of @sub's for insertions and the like: its @n-th spare one, or a new one. */
static VkCommandBuffer spare_cb(struct hesper_queue *q, struct hesper_submission *sub, size_t n);

int hesper_copies_record_after(struct hesper_queue *q, struct hesper_submission *sub, bool queries)
{
	struct hesper_device *dev = q->dev;
	sub->after_cb = VK_NULL_HANDLE;
	if (!any_copy_after(sub, queries))
		return 0;
	if (!queries) {
		/* Host way: only saved runs, a rare case; a spare command buffer after the insertions' ones. */
		VkCommandBuffer cb = spare_cb(q, sub, sub->insert_count);
		if (!cb || begin(dev, cb) != 0)
			return -1;
		record_copies(dev, sub, cb, false, false);
		sub->after_cb = cb;
		return end_for_host(dev, cb);
	}
	sub->after_cb = sub->kit.cb;
	sub->copies_adopted = adopt_matching_copies(q, sub);
	if (sub->copies_adopted) {
		sub->after_cb = sub->kit.cb;
		return 0;
	}
	sub->kit.key_valid = false;
	sub->kit.key_count = 0;
	if (begin(dev, sub->kit.cb) != 0)
		return -1;
	bool remembered = record_copies(dev, sub, sub->kit.cb, true, true);
	if (end_for_host(dev, sub->kit.cb) != 0)
		return -1;
	sub->kit.key_valid = remembered;
	return 0;
}

int hesper_copies_record_before(struct hesper_queue *q, struct hesper_submission *sub, struct hesper_run *const *runs,
				size_t count)
{
	struct hesper_device *dev = q->dev;
	sub->kit.key_valid = false; /* it copies other submissions' runs now */
	if (!sub->kit.cb && !(sub->kit.cb = new_command_buffer(q)))
		return -1;
	if (begin(dev, sub->kit.cb) != 0)
		return -1;
	for (size_t i = 0; i < count; i++)
		copy_run(dev, sub->kit.cb, runs[i], runs[i]->sub->kit.out.buffer, false);
	return end_for_host(dev, sub->kit.cb);
}

static VkCommandBuffer spare_cb(struct hesper_queue *q, struct hesper_submission *sub, size_t n)
{
	while (n >= sub->spare_count) {
		if (!hesper_reserve_one((void **)&sub->spare_cbs, sub->spare_count, &sub->spare_capacity,
					sizeof(*sub->spare_cbs)))
			return VK_NULL_HANDLE;
		VkCommandBuffer cb = new_command_buffer(q);
		if (!cb)
			return VK_NULL_HANDLE;
		sub->spare_cbs[sub->spare_count++] = cb;
	}
	return sub->spare_cbs[n];
}

int hesper_copies_record_insertions(struct hesper_queue *q, struct hesper_submission *sub)
{
	struct hesper_device *dev = q->dev;
	for (size_t k = 0; k < sub->insert_count; k++) {
		struct hesper_insertion *ins = &sub->inserts[k];
		ins->cb = spare_cb(q, sub, k);
		if (!ins->cb || begin(dev, ins->cb) != 0)
			return -1;
		for (uint32_t i = 0; i < ins->run_count; i++)
			copy_run(dev, ins->cb, &sub->runs[sub->between[ins->first_run + i]], sub->kit.out.buffer, true);
		if (end_for_host(dev, ins->cb) != 0)
			return -1;
	}
	return 0;
}
