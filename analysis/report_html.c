/*
 * The HTML report: one self-contained page (inline CSS, SVG and script; nothing fetched)
 * with the header facts, the kernel table (sortable by its column headers), a bar chart
 * of total time per kernel, duration histograms of the top kernels and a timeline of
 * the first HTML_TIMELINE_MAX events.
 *
 * Everything but the timeline is plain HTML and SVG written here, so the page reads
 * without its script. Names are escaped for HTML; the timeline's data travels as JSON in
 * <script type="application/json">, with '<', '>' and '&' escaped so no name can end the
 * element. When the script ran it sets data-hesper-script="ok" on <html> ("error: ..."
 * when something threw), which tests read back.
 */
#include "report.h"

#include "findings.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace_layout.h"

#ifndef HESPER_VERSION
#define HESPER_VERSION "unknown"
#endif

#define HTML_TIMELINE_MAX 2000u /* events drawn in the timeline */
#define HTML_BARS_MAX 25u       /* kernels in the bar chart */
#define HTML_HISTOGRAMS_MAX 4u  /* kernels with a histogram */
#define BIN_PER_OCTAVE 4        /* histogram bins per power of two */
#define BIN_MAX (1 + 64 * BIN_PER_OCTAVE)
#define LABEL_CHARS 40 /* characters of a name shown in a chart label */
#define CELL 48

/* Writes @len bytes of @s as HTML text: markup characters as references, controls as U+FFFD. */
static void
html_text_n(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fputs("\xef\xbf\xbd", out);
			else
				fputc(c, out);
		}
	}
}

static void
html_text(FILE *out, const char *s)
{
	html_text_n(out, s ? s : "", SIZE_MAX);
}

/* @name cut to LABEL_CHARS characters (on a character boundary) with "…" when cut. */
static void
html_label(FILE *out, const char *name)
{
	size_t bytes = 0, chars = 0;

	while (name[bytes] && chars <= LABEL_CHARS) {
		bytes++;
		while (((unsigned char)name[bytes] & 0xc0) == 0x80)
			bytes++;
		chars++;
	}
	if (!name[bytes] && chars <= LABEL_CHARS) {
		html_text(out, name);
		return;
	}
	/* Cut: keep LABEL_CHARS - 1 characters and the ellipsis. */
	bytes = 0;
	for (chars = 0; name[bytes] && chars < LABEL_CHARS - 1; chars++) {
		bytes++;
		while (((unsigned char)name[bytes] & 0xc0) == 0x80)
			bytes++;
	}
	html_text_n(out, name, bytes);
	fputs("\u2026", out);
}

/* A JSON string safe inside <script>: hesper_json_write_string's output with <, > and & escaped. */
static void
json_embedded(FILE *out, const char *s)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f) {
		fputs("\"?\"", out);
		return;
	}
	hesper_json_write_string(f, s);
	if (fclose(f) != 0) {
		free(buf);
		fputs("\"?\"", out);
		return;
	}
	for (size_t i = 0; i < size; i++) {
		char c = buf[i];

		if (c == '<' || c == '>' || c == '&')
			fprintf(out, "\\u%04x", (unsigned)c);
		else
			fputc(c, out);
	}
	free(buf);
}

static const char *
duration(char *buf, double ns)
{
	return hesper_format_duration(buf, CELL, ns);
}

