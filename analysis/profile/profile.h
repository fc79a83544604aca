/*
 * Everything one profiled process produced: devices, per-kernel and per-region rows,
 * submissions, GPU busy time, and Hesper's own counters. Reports are written from it.
 */
#ifndef HESPER_PROFILE_H
#define HESPER_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "timeline/timeline.h"

#define HESPER_NAME_MAX 256

/*
 * A label path: the debug labels open around a region or dispatch, outermost first, joined
 * by HESPER_LABEL_PATH_SEP ("frame\x1fpass_b"); a "path/kernel" row of label_kernels joins
 * the path and the kernel by HESPER_LABEL_KERNEL_SEP. Neither occurs in the labels of a path.
 */
#define HESPER_LABEL_PATH_SEP '\x1f'
#define HESPER_LABEL_KERNEL_SEP '\x1e'

/* The innermost label of label path @path: the text after its last separator (a suffix of @path). */
const char *hesper_label_path_leaf(const char *path);

struct hesper_device_info {
	char name[HESPER_NAME_MAX];
	char driver[HESPER_NAME_MAX];
	double timestamp_period_ns;
	char copy[8];               /* how its timestamps were read back: "wait" or "host" ("" unknown) */
	char timing[160];           /* clock mode: "clock", or "timestamps: <why>" ("" in other modes) */
	double clock_error_ns;      /* clock mode: bound of the clock-to-timestamp mapping at calibration */
	double clock_ticks_per_us;  /* clock mode: device clock ticks per microsecond, as calibrated; 0 unknown */
	uint64_t dispatch_cost_ns;  /* GPU time of one empty dispatch between timestamps; 0 unmeasured */
	uint64_t timestamp_cost_ns; /* GPU time a timestamp after each back-to-back dispatch adds; 0 unmeasured */
	uint32_t compute_units;     /* SMs or CUs when the driver tells (NV/AMD core properties); 0 unknown */
	/* pipeline statistics: one of HESPER_STATS_* (pipeline_stats.h), "" not known */
	char pipeline_stats[32];
	struct hesper_occupancy_model occupancy; /* its SMs' resources; no vendor (and maybe a why): no model */
};

/* Clock mode: a kernel timed with timestamps instead of the shader clock, and why. */
struct hesper_clock_note {
	char kernel[HESPER_NAME_MAX];
	char why[128];
};

/* Gaps kept per queue: the largest idle times between consecutive batches. */
#define HESPER_TOP_GAPS 5

/* One idle time of a queue between two batches, and what the submitting thread did meanwhile. */
struct hesper_gap {
	uint64_t start_ns; /* host CLOCK_MONOTONIC when the GPU went idle; 0 when not placed */
	uint64_t length_ns;
	uint64_t waiting_ns;    /* the thread was in a Vulkan wait (host_waits) */
	uint64_t recording_ns;  /* the thread was recording command buffers */
	uint64_t submitting_ns; /* in the submit call, or submitted and the GPU not started yet */
	uint64_t other_ns;      /* nothing Vulkan that Hesper sees */
	uint32_t thread;        /* the thread that submitted the batch after the gap */
	uint64_t submission;    /* that submission's number on its queue */
};

/* GPU busy time of one queue: the union of the intervals its command buffers ran. */
struct hesper_queue_info {
	uint32_t device; /* index into devices */
	uint32_t family;
	uint32_t index;
	uint32_t timestamp_bits;
	uint64_t submits; /* batches submitted */
	uint64_t busy_ns;
	uint64_t submit_calls;  /* vkQueueSubmit* calls harvested */
	uint64_t round_trips;   /* submit calls followed by a host wait for that very work before the next */
	uint64_t timed_batches; /* batches with a GPU span (the gaps are between these) */
	uint64_t idle_ns;       /* sum of the gaps between consecutive timed batches */
	uint64_t gpu_span_ns;   /* first timed batch's start to the last one's end */
	struct hesper_gap gaps[HESPER_TOP_GAPS]; /* the largest gaps, largest first */
	uint32_t gap_count;
};

