/*
 * The keys of a row of the JSON summary's "host_waits" (one thread's waits in one call), in
 * the order the writer puts them: the one list the writer (write/report_json_stats.c) and
 * the reader (read/summary_load_devices.c) take their keys from, and the reader its checks.
 * WAIT_KEY(member of struct hesper_host_wait, key, kind)
 *   U32, U64: a number; a U32 past 2^32 - 1 is an error
 *   CALL:     the call's name (hesper_wait_call_name); a row of a call Hesper does not know is skipped
 */
#ifndef HESPER_WAIT_KEYS_H
#define HESPER_WAIT_KEYS_H

#define HESPER_WAIT_KEYS(WAIT_KEY)          \
	WAIT_KEY(thread, "thread", U32)     \
	WAIT_KEY(call, "call", CALL)        \
	WAIT_KEY(count, "count", U64)       \
	WAIT_KEY(total_ns, "total_ns", U64) \
	WAIT_KEY(max_ns, "max_ns", U64)

#endif
