/*
 * Hesper's profiling library: timed GPU work as events, per-kernel statistics, Hesper's
 * reports, and readers of Hesper's own output files.
 *
 *     #include <hesper/profiling.h>
 *     cc app.c $(pkg-config --cflags --libs hesper)
 *
 * The library is libhesper-profiling.so.1 (and libhesper-profiling.a), deliberately not
 * "libhesper": libhesper.so is Hesper's Vulkan layer, the library LD_PRELOAD puts into a
 * profiled program, and a program linked with -lhesper would load the layer into itself.
 * This is the code the layer and the `hesper` command are built on, so a report printed
 * here is the report Hesper prints.
 *
 * Conventions. Times are nanoseconds in uint64_t; names ending in _us and _ms are
 * microseconds and milliseconds in double. Event names are borrowed: the library never
 * copies or frees a name it is given, so a name must live as long as the events (and the
 * groups made from them). Functions returning int (but the _format ones) return
 * HESPER_OK (0) or a negative enum hesper_status. The library never aborts and never prints except to a FILE * it is
 * given; a function that can fail for a reason worth telling writes one line (no newline)
 * into a caller's buffer @err of @err_size bytes (snprintf semantics; NULL or 0: none).
 * It keeps no global state: different objects may be used from different threads.
 * Functions ending in _format write into a buffer with snprintf semantics: they return
 * the length of the whole text (which fits when it is less than @size), and durations in
 * the text have four significant digits with a unit of ns, µs (UTF-8), ms or s.
 */
#ifndef HESPER_PROFILING_H
#define HESPER_PROFILING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define HESPER_API __attribute__((visibility("default")))
#else
#define HESPER_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Return values of the functions that return int. */
enum hesper_status {
	HESPER_OK = 0,
	HESPER_ERROR_IO = -1,        /* a file could not be opened, read or written */
	HESPER_ERROR_FORMAT = -2,    /* the file is not the Hesper file asked for */
	HESPER_ERROR_NO_MEMORY = -3, /* memory ran out */
	HESPER_ERROR_ARGUMENT = -4,  /* a required pointer was NULL, or a value out of range */
};

/* One timed piece of GPU work; start and end on one clock, in ns. */
struct hesper_event {
	const char *name; /* kernel name; borrowed, NULL reads as "?" */
	uint64_t start_ns;
	uint64_t end_ns;
};

/*
 * Statistics of a list of events; durations in ms; all 0 for no events. Quantiles are
 * exact here; Hesper's table (hesper_print_report, the layer's report) keeps no list and
 * shows those of a histogram instead, within 1/128 (0.8%) of them.
 */
struct hesper_summary {
	uint64_t total_events;
	double total_duration_ms;
	double min_duration_ms;
	double max_duration_ms;
	double avg_duration_ms;    /* total / events */
	double median_duration_ms; /* nearest rank: the smallest with at least half at or below it */
	double stddev_duration_ms; /* sample standard deviation (n - 1); 0 below two events */
	double p95_duration_ms;
	double p99_duration_ms;
	uint64_t total_duration_ns; /* the exact sum, saturating at UINT64_MAX */
};

/* The events of one kernel name with their summary. */
struct hesper_kernel_group {
	const char *name; /* borrowed from the events (or owned by the array, see readers) */
	struct hesper_summary summary;
	struct hesper_event *events; /* by start (hesper_event_compare); owned by the array */
	size_t n_events;
};

/* Formats of hesper_write_report, the formats Hesper's HESPER_REPORT writes. */
enum hesper_report_format {
	HESPER_REPORT_TEXT,  /* the kernel table Hesper prints */
	HESPER_REPORT_JSON,  /* the "hesper-summary/1" JSON summary */
	HESPER_REPORT_CSV,   /* one row per kernel, RFC 4180 */
	HESPER_REPORT_TRACE, /* Chrome trace-event JSON ("hesper-trace/1") for Perfetto */
	HESPER_REPORT_HTML,  /* one self-contained HTML page */
};

/* What a report says about where its events come from; every field may be NULL or 0. */
struct hesper_report_info {
	const char *program;        /* NULL: this process's name */
	const char *device;         /* GPU name for the device line; NULL: no device line */
	double timestamp_period_ns; /* ns per tick, shown on the device line */
};

/* The library's version, "MAJOR.MINOR.PATCH" (static storage). */
HESPER_API const char *hesper_version(void);

/* A short English description of @status, an enum hesper_status value (static storage). */
HESPER_API const char *hesper_status_string(int status);

/* An event of @name from @start_ns to @end_ns. */
HESPER_API struct hesper_event hesper_event_from_timestamps(const char *name, uint64_t start_ns, uint64_t end_ns);

