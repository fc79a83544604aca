/*
 * Reading runs on the host (the host way, host_reads.h). Why it is exact: Hesper's completion
 * signal comes after the program's batches, so once the host sees it every command
 * submitted before it has completed, the timestamp writes included, and each query is
 * available with this run's value as long as nothing reset it since; vkGetQueryPoolResults
 * then returns it. Only a later run of the same recording resets those queries, and its
 * submit hook takes the unread run over before the later run is submitted.
 */
#include <sched.h>

#include "state/state.h"
#include "clock/clock.h"
#include "record/record.h"
#include "host_reads.h"

/* How long a read that finds a query unavailable after completion is retried before giving up. */
#define UNAVAILABLE_GIVE_UP_NS 2000000000ull

/* True when none of run @o's slots is still marked unwritten. */
static bool all_written(const struct hesper_run *o)
{
	const uint64_t *at = o->sub->kit.out.mapped + o->base;
	for (uint32_t i = 0; i < o->rec->queries_used; i++)
		if (at[i] == HESPER_UNWRITTEN)
			return false;
	return true;
}

/* Reads run @o's queries from their pools into its slots; true when every one was available. */
static bool read_run(struct hesper_run *o)
{
	const struct hesper_recording *rec = o->rec;
	struct hesper_device *dev = rec->dev;
	uint64_t *results = o->sub->kit.out.mapped;
	uint32_t count;
	for (uint32_t b = 0; b < rec->block_count && (count = hesper_block_used(b, rec->queries_used)); b++) {
		/* No wait: a query not available leaves its slot marked, and is asked for again later. */
		dev->next.GetQueryPoolResults(dev->handle, rec->blocks[b]->pool, 0, count, count * sizeof(uint64_t),
					      results + o->base + hesper_block_start(b), sizeof(uint64_t),
					      VK_QUERY_RESULT_64_BIT);
	}
	if (!all_written(o))
		return false;
	/* Clock mode: the kernels' slots, read once the queries were (the read clears them). */
	if (rec->clock.chunk_count)
		hesper_clock_read_slots(dev, &o->rec->clock, rec->queries_used, results + o->base);
	return true;
}

/*
 * Most values a submit hook reads itself when it takes over a finished run; a larger run is
 * copied on the GPU before the program's batches instead. On the H200, a resubmitted
 * recording of 1,000 dispatches cost its vkQueueSubmit 48 µs in dispatch mode (2,000
 * queries from vkGetQueryPoolResults) and 200 µs in clock mode (272 KiB of clock slots
 * read across PCIe), where recording the copy costs a few microseconds.
 */
#define TAKE_OVER_READ_MOST 256u

/* The values run @o's results hold: its queries and its clock slots. */
static uint64_t run_words(const struct hesper_run *o)
{
	const struct hesper_recording *rec = o->rec;
	return (uint64_t)rec->queries_used + (rec->clock.used ? hesper_clock_result_words(rec->dev, &rec->clock) : 0);
}

/* Marks run @o final and lets go of it. */
static void settle(struct hesper_run *o, enum hesper_run_state state)
{
	atomic_store(&o->state, state);
	atomic_store(&o->released, true);
}

/*
 * Takes over run @old, replaced as its recording's unread run by run @now of a submission
 * on @q. Returns true when @old must be copied on @q before @now runs (it stays claimed).
 */
static bool take_over(struct hesper_queue *q, struct hesper_run *old, struct hesper_run *now)
{
	int expected = HESPER_RUN_PENDING;
	if (!atomic_compare_exchange_strong(&old->state, &expected, HESPER_RUN_CLAIMED)) {
		/* The collector has it: let it finish reading before the queries can be reset. */
		while (atomic_load(&old->state) == HESPER_RUN_READING)
			sched_yield();
		atomic_store(&old->released, true);
		return false;
	}
	bool same_queue = old->sub->queue == q;
	if ((!same_queue || run_words(old) <= TAKE_OVER_READ_MOST) && hesper_submission_done(old->sub) &&
	    read_run(old)) {
		settle(old, HESPER_RUN_DONE);
		return false;
	}
	if (same_queue)
		return true;
	/* Still running on another queue, where no copy here can wait for it: both runs share the queries. */
	atomic_store(&old->conflict, true);
	atomic_store(&now->conflict, true);
	settle(old, HESPER_RUN_DONE);
	return false;
}

