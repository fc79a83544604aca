/*
 * The statistics of `hesper diff`, apart from any printing: each side's time for a
 * kernel and its noise, and whether the change between the sides is a regression.
 *
 * A side is one run or several runs of the program. A run's time for a kernel is the
 * median of its timed dispatches: the first dispatches of a pipeline (a driver's late
 * compile, cold caches) and the odd interrupted one do not move it. A side's time is its
 * fastest run's median: what slows a run down from outside (another process on the
 * machine, a clock that has not ramped up) only ever adds time, so the fastest run is the
 * least disturbed one.
 *
 * The noise of a side's time adds, in quadrature, the standard error of a run's median
 * (1.2533 x stddev / sqrt(timed), from the kernel's own spread in the run; with several
 * runs, its median over them, so that one run's cold or interrupted dispatch does not
 * swell it) and, with several runs, the gap between the two fastest runs' medians (how
 * well the runs agree with each other). A change is a regression when the time grew by
 * more than the threshold and by more than K times the two sides' noise together.
 */
#ifndef HESPER_TOOL_DIFF_STATS_H
#define HESPER_TOOL_DIFF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HESPER_DIFF_MIN_TIMED 3 /* timed dispatches a lone run needs for its spread to mean anything */

/* A kernel in one run. */
struct hesper_diff_sample {
	double median_ns, stddev_ns;
	uint64_t timed;
};

/* A side's time for a kernel. */
struct hesper_diff_estimate {
	double time_ns;  /* the fastest run's median; NAN when no run timed the kernel */
	double noise_ns; /* see above */
	double gap_ns;   /* its part from the runs: the gap between the two fastest runs' medians (0: one run) */
	size_t runs;     /* runs that timed it */
	bool judged;     /* enough to tell its noise: several runs, or HESPER_DIFF_MIN_TIMED dispatches */
};

enum hesper_diff_verdict {
	HESPER_DIFF_SAME,   /* within the threshold */
	HESPER_DIFF_SLOWER, /* a regression: past the threshold and the noise */
	HESPER_DIFF_FASTER, /* past the threshold and the noise, the other way */
	HESPER_DIFF_NOISE,  /* past the threshold, within the noise */
	HESPER_DIFF_FEW,    /* past the threshold, with too few dispatches to tell the noise */
	HESPER_DIFF_UNTIMED /* not timed on a side: nothing to compare */
};

/* The comparison of one kernel. */
struct hesper_diff_change {
	enum hesper_diff_verdict verdict;
	double ratio;    /* B's time / A's; NAN when not comparable, INFINITY from 0 */
	double noise_ns; /* the two sides' noise together */
};

/* A side's estimate from the kernel's @n runs (runs that did not time it are skipped). */
struct hesper_diff_estimate hesper_diff_estimate(const struct hesper_diff_sample *runs, size_t n);

/*
 * Compares @a with @b: slower when B's time is more than @threshold_pct percent above
 * A's and more than @sigmas times the noise; faster alike the other way.
 */
struct hesper_diff_change hesper_diff_compare(const struct hesper_diff_estimate *a,
					      const struct hesper_diff_estimate *b, double threshold_pct,
					      double sigmas);

#endif
