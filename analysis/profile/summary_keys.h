/*
 * The members of the JSON summary (hesper-summary/1) that have no list of their own: its top
 * level in the order the writer puts it, and the members of those members that are written
 * by hand (the process; a device's occupancy model's vendor or why; a row's name, in every
 * table of rows; a kernel row's launch shapes; a pipeline's occupancy, written and not read;
 * the clock's fallbacks; a kernel's counted lines and its source; the submit calls; the
 * report's kind; a region tree node; what a gap's thread did, written and not read). The one
 * list the writer (write/report_json*.c) and the reader (read/summary_load*.c) take these
 * keys from; test_report_json holds the writer's top level to this order. A row's numbers,
 * a device, a queue, a gap, a finding, a host wait, a pipeline's statistics, a counted line,
 * launch shapes, a memory operation, the capture window and Hesper's costs have lists of
 * their own (model/row_keys.h and the key lists beside this one).
 * SUMMARY_KEY(id, key, in)
 *   in: TOP (the document), or the id of the member it is a key of
 */
#ifndef HESPER_SUMMARY_KEYS_H
#define HESPER_SUMMARY_KEYS_H

#include <stdbool.h>

#define HESPER_SUMMARY_KEYS(SUMMARY_KEY)                                      \
	SUMMARY_KEY(SCHEMA, "schema", TOP)                                    \
	SUMMARY_KEY(PROCESS, "process", TOP)                                  \
	SUMMARY_KEY(PID, "pid", PROCESS)                                      \
	SUMMARY_KEY(EXE, "exe", PROCESS)                                      \
	SUMMARY_KEY(HOST, "host", PROCESS)                                    \
	SUMMARY_KEY(DEVICES, "devices", TOP)                                  \
	SUMMARY_KEY(MODEL_VENDOR, "vendor", DEVICES)                          \
	SUMMARY_KEY(MODEL_WHY, "why", DEVICES)                                \
	SUMMARY_KEY(WALL_NS, "wall_ns", TOP)                                  \
	SUMMARY_KEY(GPU_BUSY_NS, "gpu_busy_ns", TOP)                          \
	SUMMARY_KEY(KERNELS, "kernels", TOP)                                  \
	SUMMARY_KEY(ROW_NAME, "name", KERNELS)                                \
	SUMMARY_KEY(KERNEL_GROUPS, "groups", KERNELS)                         \
	SUMMARY_KEY(KERNEL_LOCAL_SIZE, "local_size", KERNELS)                 \
	SUMMARY_KEY(KERNEL_STATS_VARIANT, "stats_variant", KERNELS)           \
	SUMMARY_KEY(REGIONS, "regions", TOP)                                  \
	SUMMARY_KEY(CLOCK_FALLBACKS, "clock_fallbacks", TOP)                  \
	SUMMARY_KEY(FALLBACK_KERNEL, "kernel", CLOCK_FALLBACKS)               \
	SUMMARY_KEY(FALLBACK_WHY, "why", CLOCK_FALLBACKS)                     \
	SUMMARY_KEY(CLOCK_ISOLATED, "clock_isolated", TOP)                    \
	SUMMARY_KEY(PIPELINE_STATS, "pipeline_stats", TOP)                    \
	SUMMARY_KEY(OCCUPANCY_SHARE, "share", PIPELINE_STATS)                 \
	SUMMARY_KEY(OCCUPANCY_WARPS, "warps_per_sm", PIPELINE_STATS)          \
	SUMMARY_KEY(OCCUPANCY_GROUPS, "groups_per_sm", PIPELINE_STATS)        \
	SUMMARY_KEY(OCCUPANCY_DEVICE_GROUPS, "device_groups", PIPELINE_STATS) \
	SUMMARY_KEY(OCCUPANCY_LIMIT, "limit", PIPELINE_STATS)                 \
	SUMMARY_KEY(OCCUPANCY_AT_MOST, "at_most", PIPELINE_STATS)             \
	SUMMARY_KEY(OCCUPANCY_WHY, "why", PIPELINE_STATS)                     \
	SUMMARY_KEY(LINES, "lines", TOP)                                      \
	SUMMARY_KEY(LINES_KERNEL, "kernel", LINES)                            \
	SUMMARY_KEY(LINES_DISPATCHES, "dispatches", LINES)                    \
	SUMMARY_KEY(LINES_ROWS, "lines", LINES)                               \
	SUMMARY_KEY(LINES_SOURCE, "source", LINES)                            \
	SUMMARY_KEY(SOURCE_FILE, "file", LINES_SOURCE)                        \
	SUMMARY_KEY(SOURCE_TEXT, "text", LINES_SOURCE)                        \
	SUMMARY_KEY(SOURCE_READ_FROM, "read_from", LINES_SOURCE)              \
	SUMMARY_KEY(SUBMITS, "submits", TOP)                                  \
	SUMMARY_KEY(SUBMITS_COUNT, "count", SUBMITS)                          \
	SUMMARY_KEY(SUBMITS_TOTAL_NS, "total_ns", SUBMITS)                    \
	SUMMARY_KEY(DROPPED, "dropped", TOP)                                  \
	SUMMARY_KEY(DROPPED_CAUSES, "dropped_causes", TOP)                    \
	SUMMARY_KEY(QUEUES, "queues", TOP)                                    \
	SUMMARY_KEY(CLAMPED, "clamped", TOP)                                  \
	SUMMARY_KEY(MODE, "mode", TOP)                                        \
	SUMMARY_KEY(SAMPLE_EVERY, "sample_every", TOP)                        \
	SUMMARY_KEY(GROUP_BY, "group_by", TOP)                                \
	SUMMARY_KEY(KERNEL_NAMES, "kernel_names", TOP)                        \
	SUMMARY_KEY(HESPER, "hesper", TOP)                                    \
	SUMMARY_KEY(REPORT, "report", TOP)                                    \
	SUMMARY_KEY(REPORT_FINAL, "final", REPORT)                            \
	SUMMARY_KEY(REPORT_NUMBER, "number", REPORT)                          \
	SUMMARY_KEY(REPORT_REASON, "reason", REPORT)                          \
	SUMMARY_KEY(ENDED_BY_SIGNAL, "ended_by_signal", TOP)                  \
	SUMMARY_KEY(CAPTURE, "capture", TOP)                                  \
	SUMMARY_KEY(HOST_WAITS, "host_waits", TOP)                            \
	SUMMARY_KEY(FINDINGS, "findings", TOP)                                \
	SUMMARY_KEY(GAP_DOING, "doing", FINDINGS)                             \
	SUMMARY_KEY(REGION_TREE, "region_tree", TOP)                          \
	SUMMARY_KEY(NODE_NAME, "name", REGION_TREE)                           \
	SUMMARY_KEY(NODE_PATH, "path", REGION_TREE)                           \
	SUMMARY_KEY(NODE_DEPTH, "depth", REGION_TREE)                         \
	SUMMARY_KEY(NODE_KERNELS, "kernels", REGION_TREE)                     \
	SUMMARY_KEY(KERNELS_BY_LABEL, "kernels_by_label", TOP)                \
	SUMMARY_KEY(MEMORY_OPERATIONS, "memory_operations", TOP)

