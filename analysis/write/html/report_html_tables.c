/*
 * The HTML report's tables (report_html_parts.h): kernels, regions, launch shapes and
 * memory operations. Every number cell carries its value in data-v, so the page script
 * sorts by the number and not by its formatted text ("1.5 ms" after "900 us").
 */
#include "report_html_parts.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "profile/profile.h"
#include "write/write.h"

static void
put_cell(FILE *out, double sort_value, const char *text)
{
	fprintf(out, "<td data-v=\"%.17g\">", isfinite(sort_value) ? sort_value : 0.0);
	hesper_html_text(out, text);
	fputs("</td>", out);
}

static void
put_kernel_row(FILE *out, const struct hesper_kernel *k, uint64_t sum)
{
	struct hesper_row r = hesper_row_numbers(k, sum);
	char a[CELL + 1];

	fputs("<tr>", out);
	if (!r.timed) {
		/* Never timed: no share of the total either, not 0.0 (sorted below every timed one). */
		put_cell(out, -1, "-");
		put_cell(out, -1, "-");
		snprintf(a, sizeof(a), "%" PRIu64, k->count);
		put_cell(out, (double)k->count, a);
		for (int i = 0; i < 6; i++)
			put_cell(out, -1, "-");
	} else {
		snprintf(a, sizeof(a), "%.1f", r.percent);
		put_cell(out, r.percent, a);
		a[0] = '~';
		hesper_format_duration(a + r.estimated, CELL, (double)r.total_ns);
		put_cell(out, (double)r.total_ns, a);
		snprintf(a, sizeof(a), "%" PRIu64, k->count);
		put_cell(out, (double)k->count, a);
		put_cell(out, r.mean_ns, hesper_html_duration(a, r.mean_ns));
		put_cell(out, r.median_ns, hesper_html_duration(a, r.median_ns));
		put_cell(out, r.p95_ns, hesper_html_duration(a, r.p95_ns));
		put_cell(out, r.min_ns, hesper_html_duration(a, r.min_ns));
		put_cell(out, r.max_ns, hesper_html_duration(a, r.max_ns));
		put_cell(out, r.stddev_ns, hesper_html_duration(a, r.stddev_ns));
	}
	fputs("<td class=\"name\">", out);
	hesper_html_text(out, k->name);
	fputs("</td></tr>\n", out);
}

