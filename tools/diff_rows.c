/* `hesper diff`'s rows: built from the runs, printed as a table and a verdict (diff_rows.h). */
#include "diff_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "write/write.h"

#define CELL 48
#define NAMES_LISTED 5 /* kernels named in a note line; the rest are counted */

enum column { C_COUNT_A, C_COUNT_B, C_TOTAL_A, C_TOTAL_B, C_MEDIAN_A, C_MEDIAN_B, C_NOISE, C_RATIO, C_VERDICT, C_N };

static const char *const titles[C_N] = {"Count A",  "Count B", "Total A",    "Total B", "Median A",
					"Median B", "Noise",   "Median B/A", "Verdict"};

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every kernel name of both sides, once each, sorted; NULL when memory runs out. */
static const char **
all_names(const struct hesper_diff_side sides[2], size_t *n)
{
	size_t max = 0, k = 0;
	const char **names;

	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < sides[s].n; r++)
			max += sides[s].runs[r].nkernels;
	names = calloc(max ? max : 1, sizeof(*names));
	if (!names)
		return NULL;
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < sides[s].n; r++)
			for (size_t i = 0; i < sides[s].runs[r].nkernels; i++)
				names[k++] = sides[s].runs[r].kernels[i].name;
	qsort(names, k, sizeof(*names), by_name);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (*n == 0 || strcmp(names[*n - 1], names[i]) != 0)
			names[(*n)++] = names[i];
	return names;
}

/* The side's numbers for kernel @name into @row (side @s); @samples has room for the side's runs. */
static void
fill_side(struct hesper_diff_row *row, int s, const struct hesper_diff_side *side, struct hesper_diff_sample *samples)
{
	double total = 0;
	size_t timed_runs = 0, found = 0;

	row->count[s] = 0;
	for (size_t r = 0; r < side->n; r++) {
		const struct hesper_diff_kernel *k = hesper_diff_run_kernel(&side->runs[r], row->name);

		samples[r] = (struct hesper_diff_sample){0, 0, 0};
		if (!k)
			continue;
		found++;
		row->count[s] += (double)k->count / (double)side->n;
		samples[r] = (struct hesper_diff_sample){k->median_ns, k->stddev_ns, k->timed};
		if (k->timed) {
			total += k->total_ns;
			timed_runs++;
		}
	}
	row->in[s] = found > 0;
	row->total[s] = timed_runs ? total / (double)timed_runs : NAN;
	row->est[s] = hesper_diff_estimate(samples, side->n);
}

static double
total_change(const struct hesper_diff_row *r)
{
	return (isnan(r->total[1]) ? 0 : r->total[1]) - (isnan(r->total[0]) ? 0 : r->total[0]);
}

