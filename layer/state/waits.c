/*
 * Host waits per thread. Each thread owns a record, made on its first wait and linked
 * into a list that only grows; the owner adds to it with relaxed atomics (no lock), the
 * report sums all records. A thread that ends leaves its record (a few hundred bytes)
 * for the report.
 */
#include "waits.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "objects.h"
#include "events.h"
#include "process.h"

struct thread_waits {
	uint32_t thread;
	atomic_uint_fast64_t count[HESPER_WAIT_CALLS];
	atomic_uint_fast64_t total_ns[HESPER_WAIT_CALLS];
	atomic_uint_fast64_t max_ns[HESPER_WAIT_CALLS]; /* written by the owner only */
	/* Owner-only. */
	uint64_t polled_fence; /* the fence being polled, 0 when none */
	uint64_t poll_start_ns;
	uint64_t record_begin_ns; /* 0 when no command buffer is being recorded */
	struct hesper_thread_activity activity;
	struct thread_waits *next;
};

static _Atomic(struct thread_waits *) all_threads;
static _Thread_local struct thread_waits *mine;

/* This thread's record, made on first use; NULL when memory runs out. */
static struct thread_waits *own(void)
{
	if (mine)
		return mine;
	struct thread_waits *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->thread = (uint32_t)gettid();
	struct thread_waits *head = atomic_load(&all_threads);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak(&all_threads, &head, t));
	mine = t;
	return t;
}

void hesper_waits_add(enum hesper_wait_call call, uint32_t device, uint64_t start_ns, uint64_t end_ns)
{
	struct thread_waits *t = own();
	uint64_t ns = end_ns > start_ns ? end_ns - start_ns : 0;
	if (!t)
		return;
	atomic_fetch_add_explicit(&t->count[call], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->total_ns[call], ns, memory_order_relaxed);
	if (ns > atomic_load_explicit(&t->max_ns[call], memory_order_relaxed))
		atomic_store_explicit(&t->max_ns[call], ns, memory_order_relaxed);
	struct hesper_thread_activity *a = &t->activity;
	if (!a->wait_first_ns)
		a->wait_first_ns = start_ns;
	a->wait_last_ns = end_ns;
	a->wait_ns += ns;
	if (!hesper_process_wants_trace())
		return;
	struct hesper_process *proc = hesper_process();
	struct hesper_trace_event e = {
		.kind = HESPER_TRACE_HOST_WAIT,
		.device = device,
		.thread = t->thread,
		.name = hesper_wait_call_name(call),
		.start_ns = start_ns,
		.end_ns = end_ns,
	};
	/* Through the collector's one path for timeline events, so the database gets it too. */
	pthread_mutex_lock(&proc->lock);
	hesper_events_add(proc->profile, &e);
	pthread_mutex_unlock(&proc->lock);
}

bool hesper_waits_polling(uint64_t fence)
{
	struct thread_waits *t = mine;
	return t && fence && t->polled_fence == fence;
}

bool hesper_waits_poll(uint64_t fence, int result, uint32_t device, uint64_t start_ns, uint64_t end_ns)
{
	struct thread_waits *t = own();
	if (!t)
		return false;
	if (result == VK_NOT_READY) {
		if (t->polled_fence != fence) {
			t->polled_fence = fence;
			t->poll_start_ns = start_ns;
		}
		return false;
	}
	bool ended = result == VK_SUCCESS && t->polled_fence == fence && fence;
	uint64_t from = t->poll_start_ns;
	t->polled_fence = 0;
	if (ended)
		hesper_waits_add(HESPER_WAIT_FENCE_POLL, device, from, end_ns);
	return ended;
}

/* Notes that this thread recorded a command buffer from @start_ns (its begin) to @end_ns (its end). */
static void note_recording(uint64_t start_ns, uint64_t end_ns)
{
	struct thread_waits *t = own();
	if (!t || end_ns < start_ns)
		return;
	struct hesper_thread_activity *a = &t->activity;
	if (!a->record_first_ns)
		a->record_first_ns = start_ns;
	a->record_last_ns = end_ns;
	a->record_ns += end_ns - start_ns;
}

