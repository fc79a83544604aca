/*
 * Log-bucketed histogram.
 *
 * Row 0 holds the values 0..63 exactly. Row r >= 1 holds the power of two [2^k, 2^(k+1))
 * with k = r + 5, split into 64 buckets of width 2^(k-6): row 1 (64..127) therefore has
 * width-1 buckets and is exact too. The largest row is 58 (k = 63). A quantile is the
 * midpoint of its bucket, at most 2^(k-7) away from any value in it, and every value in
 * it is at least 2^k: relative error <= 1/128.
 */
#include "histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB HESPER_HISTOGRAM_SUB_BUCKETS
#define ROW_BYTES (SUB * sizeof(uint64_t))

static void
bucket_of(uint64_t v, int *row, int *sub)
{
	if (v < SUB) {
		*row = 0;
		*sub = (int)v;
		return;
	}
	int k = 63 - __builtin_clzll(v);
	*row = k - 5;
	*sub = (int)((v >> (k - 6)) & (SUB - 1));
}

/* The value reported for bucket (row, sub): its midpoint, or the value itself when exact. */
static uint64_t
bucket_value(int row, int sub)
{
	if (row <= 1)
		return (uint64_t)(row * SUB + sub);
	int k = row + 5;
	uint64_t width = 1ull << (k - 6);
	uint64_t lo = (1ull << k) + (uint64_t)sub * width;

	return lo + width / 2;
}

/* Makes room for rows lo..hi; the counters already held keep their values. */
static bool
ensure_rows(struct hesper_histogram *h, int lo, int hi)
{
	bool empty = h->lo_row > h->hi_row;
	int new_lo = empty || lo < h->lo_row ? lo : h->lo_row;
	int new_hi = empty || hi > h->hi_row ? hi : h->hi_row;

	if (!empty && new_lo == h->lo_row && new_hi == h->hi_row)
		return true;

	size_t rows = (size_t)(new_hi - new_lo + 1);
	uint64_t *counts = realloc(h->counts, rows * ROW_BYTES);
	if (!counts)
		return false;

	if (empty) {
		memset(counts, 0, rows * ROW_BYTES);
	} else {
		size_t old_rows = (size_t)(h->hi_row - h->lo_row + 1);
		size_t below = (size_t)(h->lo_row - new_lo);
		size_t above = (size_t)(new_hi - h->hi_row);

		memmove(counts + below * SUB, counts, old_rows * ROW_BYTES);
		memset(counts, 0, below * ROW_BYTES);
		memset(counts + (below + old_rows) * SUB, 0, above * ROW_BYTES);
	}
	h->counts = counts;
	h->lo_row = new_lo;
	h->hi_row = new_hi;
	return true;
}

void
hesper_histogram_init(struct hesper_histogram *h)
{
	h->counts = NULL;
	h->total = 0;
	h->lo_row = 1;
	h->hi_row = 0;
}

bool
hesper_histogram_add(struct hesper_histogram *h, uint64_t value)
{
	int row, sub;

	bucket_of(value, &row, &sub);
	if (!ensure_rows(h, row, row))
		return false;
	h->counts[(row - h->lo_row) * SUB + sub]++;
	h->total++;
	return true;
}

bool
hesper_histogram_add_n(struct hesper_histogram *h, uint64_t value, uint64_t n)
{
	int row, sub;

	if (n == 0)
		return true;
	bucket_of(value, &row, &sub);
	if (!ensure_rows(h, row, row))
		return false;
	h->counts[(row - h->lo_row) * SUB + sub] += n;
	h->total += n;
	return true;
}

void
hesper_histogram_bucket_range(int row, int sub, uint64_t *lo, uint64_t *hi)
{
	if (row <= 1) {
		*lo = (uint64_t)(row * SUB + sub);
		*hi = *lo + 1;
		return;
	}
	int k = row + 5;
	uint64_t width = 1ull << (k - 6);

	*lo = (1ull << k) + (uint64_t)sub * width;
	*hi = __builtin_add_overflow(*lo, width, hi) ? UINT64_MAX : *hi;
}

bool
hesper_histogram_merge(struct hesper_histogram *into, const struct hesper_histogram *from)
{
	if (from->total == 0 || from->lo_row > from->hi_row)
		return true;
	if (!ensure_rows(into, from->lo_row, from->hi_row))
		return false;

	size_t offset = (size_t)(from->lo_row - into->lo_row) * SUB;
	size_t n = (size_t)(from->hi_row - from->lo_row + 1) * SUB;

	for (size_t i = 0; i < n; i++)
		into->counts[offset + i] += from->counts[i];
	into->total += from->total;
	return true;
}

uint64_t
hesper_histogram_quantile(const struct hesper_histogram *h, double q)
{
	if (h->total == 0)
		return 0;
	if (!(q > 0)) /* also catches NaN */
		q = 0;
	if (q > 1)
		q = 1;

	/* Nearest rank: the smallest value with at least ceil(q * n) values at or below it. */
	double r = ceil(q * (double)h->total);
	uint64_t rank = r < 1 ? 1 : r >= (double)h->total ? h->total : (uint64_t)r;
	uint64_t seen = 0;
	size_t n = (size_t)(h->hi_row - h->lo_row + 1) * SUB;

	for (size_t i = 0; i < n; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			return bucket_value(h->lo_row + (int)(i / SUB), (int)(i % SUB));
	}
	return bucket_value(h->hi_row, SUB - 1); /* unreachable while total matches the counters */
}

void
hesper_histogram_free(struct hesper_histogram *h)
{
	free(h->counts);
	hesper_histogram_init(h);
}
