/*
 * vkQueueSubmit and vkQueueSubmit2: Hesper notes every run of a recording the call
 * executes, gives each its result slots, and passes the program's batches down with its
 * own around them (submission.h says which, per copy way):
 *   before  host way: copies of earlier runs of these recordings not read yet;
 *   between copies of a recording's run before the same call executes it again;
 *   after   the copy of every run (wait way), then the completion signal: a timeline
 *           semaphore of Hesper's, or a fence where the device has none.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pending.h"
#include "record/record.h"
#include "copies.h"
#include "state/state.h"
#include "host_reads.h"
#include "retire.h"
#include "submit_batches.h"

/* Deepest chain of secondaries executing secondaries that Hesper follows. */
#define MAX_NESTING 8

/* Where the walk over a call's command buffers is. */
struct walk {
	struct hesper_submission *sub;
	uint64_t call;      /* this call's number */
	uint32_t batch, cb; /* the program's command buffer being walked */
	size_t first_run;   /* index of its first run (its own recording's) */
	bool can_insert;    /* Hesper may put command buffers into this batch */
};

/* Notes that @prev, an earlier run of the same recording in this call, is copied before command buffer @w->cb. */
static bool copy_between(struct walk *w, size_t prev)
{
	struct hesper_submission *sub = w->sub;
	struct hesper_insertion *last = sub->insert_count ? &sub->inserts[sub->insert_count - 1] : NULL;
	if (!hesper_reserve_one((void **)&sub->between, sub->between_count, &sub->between_capacity,
				sizeof(*sub->between)))
		return false;
	if (!last || last->batch != w->batch || last->before != w->cb) {
		if (!hesper_reserve_one((void **)&sub->inserts, sub->insert_count, &sub->insert_capacity,
					sizeof(*sub->inserts)))
			return false;
		last = &sub->inserts[sub->insert_count++];
		*last = (struct hesper_insertion){
			.batch = w->batch, .before = w->cb, .first_run = (uint32_t)sub->between_count};
	}
	sub->between[sub->between_count++] = (uint32_t)prev;
	last->run_count++;
	return true;
}

/*
 * Notes that @rec ran before in this call when it did: that run's queries are about to be
 * written again, so a copy goes between, or, within one command buffer where nothing can,
 * its times are given up. Stamps @rec with run @index of this call. O(1) per run.
 */
static void note_run(struct walk *w, struct hesper_recording *rec, size_t index)
{
	uint64_t seen = atomic_exchange_explicit(&rec->seen, hesper_stamp(w->call, index), memory_order_relaxed);
	size_t prev;
	struct hesper_submission *sub = w->sub;
	/* Another thread running the same recording can stamp it too: the run's recording is checked. */
	if (!hesper_stamp_of(seen, w->call, &prev) || prev >= index || sub->runs[prev].rec != rec)
		return;
	struct hesper_run *o = &sub->runs[prev];
	o->superseded = true;
	if (o->shadow)
		return; /* saved by the primary before it ran again (command_buffer.c) */
	if (prev >= w->first_run || !w->can_insert || !copy_between(w, prev))
		o->overwritten = true;
	else
		o->copied_between = true;
}

/*
 * Adds one run of @rec (its values saved in @shadow at @shadow_slot when not
 * VK_NULL_HANDLE) and, recursively, of the secondaries it executes; false when memory
 * runs out.
 */
static bool add_run(struct walk *w, struct hesper_recording *rec, VkBuffer shadow, uint32_t shadow_slot, int depth)
{
	struct hesper_submission *sub = w->sub;
	if (!hesper_reserve_one((void **)&sub->runs, sub->run_count, &sub->run_capacity, sizeof(*sub->runs)))
		return false;
	size_t index = sub->run_count++;
	struct hesper_run *o = &sub->runs[index];
	hesper_recording_ref(rec);
	*o = (struct hesper_run){
		.rec = rec, .sub = sub, .batch = w->batch, .shadow = shadow, .shadow_slot = shadow_slot};
	atomic_init(&o->conflict, false);
	atomic_init(&o->state, HESPER_RUN_DONE);
	atomic_init(&o->released, false);
	note_run(w, rec, index);
	if (depth >= MAX_NESTING)
		return true;
	for (size_t i = 0; i < rec->secondary_count; i++) {
		const struct hesper_secondary_execution *e = &rec->secondaries[i];
		VkBuffer saved = e->shadow != HESPER_NO_SHADOW ? rec->shadows[e->shadow].buffer : VK_NULL_HANDLE;
		if (!add_run(w, e->rec, saved, e->shadow_slot, depth + 1))
			return false;
	}
	return true;
}

