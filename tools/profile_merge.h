/*
 * Reading Hesper's own output files back: a hesper-summary/1 JSON file into a
 * struct hesper_profile, so the analysis writers (text, JSON) print it again.
 *
 * A summary holds statistics, not durations, so each kernel's stats are rebuilt from
 * them: count, total, mean, min and max exactly, the variance from stddev, and a
 * histogram whose nearest-rank median, p95 and p99 are the file's (each within the
 * histogram's bucket error). Merging rebuilt stats is exact for count, total, mean,
 * min, max and stddev; merged quantiles are approximate.
 */
#ifndef HESPER_TOOL_SUMMARY_H
#define HESPER_TOOL_SUMMARY_H

#include <stddef.h>

#include "profile.h"

/*
 * Loads the summary at @path into @out (initialised here; the caller frees it with
 * hesper_profile_free even on failure). Returns 0, or -1 with one line describing the
 * problem in @err (no newline).
 */
int hesper_summary_load(const char *path, struct hesper_profile *out, char *err, size_t err_size);

/*
 * Adds everything in @from to @into: kernels, regions, devices (one row per model),
 * queues, counters; wall and busy times add up. Returns 0, or -1 when memory runs out.
 */
int hesper_profile_merge(struct hesper_profile *into, const struct hesper_profile *from);

#endif
