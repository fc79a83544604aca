/*
 * A submission: one vkQueueSubmit / vkQueueSubmit2 call as Hesper tracks it. It holds one
 * run per execution of a recording, each with its own result slots, and says
 * when those slots are filled. Records are recycled per queue.
 *
 * How the timestamps reach the slots is the device's copy way (docs/timing.md argues each
 * from the specification):
 *   wait  Hesper's batch after the program's copies every run's queries with
 *         VK_QUERY_RESULT_WAIT_BIT, which orders the copy after the timestamp writes.
 *   host  no copy: once Hesper's completion signal is reached, every command before it
 *         has completed, and the collector reads the pools with vkGetQueryPoolResults.
 *         A run whose recording is submitted again before it was read is read by that
 *         submit hook when it has completed, else copied (WAIT_BIT) by a batch Hesper puts
 *         before the new run on the same queue (host_reads.c).
 * In both ways a recording executed twice within one submission gets a copy (WAIT_BIT) of
 * its first run inserted between the two (copies.c).
 */
#ifndef HESPER_SUBMISSION_H
#define HESPER_SUBMISSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "state/state.h"

struct hesper_queue;
struct hesper_recording;

/*
 * What a result slot holds until a copy or a read writes it. A query that is not
 * available leaves its slot as it was, so a slot still marked after its copy or read is
 * a timestamp that was not there yet. No device counts its ticks up to it.
 */
#define HESPER_UNWRITTEN UINT64_MAX

/* The base of a run whose timestamps are not collected. */
#define HESPER_NO_SLOT UINT32_MAX

/* Where a run of the host way stands (struct hesper_run.state). */
enum hesper_run_state {
	HESPER_RUN_PENDING,    /* to be read from the pools once its submission completed */
	HESPER_RUN_CLAIMED,    /* a later submit hook is reading it or arranging its copy */
	HESPER_RUN_READING,    /* the collector is reading it */
	HESPER_RUN_DONE,       /* its slots are final (or it is marked unavailable) */
	HESPER_RUN_COPY_LATER, /* a later batch on its queue copies it: final at copy_value */
};

struct hesper_submission;

/* One execution of a recording within a submission. */
struct hesper_run {
	struct hesper_recording *rec;  /* a reference is held */
	struct hesper_submission *sub; /* the submission it belongs to */
	uint32_t base;                 /* its first result slot, or HESPER_NO_SLOT */
	uint32_t batch;                /* index of its batch in the program's call */
	atomic_bool conflict;          /* ran on two queues at once: its queries were shared */
	bool overwritten;              /* ran again in the same command buffer before any copy
					       could be placed between: counted, not timed */
	bool copied_between;           /* a copy inserted before its next execution fills its slots */
	VkBuffer shadow;               /* or the primary's shadow buffer its values were saved in */
	uint32_t shadow_slot;          /* (at this slot), collected by Hesper's batch after the program's */
	bool superseded;               /* executed again later in the same submission */
	bool unavailable;              /* a query never became available: its times are dropped */
	/* Host way only. */
	atomic_int state;           /* enum hesper_run_state */
	atomic_bool released;       /* a submit hook that took it from rec->unread is done with it */
	bool published;             /* it was made its recording's unread run */
	uint64_t copy_value;        /* HESPER_RUN_COPY_LATER: the queue timeline value that says copied */
	uint64_t unavailable_since; /* host time a read first found a query unavailable, or 0 */
};

/* Whether run @o's values come from a copy within its own submission (inserted, or from a shadow buffer). */
static inline bool hesper_run_copied_within(const struct hesper_run *o)
{
	return o->copied_between || o->shadow != VK_NULL_HANDLE;
}

/* How Hesper learns that a submission is done. */
enum hesper_sync {
	HESPER_SYNC_NONE,     /* nothing was submitted for it: done at once */
	HESPER_SYNC_FENCE,    /* its fence */
	HESPER_SYNC_TIMELINE, /* the queue's timeline semaphore reaching sync_value */
};

/*
 * One copy command of a recorded copy command buffer. A submission whose copies are the
 * same reuses the command buffer: resubmitted work, and freshly recorded work that got
 * the same query blocks back (query pools live as long as the device).
 */
