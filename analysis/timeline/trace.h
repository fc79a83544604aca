/*
 * Events kept for timelines (the trace and HTML reports): dispatches, label regions and
 * batches on GPU queues, and submit calls on host threads, all on the host's monotonic
 * clock. Bounded: past max_events new events are counted as left out, not kept.
 */
#ifndef HESPER_TRACE_H
#define HESPER_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hesper_trace_kind {
	HESPER_TRACE_DISPATCH,    /* one timed dispatch on a queue */
	HESPER_TRACE_REGION,      /* one debug-utils label range on a queue */
	HESPER_TRACE_BATCH,       /* GPU span of one submitted batch on a queue */
	HESPER_TRACE_HOST_SUBMIT, /* the host's vkQueueSubmit* call, on the calling thread */
	HESPER_TRACE_MEMORY_OP,   /* one timed copy, fill, update or clear on a queue (name: the operation) */
	HESPER_TRACE_HOST_WAIT,   /* the program's thread blocked in a Vulkan wait (name: the call) */
};

/* Events kept when HESPER_MAX_EVENTS does not say otherwise. */
#define HESPER_TRACE_DEFAULT_MAX_EVENTS 200000u

/* Host threads named at most; any later thread is shown by its id alone. */
#define HESPER_TRACE_MAX_THREADS 4096u
/* Bytes of a host thread's name, NUL included: the kernel's own limit (TASK_COMM_LEN). */
#define HESPER_THREAD_NAME_MAX 16u

/* A program thread's name as it was when the thread was first seen. */
struct hesper_thread_name {
	uint32_t tid;
	char name[HESPER_THREAD_NAME_MAX]; /* "" when it could not be read */
};

struct hesper_trace_event {
	enum hesper_trace_kind kind;
	uint32_t device;   /* index into the profile's devices */
	uint32_t queue;    /* index into the profile's queues (GPU kinds and host submits) */
	uint32_t thread;   /* host thread id (HOST_SUBMIT) */
	const char *name;  /* kernel or label name; not owned, must outlive the trace */
	uint64_t start_ns; /* host CLOCK_MONOTONIC, ns */
	uint64_t end_ns;
	uint32_t groups[3];      /* dispatch size in workgroups; 0 when indirect */
	uint64_t command_buffer; /* VkCommandBuffer handle value, 0 if none */
	uint64_t submission;     /* submission number on its queue */
	uint64_t bytes;          /* bytes moved (MEMORY_OP); 0 otherwise */
	uint32_t local_size[3];  /* the kernel's work-group size (DISPATCH); 0 0 0 unknown */
};

struct hesper_trace_spool;

struct hesper_trace {
	struct hesper_trace_event *events;
	size_t count, capacity;
	uint64_t max_events;                /* cap on events kept */
	uint64_t left_out;                  /* events not kept because of the cap (or memory) */
	bool calibrated;                    /* GPU times placed with calibrated timestamps */
	double alignment_error_ns;          /* bound on the GPU-to-host placement error; negative when unknown */
	uint64_t origin_ns;                 /* host time that trace time 0 stands for (process start) */
	struct hesper_trace_spool *spool;   /* when set, every event also streams there, uncapped,
					     and the trace report is written from it (trace_spool.h) */
	struct hesper_thread_name *threads; /* host threads' names, by tid ascending */
	size_t thread_count, thread_capacity;
};

/* Makes @t empty with room for at most @max_events events. */
void hesper_trace_init(struct hesper_trace *t, uint64_t max_events);

/*
 * Keeps a copy of @e; returns false (and counts it as left out) past the cap or out of
 * memory. With a spool, also streams it there, cap or not.
 */
bool hesper_trace_add(struct hesper_trace *t, const struct hesper_trace_event *e);

/* Whether host thread @tid has an entry (a name, or "" when none could be read). */
bool hesper_trace_thread_known(const struct hesper_trace *t, uint32_t tid);

/* The name of host thread @tid, or NULL when it has none. */
const char *hesper_trace_thread_name(const struct hesper_trace *t, uint32_t tid);

/*
 * Gives host thread @tid the name @name (NULL: none; cut to HESPER_THREAD_NAME_MAX - 1
 * bytes) unless it has an entry already. Returns false past HESPER_TRACE_MAX_THREADS
 * threads or out of memory.
 */
bool hesper_trace_name_thread(struct hesper_trace *t, uint32_t tid, const char *name);

/* Frees the events and the thread names and closes the spool. */
void hesper_trace_free(struct hesper_trace *t);

#endif
