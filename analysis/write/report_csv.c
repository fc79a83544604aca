/*
 * The CSV report: the text table's columns with raw numbers (ns), one row per kernel,
 * sorted like the table. RFC 4180: CRLF line ends, a field holding a comma, a quote, CR
 * or LF is quoted with its quotes doubled. time_percent has two decimals, avg_ns and
 * stddev_ns one; the other numbers are integers. A kernel never timed (submit mode) has
 * empty fields for its time and durations, not zeros (its timed column says 0); memory
 * operations alike.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
put_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static double
finite_or_zero(double v)
{
	return isfinite(v) ? v : 0;
}

int
hesper_report_csv(FILE *out, const struct hesper_profile *p)
{
	struct hesper_kernel **rows = NULL;
	size_t n = 0;
	uint64_t sum;
	int ret = -1;

	fputs("time_percent,total_ns,instances,avg_ns,median_ns,min_ns,max_ns,stddev_ns,p95_ns,p99_ns,timed,name\r\n",
	      out);
	if (hesper_kernel_table_rows(p->kernels, &rows, &n) != 0)
		goto out;
	sum = hesper_rows_total_ns(rows, n);

	for (size_t i = 0; i < n; i++) {
		const struct hesper_kernel *k = rows[i];
		const struct hesper_stats *s = &k->timed;
		uint64_t total = hesper_kernel_total_ns(k);

		if (!s->count) {
			/* Never timed: 0 would read as a measured time; an empty field is none. */
			fprintf(out, ",,%" PRIu64 ",,,,,,,,0,", k->count);
			put_field(out, k->name);
			fputs("\r\n", out);
			continue;
		}
		fprintf(out,
			"%.2f,%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",",
			sum ? 100.0 * (double)total / (double)sum : 0.0, total, k->count, finite_or_zero(s->mean_ns),
			hesper_stats_quantile(s, 0.5), s->count ? s->min_ns : 0, s->max_ns,
			finite_or_zero(hesper_stats_stddev(s)), hesper_stats_quantile(s, 0.95),
			hesper_stats_quantile(s, 0.99), s->count);
		put_field(out, k->name);
		fputs("\r\n", out);
	}
	ret = 0;
out:
	free(rows);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}

int
hesper_report_memops_csv(FILE *out, const struct hesper_profile *p)
{
	uint64_t busy = hesper_profile_gpu_busy_ns(p);

	fputs("operation,count,timed,total_ns,mean_ns,bytes,timed_bytes,unsized,mean_gbps,best_gbps,gpu_percent\r\n",
	      out);
	for (int i = 0; i < HESPER_MEMOP_KINDS; i++) {
		const struct hesper_memop_row *row = &p->memops.rows[i];
		uint64_t total = hesper_kernel_total_ns(&row->k);

		if (!row->k.count)
			continue;
		put_field(out, row->k.name);
		if (!row->k.timed.count) {
			/* Never timed: counts and bytes, and empty fields where a time would be. */
			fprintf(out, ",%" PRIu64 ",0,,,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",,,\r\n", row->k.count,
				row->bytes, row->timed_bytes, row->unsized);
			continue;
		}
		fprintf(out,
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%.6f,%.6f,%.2f\r\n",
			row->k.count, row->k.timed.count, total, finite_or_zero(row->k.timed.mean_ns), row->bytes,
			row->timed_bytes, row->unsized, hesper_memop_mean_gbps(row), row->best_gbps,
			busy ? 100.0 * (double)total / (double)busy : 0.0);
	}
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