/* Adds the program's command buffer @cb, number @w->cb of batch @w->batch. */
static void add_command_buffer(struct walk *w, VkCommandBuffer cb)
{
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	w->first_run = w->sub->run_count;
	if (s && s->rec && !add_run(w, s->rec, VK_NULL_HANDLE, 0, 0))
		w->sub->failed = true;
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
		for (size_t i = 0; i < s->run_count; i++) {
			if (s->runs[i].rec == rec && !hesper_submission_done(s)) {
				atomic_store(&s->runs[i].conflict, true);
				any = true;
			}
		}
	}
	pthread_mutex_unlock(&other->lock);
	return any;
}

/* Gives every run of @sub its result slots; the number of slots, or 0 when nothing is collected. */
static uint64_t assign_slots(struct hesper_queue *q, struct hesper_submission *sub)
{
	uint64_t slots = 0;
	for (size_t i = 0; i < sub->run_count; i++) {
		struct hesper_run *o = &sub->runs[i];
		/* Recorded for another queue family (invalid use): its queries are not read here. */
		/* clock slots after the queries, then indirect arguments */
		uint32_t words = o->rec->queries_used + o->rec->args_words +
				 (o->rec->clock.used ? hesper_clock_result_words(q->dev, &o->rec->clock) : 0);
		bool collected = words && o->rec->family == q->family && !o->overwritten;
		o->base = collected ? (uint32_t)slots : HESPER_NO_SLOT;
		if (collected)
			slots += words;
	}
	return slots;
}

/* Plans the completion signal of @sub (after the program's fence @app_fence, if any). */
static void plan_completion(struct hesper_queue *q, struct hesper_submission *sub, VkFence app_fence, struct plan *p)
{
	p->value = q->timeline_value + 1;
	p->fence = app_fence;
	if (q->dev->timeline) {
		sub->sync = HESPER_SYNC_TIMELINE;
		sub->sync_value = p->value;
		p->timeline_info = (VkTimelineSemaphoreSubmitInfo){
			.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
			.signalSemaphoreValueCount = 1,
			.pSignalSemaphoreValues = &p->value,
		};
		p->semaphore_info = (VkSemaphoreSubmitInfo){
			.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
			.semaphore = q->timeline,
			.value = p->value,
			.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
		};
		return;
	}
	sub->sync = HESPER_SYNC_FENCE;
	if (!app_fence)
		p->fence = sub->fence;
}

/* Lists the runs the host way displaces from their recordings in @p, copying where they still run. */
static void plan_before(struct hesper_queue *q, struct hesper_submission *sub, struct plan *p)
{
	if (sub->run_count > sub->taken_capacity) {
		void *grown = realloc(sub->taken, sub->run_count * sizeof(*sub->taken));
		if (!grown) {
			sub->failed = true; /* its runs are not published: nothing below reads them */
			return;
		}
		sub->taken = grown;
		sub->taken_capacity = sub->run_count;
	}
	p->copied = sub->taken;
	p->copied_count = hesper_host_reads_publish(q, sub, p->copied);
	p->before = p->copied_count && hesper_copies_record_before(q, sub, p->copied, p->copied_count) == 0;
	if (p->copied_count && !p->before) {
		hesper_host_reads_settle(p->copied, p->copied_count, false, 0);
		p->copied_count = 0;
	}
}

/*
 * Readies everything Hesper adds to @sub's call into @p. False when nothing is added
 * (nothing to collect, or it cannot be: then sub->failed).
 */
static bool prepare(struct hesper_queue *q, struct hesper_submission *sub, VkFence app_fence, struct plan *p)
{
	struct hesper_device *dev = q->dev;
	uint64_t slots = assign_slots(q, sub);
	if (slots == 0 || sub->failed)
		return false;
	bool host = dev->copy_way == HESPER_WAY_HOST;
	if (slots > UINT32_MAX / 2) {
		sub->failed = true;
		return false;
	}
	hesper_copies_note_need(q, (uint32_t)slots);
	if (hesper_copies_reserve(dev, sub, (uint32_t)slots) != 0 ||
	    hesper_copies_prepare_objects(q, sub, !host) != 0 || hesper_copies_record_after(q, sub, !host) != 0 ||
	    hesper_copies_record_insertions(q, sub) != 0) {
		sub->failed = true;
		return false;
	}
	sub->slots = (uint32_t)slots;
	plan_completion(q, sub, app_fence, p);
	p->ours = true;
	p->after_copy = sub->after_cb != VK_NULL_HANDLE;
	if (host)
		plan_before(q, sub, p);
	return true;
}

