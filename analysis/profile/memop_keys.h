/*
 * The keys of a "memory_operations" row after a kernel row's (row_keys.h), in the order the
 * writer puts them: the one list the writer (write/report_json.c) and the reader
 * (read/summary_load.c) take their keys from, and the reader its checks.
 * MEMOP_KEY(member of struct hesper_memop_row, key, kind)
 *   U64:  a count of bytes or operations
 *   REAL: a rate in GB/s
 *   MEAN: the timed bytes over the timed time, written and not read (worked out again)
 */
#ifndef HESPER_MEMOP_KEYS_H
#define HESPER_MEMOP_KEYS_H

#define HESPER_MEMOP_KEYS(MEMOP_KEY)               \
	MEMOP_KEY(bytes, "bytes", U64)             \
	MEMOP_KEY(timed_bytes, "timed_bytes", U64) \
	MEMOP_KEY(unsized, "unsized", U64)         \
	MEMOP_KEY(bytes, "mean_gbps", MEAN)        \
	MEMOP_KEY(best_gbps, "best_gbps", REAL)

#endif