/* The Vulkan calls in which a program's thread waits (host_waits rows). */
enum hesper_wait_call {
	HESPER_WAIT_QUEUE_IDLE,    /* vkQueueWaitIdle */
	HESPER_WAIT_DEVICE_IDLE,   /* vkDeviceWaitIdle */
	HESPER_WAIT_FENCES,        /* vkWaitForFences */
	HESPER_WAIT_SEMAPHORES,    /* vkWaitSemaphores(KHR) */
	HESPER_WAIT_QUERY_RESULTS, /* vkGetQueryPoolResults with VK_QUERY_RESULT_WAIT_BIT */
	HESPER_WAIT_FENCE_POLL,    /* vkGetFenceStatus polled until the fence signalled */
	HESPER_WAIT_CALLS,
};

/* One (thread, call) row of host waits. */
struct hesper_host_wait {
	uint32_t thread; /* the thread's id */
	uint32_t call;   /* enum hesper_wait_call */
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
};

/* The capture window (HESPER_START / HESPER_STOP), as the report states it. */
struct hesper_capture_info {
	bool set;                         /* a window was asked for; nothing below is written otherwise */
	char start[HESPER_NAME_MAX + 32]; /* as given: "2.500 s", "label:step"; "" = at the start */
	char stop[HESPER_NAME_MAX + 32];  /* "1.000 s", "label:step#3"; "" = never */
	bool opened, closed;
	uint64_t opened_ns, closed_ns; /* host time since the process start, when they happened */
	uint64_t end_ns;               /* since the start: the latest end of GPU work inside; 0 unknown */
	uint64_t outside;              /* dispatches counted outside the window (not timed, in no table) */
	uint64_t memops_outside;       /* memory operations likewise */
	uint64_t submissions_outside;  /* submit calls with nothing inside the window */
};

/*
 * The window's wall time: from its opening to its close, or to the later end of the GPU
 * work inside it, or to the report at @report_ns (since the start) while it is open; 0 when
 * it never opened.
 */
uint64_t hesper_capture_wall_ns(const struct hesper_capture_info *c, uint64_t report_ns);

/* Which report this is: the exit report, or one written while the program runs. */
struct hesper_report_kind {
	bool live;          /* reports are written while the program runs: the JSON says which this is */
	bool partial;       /* written while the program runs (HESPER_INTERVAL, on demand) */
	uint64_t number;    /* reports written before this one, in this process */
	const char *reason; /* partial: "interval", "signal" or "control"; NULL otherwise */
	const char *signal; /* the exit report of a process a signal ends: its name ("SIGSEGV"); NULL otherwise */
	char *owned[2]; /* read back from a summary: the copies @reason and @signal point to, freed with the profile */
};

struct hesper_profile {
	int pid;
	char exe[HESPER_NAME_MAX];
	char host[HESPER_NAME_MAX];
	char mode[32];                 /* "dispatch", "submit" or "clock" */
	uint32_t sample_every;         /* 1 = every execution timed */
	enum hesper_group_by group_by; /* what a row of kernels is: a kernel, or one launch shape or label of it */

	struct hesper_device_info *devices;
	size_t device_count;
	struct hesper_queue_info *queues;
	size_t queue_count;

	uint64_t wall_ns;                          /* process wall time up to the report */
	struct hesper_kernel_table *kernels;       /* one row per kernel */
	struct hesper_kernel_table *regions;       /* one row per debug-utils label range */
	struct hesper_kernel_table *labelled;      /* kernel rows prefixed "label/kernel" by innermost label */
	struct hesper_kernel_table *label_paths;   /* one row per label path (HESPER_LABEL_PATH_SEP): its instances */
	struct hesper_kernel_table *label_kernels; /* one row per (innermost label path, kernel) that ran in it */
	/* HESPER_GROUP_BY=shape or label: one row per kernel that the kernels table's rows split, counted */
	struct hesper_kernel_table *row_kernels;
	struct hesper_stats submits; /* span of each timed batch */
	struct hesper_memops memops; /* copies, fills, updates, clears: one row per kind (memops.h) */

	uint64_t dropped; /* dispatches that ran but could not be timed */
	/* dropped by cause: they add up to dropped, but in a summary written before causes were kept */
	uint64_t dropped_by[HESPER_DROP_CAUSES];
	uint64_t clamped;            /* intervals that came back zero or negative: counted, not timed */
	uint64_t clock_isolated;     /* clock mode: dispatches timed from barrier to barrier, not by the clock */
	uint64_t timestamps_written; /* queries Hesper wrote on the GPU */
	uint64_t hook_ns;            /* host time spent inside Hesper's hooks */
	uint64_t submit_hook_ns;     /* the part of it spent in the submit hooks */
	uint64_t collector_ns;       /* host time the collector spent turning results into events */
	uint64_t collected;          /* timed dispatches the collector processed */
	uint64_t copies_ahead;       /* submissions whose copy ran ahead of the timestamp writes */

