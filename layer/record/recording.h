/*
 * Recordings: what a command buffer's commands were, as recorded once (kernels
 * dispatched, timestamp queries written, labels, secondaries executed). A submission
 * holds references to the recordings it ran, so a command buffer can be reset,
 * re-recorded or freed while earlier results are still on their way.
 */
#ifndef HESPER_RECORDING_H
#define HESPER_RECORDING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "clock/clock.h"
#include "state/state.h"

#define HESPER_MAX_LABEL_DEPTH 32
/* An open label with no region record (memory ran out). */
#define HESPER_NO_REGION UINT32_MAX

struct hesper_device;
struct hesper_queue;
struct hesper_run;

#define HESPER_NO_SHADOW UINT32_MAX

/*
 * A secondary as a primary executes it. When the primary executes the same secondary
 * again, the queries of this execution are copied first into one of the primary's
 * shadow buffers (command_buffer.c), from where they are collected.
 */
struct hesper_secondary_execution {
	struct hesper_recording *rec; /* a reference is held */
	uint32_t shadow;              /* index of the primary's shadow buffer, or HESPER_NO_SHADOW */
	uint32_t shadow_slot;         /* first slot of the copy in it */
};

/*
 * One piece of recorded work: a vkCmdDispatch*, or a memory operation (copy, fill,
 * update, clear: HESPER_MEMORY_COMMANDS, with memop set: kernel and label are then NULL,
 * and op replaces groups), or a repeat of @repeat identical ones recorded back to back.
 * Untimed, they share nothing else; timed, they are chained: dispatch k of the repeat
 * (from 0) spans queries k ? end + k - 1 : start to end + k.
 */
struct hesper_work_record {
	struct hesper_name *kernel;
	struct hesper_name *label; /* path of the innermost debug label (its region's path), or NULL */
	uint32_t start, end;       /* the first dispatch's timestamps (start may be the
					       previous dispatch's end), or HESPER_NO_QUERY */
	uint32_t repeat : 20;      /* dispatches in the repeat, at least 1 */
	uint32_t stats_set : 8;    /* a dispatch: 1 + the variant of its kernel's pipeline
					       statistics (pipeline.h); 0 unknown */
	uint32_t dropped : 1;      /* should have been timed but could not be */
	uint32_t memop : 1;        /* a memory operation, not a dispatch */
	uint32_t clock : 1;        /* timed by the shader clock: start is its clock slot
					       (dispatch k of the repeat: start + k); end, when not
					       HESPER_NO_QUERY, the barrier timestamps around it
					       (clock_edges.h: dispatch k's pair end + k, end + k + 1,
					       each opening from the closing one before it) */
	uint32_t closed : 1;       /* clock: the repeat's last dispatch got its closing barrier
					       timestamp (the others all have theirs) */
	union {
		uint32_t groups[3]; /* a dispatch's group counts (0 0 0: indirect; see args) */
		struct {
			uint32_t kind;   /* enum hesper_memop_kind */
			uint32_t sized;  /* 1 when bytes is known */
			uint32_t unused; /* 0, so a repeat compares all 12 bytes */
		} op;                    /* a memory operation's */
	};
	union {
		uint64_t bytes; /* bytes each memory operation of the repeat moved */
		uint64_t args;  /* a dispatch: 1 + the argument slot an indirect one's
					       counts are read back into (indirect.h), else 0 */
	};
};

#define HESPER_MAX_REPEAT 0x000fffffu

/* An end position of a label range not ended in its recording. */
#define HESPER_REGION_OPEN UINT64_MAX

/* One debug-utils label range as recorded. */
struct hesper_region_record {
	struct hesper_name *label;
	struct hesper_name *path; /* the labels open around it and itself (profile.h: HESPER_LABEL_PATH_SEP) */
	/*
	 * Its opening and closing timestamps (HESPER_NO_QUERY: none). Each is the closing
	 * timestamp of the timed work right before it where nothing ran between, else one of its
	 * own (label_hooks.c); in clock mode's secondaries a pair of its own.
	 */
	uint32_t query, end_query;
	uint64_t begin_at, end_at; /* dispatches recorded before its begin and before its end
					       (end_at HESPER_REGION_OPEN until ended): its place among them */
	/*
	 * Clock mode: timed by its dispatches (the earliest start to the latest end of those
	 * between begin_at and end_at), not by timestamps of its own, which would make the GPU
	 * drain at each label as dispatch mode does.
	 */
	bool clock;
};