static int
by_total_change(const void *pa, const void *pb)
{
	const struct hesper_diff_row *a = pa, *b = pb;
	double x = fabs(total_change(a)), y = fabs(total_change(b));

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

struct hesper_diff_row *
hesper_diff_rows(const struct hesper_diff_side sides[2], double threshold_pct, double sigmas, size_t *n)
{
	const char **names = all_names(sides, n);
	struct hesper_diff_sample *samples = calloc(sides[0].n + sides[1].n + 1, sizeof(*samples));
	struct hesper_diff_row *rows = calloc(*n + 1, sizeof(*rows));

	if (!names || !samples || !rows) {
		free(rows);
		rows = NULL;
		goto out;
	}
	for (size_t i = 0; i < *n; i++) {
		rows[i].name = names[i];
		fill_side(&rows[i], 0, &sides[0], samples);
		fill_side(&rows[i], 1, &sides[1], samples);
		rows[i].change = hesper_diff_compare(&rows[i].est[0], &rows[i].est[1], threshold_pct, sigmas);
	}
	qsort(rows, *n, sizeof(*rows), by_total_change);
out:
	free(names);
	free(samples);
	return rows;
}

static const char *
verdict_word(const struct hesper_diff_row *r)
{
	if (!r->in[0])
		return "new";
	if (!r->in[1])
		return "gone";
	switch (r->change.verdict) {
	case HESPER_DIFF_SLOWER: return "slower !";
	case HESPER_DIFF_FASTER: return "faster";
	case HESPER_DIFF_NOISE: return "noise";
	case HESPER_DIFF_FEW: return "few";
	case HESPER_DIFF_UNTIMED: return "untimed";
	case HESPER_DIFF_SAME: break;
	}
	return "";
}

static void
duration_or_dash(char *cell, double ns)
{
	if (isnan(ns))
		strcpy(cell, "-");
	else
		hesper_format_duration(cell, CELL, ns);
}

static void
cells(const struct hesper_diff_row *r, char out[C_N][CELL])
{
	for (int s = 0; s < 2; s++) {
		if (!r->in[s])
			strcpy(out[C_COUNT_A + s], "-");
		else if (r->count[s] == floor(r->count[s]))
			snprintf(out[C_COUNT_A + s], CELL, "%.0f", r->count[s]);
		else
			snprintf(out[C_COUNT_A + s], CELL, "%.1f", r->count[s]);
		duration_or_dash(out[C_TOTAL_A + s], r->total[s]);
		duration_or_dash(out[C_MEDIAN_A + s], r->est[s].time_ns);
	}
	if (isnan(r->change.ratio)) {
		strcpy(out[C_NOISE], "-");
		strcpy(out[C_RATIO], "-");
	} else {
		out[C_NOISE][0] = '\0';
		strcat(out[C_NOISE], "±");
		hesper_format_duration(out[C_NOISE] + strlen(out[C_NOISE]), CELL - strlen(out[C_NOISE]),
				       r->change.noise_ns);
		if (isinf(r->change.ratio))
			strcpy(out[C_RATIO], "from 0");
		else
			snprintf(out[C_RATIO], CELL, "%.2fx", r->change.ratio);
	}
	snprintf(out[C_VERDICT], CELL, "%s", verdict_word(r));
}

void
hesper_diff_print_table(FILE *out, const struct hesper_diff_row *rows, size_t n)
{
	size_t width[C_N + 1];
	char cell[C_N][CELL];

	for (int c = 0; c < C_N; c++)
		width[c] = hesper_text_width(titles[c]);
	for (size_t i = 0; i < n; i++) {
		cells(&rows[i], cell);
		for (int c = 0; c < C_N; c++)
			if (hesper_text_width(cell[c]) > width[c])
				width[c] = hesper_text_width(cell[c]);
	}
	for (int c = 0; c < C_N; c++)
		hesper_put_right(out, titles[c], width[c], c ? 2 : 1);
	fputs("  Name\n", out);
	width[C_N] = 4;
	hesper_put_rule(out, width, C_N + 1);
	for (size_t i = 0; i < n; i++) {
		cells(&rows[i], cell);
		for (int c = 0; c < C_N; c++)
			hesper_put_right(out, cell[c], width[c], c ? 2 : 1);
		fputs("  ", out);
		hesper_put_clean(out, rows[i].name);
		fputc('\n', out);
	}
}

/*
 * Where @r's noise mostly comes from, after its figures: a side's two fastest runs apart,
 * where that gap is at least half of the noise's square; else the dispatches' spread within
 * the runs. Returns whether it was the runs' gap.
 */
static bool
put_noise_source(FILE *out, const struct hesper_diff_row *r)
{
	int side = r->est[1].gap_ns > r->est[0].gap_ns;
	double gap = r->est[side].gap_ns, noise = r->change.noise_ns;

	if (gap > 0 && 2 * gap * gap >= noise * noise && r->est[side].time_ns > 0) {
		fprintf(out, ": %s's two fastest runs %.1f%% apart", side ? "B" : "A",
			100 * gap / r->est[side].time_ns);
		return true;
	}
	fputs(": the dispatches' spread within a run", out);
	return false;
}

/*
 * The rows of @verdict (both sides present): their count, and a list of up to NAMES_LISTED
 * names; *@gaps (when given) counts the listed noise rows whose noise is mostly a side's runs apart.
 */
static size_t
list_verdict(FILE *out, const struct hesper_diff_row *rows, size_t n, enum hesper_diff_verdict verdict, bool print,
	     bool numbers, size_t *gaps)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		const struct hesper_diff_row *r = &rows[i];

		if (!r->in[0] || !r->in[1] || r->change.verdict != verdict)
			continue;
		if (print && count < NAMES_LISTED) {
			fputs(count ? ", " : " ", out);
			hesper_put_clean(out, r->name);
			if (numbers && isfinite(r->change.ratio)) {
				fprintf(out, " (%.2fx, noise ±%.1f%%", r->change.ratio,
					100 * r->change.noise_ns / r->est[0].time_ns);
				if (verdict == HESPER_DIFF_NOISE && put_noise_source(out, r) && gaps)
					++*gaps;
				fputc(')', out);
			}
		}
		count++;
	}
	if (print && count > NAMES_LISTED)
		fprintf(out, " and %zu more", count - NAMES_LISTED);
	return count;
}

size_t
hesper_diff_print_verdict(FILE *out, const struct hesper_diff_row *rows, size_t n, double threshold_pct)
{
	size_t slower = list_verdict(out, rows, n, HESPER_DIFF_SLOWER, false, false, NULL);
	size_t noise = list_verdict(out, rows, n, HESPER_DIFF_NOISE, false, false, NULL);
	size_t few = list_verdict(out, rows, n, HESPER_DIFF_FEW, false, false, NULL);

	fputc('\n', out);
	if (slower) {
		fprintf(out, "%zu kernel%s slower by more than %g%% and beyond the noise:", slower,
			slower == 1 ? "" : "s", threshold_pct);
		list_verdict(out, rows, n, HESPER_DIFF_SLOWER, true, true, NULL);
		fputc('\n', out);
	} else {
		fprintf(out, "No kernel slower by more than %g%% beyond the noise.\n", threshold_pct);
	}
	if (noise) {
		fprintf(out, "%zu kernel%s changed by more than %g%% within the noise (\"noise\"):", noise,
			noise == 1 ? "" : "s", threshold_pct);
		size_t gaps = 0;
		list_verdict(out, rows, n, HESPER_DIFF_NOISE, true, true, &gaps);
		fputc('\n', out);
		/* The runs' gap is the noise: a side's fastest run stood apart, which more runs settle. */
		if (gaps)
			fputs("A side's fastest run stood apart from its next: more runs a side (--runs N, alternating A and B)\n"
			      "narrow that gap and may tell a change from the noise.\n",
			      out);
	}
	if (few) {
		fprintf(out,
			"%zu kernel%s changed by more than %g%% with too few timed dispatches to tell the noise "
			"(\"few\": fewer than %d in a lone run; --runs adds the runs' spread):",
			few, few == 1 ? "" : "s", threshold_pct, HESPER_DIFF_MIN_TIMED);
		list_verdict(out, rows, n, HESPER_DIFF_FEW, true, false, NULL);
		fputc('\n', out);
	}
	return slower;
}