/* After the program's call returned @result: commits the timeline value or adds the fence, settles runs. */
static void complete_after(struct hesper_queue *q, struct hesper_submission *sub, VkFence app_fence, VkResult result,
			   const struct plan *p)
{
	if (p->copied_count)
		hesper_host_reads_settle(p->copied, p->copied_count, result == VK_SUCCESS && p->before, p->value);
	if (result != VK_SUCCESS)
		return;
	if (sub->sync == HESPER_SYNC_TIMELINE) {
		q->timeline_value = p->value;
		return;
	}
	if (app_fence && q->dev->next.QueueSubmit(q->handle, 0, NULL, sub->fence) != VK_SUCCESS) {
		sub->sync = HESPER_SYNC_NONE;
		sub->failed = true;
	}
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
	for (size_t i = 0; i < sub->run_count; i++) {
		struct hesper_queue *other = hesper_recording_submitted(sub->runs[i].rec, q);
		if (other && mark_running_elsewhere(other, sub->runs[i].rec))
			atomic_store(&sub->runs[i].conflict, true);
	}
	sub->submitted = true;
	sub->index = q->submit_index++;
	sub->host_ns = begin_ns;
	sub->host_end_ns = end_ns;
	sub->thread = (uint32_t)gettid();
	hesper_waits_take_activity(&sub->activity);
	atomic_store_explicit(&q->unwaited_index, sub->index, memory_order_relaxed);
	atomic_store_explicit(&q->unwaited, true, memory_order_relaxed);
	hesper_pending_push(q, sub);
}

/* Hands @sub on after the program's call, which ran from @t1 to @t2 in a hook entered at @t0. */
static void end_submit(struct hesper_queue *q, struct hesper_submission *sub, VkResult result, uint64_t t0, uint64_t t1,
		       uint64_t t2)
{
	finish(q, sub, result, t1, t2);
	hesper_add_submit_hook_ns((t1 - t0) + (hesper_now_ns() - t2));
}

/* A new number for a submit call. */
static uint64_t next_call(void)
{
	static atomic_uint_fast64_t calls = 1;
	return atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
}

/* vkQueueSubmit and vkQueueSubmit2(KHR) alike. */
static VkResult submit(VkQueue queue, const struct call *c)
{
	uint64_t t0 = hesper_now_ns();
	struct hesper_queue *q = hesper_queue_from(queue);
	struct hesper_submission *sub = q ? hesper_submission_take(q) : NULL;
	if (!sub)
		return hesper_call_down(c, queue, c->v2 ? (const void *)c->infos2 : c->infos, c->count, c->fence);
	sub->batch_count = c->count;
	struct walk w = {.sub = sub, .call = next_call()};
	for (w.batch = 0; w.batch < c->count; w.batch++) {
		w.can_insert = hesper_call_may_insert(c, w.batch);
		for (w.cb = 0; w.cb < hesper_call_cb_count(c, w.batch); w.cb++)
			add_command_buffer(&w, hesper_call_cb_at(c, w.batch, w.cb));
	}
	struct plan p = {0};
	uint32_t n = 0;
	void *all = prepare(q, sub, c->fence, &p) ? hesper_call_batches(c, q, sub, &p, &n) : NULL;
	if (!all && p.ours) {
		/* Out of memory for the batches: the program's go down alone, and this call is not timed. */
		hesper_host_reads_unpublish(sub);
		sub->sync = HESPER_SYNC_NONE;
		sub->failed = true;
	}
	if (!all)
		sub->slots = 0;
	uint64_t t1 = hesper_now_ns();
	VkResult result = all ? hesper_call_down(c, queue, all, n, p.fence)
			      : hesper_call_down(c, queue, c->v2 ? (const void *)c->infos2 : c->infos, c->count,
						 c->fence);
	uint64_t t2 = hesper_now_ns();
	complete_after(q, sub, c->fence, all ? result : VK_ERROR_UNKNOWN, &p);
	if (result == VK_SUCCESS)
		atomic_store_explicit(&q->last_fence, (uint64_t)c->fence, memory_order_relaxed);
	end_submit(q, sub, result, t0, t1, t2);
	return result;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *infos,
						  VkFence fence)
{
	struct hesper_device *dev = hesper_device_from(queue);
	struct call c = {.infos = infos, .count = count, .fence = fence, .next = dev->next.QueueSubmit};
	return submit(queue, &c);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *infos,
						   VkFence fence)
{
	struct hesper_device *dev = hesper_device_from(queue);
	struct call c = {.v2 = true, .infos2 = infos, .count = count, .fence = fence, .next2 = dev->next.QueueSubmit2};
	return submit(queue, &c);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit2KHR(VkQueue queue, uint32_t count, const VkSubmitInfo2 *infos,
						      VkFence fence)
{
	struct hesper_device *dev = hesper_device_from(queue);
	struct call c = {
		.v2 = true, .infos2 = infos, .count = count, .fence = fence, .next2 = dev->next.QueueSubmit2KHR};
	return submit(queue, &c);
}
