/*
 * Log-bucketed histogram of 64-bit durations, for quantiles in bounded memory.
 *
 * Values below 128 are kept exactly. Above, each power of two [2^k, 2^(k+1)) is split
 * into HESPER_HISTOGRAM_SUB_BUCKETS equal buckets and a quantile is reported as the
 * midpoint of its bucket, so its relative error is at most 1/128 (0.79%). Storage is
 * allocated per power of two actually seen, at most 64 * 64 counters (32 KiB) per
 * histogram however many values are added.
 */
#ifndef HESPER_HISTOGRAM_H
#define HESPER_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#define HESPER_HISTOGRAM_SUB_BUCKETS 64
/* Upper bound of the relative error of hesper_histogram_quantile(). */
#define HESPER_HISTOGRAM_MAX_RELATIVE_ERROR (1.0 / 128.0)

struct hesper_histogram {
	uint64_t *counts;   /* (hi_row - lo_row + 1) rows of SUB_BUCKETS counters */
	uint64_t total;     /* values added */
	int lo_row, hi_row; /* rows held; lo_row > hi_row when empty */
};

/* Makes @h empty; allocates nothing. */
void hesper_histogram_init(struct hesper_histogram *h);

/* Adds @value; returns false (and leaves @h unchanged) when memory runs out. */
bool hesper_histogram_add(struct hesper_histogram *h, uint64_t value);

/* Adds @value @n times; returns false (and leaves @h unchanged) when memory runs out. */
bool hesper_histogram_add_n(struct hesper_histogram *h, uint64_t value, uint64_t n);

/* Adds every value of @from to @into; false when memory runs out. */
bool hesper_histogram_merge(struct hesper_histogram *into, const struct hesper_histogram *from);

/* The @q quantile (0 <= q <= 1, nearest rank) within the documented error; 0 when empty. */
uint64_t hesper_histogram_quantile(const struct hesper_histogram *h, double q);

/* The values [*@lo, *@hi) counted by bucket @sub of row @row (hi saturates at UINT64_MAX). */
void hesper_histogram_bucket_range(int row, int sub, uint64_t *lo, uint64_t *hi);

/* Frees what @h holds and makes it empty again. */
void hesper_histogram_free(struct hesper_histogram *h);

#endif
