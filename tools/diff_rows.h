/*
 * `hesper diff`'s table: one row per kernel found on either side, its numbers per side
 * and the verdict (diff_stats.h), built from the loaded runs (diff_load.h) and printed.
 */
#ifndef HESPER_TOOL_DIFF_ROWS_H
#define HESPER_TOOL_DIFF_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diff_load.h"
#include "diff_stats.h"

/* One side of the comparison: its runs. */
struct hesper_diff_side {
	struct hesper_diff_run *runs;
	size_t n;
};

struct hesper_diff_row {
	const char *name; /* borrowed from a run */
	bool in[2];       /* found in A, in B */
	double count[2];  /* dispatches per run, the mean over the side's runs */
	double total[2];  /* GPU time per run, the mean over the runs that timed it; NAN: never timed */
	struct hesper_diff_estimate est[2];
	struct hesper_diff_change change;
};

/*
 * Builds a row for every kernel of either side, sorted by the absolute change of total
 * time, largest first. Returns the rows (the caller frees them) and their number in *@n,
 * or NULL when memory runs out.
 */
struct hesper_diff_row *hesper_diff_rows(const struct hesper_diff_side sides[2], double threshold_pct, double sigmas,
					 size_t *n);

/* Prints the table of @rows (@n) on @out. */
void hesper_diff_print_table(FILE *out, const struct hesper_diff_row *rows, size_t n);

/*
 * Prints the verdict under the table: the regressions, then what changed within the
 * noise or could not be judged. Returns the number of regressions.
 */
size_t hesper_diff_print_verdict(FILE *out, const struct hesper_diff_row *rows, size_t n, double threshold_pct);

#endif