static const char style[] =
	"<style>\n"
	":root{--fg:#1d2330;--muted:#5b6478;--line:#d9dde6;--bg:#fff;--band:#f4f6fa;--accent:#3b6fb6}\n"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg);"
	"margin:0 auto;max-width:1200px;padding:16px 24px}\n"
	"h1{font-size:22px;margin:4px 0}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);"
	"padding-bottom:4px}\n"
	".sub{color:var(--muted);margin:0 0 12px}\n"
	".facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:6px 18px;margin:0}\n"
	".facts div{background:var(--band);border-radius:6px;padding:6px 10px}\n"
	".facts dt{color:var(--muted);font-size:12px}.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}\n"
	"table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}\n"
	"th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}\n"
	"th{background:var(--band);cursor:pointer;user-select:none;position:sticky;top:0}\n"
	"th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}\n"
	"td.name,th.name{text-align:left;white-space:normal;overflow-wrap:anywhere}\n"
	"tbody tr:hover{background:#eef3fb}\n"
	".note{color:var(--muted);font-size:13px}\n"
	"svg text{font:12px system-ui,sans-serif;fill:var(--fg)}svg .muted{fill:var(--muted)}\n"
	".bar{fill:var(--accent)}.hbar{fill:#59a14f}\n"
	".hists{display:grid;grid-template-columns:repeat(auto-fill,minmax(500px,1fr));gap:12px}\n"
	".hist h3{font-size:14px;margin:4px 0;overflow-wrap:anywhere}\n"
	"#timeline{position:relative;border:1px solid var(--line);border-radius:6px;overflow:hidden}\n"
	"#timeline canvas{display:block;width:100%}\n"
	"#tip{position:absolute;pointer-events:none;background:#1d2330;color:#fff;padding:4px 8px;border-radius:4px;"
	"font-size:12px;display:none;white-space:pre;max-width:600px;overflow:hidden}\n"
	"footer{margin-top:32px;color:var(--muted);font-size:12px}\n"
	"</style>\n";

static void
put_fact(FILE *out, const char *title, const char *value)
{
	fprintf(out, "<div><dt>%s</dt><dd>", title);
	html_text(out, value);
	fputs("</dd></div>\n", out);
}

static void
put_facts(FILE *out, const struct hesper_profile *p, size_t nkernels)
{
	struct hesper_profile_summary sum = hesper_profile_summary(p);
	uint64_t busy = hesper_profile_gpu_busy_ns(p);
	char v[2 * HESPER_NAME_MAX + 128], a[CELL], b[CELL], c[CELL];

	fputs("<section id=\"facts\"><dl class=\"facts\">\n", out);
	snprintf(v, sizeof(v), "%.*s (pid %d)", HESPER_NAME_MAX, p->exe[0] ? p->exe : "?", p->pid);
	put_fact(out, "program", v);
	put_fact(out, "host", p->host[0] ? p->host : "?");
	for (size_t i = 0; i < p->device_count; i++) {
		snprintf(v, sizeof(v), p->devices[i].driver[0] ? "%.*s (%.*s)" : "%.*s", HESPER_NAME_MAX,
			 p->devices[i].name, HESPER_NAME_MAX, p->devices[i].driver);
		put_fact(out, "device", v);
	}
	if (p->device_count == 0)
		put_fact(out, "device", "none seen");
	put_fact(out, "wall time", duration(a, (double)p->wall_ns));
	if (p->wall_ns)
		snprintf(v, sizeof(v), "%s (%.1f%% of wall time)", duration(a, (double)busy),
			 100.0 * (double)busy / (double)p->wall_ns);
	else
		snprintf(v, sizeof(v), "%s", duration(a, (double)busy));
	put_fact(out, "GPU busy", v);
	snprintf(v, sizeof(v), "%zu", nkernels);
	put_fact(out, "kernels", v);
	snprintf(v, sizeof(v), "%" PRIu64 ": %" PRIu64 " timed", sum.dispatches, sum.events);
	put_fact(out, "dispatches", v);
	snprintf(v, sizeof(v), "%" PRIu64 " dropped, %" PRIu64 " clamped", p->dropped, p->clamped);
	put_fact(out, "not timed", v);
	if (!p->from_events) {
		if (p->sample_every > 1)
			snprintf(v, sizeof(v), "%.31s, sample every %" PRIu32, p->mode[0] ? p->mode : "?",
				 p->sample_every);
		else
			snprintf(v, sizeof(v), "%.31s", p->mode[0] ? p->mode : "?");
		put_fact(out, "mode", v);
		snprintf(v, sizeof(v), "%" PRIu64 " timestamps, %s in hooks, %s collecting", p->timestamps_written,
			 duration(b, (double)p->hook_ns), duration(c, (double)p->collector_ns));
		put_fact(out, "Hesper's cost", v);
	}
	snprintf(v, sizeof(v), "%zu kept, %" PRIu64 " left out%s", p->trace.count, p->trace.left_out,
		 p->trace.count ? (p->trace.calibrated ? ", calibrated" : ", not calibrated") : "");
	put_fact(out, "timeline events", v);
	fputs("</dl></section>\n", out);
}

