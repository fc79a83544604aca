/*
 * The collector: a thread that waits for submissions to complete, collects their
 * timestamps (the GPU copy, or the host way of submit/host_reads.h) and hands their runs
 * to the accounting (account.h). The program's threads never wait for it. At
 * vkDestroyDevice and at exit the same harvesting runs on the caller's thread, for a
 * bounded time.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "account.h"
#include "collector.h"
#include "state/state.h"
#include "submit/submit.h"

/*
 * Longest single wait by the collector thread on a submission's completion, so stop and
 * flush stay prompt. It waits inside the driver (vkWaitSemaphores, vkWaitForFences): a
 * collector that polled instead raced with lavapipe's own teardown when a program exited
 * with its first shader compile in flight (8 aborts in 60 runs of patterns exit_in_flight
 * cold, none in 60 with waits), at the price of some time in the program's vkQueueSubmit
 * on lavapipe, whose waits and submits share a lock.
 */
#define POLL_WAIT_NS 2000000ull
static struct {
	pthread_mutex_t harvest; /* one harvester at a time; devices are unlinked under it */
	pthread_mutex_t lock;    /* guards started and stopped */
	pthread_t thread;
	bool started, stopped;
	const struct hesper_collector_duties *duties; /* the stage above's work, or NULL */
} collector = {
	.harvest = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/*
 * Forgets a submission whose copies never finished (lost device, exit timeout). Its Vulkan
 * objects may still be in use by the GPU or a broken device: they are left be.
 */
static void abandon(struct hesper_submission *sub)
{
	hesper_submission_release_recordings(sub);
	hesper_submission_free(sub);
}

/* Whether @sub's copies are done: VK_SUCCESS, VK_NOT_READY / VK_TIMEOUT, or an error. Waits up to @wait_ns. */
static VkResult sync_status(struct hesper_queue *q, const struct hesper_submission *sub, uint64_t wait_ns)
{
	struct hesper_device *dev = q->dev;
	switch (sub->sync) {
	case HESPER_SYNC_FENCE:
		return wait_ns ? dev->next.WaitForFences(dev->handle, 1, &sub->fence, VK_TRUE, wait_ns)
			       : dev->next.GetFenceStatus(dev->handle, sub->fence);
	case HESPER_SYNC_TIMELINE: {
		if (wait_ns) {
			VkSemaphoreWaitInfo info = {
				.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
				.semaphoreCount = 1,
				.pSemaphores = &q->timeline,
				.pValues = &sub->sync_value,
			};
			return dev->next.WaitSemaphoresKHR(dev->handle, &info, wait_ns);
		}
		uint64_t value = 0;
		VkResult r = dev->next.GetSemaphoreCounterValueKHR(dev->handle, q->timeline, &value);
		return r == VK_SUCCESS && value < sub->sync_value ? VK_NOT_READY : r;
	}
	case HESPER_SYNC_NONE:
		break;
	}
	return VK_SUCCESS;
}

/*
 * Accounts for every finished submission at the head of @q, waiting up to @wait_ns for
 * the first unfinished one. Returns true when submissions are still pending. Called
 * with collector.harvest held.
 */
static bool harvest_queue(struct hesper_queue *q, uint64_t wait_ns)
{
	for (;;) {
		struct hesper_submission *sub = hesper_pending_head(q);
		if (!sub)
			return false;
		VkResult r = sync_status(q, sub, wait_ns);
		if (r == VK_TIMEOUT || r == VK_NOT_READY)
			return true;
		bool lost = r != VK_SUCCESS; /* device lost: its timestamps will never come */
		if (!lost && !sub->failed && sub->slots && !hesper_host_reads_collect(q, sub, wait_ns))
			return true;
		if (lost && !atomic_exchange(&q->dev->lost, true))
			hesper_log("the device '%s' was lost (%d); its work still in flight is reported as dropped",
				   q->dev->props.deviceName, (int)r);
		hesper_pending_pop(q, sub);
		hesper_account_submission(q, sub, lost ? HESPER_ABANDON_DEVICE_LOST : HESPER_ABANDON_NONE);
		if (collector.duties)
			collector.duties->harvested();
		if (lost) {
			abandon(sub);
		} else {
			hesper_submission_recycle(q, sub);
		}
	}
}

/* The process's devices, newest first; the list only grows at its head outside the harvest lock. */
static struct hesper_device *first_device(void)
{
	struct hesper_process *proc = hesper_process();
	pthread_mutex_lock(&proc->lock);
	struct hesper_device *dev = proc->devices;
	pthread_mutex_unlock(&proc->lock);
	return dev;
}

static struct hesper_queue *first_queue(struct hesper_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	struct hesper_queue *q = dev->queues;
	pthread_mutex_unlock(&dev->lock);
	return q;
}

static void *collector_main(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&collector.harvest);
		bool pending = false;
		for (struct hesper_device *dev = first_device(); dev; dev = dev->next_in_process)
			for (struct hesper_queue *q = first_queue(dev); q; q = q->next_in_device) {
				pending |= harvest_queue(q, 0);
				hesper_submissions_stock(q);
			}
		/* Wait on the oldest submission of one queue rather than spin. */
		if (pending) {
			for (struct hesper_device *dev = first_device(); dev; dev = dev->next_in_process) {
				for (struct hesper_queue *q = first_queue(dev); q; q = q->next_in_device) {
					if (harvest_queue(q, POLL_WAIT_NS))
						goto waited;
				}
			}
		}
	waited:
		pthread_mutex_unlock(&collector.harvest);
		/* Outside every lock the program's threads take: the database stream, live reports. */
		if (collector.duties)
			collector.duties->between_harvests();
		if (!hesper_pending_rest(pending))
			return NULL;
	}
}

