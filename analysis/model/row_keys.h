/*
 * The numbers of a kernel or region row of the JSON summary (hesper-summary/1), in the
 * order the writer puts a kernel's: the one list the writer (write/report_json.c) and the
 * reader that `hesper report` and `hesper diff` share (read/summary_load.c) take their
 * keys from, and the reader its checks (a count or a time).
 * ROW_KEY(identifier, key, whole: a count of dispatches rather than a time in ns)
 */
#ifndef HESPER_ROW_KEYS_H
#define HESPER_ROW_KEYS_H

#include <stdbool.h>

#define HESPER_ROW_KEYS(ROW_KEY)            \
	ROW_KEY(COUNT, "count", true)       \
	ROW_KEY(TOTAL, "total_ns", false)   \
	ROW_KEY(MEAN, "mean_ns", false)     \
	ROW_KEY(MEDIAN, "median_ns", false) \
	ROW_KEY(MIN, "min_ns", false)       \
	ROW_KEY(MAX, "max_ns", false)       \
	ROW_KEY(STDDEV, "stddev_ns", false) \
	ROW_KEY(P95, "p95_ns", false)       \
	ROW_KEY(P99, "p99_ns", false)       \
	ROW_KEY(TIMED, "timed", true)       \
	ROW_KEY(SPAN_TOTAL, "span_total_ns", false)

enum hesper_row_key {
#define HESPER_ROW_KEY_ENUM(id, key, whole) HESPER_ROW_##id,
	HESPER_ROW_KEYS(HESPER_ROW_KEY_ENUM)
#undef HESPER_ROW_KEY_ENUM
		HESPER_ROW_KEY_COUNT
};

/* The JSON key of @k. */
static inline const char *
hesper_row_key(enum hesper_row_key k)
{
	switch (k) {
#define HESPER_ROW_KEY_NAME(id, key, whole) \
	case HESPER_ROW_##id: return key;
		HESPER_ROW_KEYS(HESPER_ROW_KEY_NAME)
#undef HESPER_ROW_KEY_NAME
	default: return "";
	}
}

/* Whether @k counts dispatches (a whole number) rather than nanoseconds. */
static inline bool
hesper_row_key_whole(enum hesper_row_key k)
{
	switch (k) {
#define HESPER_ROW_KEY_WHOLE(id, key, whole) \
	case HESPER_ROW_##id: return whole;
		HESPER_ROW_KEYS(HESPER_ROW_KEY_WHOLE)
#undef HESPER_ROW_KEY_WHOLE
	default: return false;
	}
}

#endif