/*
 * An event from two raw timestamp query values: ticks masked to @timestamp_valid_bits
 * (VkQueueFamilyProperties; 64 or more: all bits), the difference (end - start) & mask
 * so a counter that wrapped once is still right, times @timestamp_period ns per tick
 * (VkPhysicalDeviceLimits) in double, rounded; start_ns is start's ticks in ns. A
 * difference over half the counter's range is an end before its start (duration 0), as
 * are 0 valid bits and a period that is not a positive number.
 */
HESPER_API struct hesper_event hesper_event_from_ticks(const char *name, uint64_t start, uint64_t end,
						       float timestamp_period, uint32_t timestamp_valid_bits);

/* end_ns - start_ns; 0 when the end is before the start. */
HESPER_API uint64_t hesper_event_duration_ns(const struct hesper_event *e);

/* hesper_event_duration_ns in microseconds. */
HESPER_API double hesper_event_duration_us(const struct hesper_event *e);

/* hesper_event_duration_ns in milliseconds. */
HESPER_API double hesper_event_duration_ms(const struct hesper_event *e);

/* qsort() comparator of struct hesper_event: by start_ns, then end_ns. */
HESPER_API int hesper_event_compare(const void *a, const void *b);

/* "NAME: DURATION (start S ns, end E ns)" into @buf (snprintf semantics). */
HESPER_API int hesper_event_format(char *buf, size_t size, const struct hesper_event *e);

/* The summary of @n events (@events may be NULL when @n is 0); needs no memory to succeed. */
HESPER_API struct hesper_summary hesper_summary_from_events(const struct hesper_event *events, size_t n);

/* "N events: total T, avg A, min M, max X, median D, p95 P, p99 Q, stddev S" into @buf (snprintf semantics). */
HESPER_API int hesper_summary_format(char *buf, size_t size, const struct hesper_summary *s);

/*
 * Groups @n events by name (strcmp; NULL is "?") into *@groups: largest total first, then
 * by name; each group's events copied and ordered by start. Returns the number of groups;
 * 0 with *@groups NULL for no events, and also when memory runs out while @n > 0.
 * Free with hesper_kernel_groups_free.
 */
HESPER_API size_t hesper_group_by_kernel(const struct hesper_event *events, size_t n,
					 struct hesper_kernel_group **groups);

/* Frees @n groups from hesper_group_by_kernel or hesper_read_summary, their events and owned names. NULL is fine. */
HESPER_API void hesper_kernel_groups_free(struct hesper_kernel_group *groups, size_t n);

/*
 * Writes Hesper's report of @n events in @format to @out: one kernel row per name, the
 * events as one GPU queue's timeline; @info may be NULL. Returns HESPER_OK, or
 * HESPER_ERROR_IO when writing failed, HESPER_ERROR_NO_MEMORY, HESPER_ERROR_ARGUMENT.
 */
HESPER_API int hesper_write_report(FILE *out, enum hesper_report_format format, const struct hesper_event *events,
				   size_t n, const struct hesper_report_info *info);

/* hesper_write_report(out, HESPER_REPORT_TEXT, events, n, NULL): Hesper's text report. */
HESPER_API int hesper_print_report(FILE *out, const struct hesper_event *events, size_t n);

/*
 * Reads the dispatches of a Chrome trace Hesper wrote (trace:PATH, hesper merge, or
 * HESPER_REPORT_TRACE) into *@events, ordered by start, times in ns on the trace's clock
 * (metadata origin_ns plus ts), names owned by the array. Free with hesper_events_free.
 * Returns HESPER_OK, HESPER_ERROR_IO, HESPER_ERROR_FORMAT (not a Hesper trace), or
 * HESPER_ERROR_NO_MEMORY, with the reason in @err; *@events is NULL and *@n 0 on failure.
 */
HESPER_API int hesper_read_trace(const char *path, struct hesper_event **events, size_t *n, char *err, size_t err_size);

/* Frees an array from hesper_read_trace with its names. NULL is fine. */
HESPER_API void hesper_events_free(struct hesper_event *events);

/*
 * Reads the kernels of a "hesper-summary/1" JSON file (json:PATH, hesper merge, or
 * HESPER_REPORT_JSON) into *@groups in the file's order (largest total first): each
 * summary holds the file's numbers (total_events is the kernel's count; when sampling
 * left some runs untimed, its total is Hesper's estimate), events are NULL and names are
 * owned by the array. Free with hesper_kernel_groups_free. Returns as hesper_read_trace.
 */
HESPER_API int hesper_read_summary(const char *path, struct hesper_kernel_group **groups, size_t *n, char *err,
				   size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