void hesper_collector_start(void)
{
	pthread_mutex_lock(&collector.lock);
	if (!collector.started && !collector.stopped) {
		sigset_t all, old;
		/* The program's signal handlers must never run on Hesper's thread. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&collector.thread, NULL, collector_main, NULL) == 0)
			collector.started = true;
		else
			hesper_log("cannot start the collector thread; results are collected at exit");
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&collector.lock);
}

void hesper_collector_set_duties(const struct hesper_collector_duties *duties)
{
	collector.duties = duties;
}

/* Harvests every queue of @dev until nothing is pending or @deadline passes; then counts the rest as lost. */
static void flush_device(struct hesper_device *dev, uint64_t deadline)
{
	for (struct hesper_queue *q = first_queue(dev); q; q = q->next_in_device) {
		for (;;) {
			uint64_t now = hesper_now_ns();
			uint64_t wait = now < deadline ? deadline - now : 0;
			if (!harvest_queue(q, wait ? wait : 1))
				break;
			if (hesper_now_ns() >= deadline) {
				/* Out of time: what is left is reported as dropped. */
				struct hesper_submission *sub = hesper_pending_take_all(q);
				while (sub) {
					struct hesper_submission *next = sub->next;
					hesper_account_submission(q, sub, HESPER_ABANDON_OUT_OF_TIME);
					abandon(sub);
					sub = next;
				}
				break;
			}
		}
	}
}

void hesper_collector_flush(struct hesper_device *only, uint64_t timeout_ns)
{
	struct hesper_process *proc = hesper_process();
	uint64_t deadline = hesper_now_ns() + timeout_ns;
	pthread_mutex_lock(&collector.harvest);
	for (struct hesper_device *dev = first_device(); dev; dev = dev->next_in_process)
		if (!only || dev == only)
			flush_device(dev, deadline);
	if (only) {
		/* Unlinked under the harvest lock, the collector thread can no longer reach it. */
		pthread_mutex_lock(&proc->lock);
		for (struct hesper_device **p = &proc->devices; *p; p = &(*p)->next_in_process) {
			if (*p == only) {
				*p = only->next_in_process;
				break;
			}
		}
		pthread_mutex_unlock(&proc->lock);
	}
	pthread_mutex_unlock(&collector.harvest);
}

void hesper_collector_stop(void)
{
	pthread_mutex_lock(&collector.lock);
	bool join = collector.started;
	collector.stopped = true;
	collector.started = false;
	pthread_mutex_unlock(&collector.lock);
	hesper_pending_close();
	if (join)
		pthread_join(collector.thread, NULL);
}
