/*
 * The summary of a list of events: count, total, min, max, mean, sample standard
 * deviation, and exact nearest-rank median, p95 and p99. Quantiles come from a sorted
 * copy of the durations; when there is no memory for one, from bisection over the
 * values, which needs none and is only slower.
 */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank (1-based) of quantile @q among @n values: ceil(q n), at least 1. */
static size_t
rank_of(double q, size_t n)
{
	double r = ceil(q * (double)n);

	return r < 1 ? 1 : r >= (double)n ? n : (size_t)r;
}

uint64_t
hesper_events_duration_rank(const struct hesper_event *events, size_t n, size_t rank, uint64_t lo, uint64_t hi)
{
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		size_t at_or_below = 0;

		for (size_t i = 0; i < n; i++)
			at_or_below += hesper_event_duration_ns(&events[i]) <= mid;
		if (at_or_below >= rank)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Median, p95 and p99 of the @n (> 0) durations, in ns, into @out[3]. */
static void
quantiles(const struct hesper_event *events, size_t n, uint64_t min, uint64_t max, uint64_t out[3])
{
	static const double q[3] = {0.5, 0.95, 0.99};
	uint64_t *sorted = malloc(n * sizeof(*sorted));

	if (sorted) {
		for (size_t i = 0; i < n; i++)
			sorted[i] = hesper_event_duration_ns(&events[i]);
		qsort(sorted, n, sizeof(*sorted), compare_u64);
	}
	for (int i = 0; i < 3; i++) {
		size_t rank = rank_of(q[i], n);

		out[i] = sorted ? sorted[rank - 1] : hesper_events_duration_rank(events, n, rank, min, max);
	}
	free(sorted);
}

struct hesper_summary
hesper_summary_from_events(const struct hesper_event *events, size_t n)
{
	struct hesper_summary s = {0};
	uint64_t min = UINT64_MAX, max = 0, q[3];
	double mean = 0, m2 = 0;

	if (!events || n == 0)
		return s;
	for (size_t i = 0; i < n; i++) {
		uint64_t d = hesper_event_duration_ns(&events[i]);

		if (__builtin_add_overflow(s.total_duration_ns, d, &s.total_duration_ns))
			s.total_duration_ns = UINT64_MAX;
		min = d < min ? d : min;
		max = d > max ? d : max;
		/* Welford: no cancellation, unlike a sum of squares. */
		double delta = (double)d - mean;
		mean += delta / (double)(i + 1);
		m2 += delta * ((double)d - mean);
	}
	quantiles(events, n, min, max, q);

	s.total_events = n;
	s.total_duration_ms = hesper_ns_to_ms(s.total_duration_ns);
	s.min_duration_ms = hesper_ns_to_ms(min);
	s.max_duration_ms = hesper_ns_to_ms(max);
	s.avg_duration_ms = s.total_duration_ms / (double)n;
	s.median_duration_ms = hesper_ns_to_ms(q[0]);
	s.p95_duration_ms = hesper_ns_to_ms(q[1]);
	s.p99_duration_ms = hesper_ns_to_ms(q[2]);
	s.stddev_duration_ms = n > 1 && m2 > 0 ? sqrt(m2 / (double)(n - 1)) / 1e6 : 0;
	return s;
}
