/*
 * Reading Hesper's JSON summary ("hesper-summary/1") back: into a struct hesper_profile
 * for the writers and the `hesper` command, and row by row for the public reader.
 *
 * A summary holds statistics, not durations, so each kernel's stats are rebuilt from
 * them: count, total, mean, min and max exactly, the variance from stddev, and a
 * histogram whose nearest-rank median, p95 and p99 are the file's (each within the
 * histogram's bucket error). Merging rebuilt stats is exact for count, total, mean,
 * min, max and stddev; merged quantiles are approximate.
 */
#ifndef HESPER_SUMMARY_LOAD_H
#define HESPER_SUMMARY_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "profile/profile.h"

/* One kernel (or region) of a summary, its numbers as the file has them (absent: 0, see hesper_summary_row_read). */
struct hesper_summary_row {
	const char *name;  /* borrowed from the parsed document */
	uint64_t count;    /* executions */
	uint64_t timed;    /* of which timed; count when absent */
	uint64_t total_ns; /* an estimate when timed < count; from the shares (clock mode, overlapping dispatches) */
	uint64_t span_total_ns; /* the durations' sum (estimated alike); total_ns when absent */
	double mean_ns, stddev_ns;
	uint64_t min_ns, max_ns, median_ns, p95_ns, p99_ns;
	bool has_mean; /* "mean_ns" was present */
};

/*
 * Parses the file at @path into *@root and checks it is a summary (its "schema").
 * Returns HESPER_OK or a negative enum hesper_status with "PATH: reason" in @err; the
 * caller puts *@root (NULL on failure).
 */
int hesper_summary_document(const char *path, json_object **root, char *err, size_t err_size);

/* What no run's numbers come near: a row holding more is refused by every reader (hesper report, hesper diff). */
#define HESPER_SUMMARY_TIME_MAX_NS 1e17 /* about three years */
#define HESPER_SUMMARY_COUNT_MAX 1e15   /* dispatches: a million a second for thirty years */

/*
 * Reads kernel (or, with @region, region) object @o of the file at @path into @row; status
 * and @err as above. The one verdict on a row's numbers, for every reader: refused when a
 * number is not a number, not finite, negative, past the limits above, a count with a
 * fraction, timed above count, or a median or mean outside [min, max].
 */
int hesper_summary_row_read(const char *path, json_object *o, bool region, struct hesper_summary_row *row, char *err,
			    size_t err_size);

/*
 * Loads the summary at @path into @out (initialised here; the caller frees it with
 * hesper_profile_free even on failure). Returns HESPER_OK, or a negative enum
 * hesper_status with one line describing the problem in @err (no newline).
 */
int hesper_summary_load(const char *path, struct hesper_profile *out, char *err, size_t err_size);

#endif