void hesper_waits_begin_recording(uint64_t ns)
{
	struct thread_waits *t = own();
	if (t)
		t->record_begin_ns = ns;
}

void hesper_waits_end_recording(uint64_t ns)
{
	struct thread_waits *t = mine;
	if (!t || !t->record_begin_ns)
		return;
	note_recording(t->record_begin_ns, ns);
	t->record_begin_ns = 0;
}

void hesper_waits_take_activity(struct hesper_thread_activity *out)
{
	struct thread_waits *t = mine;
	if (!t) {
		*out = (struct hesper_thread_activity){0};
		return;
	}
	*out = t->activity;
	t->activity = (struct hesper_thread_activity){0};
}

void hesper_waits_report(struct hesper_profile *p)
{
	free(p->host_waits);
	p->host_waits = NULL;
	p->host_wait_count = 0;
	for (struct thread_waits *t = atomic_load(&all_threads); t; t = t->next) {
		for (int call = 0; call < HESPER_WAIT_CALLS; call++) {
			uint64_t count = atomic_load_explicit(&t->count[call], memory_order_relaxed);
			if (!count)
				continue;
			if (hesper_profile_add_host_wait(
				    p, t->thread, (enum hesper_wait_call)call, count,
				    atomic_load_explicit(&t->total_ns[call], memory_order_relaxed),
				    atomic_load_explicit(&t->max_ns[call], memory_order_relaxed)) != 0)
				return;
		}
	}
}

void hesper_waits_drained(struct hesper_queue *q)
{
	if (!q || !atomic_exchange_explicit(&q->unwaited, false, memory_order_relaxed))
		return;
	uint64_t index = atomic_load_explicit(&q->unwaited_index, memory_order_relaxed);
	pthread_mutex_lock(&q->lock);
	if (q->trip_count < HESPER_TRIPS_PENDING)
		q->trips_pending[q->trip_count++] = index;
	else
		q->trips_overflow++;
	pthread_mutex_unlock(&q->lock);
}

void hesper_waits_account(struct hesper_profile *p, struct hesper_queue *q, uint64_t next, bool inside)
{
	struct hesper_queue_info *row = &p->queues[q->profile_queue];
	pthread_mutex_lock(&q->lock);
	/*
	 * A round trip counts where its submission ran inside the capture window: with the flag
	 * of the submission accounted last when it was (a wait for an older one, the program
	 * having submitted again since, takes the same): those before the one accounted last
	 * with its flag, those up to the one accounted now with this one's. Trips past what the
	 * list holds were too far behind to tell: counted as inside.
	 */
	unsigned kept = 0;
	for (unsigned i = 0; i < q->trip_count; i++) {
		if (q->trips_pending[i] < q->accounted_next)
			row->round_trips += q->accounted_inside;
		else if (q->trips_pending[i] < next)
			row->round_trips += inside;
		else
			q->trips_pending[kept++] = q->trips_pending[i];
	}
	q->trip_count = kept;
	q->accounted_next = next;
	q->accounted_inside = inside;
	row->round_trips += q->trips_overflow;
	q->trips_overflow = 0;
	pthread_mutex_unlock(&q->lock);
}

void hesper_waits_settle(struct hesper_profile *p, struct hesper_queue *q)
{
	hesper_waits_account(p, q, q->accounted_next, q->accounted_inside);
}

void hesper_waits_settle_all(struct hesper_process *proc)
{
	for (struct hesper_device *dev = proc->devices; dev; dev = dev->next_in_process) {
		pthread_mutex_lock(&dev->lock);
		struct hesper_queue *q = dev->queues;
		pthread_mutex_unlock(&dev->lock);
		/* a device leaves this list under the process lock before its queues are freed */
		for (; q; q = q->next_in_device)
			hesper_waits_settle(proc->profile, q);
	}
}