void
hesper_html_kernel_table(FILE *out, const char *id, struct hesper_kernel **rows, size_t n)
{
	/* The text report's columns, in its order. */
	static const char *const titles[] = {"Time (%)", "Total", "Instances", "Avg",   "Med",
					     "P95",      "Min",   "Max",       "StdDev"};
	uint64_t sum = hesper_rows_total_ns(rows, n), spans = hesper_rows_span_total_ns(rows, n);
	size_t estimated = hesper_rows_not_all_timed(rows, n);

	fprintf(out, "<table id=\"%s\" class=\"sortable\"><thead><tr>", id);
	for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
		fprintf(out, "<th data-type=\"num\">%s</th>", titles[i]);
	fputs("<th class=\"name\" data-type=\"text\">Name</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < n; i++)
		put_kernel_row(out, rows[i], sum);
	if (n == 0)
		fputs("<tr><td class=\"name\" colspan=\"10\">No GPU work was recorded (no compute dispatches ran on a "
		      "timed queue).</td></tr>\n",
		      out);
	fputs("</tbody></table>\n", out);
	if (estimated)
		fprintf(out,
			"<p class=\"note\">%zu of %zu kernels ran more often than they were timed (sampling or "
			"submit mode): totals marked ~ are estimates (Avg &times; Instances); '-' means never timed.</p>\n",
			estimated, n);
	if (spans > sum) {
		char a[CELL + 1];

		/* Totals no longer add up the spans: say so under the columns. */
		fprintf(out,
			"<p class=\"note\">Dispatches overlapped on the GPU: Total and Time (%%) split the time they "
			"shared; Avg to StdDev are whole spans (sum %s).</p>\n",
			hesper_html_duration(a, (double)spans));
	}
	fputs("<p class=\"note\">Click a column header to sort.</p>\n", out);
}

void
hesper_html_region_table(FILE *out, struct hesper_kernel **rows, size_t n)
{
	char a[CELL + 1];

	fputs("<h2>Regions (debug labels)</h2>\n<table id=\"regions\" class=\"sortable\"><thead><tr>"
	      "<th data-type=\"num\">Total</th><th data-type=\"num\">Instances</th><th data-type=\"num\">Avg</th>"
	      "<th class=\"name\" data-type=\"text\">Name</th></tr></thead>\n<tbody>\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct hesper_kernel *k = rows[i];
		struct hesper_row r = hesper_row_numbers(k, 0);

		fputs("<tr>", out);
		/* As the text report: '-' when never timed (submit mode), ~ when an estimate. */
		if (r.timed) {
			a[0] = '~';
			hesper_format_duration(a + r.estimated, CELL, (double)r.total_ns);
			put_cell(out, (double)r.total_ns, a);
		} else {
			put_cell(out, -1, "-");
		}
		snprintf(a, sizeof(a), "%" PRIu64, k->count);
		put_cell(out, (double)k->count, a);
		put_cell(out, r.timed ? r.mean_ns : -1, r.timed ? hesper_html_duration(a, r.mean_ns) : "-");
		fputs("<td class=\"name\">", out);
		hesper_html_text(out, k->name);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* "x×y×z" of @v into @buf ("-" when all zero). */
static const char *
shape_text(char *buf, size_t size, const uint32_t v[3])
{
	if (!v[0] && !v[1] && !v[2])
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%" PRIu32 "\u00d7%" PRIu32 "\u00d7%" PRIu32, v[0], v[1], v[2]);
	return buf;
}

/*
 * The share of the device the most common launch @top of row @k fills (its work groups over
 * those that fill the device once at the kernel's occupancy), into @buf; -1 and "-" unknown.
 */
static double
fill_text(char *buf, size_t size, const struct hesper_profile *p, const struct hesper_kernel *k,
	  const struct hesper_shape_count *top)
{
	const struct hesper_pipeline_stats *s = top ? hesper_row_stats(p, k->name) : NULL;
	double fill = -1;

	if (s) {
		struct hesper_occupancy o = hesper_stats_occupancy(p, s);
		fill = hesper_occupancy_fill(hesper_shape_groups(top->groups),
					     hesper_occupancy_device_groups(p, s, &o));
	}
	if (fill < 0)
		snprintf(buf, size, "-");
	else
		hesper_occupancy_percent(buf, size, fill);
	return fill;
}

/*
 * Launch shapes of the kernels that have any: the local size from the SPIR-V and the
 * work-group counts (fewest, most, most common with its count; unknown: indirect, not read
 * back), and how much of the device the most common launch fills where occupancy is known.
 */
void
hesper_html_shape_table(FILE *out, const struct hesper_profile *p, struct hesper_kernel **rows, size_t n)
{
	char a[CELL + 1];
	bool any = false;

	for (size_t i = 0; i < n && !any; i++)
		any = rows[i]->shapes.known || rows[i]->shapes.unknown;
	if (!any)
		return;
	fputs("<h2>Launch shapes</h2>\n<table id=\"shapes\" class=\"sortable\"><thead><tr>"
	      "<th data-type=\"text\">Local size</th><th data-type=\"text\">Groups min</th>"
	      "<th data-type=\"text\">Groups max</th><th data-type=\"text\">Most common</th>"
	      "<th data-type=\"num\">Its count</th><th data-type=\"num\">Unknown</th>"
	      "<th data-type=\"num\">Groups per µs</th>"
	      "<th data-type=\"num\" title=\"the most common launch's work groups over those that fill the device once at the "
	      "kernel's theoretical occupancy\">Fills the device</th>"
	      "<th class=\"name\" data-type=\"text\">Name</th></tr></thead>\n<tbody>\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct hesper_launch_shapes *s = &rows[i]->shapes;
		const struct hesper_shape_count *top = hesper_shapes_most_common(s);
		static const uint32_t none[3];

		if (!s->known && !s->unknown)
			continue;
		fputs("<tr>", out);
		fputs("<td>", out);
		hesper_html_text(out, s->local_size_varies ? "varies" : shape_text(a, sizeof(a), s->local_size));
		fputs("</td><td>", out);
		hesper_html_text(out, shape_text(a, sizeof(a), s->known ? s->min : none));
		fputs("</td><td>", out);
		hesper_html_text(out, shape_text(a, sizeof(a), s->known ? s->max : none));
		fputs("</td><td>", out);
		hesper_html_text(out, shape_text(a, sizeof(a), top ? top->groups : none));
		fputs("</td>", out);
		snprintf(a, sizeof(a), "%" PRIu64, top ? top->count : 0);
		put_cell(out, top ? (double)top->count : 0, a);
		snprintf(a, sizeof(a), "%" PRIu64, s->unknown);
		put_cell(out, (double)s->unknown, a);
		double rate = hesper_shapes_groups_per_us(s);
		if (rate > 0)
			snprintf(a, sizeof(a), "%.4g", rate);
		else
			snprintf(a, sizeof(a), "-");
		put_cell(out, rate, a);
		double fill = fill_text(a, sizeof(a), p, rows[i], top);
		put_cell(out, fill, a);
		fputs("<td class=\"name\">", out);
		hesper_html_text(out, rows[i]->name);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/*
 * A kernel's occupancy cells: the share of its SM ("≤" an upper bound), the resident work
 * groups and warps per SM, and the limit (with why when unknown or an upper bound); "-" each
 * where its device says nothing of occupancy.
 */
static void
put_occupancy_cells(FILE *out, const struct hesper_profile *p, const struct hesper_pipeline_stats *k)
{
	struct hesper_occupancy o = hesper_stats_occupancy(p, k);
	char a[CELL + 1];

	if (!hesper_stats_shows_occupancy(p, k) || o.limit == HESPER_LIMIT_UNKNOWN) {
		for (int c = 0; c < 3; c++)
			put_cell(out, -1, "-");
		fputs("<td class=\"name\">", out);
		if (hesper_stats_shows_occupancy(p, k)) {
			fputs("unknown: ", out);
			hesper_html_text(out, o.why ? o.why : "?");
		}
		fputs("</td>", out);
		return;
	}
	char share[16];
	hesper_occupancy_percent(share, sizeof(share), o.share); /* as the text report writes it */
	snprintf(a, sizeof(a), "%s%s", o.at_most ? "\u2264 " : "", share);
	put_cell(out, o.share, a);
	snprintf(a, sizeof(a), "%" PRIu32, o.groups_per_sm);
	put_cell(out, o.groups_per_sm, a);
	snprintf(a, sizeof(a), "%" PRIu32, o.warps_per_sm);
	put_cell(out, o.warps_per_sm, a);
	fputs("<td class=\"name\">", out);
	hesper_html_text(out, hesper_occupancy_limit_word(o.limit));
	if (o.at_most && o.why) {
		fputs(" (", out);
		hesper_html_text(out, o.why);
		fputs(")", out);
	}
	fputs("</td>", out);
}

/*
 * "Pipeline statistics": per kernel, the driver's statistics as a list of name and value
 * (drivers name different things, so no common columns), or the device that has none.
 */
void
hesper_html_pipeline_stats(FILE *out, const struct hesper_profile *p)
{
	if (!hesper_profile_shows_stats(p))
		return;
	fputs("<h2>Pipeline statistics</h2>\n", out);
	for (size_t i = 0; i < p->device_count; i++)
		if (hesper_device_lacks_stats(&p->devices[i]))
			fprintf(out,
				"<p class=\"sub\">Device %zu: its driver has no VK_KHR_pipeline_executable_properties.</p>\n",
				i);
	if (!p->pipeline_stats_count)
		return;
	fputs("<table id=\"pipeline-stats\"><thead><tr><th class=\"name\">Name</th><th>Subgroup</th>"
	      "<th>Occupancy</th><th>Groups per SM</th><th>Warps per SM</th><th class=\"name\">Limit</th>"
	      "<th class=\"name\">Statistics (the driver's names)</th></tr></thead>\n<tbody>\n",
	      out);
	for (size_t i = 0; i < p->pipeline_stats_count; i++) {
		const struct hesper_pipeline_stats *k = &p->pipeline_stats[i];
		char v[32], which[96];

		fputs("<tr><td class=\"name\">", out);
		hesper_html_text(out, k->kernel);
		hesper_stats_set_words(which, sizeof(which), p, k);
		if (which[0]) {
			fputs(" <span class=\"sub\">(", out);
			hesper_html_text(out, which);
			fputs(")</span>", out);
		}
		fprintf(out, "</td><td>%" PRIu32 "</td>", k->subgroup_size);
		put_occupancy_cells(out, p, k);
		fputs("<td class=\"name\">", out);
		for (size_t j = 0; j < k->count; j++) {
			hesper_pipeline_stat_value(&k->stats[j], v, sizeof(v));
			fputs(j ? ", " : "", out);
			hesper_html_text_n(out, k->stats[j].name, sizeof(k->stats[j].name));
			fputs(" <strong>", out);
			hesper_html_text(out, v);
			fputs("</strong>", out);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* The memory-operation table (as the text report's), when any ran. */
void
hesper_html_memop_table(FILE *out, const struct hesper_profile *p)
{
	uint64_t busy = hesper_profile_gpu_busy_ns(p);
	char a[CELL + 1];

	if (!hesper_memops_count(&p->memops))
		return;
	fputs("<h2>Memory operations</h2>\n<table id=\"memops\" class=\"sortable\"><thead><tr>"
	      "<th data-type=\"num\">Count</th><th data-type=\"num\">Total</th><th data-type=\"num\">Mean</th>"
	      "<th data-type=\"num\">Bytes</th><th data-type=\"num\">GB/s</th><th data-type=\"num\">Share (%)</th>"
	      "<th class=\"name\" data-type=\"text\">Operation</th></tr></thead>\n<tbody>\n",
	      out);
	for (int i = 0; i < HESPER_MEMOP_KINDS; i++) {
		const struct hesper_memop_row *row = &p->memops.rows[i];
		struct hesper_row r = hesper_row_numbers(&row->k, 0);

		if (!row->k.count)
			continue;
		fputs("<tr>", out);
		snprintf(a, sizeof(a), "%" PRIu64, row->k.count);
		put_cell(out, (double)row->k.count, a);
		if (r.timed) {
			a[0] = '~';
			hesper_format_duration(a + r.estimated, CELL, (double)r.total_ns);
			put_cell(out, (double)r.total_ns, a);
			put_cell(out, r.mean_ns, hesper_html_duration(a, r.mean_ns));
		} else {
			put_cell(out, -1, "-");
			put_cell(out, -1, "-");
		}
		snprintf(a, sizeof(a), "%" PRIu64 "%s", row->bytes, row->unsized ? " (some unknown)" : "");
		put_cell(out, (double)row->bytes, a);
		double gbps = hesper_memop_mean_gbps(row);
		snprintf(a, sizeof(a), r.timed ? "%.3f" : "-", gbps);
		put_cell(out, r.timed ? gbps : -1, a);
		double share = busy && r.timed ? 100.0 * (double)r.total_ns / (double)busy : 0;
		snprintf(a, sizeof(a), busy && r.timed ? "%.1f" : "-", share);
		put_cell(out, busy && r.timed ? share : -1, a);
		fputs("<td class=\"name\">", out);
		hesper_html_text(out, row->k.name);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}
