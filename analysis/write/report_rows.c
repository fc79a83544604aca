/*
 * The numbers behind a kernel table, shared by the text and HTML reports so both show
 * the same percentages, estimates and quantiles; each report only formats them. Totals
 * and percentages come from the shares, so they add up to the GPU time the kernels used
 * even when dispatches overlapped; the per-dispatch statistics are whole durations.
 */
#include "report.h"

uint64_t
hesper_rows_total_ns(struct hesper_kernel *const *rows, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (__builtin_add_overflow(sum, hesper_kernel_total_ns(rows[i]), &sum))
			sum = UINT64_MAX;
	return sum;
}

uint64_t
hesper_rows_span_total_ns(struct hesper_kernel *const *rows, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (__builtin_add_overflow(sum, hesper_kernel_span_total_ns(rows[i]), &sum))
			sum = UINT64_MAX;
	return sum;
}

size_t
hesper_rows_not_all_timed(struct hesper_kernel *const *rows, size_t n)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += rows[i]->count != rows[i]->timed.count;
	return count;
}

struct hesper_row
hesper_row_numbers(const struct hesper_kernel *k, uint64_t sum)
{
	const struct hesper_stats *s = &k->timed;
	struct hesper_row r = {
		.total_ns = hesper_kernel_total_ns(k),
		.timed = s->count > 0,
	};

	r.percent = sum ? 100.0 * (double)r.total_ns / (double)sum : 0.0;
	if (!r.timed)
		return r;
	r.estimated = k->count != s->count;
	r.mean_ns = s->mean_ns;
	r.median_ns = (double)hesper_stats_quantile(s, 0.5);
	r.p95_ns = (double)hesper_stats_quantile(s, 0.95);
	r.min_ns = (double)s->min_ns;
	r.max_ns = (double)s->max_ns;
	r.stddev_ns = hesper_stats_stddev(s);
	return r;
}

const char *
hesper_rows_words(const struct hesper_profile *p)
{
	switch (p->group_by) {
	case HESPER_GROUP_BY_SHAPE: return "per kernel and work-group count (HESPER_GROUP_BY=shape)";
	case HESPER_GROUP_BY_LABEL: return "per kernel and innermost debug label (HESPER_GROUP_BY=label)";
	default: return NULL;
	}
}