	struct hesper_clock_note *clock_notes; /* clock mode: kernels that fell back to timestamps */
	size_t clock_note_count;
	struct hesper_pipeline_stats *pipeline_stats; /* per kernel, in the order first bound */
	size_t pipeline_stats_count;
	struct hesper_kernel_lines *kernel_lines; /* per kernel whose lines were counted, in the order kept */
	size_t kernel_lines_count;

	struct hesper_host_wait *host_waits; /* per thread and call, by thread then call */
	size_t host_wait_count;
	struct hesper_kernel_table *underfilled;  /* per kernel: count = dispatches with fewer work groups than
						    compute units, timed = their time the idle units could have used */
	struct hesper_findings_settings findings; /* thresholds */
	bool findings_ready;                      /* the aggregates behind findings were gathered (a live run) */
	struct hesper_finding *loaded_findings;   /* read back from a summary (summary_load.c): reported as they are */
	size_t loaded_finding_count;
	bool findings_loaded; /* the summary read back had "findings" (and "host_waits") */

	struct hesper_trace trace; /* timeline events, for the trace and HTML reports */
	/* Where hesper_profile_add_work hands the timeline events of traced work (NULL: nowhere). */
	void (*keep_event)(struct hesper_profile *p, const struct hesper_trace_event *e);
	bool from_events;                   /* built from a program's own events (profile_events.c): no mode, no cost */
	struct hesper_capture_info capture; /* the capture window, when one was asked for */
	struct hesper_report_kind report;   /* which report this is (the exit report when zero) */
};

/* A kernel's hot lines: its counted blocks attributed to source lines (model/hot_lines.h). */
struct hesper_kernel_lines {
	char *kernel;
	struct hesper_hot_line *lines; /* largest clock time first */
	size_t count;
	uint64_t dispatches; /* the counted dispatches the lines' figures are summed over */
	char *source_file;   /* the file of its hottest line, when its text is known; else NULL */
	char *source;        /* that file's text, for the annotated listing; NULL with it */
	char *source_read;   /* the file the text was read from (HESPER_SOURCE_PATH); NULL: the module's own */
};

/* Initialises @p empty (tables allocated); returns 0, or -1 when memory runs out. */
int hesper_profile_init(struct hesper_profile *p);

/* Frees everything @p holds. */
void hesper_profile_free(struct hesper_profile *p);

/* Notes that @kernel was timed with timestamps in clock mode because of @why (once per kernel); 0, or -1 out of memory. */
int hesper_profile_add_clock_note(struct hesper_profile *p, const char *kernel, const char *why);

/*
 * Keeps the pipeline statistics @s of kernel s->kernel: added to the set of that kernel with
 * the same figures (its dispatches too), or kept as a new set, numbered after the kernel's
 * sets so far. Returns the set's variant (0 for a kernel's first), or -1 out of memory.
 */
int hesper_profile_add_pipeline_stats(struct hesper_profile *p, const struct hesper_pipeline_stats *s);

/*
 * Keeps @kernel's hot lines, copies of the @n @lines counted over @dispatches, in place of
 * any it had. Returns 0, or -1 when memory runs out (what it had is kept).
 */
int hesper_profile_set_lines(struct hesper_profile *p, const char *kernel, const struct hesper_hot_line *lines,
			     size_t n, uint64_t dispatches);

/*
 * Gives kernel @kernel's lines (set before) the text @text of source file @file, copied
 * (NULL @file or @text: none), read from file @read_from (NULL: the module holds the text).
 * Returns 0 (also when the kernel has no lines), or -1 when memory runs out (the kernel then
 * has no text).
 */
int hesper_profile_set_source(struct hesper_profile *p, const char *kernel, const char *file, const char *text,
			      const char *read_from);

/* How many sets of pipeline statistics @p has of kernel @kernel (hesper_profile_add_pipeline_stats). */
size_t hesper_profile_stats_sets(const struct hesper_profile *p, const char *kernel);