struct hesper_recording {
	atomic_uint refs;
	uint64_t id; /* unique in the process, never reused */
	struct hesper_device *dev;
	uint32_t family;
	bool primary;
	bool can_query; /* queries may be written (timed family, outside render passes) */
	struct hesper_query_block **blocks;
	uint32_t block_count, block_capacity;
	uint32_t queries_used;
	uint32_t query_capacity; /* queries in the blocks held */
	uint32_t last_end;       /* when the last command was a timestamp of Hesper's with no GPU
					       work after it (a timed dispatch's closing one, or a
					       label's: label_hooks.c), its query; else HESPER_NO_QUERY */
	bool after_program_top;  /* the last command was the program's own TOP_OF_PIPE
					       timestamp (HESPER_STAMP_COMMANDS) */
	/* Clock mode (clock_edges.h): where the last command leaves the GPU's compute work. */
	bool after_compute_barrier;      /* a barrier that makes compute wait for compute */
	uint32_t open_edge;              /* a clock-timed dispatch opened by this barrier timestamp,
					       which a compute barrier next closes; else HESPER_NO_QUERY */
	uint32_t cb_query;               /* begin/end pair of a primary, or HESPER_NO_QUERY */
	uint64_t command_buffer;         /* the handle it was recorded in, for traces */
	struct hesper_work_record *work; /* dispatches and memory operations, in order */
	size_t work_count, work_capacity;
	uint64_t dispatch_total; /* dispatches in @work, each of a repeat counted */
	struct hesper_region_record *regions;
	size_t region_count, region_capacity;
	uint32_t open_regions[HESPER_MAX_LABEL_DEPTH];  /* indices into regions */
	uint32_t label_depth;                           /* may exceed the array: deeper labels are untimed */
	struct hesper_secondary_execution *secondaries; /* executed, in order (may repeat) */
	size_t secondary_count, secondary_capacity;
	struct hesper_host_buffer *shadows; /* copies of secondaries' runs executed again after them */
	uint32_t shadow_count, shadow_used; /* buffers, and slots used in the last one */
	uint64_t lost_dispatches;           /* dispatches not recorded: memory ran out */
	/*
	 * Runs submitted and not yet harvested, and the queue of the last one: a cheap test
	 * for a recording that may be running on another queue (see submit.c).
	 */
	atomic_uint pending;
	struct hesper_queue *_Atomic pending_queue;
	struct hesper_run *_Atomic unread; /* host way: its newest run not read yet (host_reads.h) */
	atomic_uint_fast64_t seen;         /* the submit call and run index it last ran in (submit.c) */
	atomic_uint_fast64_t executed;     /* the primary and index of its last execution (command_buffer.c) */
	/* Clock mode (clock.h): chunks of slots, slots taken, and result words per run after the queries. */
	struct hesper_clock_slots clock;
	/* Indirect dispatches' arguments (indirect.h): chunks of slots, slots taken, result words per run after the clock's. */
	struct hesper_args_chunk **args_chunks;
	size_t args_chunk_count, args_chunk_capacity;
	uint32_t args_slots;
	uint32_t args_words;
};

/* A new recording for a command buffer of @family; NULL when memory runs out. */
struct hesper_recording *hesper_recording_create(struct hesper_device *dev, uint32_t family, bool primary,
						 bool can_query);

/* Takes a reference. */
void hesper_recording_ref(struct hesper_recording *rec);

/* Drops a reference; the last one frees the recording and gives its query blocks back. */
void hesper_recording_unref(struct hesper_recording *rec);

/*
 * Reserves @count (1 or 2) consecutive queries in @rec, recording in @cb the reset of
 * each block when it is first used. Returns the first query index, or HESPER_NO_QUERY
 * when no query can be had (counted as dropped by the caller).
 */
uint32_t hesper_recording_take(struct hesper_recording *rec, VkCommandBuffer cb, uint32_t count);

/* The pool and index in it of query @query of @rec. */
void hesper_recording_query(const struct hesper_recording *rec, uint32_t query, VkQueryPool *pool, uint32_t *index);

/* Notes a run of @rec submitted on @queue; returns the queue of a run still pending elsewhere, or NULL. */
struct hesper_queue *hesper_recording_submitted(struct hesper_recording *rec, struct hesper_queue *queue);

/* Notes that a run of @rec was harvested (or given up). */
void hesper_recording_harvested(struct hesper_recording *rec);

/* Writes a timestamp for query @query of @rec at @stage into @cb. */
void hesper_recording_write_timestamp(struct hesper_recording *rec, VkCommandBuffer cb, VkPipelineStageFlagBits stage,
				      uint32_t query);

#endif
