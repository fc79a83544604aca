/*
 * hesper diff [options] A.json B.json, or --runs N with N summaries a side: per-kernel
 * changes between two sides, a run or several runs each, and an exit status a CI job can
 * gate on: 1 when a kernel got slower beyond the threshold and the noise (diff_stats.h),
 * 0 otherwise, 2 for bad usage, a file that is not a sound summary (diff_load.h), or
 * sides that are different programs, devices or modes (unless --allow-mismatch), or were
 * grouped differently (HESPER_GROUP_BY).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "commands.h"
#include "diff_load.h"
#include "diff_rows.h"
#include "usage.h"

#define DEFAULT_THRESHOLD_PCT 10.0
#define DEFAULT_SIGMAS 2.0
#define RUNS_MAX 10000
#define SYNOPSIS "hesper diff [--threshold PCT] [--sigmas K] [--runs N] [--allow-mismatch] A.json... B.json..."

struct diff_options {
	double threshold_pct, sigmas;
	size_t runs; /* per side */
	bool allow_mismatch;
	const char **files;
	size_t nfiles;
};

/* The value of option @name at argv[*i] ("--name V" or "--name=V"), advancing *i; NULL when missing. */
static const char *
option_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool
is_option(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* A number from @lo up (and, for @whole, a whole one up to RUNS_MAX) into *@out; false when @v is not one. */
static bool
parse_number(const char *v, double lo, bool whole, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return !errno && end != v && !*end && isfinite(*out) && *out >= lo &&
	       (!whole || (*out == floor(*out) && *out <= RUNS_MAX));
}

static int
parse_options(int argc, char **argv, struct diff_options *o)
{
	double runs = 1;

	*o = (struct diff_options){DEFAULT_THRESHOLD_PCT, DEFAULT_SIGMAS, 1, false, NULL, 0};
	o->files = calloc((size_t)argc, sizeof(*o->files));
	if (!o->files)
		return hesper_usage_error("out of memory");
	for (int i = 1; i < argc; i++) {
		const char *v;

		if (is_option(argv[i], "--threshold")) {
			if (!(v = option_value(argc, argv, &i, "--threshold")) ||
			    !parse_number(v, 0, false, &o->threshold_pct))
				return hesper_usage_error("diff: --threshold takes a percentage >= 0, not '%s'",
							  v ? v : "");
		} else if (is_option(argv[i], "--sigmas")) {
			if (!(v = option_value(argc, argv, &i, "--sigmas")) || !parse_number(v, 0, false, &o->sigmas))
				return hesper_usage_error("diff: --sigmas takes a number >= 0, not '%s'", v ? v : "");
		} else if (is_option(argv[i], "--runs")) {
			if (!(v = option_value(argc, argv, &i, "--runs")) || !parse_number(v, 1, true, &runs))
				return hesper_usage_error(
					"diff: --runs takes a whole number of runs a side from 1 to %d, "
					"not '%s'",
					RUNS_MAX, v ? v : "");
			o->runs = (size_t)runs;
		} else if (strcmp(argv[i], "--allow-mismatch") == 0) {
			o->allow_mismatch = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return hesper_usage_error("diff: unknown option '%s'", argv[i]);
		} else {
			o->files[o->nfiles++] = argv[i];
		}
	}
	if (o->nfiles != 2 * o->runs)
		return hesper_usage_error("diff takes %zu summar%s a side, %zu in all, not %zu (" SYNOPSIS ")", o->runs,
					  o->runs == 1 ? "y" : "ies", 2 * o->runs, o->nfiles);
	return 0;
}

/* A devices key (diff_load.h) printed: "name, driver; name, driver". */
static void
put_devices(FILE *out, const char *key)
{
	if (!*key) {
		fputs("none", out);
		return;
	}
	for (; *key; key++) {
		if (*key == '\x1f')
			fputs(", ", out);
		else if (*key == '\x1e')
			fputs("; ", out);
		else
			fputc((unsigned char)*key < 0x20 ? '?' : *key, out);
	}
}

/* How two runs' setups compare (same_setup). */
enum setup_match {
	SETUP_SAME,
	SETUP_DIFFERENT, /* programs, devices or modes: compared only with --allow-mismatch */
	SETUP_REFUSED,   /* groupings: their rows are not the same rows, never compared */
};

/*
 * Whether @b is a run of what @a is: the same program, devices, mode and grouping
 * (HESPER_GROUP_BY). When not, one line on stderr names both files and each difference.
 */
static enum setup_match
same_setup(const struct hesper_diff_run *a, const struct hesper_diff_run *b, bool allow)
{
	bool program = strcmp(a->exe, b->exe) == 0, devices = strcmp(a->devices, b->devices) == 0,
	     mode = strcmp(a->mode, b->mode) == 0, grouping = strcmp(a->group_by, b->group_by) == 0;
	const char *sep = "";

	if (program && devices && mode && grouping)
		return SETUP_SAME;
	allow &= grouping;
	fprintf(stderr, "hesper: %s%s and %s differ:", allow ? "warning: " : "", a->path, b->path);
	if (!program) {
		fputs(" programs (", stderr);
		hesper_put_clean(stderr, a->exe);
		fputs(", ", stderr);
		hesper_put_clean(stderr, b->exe);
		fputc(')', stderr);
		sep = ";";
	}
	if (!devices) {
		fprintf(stderr, "%s devices (", sep);
		put_devices(stderr, a->devices);
		fputs(" vs ", stderr);
		put_devices(stderr, b->devices);
		fputc(')', stderr);
		sep = ";";
	}
	if (!mode) {
		fprintf(stderr, "%s modes (", sep);
		hesper_put_clean(stderr, a->mode[0] ? a->mode : "?");
		fputs(", ", stderr);
		hesper_put_clean(stderr, b->mode[0] ? b->mode : "?");
		fputc(')', stderr);
		sep = ";";
	}
	if (!grouping) {
		fprintf(stderr, "%s groupings (", sep);
		hesper_put_clean(stderr, a->group_by);
		fputs(", ", stderr);
		hesper_put_clean(stderr, b->group_by);
		fputs("); not compared (their rows are different rows: run both with the same HESPER_GROUP_BY)\n",
		      stderr);
		return SETUP_REFUSED;
	}
	fputs(allow ? "; compared anyway (--allow-mismatch)\n" : "; not compared (--allow-mismatch compares them)\n",
	      stderr);
	return SETUP_DIFFERENT;
}

static void
describe(const char *label, const struct hesper_diff_side *side)
{
	const struct hesper_diff_run *first = &side->runs[0], *last = &side->runs[side->n - 1];

	printf("  %s  ", label);
	if (side->n == 1)
		printf("%s (", first->path);
	else
		printf("%zu runs: %s ... %s (", side->n, first->path, last->path);
	hesper_put_clean(stdout, first->exe[0] ? first->exe : "?");
	if (side->n == 1)
		printf(", pid %d", first->pid);
	fputs(")\n", stdout);
}

int
hesper_cmd_diff(int argc, char **argv)
{
	struct diff_options o;
	struct hesper_diff_run *runs = NULL;
	struct hesper_diff_row *rows = NULL;
	size_t loaded = 0, nrows = 0;
	int ret = parse_options(argc, argv, &o);
	char err[512];
	bool mismatch = false;

	if (ret != 0)
		goto out;
	ret = HESPER_EXIT_USAGE;
	runs = calloc(o.nfiles, sizeof(*runs));
	if (!runs) {
		fputs("hesper: out of memory\n", stderr);
		goto out;
	}
	for (; loaded < o.nfiles; loaded++) {
		if (hesper_diff_run_load(o.files[loaded], &runs[loaded], err, sizeof(err)) != 0) {
			fprintf(stderr, "hesper: %s\n", err);
			loaded++;
			goto out;
		}
	}
	for (size_t i = 1; i < o.nfiles; i++) {
		enum setup_match m = same_setup(&runs[0], &runs[i], o.allow_mismatch);

		if (m == SETUP_REFUSED)
			goto out;
		mismatch |= m != SETUP_SAME;
	}
	if (mismatch && !o.allow_mismatch)
		goto out;

	struct hesper_diff_side sides[2] = {{runs, o.runs}, {runs + o.runs, o.runs}};
	rows = hesper_diff_rows(sides, o.threshold_pct, o.sigmas, &nrows);
	if (!rows) {
		fputs("hesper: out of memory\n", stderr);
		goto out;
	}
	printf("Hesper diff, per kernel: the median of its timed dispatches in %s\n",
	       o.runs == 1 ? "each run" : "each side's fastest run");
	describe("A", &sides[0]);
	describe("B", &sides[1]);
	printf("  slower: by more than %g%% and by more than %g times the noise\n\n", o.threshold_pct, o.sigmas);
	hesper_diff_print_table(stdout, rows, nrows);
	ret = hesper_diff_print_verdict(stdout, rows, nrows, o.threshold_pct) ? 1 : 0;
	/* A lone run a side cannot see how runs differ: say so where it matters, under the verdict. */
	if (o.runs == 1)
		puts("One run a side: the noise is the spread within each run only. Runs on a shared machine differ by more\n"
		     "(identical runs of a test program read slower in 43 of 400 tries under changing load): for a verdict\n"
		     "to gate on, give each side several runs (--runs N), alternating A and B.");
out:
	free(rows);
	for (size_t i = 0; i < loaded; i++)
		hesper_diff_run_free(&runs[i]);
	free(runs);
	free(o.files);
	return ret;
}