/* The findings, largest time at stake first, and the host-wait table; nothing when there are none. */
static int
put_findings(FILE *out, const struct hesper_profile *p)
{
	struct hesper_findings f;
	char a[CELL], b[CELL], num[64];

	if (hesper_findings_compute(p, &f) != 0)
		return -1;
	if (f.count) {
		fputs("<section id=\"findings\"><h2>Findings</h2>\n<ol>\n", out);
		for (size_t i = 0; i < f.count; i++) {
			const struct hesper_finding *x = &f.items[i];

			fprintf(out, "<li data-kind=\"%s\"><b>%s</b>, ", hesper_finding_kind_name(x->kind),
				hesper_finding_kind_name(x->kind));
			html_text(out, x->about);
			fprintf(out, ": %s at stake<br><small>", duration(a, (double)x->time_at_stake_ns));
			for (size_t k = 0; k < x->number_count; k++) {
				snprintf(num, sizeof(num), "%s%s=%.6g", k ? " " : "", x->numbers[k].key,
					 x->numbers[k].value);
				html_text(out, num);
			}
			fputs("</small><br>", out);
			for (uint32_t g = 0; x->queue && g < x->queue->gap_count; g++) {
				snprintf(num, sizeof(num), "gap %" PRIu32 ": %s, ", g + 1,
					 duration(b, (double)x->queue->gaps[g].length_ns));
				html_text(out, num);
				html_text(out, hesper_gap_activity(&x->queue->gaps[g]));
				fputs("<br>", out);
			}
			html_text(out, x->advice);
			fputs("</li>\n", out);
		}
		fputs("</ol></section>\n", out);
	}
	hesper_findings_free(&f);
	if (p->host_wait_count) {
		fputs("<section id=\"host-waits\"><h2>Host waits</h2>\n<table><thead><tr><th>thread</th><th>call</th>"
		      "<th>count</th><th>total</th><th>max</th></tr></thead><tbody>\n",
		      out);
		for (size_t i = 0; i < p->host_wait_count; i++) {
			const struct hesper_host_wait *w = &p->host_waits[i];

			fprintf(out,
				"<tr><td>%" PRIu32 "</td><td>%s</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td></tr>\n",
				w->thread, hesper_wait_call_name(w->call), w->count, duration(a, (double)w->total_ns),
				duration(b, (double)w->max_ns));
		}
		fputs("</tbody></table></section>\n", out);
	}
	return 0;
}

static void
put_cell(FILE *out, double sort_value, const char *text)
{
	fprintf(out, "<td data-v=\"%.17g\">", isfinite(sort_value) ? sort_value : 0.0);
	html_text(out, text);
	fputs("</td>", out);
}

static void
put_kernel_row(FILE *out, const struct hesper_kernel *k, uint64_t sum)
{
	struct hesper_row r = hesper_row_numbers(k, sum);
	char a[CELL + 1];

	snprintf(a, sizeof(a), "%.1f", r.percent);
	fputs("<tr>", out);
	put_cell(out, r.percent, a);
	if (!r.timed) {
		put_cell(out, -1, "-");
		snprintf(a, sizeof(a), "%" PRIu64, k->count);
		put_cell(out, (double)k->count, a);
		for (int i = 0; i < 6; i++)
			put_cell(out, -1, "-");
	} else {
		a[0] = '~';
		hesper_format_duration(a + r.estimated, CELL, (double)r.total_ns);
		put_cell(out, (double)r.total_ns, a);
		snprintf(a, sizeof(a), "%" PRIu64, k->count);
		put_cell(out, (double)k->count, a);
		put_cell(out, r.mean_ns, duration(a, r.mean_ns));
		put_cell(out, r.median_ns, duration(a, r.median_ns));
		put_cell(out, r.min_ns, duration(a, r.min_ns));
		put_cell(out, r.max_ns, duration(a, r.max_ns));
		put_cell(out, r.p95_ns, duration(a, r.p95_ns));
		put_cell(out, r.stddev_ns, duration(a, r.stddev_ns));
	}
	fputs("<td class=\"name\">", out);
	html_text(out, k->name);
	fputs("</td></tr>\n", out);
}

