/*
 * The text report: a few header lines, then a table shaped like `nsys stats`'
 * cuda_gpu_kern_sum (with a P95 column added), then label regions. Durations use hesper_format_duration().
 *
 * Column widths come from the content, measured in characters rather than bytes
 * ("µs" is two bytes, one column). Name is the last column so a long name never pushes
 * another column out of line. Control characters in names become '?' so a hostile
 * or broken name cannot drive the terminal.
 */
#include "report.h"

#include "report_text_parts.h"

#include "findings/findings.h"
#include "profile/profile.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FINDING_INDENT 5 /* a finding's lines under its number */
#define HEADER_INDENT 15 /* where the header's values start: "  device 0     " */

static void
print_header(FILE *out, const struct hesper_profile *p)
{
	fputs("Hesper GPU kernel summary\n", out);
	fputs("  program      ", out);
	hesper_text_put_clean(out, p->exe[0] ? p->exe : "?", strnlen(p->exe[0] ? p->exe : "?", HESPER_NAME_MAX));
	/* pid 0: no one process (a merge, whose exe names its programs and their pids). */
	if (p->pid > 0)
		fprintf(out, " (pid %d, host ", p->pid);
	else
		fputs(", host ", out);
	hesper_text_put_clean(out, p->host[0] ? p->host : "?", strnlen(p->host[0] ? p->host : "?", HESPER_NAME_MAX));
	fputs(p->pid > 0 ? ")\n" : "\n", out);
	for (size_t i = 0; i < p->device_count; i++) {
		const struct hesper_device_info *d = &p->devices[i];
		char item[HESPER_NAME_MAX + 32], cost[CELL];
		size_t col = HEADER_INDENT;

		fprintf(out, "  device %-5zu ", i);
		hesper_text_put_item(out, &col, HEADER_INDENT, "", d->name, strnlen(d->name, HESPER_NAME_MAX));
		if (d->driver[0]) {
			snprintf(item, sizeof(item), "driver %.*s", (int)strnlen(d->driver, HESPER_NAME_MAX),
				 d->driver);
			hesper_text_put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		snprintf(item, sizeof(item), "timestampPeriod %g ns", d->timestamp_period_ns);
		hesper_text_put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		if (d->copy[0]) {
			snprintf(item, sizeof(item), "timestamps read by %s",
				 strcmp(d->copy, "host") ? "a GPU copy" : "the host");
			hesper_text_put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		if (d->timing[0]) {
			snprintf(item, sizeof(item), "timed by %.*s", (int)strnlen(d->timing, sizeof(d->timing)),
				 d->timing);
			hesper_text_put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		if (d->dispatch_cost_ns) {
			snprintf(item, sizeof(item), "dispatch cost %s",
				 hesper_format_duration(cost, sizeof(cost), (double)d->dispatch_cost_ns));
			hesper_text_put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		if (d->compute_units) {
			snprintf(item, sizeof(item), "%" PRIu32 " compute units", d->compute_units);
			hesper_text_put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		fputc('\n', out);
	}
}

/*
 * The memory-operation table: one line per kind that ran. Total is estimated (~) like a
 * kernel's when not every operation was timed; GB/s is the timed bytes over the timed
 * time; Share is the total's part of the GPU busy time.
 */
static void
print_memops(FILE *out, const struct hesper_profile *p)
{
	uint64_t busy = hesper_profile_gpu_busy_ns(p);
	char total[CELL], mean[CELL], gbps[CELL], share[CELL];

	if (!hesper_memops_count(&p->memops))
		return;
	fputs("\nMemory operations\n", out);
	fprintf(out, " %10s  %10s  %10s  %14s  %9s  %7s  %s\n", "Count", "Total", "Mean", "Bytes", "GB/s", "Share",
		"Operation");
	fprintf(out, " %10s  %10s  %10s  %14s  %9s  %7s  %s\n", "----------", "----------", "----------",
		"--------------", "---------", "-------", "--------------------");
	for (int i = 0; i < HESPER_MEMOP_KINDS; i++) {
		const struct hesper_memop_row *row = &p->memops.rows[i];
		struct hesper_row r = hesper_row_numbers(&row->k, 0);

		if (!row->k.count)
			continue;
		strcpy(total, "-");
		strcpy(mean, "-");
		strcpy(gbps, "-");
		strcpy(share, "-");
		if (r.timed) {
			total[0] = '~';
			hesper_format_duration(total + r.estimated, CELL - 1, (double)r.total_ns);
			hesper_format_duration(mean, CELL, r.mean_ns);
			if (row->timed_bytes && row->k.timed.total_ns)
				snprintf(gbps, CELL, "%.3f", hesper_memop_mean_gbps(row));
			if (busy)
				snprintf(share, CELL, "%.1f%%", 100.0 * (double)r.total_ns / (double)busy);
		}
		/* Column widths are fixed here: durations and numbers fit them. */
		fprintf(out, " %10" PRIu64 "  ", row->k.count);
		hesper_text_put_right(out, total, 10);
		fputs("  ", out);
		hesper_text_put_right(out, mean, 10);
		fprintf(out, "  %14" PRIu64 "  %9s  %7s  %s", row->bytes, gbps, share, row->k.name);
		if (row->unsized)
			fprintf(out, " (%" PRIu64 " of unknown size)", row->unsized);
		fputc('\n', out);
	}
}

/*
 * Submit mode times the program's batches, not its dispatches: the kernel table has counts
 * only, so each queue's batches and their GPU time are shown (Busy is the union of its
 * batches' spans; Busy (%) its share of the wall time the header's GPU busy is a share of).
 */
static void
print_submit_queues(FILE *out, const struct hesper_profile *p)
{
	uint64_t wall = hesper_profile_busy_wall_ns(p);
	char busy[CELL], mean[CELL], share[CELL], queue[64];

	if (strcmp(p->mode, "submit") != 0 || !p->queue_count)
		return;
	fputs("\nQueues (submit mode times each batch of the program's, from its start to its end on the GPU)\n", out);
	fprintf(out, " %10s  %10s  %14s  %8s  %s\n", "Batches", "Busy", "Busy a batch", "Busy (%)", "Queue");
	fprintf(out, " %10s  %10s  %14s  %8s  %s\n", "----------", "----------", "--------------", "--------",
		"------------------------------");
	for (size_t i = 0; i < p->queue_count; i++) {
		const struct hesper_queue_info *q = &p->queues[i];

		hesper_format_duration(busy, sizeof(busy), (double)q->busy_ns);
		strcpy(mean, "-");
		if (q->submits)
			hesper_format_duration(mean, sizeof(mean), (double)q->busy_ns / (double)q->submits);
		strcpy(share, "-");
		if (wall)
			snprintf(share, sizeof(share), "%.1f", 100.0 * (double)q->busy_ns / (double)wall);
		snprintf(queue, sizeof(queue), "device %" PRIu32 ", family %" PRIu32 ", queue %" PRIu32, q->device,
			 q->family, q->index);
		fprintf(out, " %10" PRIu64 "  ", q->submits);
		hesper_text_put_right(out, busy, 10);
		fputs("  ", out);
		hesper_text_put_right(out, mean, 14);
		fprintf(out, "  %8s  %s\n", share, queue);
	}
}

/* The lines on a report written while the program runs, and on the capture window. */
static void
put_live(FILE *out, const struct hesper_profile *p)
{
	char a[32], b[32];
	const struct hesper_capture_info *c = &p->capture;

	if (p->report.partial)
		fprintf(out, "  report       #%" PRIu64 " (%s), written while the program runs\n", p->report.number,
			p->report.reason ? p->report.reason : "?");
	if (p->report.signal) {
		fputs("  ended by     ", out);
		hesper_text_put_clean(out, p->report.signal, strnlen(p->report.signal, 32));
		fputs(": the report holds what ran until then\n", out);
	}
	if (!c->set)
		return;
	fprintf(out, "  capture      from %s", c->start[0] ? c->start : "the start");
	if (c->opened)
		fprintf(out, " (opened at %s)", hesper_format_duration(a, sizeof(a), (double)c->opened_ns));
	else
		fputs(" (not opened)", out);
	/* A time stop counts from the opening: "for 0.100 s", not "to 0.100 s" (before it opened). */
	if (!c->stop[0])
		fputs(" to the end", out);
	else
		fprintf(out, " %s %s", strncmp(c->stop, "label:", 6) == 0 ? "to" : "for", c->stop);
	/* Why the window's wall time may end elsewhere than its stop: said, so that the line adds up. */
	uint64_t until = c->closed ? c->closed_ns : p->wall_ns;
	bool ran_on = c->opened && c->end_ns > until;
	if (c->closed)
		fprintf(out, " (closed at %s)", hesper_format_duration(b, sizeof(b), (double)c->closed_ns));
	else if (c->opened && c->stop[0])
		fprintf(out, " (%s never came: open to the end)",
			strncmp(c->stop, "label:", 6) == 0 ? "it" : "that time");
	if (c->opened)
		fprintf(out, ": %s",
			hesper_format_duration(a, sizeof(a), (double)hesper_capture_wall_ns(c, p->wall_ns)));
	if (ran_on)
		fprintf(out, ",\n               to the end of the GPU work submitted inside it, at %s",
			hesper_format_duration(b, sizeof(b), (double)c->end_ns));
	fprintf(out,
		"\n  outside      the window: %" PRIu64 " dispatches, %" PRIu64 " submissions, %" PRIu64
		" memory operations, counted, not timed, in no table\n",
		c->outside, c->submissions_outside, c->memops_outside);
}

/*
 * The dropped dispatches: how many, then each cause that happened with its count (the rest,
 * in a summary that does not keep causes, as not recorded).
 */
static void
print_dropped(FILE *out, const struct hesper_profile *p)
{
	uint64_t told = 0;

	if (!p->dropped)
		return;
	fprintf(out, "\nDropped: %" PRIu64 " dispatches ran but could not be timed:\n", p->dropped);
	for (unsigned c = 0; c < HESPER_DROP_CAUSES; c++) {
		if (!p->dropped_by[c])
			continue;
		fprintf(out, "  %10" PRIu64 "  %s\n", p->dropped_by[c],
			hesper_drop_cause_text((enum hesper_drop_cause)c));
		told += p->dropped_by[c];
	}
	if (told < p->dropped)
		fprintf(out, "  %10" PRIu64 "  for a cause the summary does not record\n", p->dropped - told);
}

/* Appends @part to the "; "-separated list in @buf (of @size bytes). */
static void
append_reason(char *buf, size_t size, const char *part)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", len ? "; " : "", part);
}

/*
 * Why kernels ran more often than they were timed, into @buf: a choice (mode, sampling,
 * the capture window), a loss (dropped dispatches, clamped intervals), or both.
 */
static const char *
untimed_reasons(char *buf, size_t size, const struct hesper_profile *p)
{
	/* a choice (submit mode, sampling) or a loss (dropped, clamped); several can hold */
	bool chosen = strcmp(p->mode, "submit") == 0 || p->sample_every > 1;
	char clamped[64];

	buf[0] = '\0';
	if (chosen)
		append_reason(buf, size, p->sample_every > 1 ? "sampling" : "submit mode");
	if (p->dropped)
		append_reason(buf, size, "dropped dispatches, see below");
	if (p->clamped) {
		/* An end before its start is no time: the dispatch is counted, its 0 ns left out. */
		snprintf(clamped, sizeof(clamped), "%" PRIu64 " clamped intervals left out", p->clamped);
		append_reason(buf, size, clamped);
	}
	if (!buf[0])
		append_reason(buf, size, "not every run could be timed");
	return buf;
}

/* The host-wait table: one line per thread and call. */
static void
print_host_waits(FILE *out, const struct hesper_profile *p)
{
	char total[CELL], mean[CELL], max[CELL];

	if (!p->host_wait_count)
		return;
	fputs("\nHost waits (the program's threads blocked in Vulkan)\n", out);
	fprintf(out, "  %-10s %-22s %10s %12s %12s %12s\n", "thread", "call", "count", "total", "mean", "max");
	for (size_t i = 0; i < p->host_wait_count; i++) {
		const struct hesper_host_wait *w = &p->host_waits[i];

		hesper_format_duration(total, sizeof(total), (double)w->total_ns);
		hesper_format_duration(mean, sizeof(mean), w->count ? (double)w->total_ns / (double)w->count : 0);
		hesper_format_duration(max, sizeof(max), (double)w->max_ns);
		fprintf(out, "  %-10" PRIu32 " %-22s %10" PRIu64 " %s", w->thread, hesper_wait_call_name(w->call),
			w->count, "");
		const char *cells[3] = {total, mean, max};
		for (size_t c = 0; c < 3; c++) {
			hesper_text_put_right(out, cells[c], 12);
			fputc(c < 2 ? ' ' : '\n', out);
		}
	}
}

/*
 * Clock mode: where the GPU busy time the kernels' total @kernels_ns leaves out of @busy_ns
 * went, since a clock-timed dispatch's time is its work groups' span alone.
 */
static void
print_clock_share(FILE *out, const struct hesper_profile *p, uint64_t kernels_ns, uint64_t busy_ns)
{
	char note[768], k[CELL], b[CELL], cost[128] = "";

	if (p->from_events || strcmp(p->mode, "clock") != 0 || !busy_ns || kernels_ns >= busy_ns)
		return;
	for (size_t i = 0; i < p->device_count && !cost[0]; i++)
		if (p->devices[i].dispatch_cost_ns)
			snprintf(cost, sizeof(cost), " (about %s a dispatch measured on device %zu)",
				 hesper_format_duration(b, sizeof(b), (double)p->devices[i].dispatch_cost_ns), i);
	snprintf(note, sizeof(note),
		 "Note: in clock mode a dispatch's time runs from its first work group's start to its last one's "
		 "end; the kernels' total, %s, is %.1f%% of the GPU busy time, %s. The rest is launches, drains and "
		 "barriers between dispatches%s, memory operations (counted, not timed in clock mode) and Hesper's "
		 "copies. Time (%%) is each kernel's share of the kernels' total.",
		 hesper_format_duration(k, sizeof(k), (double)kernels_ns), 100.0 * (double)kernels_ns / (double)busy_ns,
		 hesper_format_duration(b, sizeof(b), (double)busy_ns), cost);
	fputc('\n', out);
	hesper_text_put_wrapped(out, note, 0, LINE_COLUMNS, 0);
	fputc('\n', out);
}

int
hesper_findings_write_text(FILE *out, const struct hesper_findings *f)
{
	if (!f->count)
		return 0;
	fputs("\nFindings (largest time at stake first):\n", out);
	for (size_t i = 0; i < f->count; i++) {
		const struct hesper_finding *x = &f->items[i];
		char at[32], head[512], item[96];
		size_t col = FINDING_INDENT;

		hesper_format_duration(at, sizeof(at), (double)x->time_at_stake_ns);
		snprintf(head, sizeof(head), "%zu. %s, %s: %s at stake", i + 1, hesper_finding_kind_name(x->kind),
			 x->about, at);
		fputs("  ", out);
		hesper_text_put_wrapped(out, head, 2, LINE_COLUMNS, FINDING_INDENT);
		fputc('\n', out);
		hesper_text_pad(out, FINDING_INDENT);
		/* Each number as a reader wants it ("mean gap 643.4 µs"); the JSON keeps keys and exact values. */
		for (size_t k = 0; k < x->number_count; k++) {
			hesper_format_finding_number(item, sizeof(item), x->numbers[k].key, x->numbers[k].value);
			hesper_text_put_item(out, &col, FINDING_INDENT, k ? ", " : "", item, strlen(item));
		}
		fputc('\n', out);
		for (uint32_t g = 0; x->queue && g < x->queue->gap_count; g++) {
			const struct hesper_gap *gap = &x->queue->gaps[g];
			char len[32];

			hesper_format_duration(len, sizeof(len), (double)gap->length_ns);
			fprintf(out,
				"     gap %" PRIu32 ": %s before submission %" PRIu64 " (thread %" PRIu32 "): %s\n",
				g + 1, len, gap->submission, gap->thread, hesper_gap_activity(gap));
		}
		hesper_text_pad(out, FINDING_INDENT);
		hesper_text_put_wrapped(out, x->advice, FINDING_INDENT, LINE_COLUMNS, FINDING_INDENT);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

/*
 * "Pipeline statistics": per kernel first bound, its compute executable's statistics with
 * the driver's names, wrapped to the report's width, and its occupancy where its device has a
 * model (or says why not); a device whose driver has none says so.
 */
static void
print_pipeline_stats(FILE *out, const struct hesper_profile *p)
{
	enum { WIDTH = 120, INDENT = 4 };

	if (!hesper_profile_shows_stats(p))
		return;
	fputs("\nPipeline statistics (the driver's own names and values, per kernel)\n", out);
	for (size_t i = 0; i < p->device_count; i++)
		if (hesper_device_lacks_stats(&p->devices[i]))
			fprintf(out, "  device %zu: its driver has no VK_KHR_pipeline_executable_properties\n", i);
	for (size_t i = 0; i < p->pipeline_stats_count; i++) {
		const struct hesper_pipeline_stats *k = &p->pipeline_stats[i];
		size_t col = 2 + hesper_text_name_width(k->kernel);

		fputs("  ", out);
		hesper_text_put_name(out, k->kernel);
		char which[96] = "", subgroup[32] = "";
		hesper_stats_set_words(which, sizeof(which), p, k);
		if (which[0])
			fprintf(out, " (%s)", which);
		if (k->subgroup_size)
			snprintf(subgroup, sizeof(subgroup), ", subgroup %" PRIu32, k->subgroup_size);
		fprintf(out, "%s:", subgroup);
		col += (which[0] ? strlen(which) + 3 : 0) + strlen(subgroup) + 1;
		if (!k->count)
			fputs(" none reported", out);
		for (size_t j = 0; j < k->count; j++) {
			char v[32];
			size_t len = strnlen(k->stats[j].name, sizeof(k->stats[j].name));

			hesper_pipeline_stat_value(&k->stats[j], v, sizeof(v));
			/* "name value" and the comma after it, on a new line when it would pass the width */
			size_t need = 1 + len + 1 + strlen(v) + (j + 1 < k->count);
			if (col + need > WIDTH && col > INDENT) {
				fputc('\n', out);
				hesper_text_pad(out, INDENT - 1);
				col = INDENT - 1;
			}
			fputc(' ', out);
			hesper_text_put_clean(out, k->stats[j].name, len);
			fprintf(out, " %s%s", v, j + 1 < k->count ? "," : "");
			col += need;
		}
		fputc('\n', out);
		if (hesper_stats_shows_occupancy(p, k)) {
			char words[512];

			hesper_occupancy_words(words, sizeof(words), p, k);
			hesper_text_pad(out, INDENT);
			hesper_text_put_wrapped(out, words, INDENT, WIDTH, INDENT + 2);
			fputc('\n', out);
		}
	}
}

int
hesper_report_text(FILE *out, const struct hesper_profile *p)
{
	static const enum column kernel_cols[] = {
		COL_PERCENT, COL_TOTAL, COL_INSTANCES, COL_AVG, COL_MED, COL_P95, COL_MIN, COL_MAX, COL_STDDEV,
	};
	struct hesper_kernel **rows = NULL, **regions = NULL;
	size_t n = 0, nregions = 0, n_estimated;
	char a[CELL], b[CELL];
	int ret = -1;

	print_header(out, p);
	if (!p->kernels || hesper_kernel_table_size(p->kernels) == 0) {
		if (p->dropped)
			fprintf(out, "  dropped      %" PRIu64 " dispatches ran but could not be timed\n", p->dropped);
		put_live(out, p);
		/* A window that never opened recorded nothing by design: that, not "no GPU work", is what happened. */
		if (p->capture.set && !p->capture.opened)
			fprintf(out,
				"hesper: the capture window (from %s) never opened: nothing was recorded; %" PRIu64
				" dispatches ran outside it\n",
				p->capture.start, p->capture.outside);
		else
			fputs("hesper: no GPU work was recorded (no compute dispatches ran on a timed queue)\n", out);
		print_dropped(out, p);
		goto done;
	}

	if (hesper_kernel_table_rows(p->kernels, &rows, &n) != 0 ||
	    hesper_kernel_table_rows(p->regions, &regions, &nregions) != 0)
		goto out;

	struct hesper_profile_summary sum = hesper_profile_summary(p);
	uint64_t busy = hesper_profile_gpu_busy_ns(p);
	uint64_t busy_wall = hesper_profile_busy_wall_ns(p);
	uint64_t spans = hesper_rows_span_total_ns(rows, n), kernels_ns = hesper_rows_total_ns(rows, n);
	bool overlapped = spans > kernels_ns;

	fprintf(out, "  wall time    %s\n", hesper_format_duration(a, sizeof(a), (double)p->wall_ns));
	fprintf(out, "  GPU busy     %s", hesper_format_duration(a, sizeof(a), (double)busy));
	if (busy_wall)
		fprintf(out, " (%.1f%% of %s)", 100.0 * (double)busy / (double)busy_wall,
			p->capture.set ? "the capture window's wall time" : "wall time");
	fprintf(out, "\n  kernels      %zu\n", hesper_profile_kernel_count(p, n));
	if (hesper_rows_words(p))
		fprintf(out, "  rows         %zu, %s\n", n, hesper_rows_words(p));
	fprintf(out, "  dispatches   %" PRIu64 ": %" PRIu64 " timed, %" PRIu64 " dropped, %" PRIu64 " clamped\n",
		sum.dispatches, sum.events, p->dropped, p->clamped);
	if (!p->from_events) {
		fprintf(out, "  mode         %s", p->mode[0] ? p->mode : "?");
		if (p->sample_every > 1)
			fprintf(out, ", sample every %" PRIu32, p->sample_every);
		if (p->clock_isolated)
			fprintf(out, ", %" PRIu64 " isolated dispatches timed from barrier to barrier",
				p->clock_isolated);
		char line[HESPER_NAME_MAX + 256];
		if (overlapped) {
			/* Totals no longer add up the spans: say so where the columns are read. */
			snprintf(
				line, sizeof(line),
				"overlapping dispatches (their spans add up to %s): Total and Time (%%) split the time "
				"they shared; Avg to StdDev are whole spans",
				hesper_format_duration(b, sizeof(b), (double)spans));
			fputc('\n', out);
			hesper_text_pad(out, HEADER_INDENT);
			hesper_text_put_wrapped(out, line, HEADER_INDENT, LINE_COLUMNS, HEADER_INDENT);
		}
		for (size_t i = 0; i < p->clock_note_count; i++) {
			/* clock mode: kernels timed with timestamps instead */
			snprintf(line, sizeof(line), "%.*s: timestamps, %.*s",
				 (int)strnlen(p->clock_notes[i].kernel, HESPER_NAME_MAX), p->clock_notes[i].kernel,
				 (int)strnlen(p->clock_notes[i].why, sizeof(p->clock_notes[i].why)),
				 p->clock_notes[i].why);
			fputc('\n', out);
			hesper_text_pad(out, HEADER_INDENT);
			hesper_text_put_wrapped(out, line, HEADER_INDENT, LINE_COLUMNS, HEADER_INDENT);
		}
		fprintf(out, "\n  Hesper cost  %" PRIu64 " timestamps written, %s host time in hooks\n",
			p->timestamps_written, hesper_format_duration(b, sizeof(b), (double)p->hook_ns));
	}
	put_live(out, p);
	fputc('\n', out);

	hesper_text_print_table(out, rows, n, kernel_cols, sizeof(kernel_cols) / sizeof(kernel_cols[0]),
				p->group_by == HESPER_GROUP_BY_LABEL);
	n_estimated = hesper_rows_not_all_timed(rows, n);
	if (n_estimated) {
		char why[256];

		fprintf(out,
			"\nNote: %zu of %zu kernels ran more often than they were timed (%s);\n"
			"totals marked ~ are estimates (%s x Instances), and '-' means never timed.\n",
			n_estimated, n, untimed_reasons(why, sizeof(why), p), overlapped ? "the mean share" : "Avg");
	}
	if (overlapped) {
		/* Under the columns too: which of them are shares and which whole spans. */
		char note[512], t[CELL];
		snprintf(note, sizeof(note),
			 "Note: dispatches overlapped on the GPU. Total and Time (%%) give each dispatch its share of "
			 "the time it ran in, so the kernels' totals add up to the time the GPU ran them (%s); Avg, "
			 "Med, P95, Min, Max and StdDev are whole spans, which add up to %s.",
			 hesper_format_duration(t, sizeof(t), (double)kernels_ns),
			 hesper_format_duration(b, sizeof(b), (double)spans));
		fputc('\n', out);
		hesper_text_put_wrapped(out, note, 0, LINE_COLUMNS, 0);
		fputc('\n', out);
	}
	print_submit_queues(out, p);
	print_clock_share(out, p, kernels_ns, busy);
	print_dropped(out, p);

	if (hesper_text_print_regions(out, p, regions, nregions) != 0)
		goto out;

done:
	print_pipeline_stats(out, p);
	hesper_text_print_lines(out, p);
	print_memops(out, p);
	print_host_waits(out, p);
	struct hesper_findings findings;
	if (hesper_findings_compute(p, &findings) == 0) {
		hesper_findings_write_text(out, &findings);
		hesper_findings_free(&findings);
	}
	ret = 0;
out:
	free(rows);
	free(regions);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}
