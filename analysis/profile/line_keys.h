/*
 * The keys of one counted line or block of a kernel's "lines" (HESPER_LINES), in the order
 * the writer puts them: the one list the writer (write/report_json_stats.c) and the reader
 * (read/summary_load_run.c) take their keys from, and the reader its checks.
 * LINE_KEY(member of struct hesper_hot_line, key, kind, when)
 *   TEXT:   a bounded string member
 *   CODE:   the block's SPIR-V, a longer string
 *   U32:    a number; past 2^32 - 1 an error
 *   U64:    a count
 *   SHARE:  a share of the kernel's clock time, within [0, 1]
 *   CYCLES: clock ticks, not negative
 *   when: ALWAYS, or SET (written when not empty)
 */
#ifndef HESPER_LINE_KEYS_H
#define HESPER_LINE_KEYS_H

#define HESPER_LINE_KEYS(LINE_KEY)                      \
	LINE_KEY(file, "file", TEXT, ALWAYS)            \
	LINE_KEY(line, "line", U32, ALWAYS)             \
	LINE_KEY(share, "share", SHARE, ALWAYS)         \
	LINE_KEY(ticks, "cycles", CYCLES, ALWAYS)       \
	LINE_KEY(executions, "executions", U64, ALWAYS) \
	LINE_KEY(block, "block", TEXT, SET)             \
	LINE_KEY(code, "code", CODE, SET)

#endif