struct hesper_copy_key {
	VkQueryPool pool; /* queries copied from the pool's first, */
	VkBuffer shadow;  /* or slots from a shadow buffer from @first */
	uint32_t first;
	uint32_t count; /* queries or words; for a clock chunk, its used slots */
	uint32_t slot;  /* first result slot written */
	bool clock;     /* @shadow is a chunk of clock slots, cleared after the copy */
};

/*
 * Hesper's command buffer and the results buffer it copies into: one unit, so a
 * submission record can hand it to another whose copies are the same (copies.c).
 */
struct hesper_copy_kit {
	VkCommandBuffer cb;            /* Hesper's: the copy after the program's batches (wait
					       way) or before them (host way) */
	struct hesper_host_buffer out; /* one value per slot, HESPER_UNWRITTEN until written */
	struct hesper_copy_key *key;   /* what cb copies now; valid when key_valid */
	size_t key_count, key_capacity;
	bool key_valid;
};

/* A copy inserted before the program's command buffer @before of batch @batch. */
struct hesper_insertion {
	uint32_t batch, before;
	uint32_t first_run, run_count; /* its runs: indices into struct hesper_submission.between */
	VkCommandBuffer cb;
};

struct hesper_submission {
	struct hesper_submission *next; /* pending or free list */
	struct hesper_queue *queue;
	struct hesper_copy_kit kit;
	VkFence fence;
	struct hesper_run *runs; /* one per execution of a recording, in order */
	size_t run_count, run_capacity;
	/* Copies between repeated executions (copies.c), and the runs each copies. */
	struct hesper_insertion *inserts;
	size_t insert_count, insert_capacity;
	uint32_t *between;
	size_t between_count, between_capacity;
	VkCommandBuffer *spare_cbs; /* command buffers of earlier insertions, for reuse */
	size_t spare_count, spare_capacity;
	VkCommandBuffer after_cb;  /* Hesper's copy after the program's batches, or none */
	struct hesper_run **taken; /* host way: earlier runs this call copies before the program's */
	size_t taken_capacity;
	void *scratch;           /* the batches passed down, when Hesper rewrote them */
	size_t scratch_capacity; /* bytes */
	uint32_t batch_count;
	uint32_t slots; /* slots used this time */
	enum hesper_sync sync;
	uint64_t sync_value;  /* for HESPER_SYNC_TIMELINE */
	bool failed;          /* Hesper could not follow it: count its dispatches as dropped */
	bool submitted;       /* its recordings are marked pending (see hesper_recording_submitted) */
	bool copies_adopted;  /* its copy after the batches is a finished record's that copies the same (copies.c) */
	uint64_t index;       /* submission number on its queue */
	uint64_t host_ns;     /* host clock when the submit call began */
	uint64_t host_end_ns; /* and when it returned */
	uint32_t thread;      /* the calling thread's id */
	struct hesper_thread_activity activity; /* what that thread did since its previous submit call */
};

/* A submission record for @q from its free list or a new one, emptied; NULL when memory runs out. */
struct hesper_submission *hesper_submission_take(struct hesper_queue *q);

/* Frees @sub's memory (its Vulkan objects are the caller's). */
void hesper_submission_free(struct hesper_submission *sub);

/* Marks the result slots @sub used unwritten again and puts it, holding no recordings, on @queue's free list. */
void hesper_submission_keep(struct hesper_queue *queue, struct hesper_submission *sub);

/*
 * Collector: tops up @queue's free list with records whose results buffers fit the queue's
 * largest submission so far, up to twice the most submissions it has had pending (within
 * a memory bound), so that the program's submit calls find one ready instead of making
 * Vulkan objects themselves.
 */
void hesper_submissions_stock(struct hesper_queue *queue);

/* Whether @sub's batches have completed, asked without waiting (at once when nothing signals it). */
bool hesper_submission_done(const struct hesper_submission *sub);

/*
 * Creates what the first submissions on @queue need (its command pool, timeline semaphore
 * or fence, one submission record with a results buffer and a command buffer), so that a
 * program's first vkQueueSubmit does not pay for it, and runs Hesper's kind of work on the
 * queue once, waiting for it (see warm_up in submission.c). Call before the program has the
 * queue's handle. Failures are left to the submit path.
 */
void hesper_queue_prepare(struct hesper_queue *queue);

/* Destroys every submission on @queue's free list. */
void hesper_submissions_release(struct hesper_queue *queue);

#endif
