/*
 * Streaming statistics of durations: memory independent of the number of values.
 * Mean and variance by Welford's method; quantiles from a log-bucketed histogram.
 */
#ifndef HESPER_STATS_H
#define HESPER_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "histogram.h"

struct hesper_stats {
	uint64_t count;    /* values added */
	uint64_t total_ns; /* sum, saturating at UINT64_MAX */
	bool total_saturated;
	uint64_t min_ns; /* UINT64_MAX when empty */
	uint64_t max_ns; /* 0 when empty */
	double mean_ns;  /* running mean */
	double m2;       /* sum of squared deviations from the mean */
	struct hesper_histogram hist;
};

/* Makes @s empty. */
void hesper_stats_init(struct hesper_stats *s);

/* Adds one duration. The histogram may drop the value when memory runs out; the moments never do. */
void hesper_stats_add(struct hesper_stats *s, uint64_t ns);

/* Adds everything in @from to @into (Chan et al.'s parallel combination of moments). */
void hesper_stats_merge(struct hesper_stats *into, const struct hesper_stats *from);

/* Sample standard deviation (n - 1 in the denominator); 0 for fewer than two values. */
double hesper_stats_stddev(const struct hesper_stats *s);

/* The @q quantile (0..1) from the histogram, clamped into [min, max]; 0 when empty. */
uint64_t hesper_stats_quantile(const struct hesper_stats *s, double q);

/* How many values of @s lie below @limit_ns, from its histogram (bucket midpoints). */
uint64_t hesper_stats_count_below(const struct hesper_stats *s, uint64_t limit_ns);

/* Frees the histogram's storage. */
void hesper_stats_free(struct hesper_stats *s);

#endif
