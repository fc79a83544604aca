/*
 * A submission: one vkQueueSubmit / vkQueueSubmit2 call as Hesper tracks it. It holds the
 * recordings that ran, where their timestamps are copied to, and the fence that says
 * when the copy is done. Records are recycled per queue.
 */
#ifndef HESPER_SUBMISSION_H
#define HESPER_SUBMISSION_H

#include "layer.h"

/*
 * What a result slot holds until a copy writes it. The copy asks for values only (no
 * availability word: half the memory), and a query that is not available leaves its
 * slot as it was, so this mark is how the collector tells a copy that ran ahead of a
 * timestamp write. No device counts its ticks up to it.
 */
#define HESPER_UNWRITTEN UINT64_MAX

/* The base of an occurrence whose timestamps are not copied. */
#define HESPER_NO_SLOT UINT32_MAX

/* One recording's run within a submission. */
struct hesper_occurrence {
	struct hesper_recording *rec;       /* a reference is held */
	uint32_t base;                      /* its first result slot in the buffer, or HESPER_NO_SLOT */
	uint32_t executions;                /* times it ran in this submission */
	uint32_t batch;                     /* index of its batch in the call */
	atomic_bool conflict;               /* ran on two queues at once: its queries were shared */
	bool unavailable;                   /* a copied query was not available: its times are dropped */
};

/* How Hesper learns that a submission's copies are done. */
enum hesper_sync {
	HESPER_SYNC_NONE,                   /* nothing was submitted for it: done at once */
	HESPER_SYNC_FENCE,                  /* its fence */
	HESPER_SYNC_TIMELINE,               /* the queue's timeline semaphore reaching sync_value */
};

/*
 * One copy command of a recorded copy command buffer. A submission whose copies are the
 * same reuses the command buffer: resubmitted work, and freshly recorded work that got
 * the same query blocks back (query pools live as long as the device).
 */
struct hesper_copy_key {
	VkQueryPool pool;
	uint32_t count;                     /* queries copied, from the pool's first */
	uint32_t slot;                      /* first result slot written */
};

/*
 * Hesper's recorded copy and the buffer it copies into: one unit, so a submission record
 * can hand it to another whose copies are the same (submit.c).
 */
struct hesper_copy_kit {
	VkCommandBuffer cb;                 /* Hesper's: copies the results out */
	VkBuffer buffer;
	VkDeviceMemory memory;
	uint64_t *results;                  /* mapped buffer: one value per slot, HESPER_UNWRITTEN
					       while no copy has written it */
	uint32_t capacity;                  /* slots in the buffer */
	bool coherent;
	struct hesper_copy_key *key;        /* what cb copies now; valid when key_valid */
	size_t key_count, key_capacity;
	bool key_valid;
	bool key_wait;                      /* cb's copies use VK_QUERY_RESULT_WAIT_BIT */
};

struct hesper_submission {
	struct hesper_submission *next;     /* pending or free list */
	struct hesper_copy_kit kit;
	VkFence fence;
	struct hesper_occurrence *occ;
	size_t occ_count, occ_capacity;
	uint32_t batch_count;
	uint32_t slots;                     /* slots used this time */
	enum hesper_sync sync;
	uint64_t sync_value;                /* for HESPER_SYNC_TIMELINE */
	bool failed;                        /* Hesper could not follow it: count its dispatches as dropped */
	bool submitted;                     /* its recordings are marked pending (see hesper_recording_submitted) */
	uint64_t index;                     /* submission number on its queue */
	uint64_t host_ns;                   /* host clock when the submit call began */
	uint64_t host_end_ns;               /* and when it returned */
	uint32_t thread;                    /* the calling thread's id */
};

/* Drops @sub's references to its recordings (noting them harvested when they were submitted). */
void hesper_submission_release_recordings(struct hesper_submission *sub);

/*
 * Unreferences the recordings of @sub, marks the result slots it used unwritten again and
 * puts it on @queue's free list for reuse. Call once its copy can no longer write them.
 */
void hesper_submission_recycle(struct hesper_queue *queue, struct hesper_submission *sub);

/*
 * Creates what the first submissions on @queue need (its command pool, timeline semaphore
 * or fence, one submission record with a results buffer and a command buffer), so that a
 * program's first vkQueueSubmit does not pay for it, and runs Hesper's kind of work on the
 * queue once, waiting for it (see warm_up in submit.c). Call before the program has the
 * queue's handle. Failures are left to the submit path.
 */
void hesper_queue_prepare(struct hesper_queue *queue);

/* Destroys every submission on @queue's free list. */
void hesper_submissions_release(struct hesper_queue *queue);

#endif
