/*
 * What the summary reader's files share (summary_load.c: the document, process and rows;
 * summary_load_devices.c: devices, queues and host waits; summary_load_run.c: findings,
 * clock mode, pipeline statistics, the report's kind and the capture window): the loader's
 * error reporting and the members read with one strictness.
 */
#ifndef HESPER_SUMMARY_LOAD_PARTS_H
#define HESPER_SUMMARY_LOAD_PARTS_H

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hesper/profiling.h>

#include "json_file.h"
#include "profile/profile.h"

struct loader {
	const char *path;
	char *err;
	size_t err_size;
};

#define FAIL(l, status, ...) hesper_json_file_fail((status), (l)->path, (l)->err, (l)->err_size, __VA_ARGS__)
#define BAD(l, ...) FAIL(l, HESPER_ERROR_FORMAT, __VA_ARGS__)
#define NO_MEMORY(l) FAIL(l, HESPER_ERROR_NO_MEMORY, "out of memory")

/* The key of a member that has no list of its own but the summary's (profile/summary_keys.h). */
#define KEY(id) hesper_summary_key(HESPER_SUMMARY_##id)

/* An unsigned integer member; @def when absent. An error when present but not a number >= 0. */
static inline int
get_u64(struct loader *l, json_object *o, const char *where, const char *key, uint64_t def, uint64_t *out)
{
	json_object *v = hesper_json_member(o, key);

	*out = def;
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0 && json_object_get_uint64(v) == 0)
			return BAD(l, "%s: \"%s\" is negative", where, key);
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_double) && json_object_get_double(v) >= 0) {
		double d = json_object_get_double(v);
		*out = d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)llround(d);
		return 0;
	}
	return BAD(l, "%s: \"%s\" is not a number >= 0", where, key);
}

/* get_u64 for a 32-bit field: an error too when the number is past 2^32 - 1. */
static inline int
get_u32(struct loader *l, json_object *o, const char *where, const char *key, uint32_t def, uint32_t *out)
{
	uint64_t v;

	*out = def;
	if (get_u64(l, o, where, key, def, &v))
		return HESPER_ERROR_FORMAT;
	if (v > UINT32_MAX)
		return BAD(l, "%s: \"%s\" is %" PRIu64 ", past 2^32 - 1", where, key, v);
	*out = (uint32_t)v;
	return 0;
}

static inline int
get_double(struct loader *l, json_object *o, const char *where, const char *key, double *out)
{
	json_object *v = hesper_json_member(o, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return BAD(l, "%s: \"%s\" is not a number", where, key);
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		*out = 0;
	return 0;
}

static inline void
copy_string(char *dst, size_t size, json_object *o, const char *key)
{
	json_object *v = hesper_json_member(o, key);

	snprintf(dst, size, "%s", v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "");
}

/* The string member @key of @o, or NULL when absent or not a string. */
static inline const char *
get_string(json_object *o, const char *key)
{
	json_object *v = hesper_json_member(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Reads the array of three non-negative integers @key of @o into @out; false (and zeros) when absent or not that. */
static inline bool
get_triple(json_object *o, const char *key, uint32_t out[3])
{
	json_object *v = hesper_json_member(o, key);

	memset(out, 0, 3 * sizeof(uint32_t));
	if (!v || !json_object_is_type(v, json_type_array) || json_object_array_length(v) != 3)
		return false;
	for (size_t i = 0; i < 3; i++) {
		json_object *c = json_object_array_get_idx(v, i);
		int64_t n = c && json_object_is_type(c, json_type_int) ? json_object_get_int64(c) : -1;

		if (n < 0 || n > UINT32_MAX) {
			memset(out, 0, 3 * sizeof(uint32_t));
			return false;
		}
		out[i] = (uint32_t)n;
	}
	return true;
}

/* "devices" into @p (summary_load_devices.c). */
int hesper_load_devices(struct loader *l, json_object *root, struct hesper_profile *p);

/* "queues" into @p. */
int hesper_load_queues(struct loader *l, json_object *root, struct hesper_profile *p);

/* "host_waits": rows per thread and call; calls Hesper does not know are skipped. */
int hesper_load_host_waits(struct loader *l, json_object *root, struct hesper_profile *p);

/* "findings" as they were written (summary_load_run.c). */
int hesper_load_findings(struct loader *l, json_object *root, struct hesper_profile *p);

/* "clock_isolated" and "clock_fallbacks" (clock mode). */
int hesper_load_clock(struct loader *l, json_object *root, struct hesper_profile *out);

/* "pipeline_stats": each set of a kernel's pipeline statistics. */
int hesper_load_pipeline_stats(struct loader *l, json_object *root, struct hesper_profile *out);

/* "lines": per kernel, its counted source lines (HESPER_LINES). */
int hesper_load_lines(struct loader *l, json_object *root, struct hesper_profile *out);

/* "report" and "ended_by_signal": which report this is. */
int hesper_load_report_kind(struct loader *l, json_object *root, struct hesper_profile *out);

/* "capture": the capture window as the run stated it, when one was asked for. */
int hesper_load_capture(struct loader *l, json_object *root, struct hesper_capture_info *c);

#endif
