/* The queues' pending submissions and the collector's doorbell (see pending.h). */
#include "pending.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "state/state.h"
#include "submission.h"

/*
 * When nothing is pending. Waking a sleeping thread is the largest part of Hesper's time in
 * a program's vkQueueSubmit (4-7 us warm, 18-20 us after a pause, on lavapipe), so while
 * submissions keep coming (within ACTIVE_WINDOW_NS of the last one) the collector naps
 * NAP_MS at a time and nobody wakes it: a submission waits at most that long to be
 * harvested. Only from its long sleep (IDLE_WAIT_MS), or when WAKE_PENDING submissions
 * pile up on one queue, does the submitting thread wake it.
 */
#define IDLE_WAIT_MS 50
#define ACTIVE_WINDOW_NS 100000000ull
#define NAP_MS 1
#define WAKE_PENDING 16

static struct {
	pthread_mutex_t lock; /* guards closed and the condition */
	pthread_cond_t wake;
	bool closed;
	atomic_bool idle;                  /* in its long sleep: only a wake-up brings it back soon */
	atomic_uint_fast64_t last_push_ns; /* host time the last submission was handed over */
} bell = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
};

void hesper_pending_push(struct hesper_queue *queue, struct hesper_submission *sub)
{
	sub->next = NULL;
	pthread_mutex_lock(&queue->lock);
	if (queue->pending_tail)
		queue->pending_tail->next = sub;
	else
		queue->pending_head = sub;
	queue->pending_tail = sub;
	unsigned waiting = ++queue->pending_count;
	if (waiting > queue->pending_peak)
		queue->pending_peak = waiting;
	pthread_mutex_unlock(&queue->lock);
	atomic_store_explicit(&bell.last_push_ns, sub->host_end_ns, memory_order_relaxed);
	if (atomic_load_explicit(&bell.idle, memory_order_relaxed) || waiting == WAKE_PENDING)
		hesper_pending_nudge();
}

struct hesper_submission *hesper_pending_head(struct hesper_queue *queue)
{
	pthread_mutex_lock(&queue->lock);
	struct hesper_submission *sub = queue->pending_head;
	pthread_mutex_unlock(&queue->lock);
	return sub;
}

void hesper_pending_pop(struct hesper_queue *queue, struct hesper_submission *sub)
{
	pthread_mutex_lock(&queue->lock);
	queue->pending_head = sub->next;
	if (!queue->pending_head)
		queue->pending_tail = NULL;
	queue->pending_count--;
	pthread_mutex_unlock(&queue->lock);
}

struct hesper_submission *hesper_pending_take_all(struct hesper_queue *queue)
{
	pthread_mutex_lock(&queue->lock);
	struct hesper_submission *sub = queue->pending_head;
	queue->pending_head = queue->pending_tail = NULL;
	queue->pending_count = 0;
	pthread_mutex_unlock(&queue->lock);
	return sub;
}

void hesper_pending_nudge(void)
{
	pthread_mutex_lock(&bell.lock);
	pthread_cond_signal(&bell.wake);
	pthread_mutex_unlock(&bell.lock);
}

bool hesper_pending_rest(bool pending)
{
	pthread_mutex_lock(&bell.lock);
	if (bell.closed) {
		pthread_mutex_unlock(&bell.lock);
		return false;
	}
	if (!pending) {
		bool active = hesper_now_ns() - atomic_load(&bell.last_push_ns) < ACTIVE_WINDOW_NS;
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (active ? NAP_MS : IDLE_WAIT_MS) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		atomic_store(&bell.idle, !active);
		pthread_cond_timedwait(&bell.wake, &bell.lock, &until);
		atomic_store(&bell.idle, false);
	}
	pthread_mutex_unlock(&bell.lock);
	return true;
}

void hesper_pending_close(void)
{
	pthread_mutex_lock(&bell.lock);
	bell.closed = true;
	pthread_cond_signal(&bell.wake);
	pthread_mutex_unlock(&bell.lock);
}
