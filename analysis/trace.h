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
	uint64_t max_events;              /* cap on events kept */
	uint64_t left_out;                /* events not kept because of the cap (or memory) */
	bool calibrated;                  /* GPU times placed with calibrated timestamps */
	double alignment_error_ns;        /* bound on the GPU-to-host placement error; negative when unknown */
	uint64_t origin_ns;               /* host time that trace time 0 stands for (process start) */
	struct hesper_trace_spool *spool; /* when set, every event also streams there, uncapped,
					     and the trace report is written from it (trace_spool.h) */
};

/* Makes @t empty with room for at most @max_events events. */
void hesper_trace_init(struct hesper_trace *t, uint64_t max_events);

/*
 * Keeps a copy of @e; returns false (and counts it as left out) past the cap or out of
 * memory. With a spool, also streams it there, cap or not.
 */
bool hesper_trace_add(struct hesper_trace *t, const struct hesper_trace_event *e);

/* Frees the events and closes the spool. */
void hesper_trace_free(struct hesper_trace *t);

#endif
