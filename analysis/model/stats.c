/* Streaming statistics: Welford moments, saturating total, histogram quantiles. */
#include "stats.h"

#include <math.h>
#include <stddef.h>

void
hesper_stats_init(struct hesper_stats *s)
{
	s->count = 0;
	s->total_ns = 0;
	s->total_saturated = false;
	s->min_ns = UINT64_MAX;
	s->max_ns = 0;
	s->mean_ns = 0;
	s->m2 = 0;
	hesper_histogram_init(&s->hist);
}

static void
add_total(struct hesper_stats *s, uint64_t ns, bool saturated)
{
	if (saturated || __builtin_add_overflow(s->total_ns, ns, &s->total_ns)) {
		s->total_ns = UINT64_MAX;
		s->total_saturated = true;
	}
}

void
hesper_stats_add(struct hesper_stats *s, uint64_t ns)
{
	double x = (double)ns;

	s->count++;
	add_total(s, ns, false);
	if (ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;

	/* Welford: no catastrophic cancellation, unlike sum and sum of squares. */
	double delta = x - s->mean_ns;
	s->mean_ns += delta / (double)s->count;
	s->m2 += delta * (x - s->mean_ns);

	/* A value the histogram could not take only makes quantiles approximate. */
	(void)hesper_histogram_add(&s->hist, ns);
}

void
hesper_stats_merge(struct hesper_stats *into, const struct hesper_stats *from)
{
	if (from->count == 0)
		return;

	if (into->count == 0) {
		into->mean_ns = from->mean_ns;
		into->m2 = from->m2;
	} else {
		/* Chan, Golub and LeVeque: combine two (n, mean, M2) triples exactly. */
		double na = (double)into->count, nb = (double)from->count, n = na + nb;
		double delta = from->mean_ns - into->mean_ns;

		into->mean_ns += delta * (nb / n);
		into->m2 += from->m2 + delta * delta * (na / n) * nb;
	}
	into->count += from->count;
	add_total(into, from->total_ns, from->total_saturated);
	if (from->min_ns < into->min_ns)
		into->min_ns = from->min_ns;
	if (from->max_ns > into->max_ns)
		into->max_ns = from->max_ns;
	(void)hesper_histogram_merge(&into->hist, &from->hist);
}

double
hesper_stats_stddev(const struct hesper_stats *s)
{
	if (s->count < 2 || !(s->m2 > 0))
		return 0;
	return sqrt(s->m2 / (double)(s->count - 1));
}

uint64_t
hesper_stats_quantile(const struct hesper_stats *s, double q)
{
	if (s->count == 0)
		return 0;

	/* The first and last ranks are known exactly. */
	double rank = q > 0 ? ceil(q * (double)s->count) : 1;
	if (rank <= 1)
		return s->min_ns;
	if (rank >= (double)s->count)
		return s->max_ns;

	/* A bucket midpoint can lie outside the values actually seen; never report one. */
	uint64_t v = hesper_histogram_quantile(&s->hist, q);
	if (v < s->min_ns)
		v = s->min_ns;
	if (v > s->max_ns)
		v = s->max_ns;
	return v;
}

uint64_t
hesper_stats_count_below(const struct hesper_stats *s, uint64_t limit_ns)
{
	const struct hesper_histogram *h = &s->hist;
	uint64_t n = 0;

	for (int row = h->lo_row; row <= h->hi_row; row++) {
		for (int sub = 0; sub < HESPER_HISTOGRAM_SUB_BUCKETS; sub++) {
			uint64_t lo, hi,
				c = h->counts[(size_t)(row - h->lo_row) * HESPER_HISTOGRAM_SUB_BUCKETS + (size_t)sub];

			if (!c)
				continue;
			hesper_histogram_bucket_range(row, sub, &lo, &hi);
			if (lo + (hi - lo) / 2 < limit_ns)
				n += c;
		}
	}
	return n;
}

void
hesper_stats_free(struct hesper_stats *s)
{
	hesper_histogram_free(&s->hist);
}