/* Whether device @d said that its driver has no pipeline statistics (HESPER_STATS_NOT_OFFERED). */
bool hesper_device_lacks_stats(const struct hesper_device_info *d);

/* Whether the reports have pipeline statistics to show: some kernel's, or a device lacking them. */
bool hesper_profile_shows_stats(const struct hesper_profile *p);

/* Appends a device; returns its index, or -1 when memory runs out. */
int hesper_profile_add_device(struct hesper_profile *p, const struct hesper_device_info *d);

/* The queue row for (device, family, index), added on first use; NULL when out of memory. */
struct hesper_queue_info *hesper_profile_queue(struct hesper_profile *p, uint32_t device, uint32_t family,
					       uint32_t index);

/* Keeps @g among @q's largest gaps (HESPER_TOP_GAPS, largest first). */
void hesper_gaps_keep(struct hesper_queue_info *q, const struct hesper_gap *g);

/* Adds @count waits of @call on @thread lasting @total_ns (longest @max_ns); 0, or -1 when memory runs out. */
int hesper_profile_add_host_wait(struct hesper_profile *p, uint32_t thread, enum hesper_wait_call call, uint64_t count,
				 uint64_t total_ns, uint64_t max_ns);

/* What a struct hesper_work is. */
enum hesper_work_kind {
	HESPER_WORK_DISPATCH,  /* compute dispatches of kernel @name */
	HESPER_WORK_MEMORY_OP, /* memory operations of kind @memop: copies, fills, updates, clears */
	HESPER_WORK_REGION,    /* runs of the debug-label region @name */
	HESPER_WORK_BATCH, /* one batch of command buffers on queue @queue, timed from its first start to its last end */
};

/*
 * The rows a kernel's dispatches are counted in, found by hesper_profile_add_work and kept by
 * its caller for the next (NULL: not found yet): @kernel and @underfilled for any dispatch of
 * the kernel, @labelled for those under the same label. Grouped by shape or label, @kernel
 * and @underfilled hold for the next dispatch only when @keyed and its shape and label are
 * the ones they were found for.
 */
struct hesper_work_rows {
	struct hesper_kernel *kernel;      /* in kernels */
	struct hesper_kernel *labelled;    /* "label/kernel" in labelled */
	struct hesper_kernel *pathed;      /* "path<KERNEL_SEP>kernel" in label_kernels */
	struct hesper_kernel *underfilled; /* in underfilled */
	bool keyed;                        /* grouped: the key below is what @kernel was found for */
	bool key_known;                    /* its work-group counts were known */
	uint32_t key_groups[3];
	const char *key_label; /* its label, compared by address (interned) */
};

/*
 * Where a timed piece of work ran, for the timeline: its queue and its start on the host's
 * clock. Its end is the start plus its time (the work's @ns), so the timeline and the
 * statistics hold the same interval.
 */
struct hesper_work_place {
	bool traced;             /* shown on the timeline; false: counted only */
	uint32_t device, queue;  /* indices into the profile's devices and queues */
	uint64_t start_ns;       /* host CLOCK_MONOTONIC */
	uint64_t command_buffer; /* VkCommandBuffer handle value, 0 if none */
	uint64_t submission;     /* submission number on its queue */
};

