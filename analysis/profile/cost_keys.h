/*
 * The numbers of the JSON summary's "hesper" object (what Hesper itself cost and did), in
 * the order the writer puts them: the one list the writer (write/report_json.c), the reader
 * (read/summary_load.c) and `hesper merge` (tools/profile_merge.c) take them from.
 * COST_KEY(member of struct hesper_profile, key, how)
 *   SUM: read back, and added up when runs are merged
 *   RUN: this run's own, written only (the trace's counts: a summary read back has no trace)
 */
#ifndef HESPER_COST_KEYS_H
#define HESPER_COST_KEYS_H

#define HESPER_COST_KEYS(COST_KEY)                              \
	COST_KEY(timestamps_written, "timestamps_written", SUM) \
	COST_KEY(hook_ns, "hook_ns", SUM)                       \
	COST_KEY(submit_hook_ns, "submit_hook_ns", SUM)         \
	COST_KEY(collector_ns, "collector_ns", SUM)             \
	COST_KEY(collected, "collected", SUM)                   \
	COST_KEY(trace.count, "trace_events", RUN)              \
	COST_KEY(trace.left_out, "trace_left_out", RUN)         \
	COST_KEY(copies_ahead, "copies_ahead", SUM)

#endif
