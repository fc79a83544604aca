/*
 * The HTML report's charts (report_html_parts.h), plain SVG so that they show without
 * the page script: total time per kernel as bars, and duration histograms of the top
 * kernels, whose HESPER_HISTOGRAM_SUB_BUCKETS buckets per power of two are summed into
 * BIN_PER_OCTAVE bins so a chart stays readable.
 */
#include "report_html_parts.h"

#include <inttypes.h>

#include "model/model.h"

#define HTML_BARS_MAX 25u      /* kernels in the bar chart */
#define HTML_HISTOGRAMS_MAX 4u /* kernels with a histogram */
#define BIN_PER_OCTAVE 4       /* histogram bins per power of two */
#define BIN_MAX (1 + 64 * BIN_PER_OCTAVE)

void
hesper_html_bar_chart(FILE *out, struct hesper_kernel **rows, size_t n)
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
		bool timed = rows[i]->timed.count > 0;
		double w = max ? (double)bar_w * (double)total / (double)max : 0;
		size_t y = i * (size_t)row_h + 2;
		/* A kernel never timed (submit mode) has no total: no bar, and '-' rather than 0 ns. */
		const char *value = timed ? hesper_html_duration(a, (double)total) : "-";

		fputs("<g><title>", out);
		hesper_html_text(out, rows[i]->name);
		fprintf(out, ": %s</title>", timed ? value : "not timed");
		fprintf(out, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", label_w - 8, y + 15);
		hesper_html_label(out, rows[i]->name);
		fputs("</text>", out);
		if (timed)
			fprintf(out, "<rect class=\"bar\" x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"%d\" rx=\"2\"/>",
				label_w, y + 2, w < 1 && total ? 1.0 : w, row_h - 6);
		fprintf(out, "<text class=\"muted\" x=\"%.1f\" y=\"%zu\">%s</text></g>\n",
			label_w + (timed && w >= 1 ? w : 1) + 6, y + 15, value);
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
	hesper_html_text(out, k->name);
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
			x + 0.5, top + plot_h - hgt, bw > 2 ? bw - 1 : bw, hgt, hesper_html_duration(a, (double)lo),
			hesper_html_duration(b, (double)hi), bins[i]);
		if ((i - first) % label_every == 0)
			fprintf(out,
				"<text class=\"muted\" x=\"%.1f\" y=\"%d\" transform=\"rotate(35 %.1f %d)\">%s</text>",
				x, top + plot_h + 14, x, top + plot_h + 14, hesper_html_duration(a, (double)lo));
		fputc('\n', out);
	}
	fputs("</svg></div>\n", out);
}

void
hesper_html_histograms(FILE *out, struct hesper_kernel **rows, size_t n)
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
