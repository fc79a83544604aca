/*
 * hesper diff A.json B.json [--threshold PCT]: per-kernel changes between two runs,
 * sorted by the absolute change of total time. A kernel regressed when it was timed in
 * both runs and its mean grew by more than PCT percent (default 10); then the exit
 * status is 1. Kernels found in only one run are listed ("new", "gone") but are not
 * regressions.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "commands.h"
#include "report.h"
#include "summary_load.h"
#include "usage.h"

#define DEFAULT_THRESHOLD_PCT 10.0
#define CELL 48

struct change {
	const char *name;
	const struct hesper_kernel *a, *b; /* NULL when absent in that run */
	double delta_total;                /* B - A, ns */
	double ratio;                      /* mean B / mean A; NAN when not comparable */
	bool regressed;
};

enum column { C_COUNT_A, C_COUNT_B, C_TOTAL_A, C_TOTAL_B, C_DELTA, C_MEAN_A, C_MEAN_B, C_RATIO, C_N };

static const char *const titles[C_N] = {"Count A", "Count B", "Total A", "Total B",
					"Change",  "Mean A",  "Mean B",  "Mean B/A"};

static int
compare_changes(const void *pa, const void *pb)
{
	const struct change *a = pa, *b = pb;
	double x = fabs(a->delta_total), y = fabs(b->delta_total);

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

static bool
timed(const struct hesper_kernel *k)
{
	return k && k->timed.count > 0;
}

static void
cells(const struct change *c, char out[C_N][CELL])
{
	double ta = c->a ? (double)hesper_kernel_total_ns(c->a) : 0,
	       tb = c->b ? (double)hesper_kernel_total_ns(c->b) : 0;

	snprintf(out[C_COUNT_A], CELL, c->a ? "%" PRIu64 : "-", c->a ? c->a->count : 0);
	snprintf(out[C_COUNT_B], CELL, c->b ? "%" PRIu64 : "-", c->b ? c->b->count : 0);
	if (timed(c->a))
		hesper_format_duration(out[C_TOTAL_A], CELL, ta);
	else
		strcpy(out[C_TOTAL_A], "-");
	if (timed(c->b))
		hesper_format_duration(out[C_TOTAL_B], CELL, tb);
	else
		strcpy(out[C_TOTAL_B], "-");
	out[C_DELTA][0] = c->delta_total > 0 ? '+' : '\0';
	hesper_format_duration(out[C_DELTA] + (c->delta_total > 0), CELL - 1, c->delta_total);
	if (timed(c->a))
		hesper_format_duration(out[C_MEAN_A], CELL, c->a->timed.mean_ns);
	else
		strcpy(out[C_MEAN_A], "-");
	if (timed(c->b))
		hesper_format_duration(out[C_MEAN_B], CELL, c->b->timed.mean_ns);
	else
		strcpy(out[C_MEAN_B], "-");
	if (!c->a)
		strcpy(out[C_RATIO], "new");
	else if (!c->b)
		strcpy(out[C_RATIO], "gone");
	else if (isnan(c->ratio))
		strcpy(out[C_RATIO], "-");
	else
		snprintf(out[C_RATIO], CELL, "%.2fx%s", c->ratio, c->regressed ? " !" : "");
}

static void
print_changes(const struct change *changes, size_t n)
{
	size_t width[C_N];
	char cell[C_N][CELL];

	for (int c = 0; c < C_N; c++)
		width[c] = hesper_text_width(titles[c]);
	for (size_t i = 0; i < n; i++) {
		cells(&changes[i], cell);
		for (int c = 0; c < C_N; c++)
			if (hesper_text_width(cell[c]) > width[c])
				width[c] = hesper_text_width(cell[c]);
	}
	for (int c = 0; c < C_N; c++)
		hesper_put_right(stdout, titles[c], width[c], c ? 2 : 1);
	fputs("  Name\n", stdout);
	size_t rule[C_N + 1];
	memcpy(rule, width, sizeof(width));
	rule[C_N] = 4;
	hesper_put_rule(stdout, rule, C_N + 1);
	for (size_t i = 0; i < n; i++) {
		cells(&changes[i], cell);
		for (int c = 0; c < C_N; c++)
			hesper_put_right(stdout, cell[c], width[c], c ? 2 : 1);
		fputs("  ", stdout);
		hesper_put_clean(stdout, changes[i].name);
		fputc('\n', stdout);
	}
}

/* Adds a change row for every kernel of @from missing from the rows so far. */
static size_t
collect(struct change *changes, size_t n, const struct hesper_profile *a, const struct hesper_profile *b,
	double threshold)
{
	size_t cursor = 0;
	struct hesper_kernel *k;
	const struct hesper_profile *runs[2] = {a, b};

	for (int r = 0; r < 2; r++) {
		cursor = 0;
		while ((k = hesper_kernel_table_next(runs[r]->kernels, &cursor))) {
			if (r == 1 && hesper_kernel_table_find(a->kernels, k->name))
				continue; /* already paired */
			struct change *c = &changes[n++];

			c->name = k->name;
			c->a = r == 0 ? k : NULL;
			c->b = r == 0 ? hesper_kernel_table_find(b->kernels, k->name) : k;
			c->delta_total = (c->b ? (double)hesper_kernel_total_ns(c->b) : 0) -
					 (c->a ? (double)hesper_kernel_total_ns(c->a) : 0);
			c->ratio = timed(c->a) && timed(c->b) && c->a->timed.mean_ns > 0
					   ? c->b->timed.mean_ns / c->a->timed.mean_ns
					   : NAN;
			c->regressed = !isnan(c->ratio) && c->ratio > 1.0 + threshold / 100.0;
		}
	}
	return n;
}

static void
describe(const char *label, const char *path, const struct hesper_profile *p)
{
	printf("  %s  %s (", label, path);
	hesper_put_clean(stdout, p->exe[0] ? p->exe : "?");
	printf(", pid %d)\n", p->pid);
}

int
hesper_cmd_diff(int argc, char **argv)
{
	const char *files[2] = {NULL, NULL};
	double threshold = DEFAULT_THRESHOLD_PCT;
	struct hesper_profile runs[2];
	struct change *changes = NULL;
	int nfiles = 0, ret = HESPER_EXIT_USAGE, loaded = 0;
	char err[512];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--threshold") == 0 || strncmp(argv[i], "--threshold=", 12) == 0) {
			const char *v = argv[i][11] == '=' ? argv[i] + 12 : i + 1 < argc ? argv[++i] : NULL;
			char *end;

			if (!v)
				return hesper_usage_error("--threshold needs a value (percent)");
			errno = 0;
			threshold = strtod(v, &end);
			if (errno || end == v || *end || !(threshold >= 0) || !isfinite(threshold))
				return hesper_usage_error("--threshold takes a percentage >= 0, not '%s'", v);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return hesper_usage_error("diff: unknown option '%s'", argv[i]);
		} else if (nfiles < 2) {
			files[nfiles++] = argv[i];
		} else {
			return hesper_usage_error(
				"diff takes two summaries (hesper diff A.json B.json [--threshold PCT])");
		}
	}
	if (nfiles != 2)
		return hesper_usage_error("diff takes two summaries (hesper diff A.json B.json [--threshold PCT])");
	for (; loaded < 2; loaded++) {
		if (hesper_summary_load(files[loaded], &runs[loaded], err, sizeof(err)) != 0) {
			fprintf(stderr, "hesper: %s\n", err);
			loaded++;
			goto out;
		}
	}

	size_t max = hesper_kernel_table_size(runs[0].kernels) + hesper_kernel_table_size(runs[1].kernels);
	changes = calloc(max ? max : 1, sizeof(*changes));
	if (!changes) {
		fputs("hesper: out of memory\n", stderr);
		goto out;
	}
	size_t n = collect(changes, 0, &runs[0], &runs[1], threshold);
	qsort(changes, n, sizeof(*changes), compare_changes);

	printf("Hesper diff, per kernel (threshold %g%% on the mean)\n", threshold);
	describe("A", files[0], &runs[0]);
	describe("B", files[1], &runs[1]);
	fputc('\n', stdout);
	print_changes(changes, n);

	size_t regressed = 0;
	for (size_t i = 0; i < n; i++)
		regressed += changes[i].regressed;
	if (regressed) {
		printf("\n%zu kernel%s slower by more than %g%% (mean):", regressed, regressed == 1 ? "" : "s",
		       threshold);
		for (size_t i = 0; i < n; i++) {
			if (!changes[i].regressed)
				continue;
			fputc(' ', stdout);
			hesper_put_clean(stdout, changes[i].name);
			printf(" (%.2fx)", changes[i].ratio);
		}
		fputc('\n', stdout);
		ret = 1;
	} else {
		printf("\nNo kernel's mean grew by more than %g%%.\n", threshold);
		ret = 0;
	}
out:
	free(changes);
	for (int i = 0; i < loaded; i++)
		hesper_profile_free(&runs[i]);
	return ret;
}
