/* `hesper diff`'s statistics: a side's time and noise, and the verdict (diff_stats.h). */
#include "diff_stats.h"

#include <math.h>
#include <stdlib.h>

/* The standard error of a median over the standard deviation / sqrt(n): sqrt(pi / 2). */
#define MEDIAN_SE_FACTOR 1.2533

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The standard error of a run's median, the median of it over the @timed_runs of @runs that
 * timed the kernel: one cold or interrupted dispatch swells its run's standard deviation
 * (five dispatches, one 100 ms among 5 ms ones: 24 ms), and would hide a real change had
 * that run happened to be the fastest. NAN-free: 0 when memory runs out.
 */
static double
median_standard_error(const struct hesper_diff_sample *runs, size_t n, size_t timed_runs)
{
	double *se = malloc(timed_runs * sizeof(*se)), m;
	size_t k = 0;

	if (!se)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (runs[i].timed)
			se[k++] = MEDIAN_SE_FACTOR * runs[i].stddev_ns / sqrt((double)runs[i].timed);
	qsort(se, k, sizeof(*se), by_value);
	m = k % 2 ? se[k / 2] : (se[k / 2 - 1] + se[k / 2]) / 2;
	free(se);
	return m;
}

struct hesper_diff_estimate
hesper_diff_estimate(const struct hesper_diff_sample *runs, size_t n)
{
	struct hesper_diff_estimate e = {NAN, 0, 0, 0, false};
	const struct hesper_diff_sample *best = NULL;
	double second = INFINITY;

	for (size_t i = 0; i < n; i++) {
		if (runs[i].timed == 0)
			continue;
		e.runs++;
		if (!best || runs[i].median_ns < best->median_ns) {
			if (best)
				second = best->median_ns;
			best = &runs[i];
		} else if (runs[i].median_ns < second) {
			second = runs[i].median_ns;
		}
	}
	if (!best)
		return e;
	double within = median_standard_error(runs, n, e.runs);
	double between = e.runs > 1 ? second - best->median_ns : 0;

	e.time_ns = best->median_ns;
	e.noise_ns = sqrt(within * within + between * between);
	e.gap_ns = between;
	e.judged = e.runs > 1 || best->timed >= HESPER_DIFF_MIN_TIMED;
	return e;
}

struct hesper_diff_change
hesper_diff_compare(const struct hesper_diff_estimate *a, const struct hesper_diff_estimate *b, double threshold_pct,
		    double sigmas)
{
	struct hesper_diff_change c = {HESPER_DIFF_UNTIMED, NAN, 0};
	double limit = 1 + threshold_pct / 100, delta;

	if (isnan(a->time_ns) || isnan(b->time_ns))
		return c;
	c.noise_ns = sqrt(a->noise_ns * a->noise_ns + b->noise_ns * b->noise_ns);
	c.ratio = a->time_ns > 0 ? b->time_ns / a->time_ns : b->time_ns > 0 ? INFINITY : 1;
	delta = b->time_ns - a->time_ns;
	if (c.ratio <= limit && c.ratio * limit >= 1)
		c.verdict = HESPER_DIFF_SAME;
	else if (!a->judged || !b->judged)
		c.verdict = HESPER_DIFF_FEW;
	else if (fabs(delta) <= sigmas * c.noise_ns)
		c.verdict = HESPER_DIFF_NOISE;
	else
		c.verdict = delta > 0 ? HESPER_DIFF_SLOWER : HESPER_DIFF_FASTER;
	return c;
}
