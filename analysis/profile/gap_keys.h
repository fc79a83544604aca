/*
 * The numbers of one gap of a gpu_idle finding (the finding's "gaps"), in the order the
 * writer puts them: the one list the writer (write/report_json_stats.c) and the reader
 * (read/summary_load_run.c) take their keys from, and the reader its checks. The gap's
 * "doing" follows them, worked out from them (hesper_gap_activity) and not read back.
 * GAP_KEY(member of struct hesper_gap, key, width)
 *   width: U64, or U32 (a larger value is an error)
 */
#ifndef HESPER_GAP_KEYS_H
#define HESPER_GAP_KEYS_H

#define HESPER_GAP_KEYS(GAP_KEY)                     \
	GAP_KEY(start_ns, "start_ns", U64)           \
	GAP_KEY(length_ns, "length_ns", U64)         \
	GAP_KEY(waiting_ns, "waiting_ns", U64)       \
	GAP_KEY(recording_ns, "recording_ns", U64)   \
	GAP_KEY(submitting_ns, "submitting_ns", U64) \
	GAP_KEY(other_ns, "other_ns", U64)           \
	GAP_KEY(thread, "thread", U32)               \
	GAP_KEY(submission, "submission", U64)

#endif