size_t hesper_host_reads_publish(struct hesper_queue *q, struct hesper_submission *sub, struct hesper_run **copy)
{
	size_t listed = 0;
	for (size_t i = 0; i < sub->run_count; i++) {
		struct hesper_run *o = &sub->runs[i];
		bool collected = o->base != HESPER_NO_SLOT && !o->overwritten && !hesper_run_copied_within(o);
		atomic_store(&o->state, collected ? HESPER_RUN_PENDING : HESPER_RUN_DONE);
		atomic_store(&o->released, false);
		o->unavailable_since = 0;
		o->published = !o->superseded && o->base != HESPER_NO_SLOT;
		if (!o->published)
			continue;
		struct hesper_run *old = atomic_exchange(&o->rec->unread, o);
		if (old && take_over(q, old, o))
			copy[listed++] = old;
	}
	return listed;
}

void hesper_host_reads_settle(struct hesper_run **copy, size_t count, bool submitted, uint64_t value)
{
	for (size_t i = 0; i < count; i++) {
		copy[i]->copy_value = value;
		copy[i]->unavailable = !submitted;
		settle(copy[i], submitted ? HESPER_RUN_COPY_LATER : HESPER_RUN_DONE);
	}
}

/*
 * Whether @q's timeline reached @value, waiting up to @wait_ns. An error (a lost device)
 * counts as reached: the copy will never come, and its slots show it.
 */
static bool reached(struct hesper_queue *q, uint64_t value, uint64_t wait_ns)
{
	struct hesper_device *dev = q->dev;
	uint64_t now = 0;
	VkResult r = dev->next.GetSemaphoreCounterValueKHR(dev->handle, q->timeline, &now);
	if (r != VK_SUCCESS || now >= value)
		return true;
	if (!wait_ns)
		return false;
	VkSemaphoreWaitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1,
		.pSemaphores = &q->timeline,
		.pValues = &value,
	};
	r = dev->next.WaitSemaphoresKHR(dev->handle, &info, wait_ns);
	return r != VK_TIMEOUT;
}

/* Reads pending run @o for the collector; false when a query is not available yet (ask later). */
static bool collect_pending(struct hesper_run *o)
{
	int expected = HESPER_RUN_PENDING;
	if (!atomic_compare_exchange_strong(&o->state, &expected, HESPER_RUN_READING))
		return false; /* a submit hook claimed it meanwhile */
	if (read_run(o)) {
		atomic_store(&o->state, HESPER_RUN_DONE);
		return true;
	}
	/* Completed yet not available: the specification says it will be; past a bound it is given up. */
	uint64_t now = hesper_now_ns();
	if (!o->unavailable_since)
		o->unavailable_since = now;
	if (now - o->unavailable_since > UNAVAILABLE_GIVE_UP_NS) {
		o->unavailable = true;
		atomic_store(&o->state, HESPER_RUN_DONE);
		return true;
	}
	atomic_store(&o->state, HESPER_RUN_PENDING);
	return false;
}

/* Takes @o back from its recording's unread place; false while a submit hook still holds it. */
static bool take_back(struct hesper_run *o)
{
	if (!o->published)
		return true;
	struct hesper_run *expected = o;
	if (atomic_compare_exchange_strong(&o->rec->unread, &expected, NULL) || atomic_load(&o->released))
		o->published = false;
	return !o->published;
}

bool hesper_host_reads_collect(struct hesper_queue *q, struct hesper_submission *sub, uint64_t wait_ns)
{
	bool host = q->dev->copy_way == HESPER_WAY_HOST;
	for (size_t i = 0; i < sub->run_count; i++) {
		struct hesper_run *o = &sub->runs[i];
		if (o->base == HESPER_NO_SLOT || o->overwritten || o->unavailable || atomic_load(&o->conflict))
			continue;
		switch (host && !hesper_run_copied_within(o) ? atomic_load(&o->state) : HESPER_RUN_DONE) {
		case HESPER_RUN_PENDING:
			if (!collect_pending(o))
				return false;
			continue; /* read from the pools: checked there */
		case HESPER_RUN_CLAIMED:
		case HESPER_RUN_READING:
			return false;
		case HESPER_RUN_COPY_LATER:
			if (!reached(q, o->copy_value, wait_ns))
				return false;
			break;
		case HESPER_RUN_DONE:
			break;
		}
		/* Copied with WAIT_BIT, each query was available: a marked slot would mean otherwise. */
		if (!all_written(o))
			o->unavailable = true;
	}
	for (size_t i = 0; i < sub->run_count; i++)
		if (!take_back(&sub->runs[i]))
			return false;
	return true;
}

void hesper_host_reads_unpublish(struct hesper_submission *sub)
{
	for (size_t i = 0; i < sub->run_count; i++)
		while (!take_back(&sub->runs[i]))
			sched_yield();
}