static void
put_kernel_table(FILE *out, const char *id, struct hesper_kernel **rows, size_t n)
{
	static const char *const titles[] = {"Time (%)", "Total", "Instances", "Avg",   "Med",
					     "Min",      "Max",   "P95",       "StdDev"};
	uint64_t sum = hesper_rows_total_ns(rows, n);
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
	fputs("<p class=\"note\">Click a column header to sort.</p>\n", out);
}

static void
put_region_table(FILE *out, struct hesper_kernel **rows, size_t n)
{
	char a[CELL + 1];

	fputs("<h2>Regions (debug labels)</h2>\n<table id=\"regions\" class=\"sortable\"><thead><tr>"
	      "<th data-type=\"num\">Total</th><th data-type=\"num\">Instances</th><th data-type=\"num\">Avg</th>"
	      "<th class=\"name\" data-type=\"text\">Name</th></tr></thead>\n<tbody>\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct hesper_kernel *k = rows[i];

		fputs("<tr>", out);
		put_cell(out, (double)hesper_kernel_total_ns(k), duration(a, (double)hesper_kernel_total_ns(k)));
		snprintf(a, sizeof(a), "%" PRIu64, k->count);
		put_cell(out, (double)k->count, a);
		put_cell(out, k->timed.mean_ns, duration(a, k->timed.mean_ns));
		fputs("<td class=\"name\">", out);
		html_text(out, k->name);
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
 * Launch shapes of the kernels that have any: the local size from the SPIR-V and the
 * work-group counts (fewest, most, most common with its count; unknown: indirect, not read back).
 */
static void
put_shape_table(FILE *out, struct hesper_kernel **rows, size_t n)
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
		html_text(out, s->local_size_varies ? "varies" : shape_text(a, sizeof(a), s->local_size));
		fputs("</td><td>", out);
		html_text(out, shape_text(a, sizeof(a), s->known ? s->min : none));
		fputs("</td><td>", out);
		html_text(out, shape_text(a, sizeof(a), s->known ? s->max : none));
		fputs("</td><td>", out);
		html_text(out, shape_text(a, sizeof(a), top ? top->groups : none));
		fputs("</td>", out);
		snprintf(a, sizeof(a), "%" PRIu64, top ? top->count : 0);
		put_cell(out, top ? (double)top->count : 0, a);
		snprintf(a, sizeof(a), "%" PRIu64, s->unknown);
		put_cell(out, (double)s->unknown, a);
		fputs("<td class=\"name\">", out);
		html_text(out, rows[i]->name);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* The memory-operation table (as the text report's), when any ran. */
static void
put_memop_table(FILE *out, const struct hesper_profile *p)
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
			put_cell(out, r.mean_ns, duration(a, r.mean_ns));
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
		html_text(out, row->k.name);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

static void
put_bar_chart(FILE *out, struct hesper_kernel **rows, size_t n)
{
	const int label_w = 300, bar_w = 560, row_h = 22, width = label_w + bar_w + 110;
	size_t shown = n < HTML_BARS_MAX ? n : HTML_BARS_MAX;
	uint64_t max = shown ? hesper_kernel_total_ns(rows[0]) : 0;
	char a[CELL];

	fputs("<h2>Total time per kernel</h2>\n", out);
	if (shown == 0) {
		fputs("<p class=\"note\">No kernels.</p>\n", out);
		return;
	}
	fprintf(out,
		"<svg id=\"bars\" role=\"img\" aria-label=\"total time per kernel\" width=\"%d\" height=\"%zu\" "
		"viewBox=\"0 0 %d %zu\">\n",
		width, shown * (size_t)row_h + 4, width, shown * (size_t)row_h + 4);
	for (size_t i = 0; i < shown; i++) {
		uint64_t total = hesper_kernel_total_ns(rows[i]);
		double w = max ? (double)bar_w * (double)total / (double)max : 0;
		size_t y = i * (size_t)row_h + 2;

		fputs("<g><title>", out);
		html_text(out, rows[i]->name);
		fprintf(out, ": %s</title>", duration(a, (double)total));
		fprintf(out, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", label_w - 8, y + 15);
		html_label(out, rows[i]->name);
		fprintf(out, "</text><rect class=\"bar\" x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"%d\" rx=\"2\"/>",
			label_w, y + 2, w < 1 && total ? 1.0 : w, row_h - 6);
		fprintf(out, "<text class=\"muted\" x=\"%.1f\" y=\"%zu\">%s</text></g>\n",
			label_w + (w < 1 ? 1 : w) + 6, y + 15, duration(a, (double)total));
	}
	if (n > shown)
		fprintf(out, "</svg>\n<p class=\"note\">The %zu largest of %zu kernels.</p>\n", shown, n);
	else
		fputs("</svg>\n", out);
}

/* Bin of histogram bucket (row, sub): row 0 (0..63 ns) is one bin, each row above BIN_PER_OCTAVE. */
static int
bin_of(int row, int sub)
{
	return row == 0 ? 0 : 1 + (row - 1) * BIN_PER_OCTAVE + sub / (HESPER_HISTOGRAM_SUB_BUCKETS / BIN_PER_OCTAVE);
}

static void
bin_range(int bin, uint64_t *lo, uint64_t *hi)
{
	uint64_t unused;
	const int per = HESPER_HISTOGRAM_SUB_BUCKETS / BIN_PER_OCTAVE;

	if (bin == 0) {
		hesper_histogram_bucket_range(0, 0, lo, &unused);
		hesper_histogram_bucket_range(0, HESPER_HISTOGRAM_SUB_BUCKETS - 1, &unused, hi);
		return;
	}
	int row = 1 + (bin - 1) / BIN_PER_OCTAVE, q = (bin - 1) % BIN_PER_OCTAVE;

	hesper_histogram_bucket_range(row, q * per, lo, &unused);
	hesper_histogram_bucket_range(row, q * per + per - 1, &unused, hi);
}

static void
put_histogram(FILE *out, const struct hesper_kernel *k)
{
	const struct hesper_histogram *h = &k->timed.hist;
	const int plot_w = 400, plot_h = 140, left = 44, top = 8, width = 500, height = 200;
	uint64_t bins[BIN_MAX] = {0}, max = 0, lo, hi;
	int first = BIN_MAX, last = -1;
	char a[CELL], b[CELL];

	for (int row = h->lo_row; row <= h->hi_row; row++)
		for (int sub = 0; sub < HESPER_HISTOGRAM_SUB_BUCKETS; sub++) {
			uint64_t c = h->counts[(size_t)(row - h->lo_row) * HESPER_HISTOGRAM_SUB_BUCKETS + (size_t)sub];
			int bin = bin_of(row, sub);

			if (!c)
				continue;
			bins[bin] += c;
			first = bin < first ? bin : first;
			last = bin > last ? bin : last;
		}
	fputs("<div class=\"hist\"><h3>", out);
	html_text(out, k->name);
	fprintf(out, " <span class=\"note\">(%" PRIu64 " timed)</span></h3>\n", k->timed.count);
	if (last < 0) {
		fputs("<p class=\"note\">No durations recorded.</p></div>\n", out);
		return;
	}
	for (int i = first; i <= last; i++)
		max = bins[i] > max ? bins[i] : max;

	int nbins = last - first + 1;
	double bw = (double)plot_w / nbins;
	int label_every = nbins <= 8 ? 1 : (nbins + 7) / 8;

	fprintf(out,
		"<svg role=\"img\" aria-label=\"duration histogram\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\">\n",
		width, height, width, height);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", left, top + plot_h,
		left + plot_w, top + plot_h);
	fprintf(out, "<text class=\"muted\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRIu64 "</text>", left - 4,
		top + 10, max);
	fprintf(out, "<text class=\"muted\" x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", left - 4, top + plot_h);
	for (int i = first; i <= last; i++) {
		double hgt = max ? (double)plot_h * (double)bins[i] / (double)max : 0;
		double x = left + (i - first) * bw;

		bin_range(i, &lo, &hi);
		fprintf(out,
			"<rect class=\"hbar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s to %s: "
			"%" PRIu64 "</title></rect>",
			x + 0.5, top + plot_h - hgt, bw > 2 ? bw - 1 : bw, hgt, duration(a, (double)lo),
			duration(b, (double)hi), bins[i]);
		if ((i - first) % label_every == 0)
			fprintf(out,
				"<text class=\"muted\" x=\"%.1f\" y=\"%d\" transform=\"rotate(35 %.1f %d)\">%s</text>",
				x, top + plot_h + 14, x, top + plot_h + 14, duration(a, (double)lo));
		fputc('\n', out);
	}
	fputs("</svg></div>\n", out);
}

static void
put_histograms(FILE *out, struct hesper_kernel **rows, size_t n)
{
	size_t shown = 0;

	fputs("<h2>Duration histograms</h2>\n", out);
	fprintf(out,
		"<p class=\"note\">Timed durations of the top kernels by total time, %d bins per power of two "
		"(log scale on the time axis, linear counts).</p>\n<div class=\"hists\">\n",
		BIN_PER_OCTAVE);
	for (size_t i = 0; i < n && shown < HTML_HISTOGRAMS_MAX; i++) {
		if (rows[i]->timed.count == 0)
			continue;
		put_histogram(out, rows[i]);
		shown++;
	}
	if (shown == 0)
		fputs("<p class=\"note\">No timed kernels.</p>\n", out);
	fputs("</div>\n", out);
}

/* Whether event @a comes before @b on the timeline: earlier start, longer first on ties. */
static bool
before(const struct hesper_trace_event *a, const struct hesper_trace_event *b)
{
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns;
	return a->end_ns > b->end_ns;
}

static void
sift_down(const struct hesper_trace_event **heap, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && before(heap[c], heap[c + 1]))
			c++;
		if (!before(heap[i], heap[c]))
			return;
		const struct hesper_trace_event *tmp = heap[i];
		heap[i] = heap[c];
		heap[c] = tmp;
		i = c;
	}
}

/*
 * Copies into @first the @want earliest events of @t (a max-heap of the earliest seen so
 * far: memory bounded by @want, not by the trace). Returns how many were copied.
 */
static size_t
earliest_events(const struct hesper_trace *t, struct hesper_trace_event *first, size_t want,
		const struct hesper_trace_event **heap)
{
	size_t n = 0;

	for (size_t i = 0; i < t->count; i++) {
		const struct hesper_trace_event *e = &t->events[i];

		if (n < want) {
			heap[n++] = e;
			if (n == want)
				for (size_t j = n / 2; j-- > 0;)
					sift_down(heap, n, j);
		} else if (want > 0 && before(e, heap[0])) {
			heap[0] = e;
			sift_down(heap, n, 0);
		}
	}
	for (size_t i = 0; i < n; i++)
		first[i] = *heap[i];
	return n;
}

/* The timeline data, as JSON for the script: tracks and [track, start, duration, kind, name] events. */
static int
put_timeline_data(FILE *out, const struct hesper_profile *p)
{
	const struct hesper_trace *t = &p->trace;
	size_t shown = t->count < HTML_TIMELINE_MAX ? t->count : HTML_TIMELINE_MAX;
	struct hesper_trace_event *first = NULL;
	const struct hesper_trace_event **heap = NULL;
	struct hesper_trace_layout l = {0};
	char name[HESPER_TRACK_NAME_MAX];
	uint64_t origin = hesper_trace_origin(t);
	int ret = -1;

	if (shown) {
		first = malloc(shown * sizeof(*first));
		heap = malloc(shown * sizeof(*heap));
		if (!first || !heap)
			goto out;
		shown = earliest_events(t, first, shown, heap);
	}
	if (hesper_trace_layout_build(&l, first, shown) != 0)
		goto out;

	fprintf(out, "{\"total\": %zu, \"shown\": %zu, \"left_out\": %" PRIu64 ", \"not_drawn\": %zu, \"tracks\": [",
		t->count, shown, t->left_out, l.unplaced);
	for (size_t i = 0; i < l.track_count; i++) {
		hesper_trace_track_name(name, sizeof(name), p, &l.tracks[i]);
		fputs(i ? ", " : "", out);
		json_embedded(out, name);
	}
	fputs("],\n\"events\": [", out);
	for (size_t i = 0, n = 0; i < l.count; i++) {
		const struct hesper_trace_event *e = &first[l.order[i]];
		uint64_t end = e->end_ns > e->start_ns ? e->end_ns : e->start_ns;

		if (l.track_of[i] == SIZE_MAX)
			continue;
		fprintf(out, "%s[%zu, %" PRIu64 ", %" PRIu64 ", %d, ", n++ ? ",\n" : "\n", l.track_of[i],
			e->start_ns - origin, end - e->start_ns, (int)e->kind);
		json_embedded(out, e->kind == HESPER_TRACE_BATCH         ? "batch"
				   : e->kind == HESPER_TRACE_HOST_SUBMIT ? "vkQueueSubmit"
				   : e->name                             ? e->name
									 : "?");
		fputc(']', out);
	}
	fputs("]}", out);
	ret = 0;
out:
	hesper_trace_layout_free(&l);
	free(first);
	free(heap);
	return ret;
}

static const char script[] =
	"<script>\n"
	"(function(){\n"
	"'use strict';\n"
	"var root=document.documentElement;\n"
	"function fail(msg){root.setAttribute('data-hesper-script','error: '+msg);"
	"var s=document.getElementById('status');if(s)s.textContent='page script failed: '+msg;}\n"
	"window.addEventListener('error',function(e){fail(e.message||'error');});\n"
	"function fmt(ns){var u=[['ns',1],['\\u00b5s',1e3],['ms',1e6],['s',1e9]],i=0;"
	"while(i<3&&Math.abs(ns)>=u[i+1][1])i++;var v=ns/u[i][1];"
	"return (i===0?Math.round(v):v.toPrecision(4))+' '+u[i][0];}\n"
	"function sortable(table){var ths=table.tHead.rows[0].cells;"
	"Array.prototype.forEach.call(ths,function(th,col){th.addEventListener('click',function(){"
	"var asc=th.getAttribute('aria-sort')!=='ascending',num=th.getAttribute('data-type')==='num';"
	"Array.prototype.forEach.call(ths,function(o){o.removeAttribute('aria-sort');});"
	"th.setAttribute('aria-sort',asc?'ascending':'descending');"
	"var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);"
	"rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];if(!x||!y)return 0;"
	"var c=num?parseFloat(x.getAttribute('data-v'))-parseFloat(y.getAttribute('data-v'))"
	":x.textContent.localeCompare(y.textContent);return asc?c:-c;});"
	"rows.forEach(function(r){body.appendChild(r);});});});}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),sortable);\n"
	"function hue(s){var h=0;for(var i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))>>>0;return h%360;}\n"
	"function timeline(d){var box=document.getElementById('timeline');if(!d.events.length)return;"
	"var cv=document.createElement('canvas'),tip=document.getElementById('tip');box.insertBefore(cv,tip);"
	"var rowH=20,left=330,axis=22,dpr=window.devicePixelRatio||1,end=0;"
	"d.events.forEach(function(e){end=Math.max(end,e[1]+e[2]);});if(end<=0)end=1;"
	"var W=box.clientWidth||1000,H=axis+rowH*d.tracks.length+4;cv.width=W*dpr;cv.height=H*dpr;cv.style.height=H+'px';"
	"var g=cv.getContext('2d');g.scale(dpr,dpr);g.font='12px system-ui,sans-serif';"
	"var x=function(ns){return left+(W-left-10)*ns/end;};"
	"g.fillStyle='#5b6478';g.strokeStyle='#d9dde6';for(var k=0;k<8;k++){var t=end*k/8,px=x(t);"
	"g.beginPath();g.moveTo(px,axis-4);g.lineTo(px,H);g.stroke();g.fillText(fmt(t),Math.min(px+2,W-70),12);}"
	"d.tracks.forEach(function(name,i){var y=axis+i*rowH;if(i%2){g.fillStyle='#f4f6fa';g.fillRect(0,y,W,rowH);}"
	"g.fillStyle='#1d2330';g.fillText(name.length>50?name.slice(0,18)+'\\u2026'+name.slice(-31):name,6,y+14);});"
	"var kinds=['dispatch','region','batch','submit','memory','wait'];"
	"d.events.forEach(function(e){var y=axis+e[0]*rowH+3,x0=x(e[1]),w=Math.max(1,x(e[1]+e[2])-x0);"
	"g.fillStyle=e[3]===0?'hsl('+hue(e[4])+',55%,55%)':['#888','#b07aa1','#76b7b2','#f28e2b','#4e79a7','#bab0ac'][e[3]];"
	"g.fillRect(x0,y,w,rowH-6);});"
	"cv.addEventListener('mousemove',function(ev){var r=cv.getBoundingClientRect(),mx=ev.clientX-r.left,"
	"my=ev.clientY-r.top,row=Math.floor((my-axis)/rowH),hit=null;"
	"d.events.forEach(function(e){if(e[0]===row&&mx>=x(e[1])-1&&mx<=x(e[1]+e[2])+1)hit=e;});"
	"if(!hit){tip.style.display='none';return;}"
	"tip.textContent=hit[4]+' ('+kinds[hit[3]]+')\\nstart '+fmt(hit[1])+', duration '+fmt(hit[2]);"
	"tip.style.display='block';tip.style.left=Math.min(mx+12,W-300)+'px';tip.style.top=(my+12)+'px';});"
	"cv.addEventListener('mouseleave',function(){tip.style.display='none';});}\n"
	"var data=JSON.parse(document.getElementById('hesper-data').textContent);\n"
	"timeline(data);\n"
	"if(!root.hasAttribute('data-hesper-script')){root.setAttribute('data-hesper-script','ok');"
	"document.getElementById('status').textContent='';}\n"
	"})();\n"
	"</script>\n";

static void
put_timeline(FILE *out, const struct hesper_profile *p)
{
	const struct hesper_trace *t = &p->trace;
	size_t shown = t->count < HTML_TIMELINE_MAX ? t->count : HTML_TIMELINE_MAX;

	fputs("<h2>Timeline</h2>\n", out);
	if (t->count == 0) {
		fprintf(out, "<p class=\"note\">No timeline events were kept%s.</p>\n",
			t->left_out ? " (all were left out by the event cap)" : "");
	} else {
		fprintf(out, "<p class=\"note\">The first %zu of %zu events kept", shown, t->count);
		if (t->left_out)
			fprintf(out, " (%" PRIu64 " more were left out by the cap)", t->left_out);
		fputs(", from the first event on; one row per queue lane, labels, submissions and host threads. "
		      "Hover for details; the trace report has all of them.</p>\n",
		      out);
	}
	fputs("<div id=\"timeline\"><div id=\"tip\"></div></div>\n", out);
}

int
hesper_report_html(FILE *out, const struct hesper_profile *p)
{
	struct hesper_kernel **rows = NULL, **regions = NULL;
	size_t n = 0, nregions = 0;
	int ret = -1;

	if (hesper_kernel_table_rows(p->kernels, &rows, &n) != 0 ||
	    hesper_kernel_table_rows(p->regions, &regions, &nregions) != 0)
		goto out;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Hesper: ",
	      out);
	html_text_n(out, p->exe[0] ? p->exe : "?", HESPER_NAME_MAX);
	fputs("</title>\n", out);
	fputs(style, out);
	fputs("</head>\n<body>\n<header><h1>Hesper GPU kernel summary</h1><p class=\"sub\">", out);
	html_text_n(out, p->exe[0] ? p->exe : "?", HESPER_NAME_MAX);
	fprintf(out, " &middot; pid %d &middot; ", p->pid);
	html_text_n(out, p->host[0] ? p->host : "?", HESPER_NAME_MAX);
	fputs("</p></header>\n", out);

	put_facts(out, p, n);
	if (put_findings(out, p) != 0)
		goto out;
	fputs("<section><h2>Kernels</h2>\n", out);
	put_kernel_table(out, "kernels", rows, n);
	if (nregions)
		put_region_table(out, regions, nregions);
	put_shape_table(out, rows, n);
	put_memop_table(out, p);
	fputs("</section>\n<section>\n", out);
	put_bar_chart(out, rows, n);
	fputs("</section>\n<section>\n", out);
	put_histograms(out, rows, n);
	fputs("</section>\n<section>\n", out);
	put_timeline(out, p);
	fputs("</section>\n", out);
	fputs("<footer>Hesper " HESPER_VERSION " &middot; durations are GPU time from timestamps; see the README for "
	      "what they include. <span id=\"status\">The page script has not run.</span></footer>\n",
	      out);

	fputs("<script type=\"application/json\" id=\"hesper-data\">", out);
	if (put_timeline_data(out, p) != 0)
		goto out;
	fputs("</script>\n", out);
	fputs(script, out);
	fputs("</body>\n</html>\n", out);
	ret = 0;
out:
	free(rows);
	free(regions);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}