enum hesper_summary_key {
#define HESPER_SUMMARY_KEY_ENUM(id, key, in) HESPER_SUMMARY_##id,
	HESPER_SUMMARY_KEYS(HESPER_SUMMARY_KEY_ENUM)
#undef HESPER_SUMMARY_KEY_ENUM
		HESPER_SUMMARY_KEY_COUNT
};

/* The JSON key of @k. */
static inline const char *
hesper_summary_key(enum hesper_summary_key k)
{
	switch (k) {
#define HESPER_SUMMARY_KEY_NAME(id, key, in) \
	case HESPER_SUMMARY_##id: return key;
		HESPER_SUMMARY_KEYS(HESPER_SUMMARY_KEY_NAME)
#undef HESPER_SUMMARY_KEY_NAME
	default: return "";
	}
}

/* Whether a key is in the document itself, by its list's "in". */
#define HESPER_SUMMARY_IS_TOP true
#define HESPER_SUMMARY_IS_PROCESS false
#define HESPER_SUMMARY_IS_CLOCK_FALLBACKS false
#define HESPER_SUMMARY_IS_SUBMITS false
#define HESPER_SUMMARY_IS_REPORT false
#define HESPER_SUMMARY_IS_KERNELS false
#define HESPER_SUMMARY_IS_FINDINGS false
#define HESPER_SUMMARY_IS_DEVICES false
#define HESPER_SUMMARY_IS_PIPELINE_STATS false
#define HESPER_SUMMARY_IS_LINES false
#define HESPER_SUMMARY_IS_LINES_SOURCE false
#define HESPER_SUMMARY_IS_REGION_TREE false

/* Whether @k is a member of the document itself (not of one of its members). */
static inline bool
hesper_summary_key_top(enum hesper_summary_key k)
{
	switch (k) {
#define HESPER_SUMMARY_KEY_TOP(id, key, in) \
	case HESPER_SUMMARY_##id: return HESPER_SUMMARY_IS_##in;
		HESPER_SUMMARY_KEYS(HESPER_SUMMARY_KEY_TOP)
#undef HESPER_SUMMARY_KEY_TOP
	default: return false;
	}
}

#endif