/* One finished piece of GPU work, or @count alike whose time is unknown (hesper_profile_add_work). */
struct hesper_work {
	enum hesper_work_kind kind;
	uint64_t count; /* how many alike (1 when @timed) */
	bool timed;     /* @ns is its GPU time */
	uint64_t ns;
	/*
	 * Timed, but its interval came back zero or negative: counted (in clamped too), its time
	 * left out of the statistics and totals as an untimed one's, since 0 ns is no measurement.
	 */
	bool clamped;
	bool has_share;             /* DISPATCH, timed: @share_ns is set (else its share is @ns) */
	uint64_t share_ns;          /* DISPATCH: its share of the GPU time, when it overlapped others (overlap.h) */
	bool dropped;               /* not timed though it was meant to be: counted as dropped too */
	enum hesper_drop_cause why; /* @dropped: why */
	const char *name;           /* DISPATCH: the kernel; REGION: the label */
	const char *label;          /* DISPATCH: the innermost debug label around it, or NULL */
	const char *label_path;     /* DISPATCH: the path of @label; REGION: its own path (NULL: not counted by path) */
	struct hesper_work_rows *rows; /* DISPATCH: the caller's rows for @name and @label, or NULL (looked up) */
	uint32_t groups[3];            /* DISPATCH: work-group counts; 0 0 0 unknown (indirect, not read back) */
	bool groups_read_back;  /* DISPATCH: @groups were read back from an indirect dispatch: known even when 0 0 0 */
	uint32_t local_size[3]; /* DISPATCH: the work-group size; 0 0 0 unknown */
	bool local_size_varies; /* DISPATCH: pipelines of this name have different work-group sizes */
	uint32_t compute_units; /* DISPATCH: of its device; fewer work groups is under-filled (0: not counted so) */
	uint32_t stats_set; /* DISPATCH: 1 + the variant of its kernel's pipeline statistics it ran with; 0 unknown */
	enum hesper_memop_kind memop; /* MEMORY_OP */
	uint64_t bytes;               /* MEMORY_OP: the bytes each one moved */
	bool sized;                   /* MEMORY_OP: @bytes are known */
	uint32_t queue;               /* BATCH: index into queues */
	const struct hesper_gap *gap; /* BATCH: the queue's idle time before it, or NULL */
	struct hesper_work_place at;  /* timed: where it ran, for the timeline (at.traced) */
};

/*
 * Counts @w in every table and counter of @p it belongs to and, when it was measured (timed,
 * not clamped) and @w->at.traced, hands it to @p->keep_event as one timeline event, named as
 * its row is; 0, or -1 when @w names no memory-operation kind or queue of @p, or memory ran
 * out for one of its rows (the others count it).
 */
int hesper_profile_add_work(struct hesper_profile *p, const struct hesper_work *w);

/*
 * The row of kernels that dispatch @w (a DISPATCH) is counted in under @p's group_by, added
 * empty on first use; NULL when memory runs out. Its name outlives the trace (rows are never
 * removed), so timeline events may carry it.
 */
struct hesper_kernel *hesper_profile_dispatch_row(struct hesper_profile *p, const struct hesper_work *w);

/*
 * The share of @compute_units left without a work group by a dispatch of @groups (x*y*z):
 * 0 when it fills them, when the size is unknown (any 0: indirect) or the units are (0).
 */
double hesper_underfill_share(const uint32_t groups[3], uint32_t compute_units);

/* The Vulkan name of @call ("vkWaitForFences"), "?" when out of range. */
const char *hesper_wait_call_name(uint32_t call);

/* Sum of busy time over all queues. */
uint64_t hesper_profile_gpu_busy_ns(const struct hesper_profile *p);

/* The wall time the GPU busy time is a share of: the capture window's when there is one, else the run's. */
uint64_t hesper_profile_busy_wall_ns(const struct hesper_profile *p);

/*
 * How many kernels @p's @rows kernel-table rows are of: @rows when a row is a kernel, the
 * kernels the rows split under HESPER_GROUP_BY=shape or label (@rows when that is unknown:
 * a summary written before it was kept).
 */
size_t hesper_profile_kernel_count(const struct hesper_profile *p, size_t rows);

/* The overall summary of all timed dispatches (the seed's ProfileSummary). */
struct hesper_profile_summary {
	uint64_t events;     /* timed dispatches */
	uint64_t dispatches; /* dispatches counted, timed or not */
	uint64_t total_ns;   /* sum of kernel totals (hesper_kernel_total_ns: shares) */
	uint64_t min_ns;     /* 0 when no events */
	uint64_t max_ns;
	double avg_ns;
};

/* Computes the summary over every kernel row of @p. */
struct hesper_profile_summary hesper_profile_summary(const struct hesper_profile *p);

/*
 * profile.h is the face of analysis/profile/ too: what is derived from a profile alone
 * (each declared against the profile above).
 */
#include "capture_keys.h"
#include "cost_keys.h"
#include "device_keys.h"
#include "finding_keys.h"
#include "gap_keys.h"
#include "kernel_occupancy.h"
#include "line_keys.h"
#include "memop_keys.h"
#include "pipeline_keys.h"
#include "queue_keys.h"
#include "profile_events.h"
#include "region_tree.h"
#include "shape_keys.h"
#include "summary_keys.h"
#include "wait_keys.h"

#endif
