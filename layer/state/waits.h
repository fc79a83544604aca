/*
 * The program's host waits (vkQueueWaitIdle, vkDeviceWaitIdle, vkWaitForFences,
 * vkWaitSemaphores, vkGetQueryPoolResults with WAIT_BIT, vkGetFenceStatus polling
 * loops): counted and timed per thread and call without locks, kept as timeline events
 * on the thread's track when a trace is wanted, and what each thread did since its last
 * submission (for the queue-gap findings).
 */
#ifndef HESPER_WAITS_H
#define HESPER_WAITS_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

struct hesper_process;
struct hesper_queue;

/* What a thread did between two of its submit calls: the envelope and the total of its waits and recordings. */
struct hesper_thread_activity {
	uint64_t wait_first_ns, wait_last_ns; /* first wait's start, last wait's end; 0 when none */
	uint64_t wait_ns;
	uint64_t record_first_ns, record_last_ns;
	uint64_t record_ns;
};

/* Counts one wait of @call by this thread from @start_ns to @end_ns; a trace event when wanted (@device: its index). */
void hesper_waits_add(enum hesper_wait_call call, uint32_t device, uint64_t start_ns, uint64_t end_ns);

/*
 * One vkGetFenceStatus call on @fence that ran from @start_ns to @end_ns and returned @result.
 * Consecutive VK_NOT_READY polls of the same fence on a thread, ended by VK_SUCCESS, are
 * one wait from the first poll's start to the last one's end. Returns true when that
 * ended a wait (which it then counted).
 */
bool hesper_waits_poll(uint64_t fence, int result, uint32_t device, uint64_t start_ns, uint64_t end_ns);

/*
 * Whether this thread's last vkGetFenceStatus call polled @fence and found it not ready:
 * its next poll of @fence needs no start time (the wait began earlier), and an end time
 * only when it finds the fence signalled. A program spinning on a fence (llama.cpp at the
 * end of every token) then pays no clock read per poll.
 */
bool hesper_waits_polling(uint64_t fence);

/* Notes that this thread began a command buffer at @ns (ended by hesper_waits_end_recording). */
void hesper_waits_begin_recording(uint64_t ns);

/* Notes the end of this thread's recording begun last, at @ns. */
void hesper_waits_end_recording(uint64_t ns);

/* Moves this thread's activity since its previous submit call into @out and starts afresh. */
void hesper_waits_take_activity(struct hesper_thread_activity *out);

/* Adds every thread's totals to @p's host-wait rows (replacing what an earlier call added). */
void hesper_waits_report(struct hesper_profile *p);

/*
 * The round-trip rule: a submit call on a queue followed, before the next one, by a wait
 * that covers it (vkQueueWaitIdle on the queue, vkDeviceWaitIdle, or a wait or completed
 * poll on the fence of its last submit call). Called by the wait hooks after a successful
 * wait; notes the round trip on @q, for hesper_waits_settle to count. The program's thread
 * takes only the queue's lock here, never the process lock, which the collector holds
 * while it accounts a submission: a wait that returns as the GPU finishes (llama.cpp's at
 * the end of every token) would otherwise wait for that accounting too.
 */
void hesper_waits_drained(struct hesper_queue *q);

/*
 * The collector accounted @q's submit calls up to @next (its number + 1), the last one
 * @inside the capture window or not: counts in @p's row of @q the round trips noted on @q
 * for those calls (waits on one not yet accounted stay noted). Process lock held.
 */
void hesper_waits_account(struct hesper_profile *p, struct hesper_queue *q, uint64_t next, bool inside);

/* hesper_waits_account with nothing newly accounted: before a report is written, or @q goes. */
void hesper_waits_settle(struct hesper_profile *p, struct hesper_queue *q);

/* hesper_waits_settle for every queue of every device of @proc (process lock held). */
void hesper_waits_settle_all(struct hesper_process *proc);

#endif
