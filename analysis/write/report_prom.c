/*
 * Prometheus text exposition, format 0.0.4, as node_exporter's textfile collector reads
 * it (a *.prom file rewritten whole, sinks_write.c). Every series carries pid and exe, so the
 * files of several processes in one folder never hold the same series twice. The
 * counters only grow over one run's rewrites: GPU seconds are the sum of the measured
 * durations (not the estimate for sampled kernels, which may shrink); a kernel, queue or
 * device once written stays in every later rewrite.
 *
 * Label values are escaped as the format asks (backslash, double quote, newline); bytes
 * that are not valid UTF-8 become U+FFFD, since the format is UTF-8 text.
 */
#include "report.h"
#include "model/model.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Writes @value (@max bytes at most) as a label value between double quotes. */
static void
put_label_value(FILE *out, const char *value, size_t max)
{
	const unsigned char *s = (const unsigned char *)(value ? value : "");
	const unsigned char *end = s + strnlen((const char *)s, max);

	fputc('"', out);
	while (s < end) {
		size_t len = hesper_utf8_length(s, NULL);

		if (len == 0 || s + len > end) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			s++;
			continue;
		}
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '"')
			fputs("\\\"", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fwrite(s, 1, len, out);
		s += len;
	}
	fputc('"', out);
}

/* The labels every series carries: pid and exe. */
static void
put_process_labels(FILE *out, const struct hesper_profile *p)
{
	fprintf(out, "pid=\"%d\",exe=", p->pid);
	put_label_value(out, p->exe, sizeof(p->exe));
}

/* The HELP and TYPE lines of a family (@help holds no backslash or newline). */
static void
put_family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A sample value in seconds from @ns, exact to the nanosecond. */
static void
put_seconds(FILE *out, uint64_t ns)
{
	fprintf(out, " %" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000u, ns % 1000000000u);
}

/* One series of a family without labels of its own. */
static void
put_process_sample(FILE *out, const struct hesper_profile *p, const char *name, uint64_t value, bool seconds)
{
	fprintf(out, "%s{", name);
	put_process_labels(out, p);
	fputc('}', out);
	if (seconds)
		put_seconds(out, value);
	else
		fprintf(out, " %" PRIu64 "\n", value);
}

/* One family with one series per kernel row: @value of each. */
static void
put_kernel_family(FILE *out, const struct hesper_profile *p, struct hesper_kernel *const *rows, size_t n,
		  const char *name, const char *help, uint64_t (*value)(const struct hesper_kernel *), bool seconds)
{
	put_family(out, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{", name);
		put_process_labels(out, p);
		fputs(",kernel=", out);
		put_label_value(out, rows[i]->name, strlen(rows[i]->name));
		fputc('}', out);
		if (seconds)
			put_seconds(out, value(rows[i]));
		else
			fprintf(out, " %" PRIu64 "\n", value(rows[i]));
	}
}

static uint64_t
kernel_count(const struct hesper_kernel *k)
{
	return k->count;
}

static uint64_t
kernel_timed(const struct hesper_kernel *k)
{
	return k->timed.count;
}

/* The measured dispatches' shares of the GPU time: time that overlapping dispatches shared is counted once. */
static uint64_t
kernel_measured_ns(const struct hesper_kernel *k)
{
	return k->share_ns;
}

int
hesper_report_prom(FILE *out, const struct hesper_profile *p)
{
	struct hesper_kernel **rows = NULL;
	size_t n = 0;
	int ret = -1;

	if (hesper_kernel_table_rows(p->kernels, &rows, &n) != 0)
		goto out;

	put_family(out, "hesper_process_info", "gauge", "The profiled process (value always 1).");
	fputs("hesper_process_info{", out);
	put_process_labels(out, p);
	fputs(",host=", out);
	put_label_value(out, p->host, sizeof(p->host));
	fputs(",mode=", out);
	put_label_value(out, p->mode, sizeof(p->mode));
	fputs("} 1\n", out);

	put_family(out, "hesper_device_info", "gauge", "A Vulkan device the process used (value always 1).");
	for (size_t i = 0; i < p->device_count; i++) {
		fputs("hesper_device_info{", out);
		put_process_labels(out, p);
		fprintf(out, ",device=\"%zu\",name=", i);
		put_label_value(out, p->devices[i].name, sizeof(p->devices[i].name));
		fputs(",driver=", out);
		put_label_value(out, p->devices[i].driver, sizeof(p->devices[i].driver));
		fputs("} 1\n", out);
	}

	put_kernel_family(out, p, rows, n, "hesper_kernel_dispatches_total", "Dispatches of the kernel (timed or not).",
			  kernel_count, false);
	put_kernel_family(out, p, rows, n, "hesper_kernel_timed_dispatches_total",
			  "Dispatches of the kernel whose GPU time was measured.", kernel_timed, false);
	put_kernel_family(out, p, rows, n, "hesper_kernel_gpu_seconds_total",
			  "GPU time of the kernel's measured dispatches, in seconds.", kernel_measured_ns, true);

	put_family(out, "hesper_queue_busy_seconds_total", "counter",
		   "Time a queue had work running on the GPU (union of its command buffers' spans), in seconds.");
	for (size_t i = 0; i < p->queue_count; i++) {
		const struct hesper_queue_info *q = &p->queues[i];

		fputs("hesper_queue_busy_seconds_total{", out);
		put_process_labels(out, p);
		fprintf(out, ",device=\"%" PRIu32 "\",family=\"%" PRIu32 "\",queue=\"%" PRIu32 "\"}", q->device,
			q->family, q->index);
		put_seconds(out, q->busy_ns);
	}
	put_family(out, "hesper_queue_submits_total", "counter", "Batches submitted to a queue.");
	for (size_t i = 0; i < p->queue_count; i++) {
		const struct hesper_queue_info *q = &p->queues[i];

		fputs("hesper_queue_submits_total{", out);
		put_process_labels(out, p);
		fprintf(out, ",device=\"%" PRIu32 "\",family=\"%" PRIu32 "\",queue=\"%" PRIu32 "\"} %" PRIu64 "\n",
			q->device, q->family, q->index, q->submits);
	}

	put_family(out, "hesper_dispatches_dropped_total", "counter", "Dispatches that ran but could not be timed.");
	put_process_sample(out, p, "hesper_dispatches_dropped_total", p->dropped, false);
	put_family(out, "hesper_intervals_clamped_total", "counter",
		   "Measured intervals that came back zero or negative.");
	put_process_sample(out, p, "hesper_intervals_clamped_total", p->clamped, false);
	put_family(out, "hesper_timestamps_written_total", "counter", "Timestamp queries Hesper wrote on the GPU.");
	put_process_sample(out, p, "hesper_timestamps_written_total", p->timestamps_written, false);

	put_family(out, "hesper_overhead_seconds_total", "counter",
		   "Host time Hesper itself spent: in its hooks on the program's threads, and in its collector.");
	fputs("hesper_overhead_seconds_total{", out);
	put_process_labels(out, p);
	fputs(",part=\"hooks\"}", out);
	put_seconds(out, p->hook_ns);
	fputs("hesper_overhead_seconds_total{", out);
	put_process_labels(out, p);
	fputs(",part=\"collector\"}", out);
	put_seconds(out, p->collector_ns);

	put_family(out, "hesper_wall_seconds", "gauge", "Wall time of the process up to this report, in seconds.");
	fputs("hesper_wall_seconds{", out);
	put_process_labels(out, p);
	fputc('}', out);
	put_seconds(out, p->wall_ns);
	ret = 0;
out:
	free(rows);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}
