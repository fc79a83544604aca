/*
 * Everything one profiled process produced: devices, per-kernel and per-region rows,
 * submissions, GPU busy time, and Hesper's own counters. Reports are written from it.
 */
#ifndef HESPER_PROFILE_H
#define HESPER_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_table.h"
#include "memops.h"
#include "stats.h"
#include "trace.h"

#define HESPER_NAME_MAX 256

struct hesper_device_info {
	char name[HESPER_NAME_MAX];
	char driver[HESPER_NAME_MAX];
	double timestamp_period_ns;
	char copy[8];          /* how its timestamps were read back: "wait" or "host" ("" unknown) */
	char timing[160];      /* clock mode: "clock", or "timestamps: <why>" ("" in other modes) */
	double clock_error_ns; /* clock mode: bound of the clock-to-timestamp mapping at calibration */
};

/* Clock mode: a kernel timed with timestamps instead of the shader clock, and why. */
struct hesper_clock_note {
	char kernel[HESPER_NAME_MAX];
	char why[128];
};

/* GPU busy time of one queue: the union of the intervals its command buffers ran. */
struct hesper_queue_info {
	uint32_t device;       /* index into devices */
	uint32_t family;
	uint32_t index;
	uint32_t timestamp_bits;
	uint64_t submits;      /* batches submitted */
	uint64_t busy_ns;
};

/* The capture window (HESPER_START / HESPER_STOP), as the report states it. */
struct hesper_capture_info {
	bool set;                  /* a window was asked for; nothing below is written otherwise */
	char start[HESPER_NAME_MAX + 32]; /* as given: "2.500 s", "label:step"; "" = at the start */
	char stop[HESPER_NAME_MAX + 32];  /* "1.000 s", "label:step#3"; "" = never */
	bool opened, closed;
	uint64_t opened_ns, closed_ns;    /* host time since the process start, when they happened */
	uint64_t outside;          /* dispatches counted outside the window (not timed) */
};

/* Which report this is: the exit report, or one written while the program runs. */
struct hesper_report_kind {
	bool live;                 /* reports are written while the program runs: the JSON says which this is */
	bool partial;              /* written while the program runs (HESPER_INTERVAL, on demand) */
	uint64_t number;           /* reports written before this one, in this process */
	const char *reason;        /* partial: "interval", "signal" or "control"; NULL otherwise */
};

struct hesper_profile {
	int pid;
	char exe[HESPER_NAME_MAX];
	char host[HESPER_NAME_MAX];
	char mode[32];             /* "dispatch", "submit" or "clock" */
	uint32_t sample_every;     /* 1 = every execution timed */

	struct hesper_device_info *devices;
	size_t device_count;
	struct hesper_queue_info *queues;
	size_t queue_count;

	uint64_t wall_ns;          /* process wall time up to the report */
	struct hesper_kernel_table *kernels;  /* one row per kernel */
	struct hesper_kernel_table *regions;  /* one row per debug-utils label range */
	struct hesper_kernel_table *labelled; /* kernel rows prefixed "label/kernel" by innermost label */
	struct hesper_stats submits;          /* span of each timed batch */
	struct hesper_memops memops;          /* copies, fills, updates, clears: one row per kind (memops.h) */

	uint64_t dropped;          /* dispatches that ran but could not be timed */
	uint64_t clamped;          /* intervals that came back zero or negative */
	uint64_t timestamps_written; /* queries Hesper wrote on the GPU */
	uint64_t hook_ns;          /* host time spent inside Hesper's hooks */
	uint64_t submit_hook_ns;   /* the part of it spent in the submit hooks */
	uint64_t collector_ns;     /* host time the collector spent turning results into events */
	uint64_t collected;        /* timed dispatches the collector processed */
	uint64_t copies_ahead;     /* submissions whose copy ran ahead of the timestamp writes */

	struct hesper_clock_note *clock_notes; /* clock mode: kernels that fell back to timestamps */
	size_t clock_note_count;
	struct hesper_trace trace; /* timeline events, for the trace and HTML reports */
	bool from_events;          /* built from a program's own events (profile_events.c): no mode, no cost */
	struct hesper_capture_info capture;   /* the capture window, when one was asked for */
	struct hesper_report_kind report;     /* which report this is (the exit report when zero) */
};

/* Initialises @p empty (tables allocated); returns 0, or -1 when memory runs out. */
int hesper_profile_init(struct hesper_profile *p);

/* Frees everything @p holds. */
void hesper_profile_free(struct hesper_profile *p);

/* Notes that @kernel was timed with timestamps in clock mode because of @why (once per kernel); 0, or -1 out of memory. */
int hesper_profile_add_clock_note(struct hesper_profile *p, const char *kernel, const char *why);

/* Appends a device; returns its index, or -1 when memory runs out. */
int hesper_profile_add_device(struct hesper_profile *p, const struct hesper_device_info *d);

/* The queue row for (device, family, index), added on first use; NULL when out of memory. */
struct hesper_queue_info *hesper_profile_queue(struct hesper_profile *p, uint32_t device, uint32_t family,
					       uint32_t index);

/* Sum of busy time over all queues. */
uint64_t hesper_profile_gpu_busy_ns(const struct hesper_profile *p);

/* The overall summary of all timed dispatches (the seed's ProfileSummary). */
struct hesper_profile_summary {
	uint64_t events;      /* timed dispatches */
	uint64_t dispatches;  /* dispatches counted, timed or not */
	uint64_t total_ns;    /* sum of kernel totals */
	uint64_t min_ns;      /* 0 when no events */
	uint64_t max_ns;
	double avg_ns;
};

/* Computes the summary over every kernel row of @p. */
struct hesper_profile_summary hesper_profile_summary(const struct hesper_profile *p);

#endif
