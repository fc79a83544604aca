/*
 * hesper merge FILES... -o OUT: the summaries of many processes as one report.
 *
 * Kernels with the same name are one row (counts and totals add up; quantiles are
 * approximate, see analysis/summary_load.h); wall and GPU busy times are sums over the processes. Text goes to stdout: the merged table, a per-process
 * breakdown and, per kernel, the imbalance between processes: the max/min and max/mean
 * of the per-process totals over all processes (a process that never ran the kernel
 * counts as 0). OUT.json is the merged hesper-summary/1 with "processes" and
 * "imbalance" added; the trace files among FILES (*.trace.json, or after --trace) are
 * merged into OUT.trace.json.
 *
 * When FILES are SQLite databases (sqlite: sinks), OUT is the database written instead:
 * hesper merge -o all.db a.db b.db (merge_db.c).
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "commands.h"
#include "report.h"
#include "profile_merge.h"
#include "summary_load.h"
#include "usage.h"

#define CELL 48
#define TRACE_SUFFIX ".trace.json"

struct process {
	const char *path;
	struct hesper_profile profile;
};

struct imbalance {
	const struct hesper_kernel *merged;
	size_t ran;        /* processes that ran the kernel */
	uint64_t min, max; /* per-process totals, 0 for a process that did not run it */
	double mean;
};

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static uint64_t
process_gpu_time(const struct hesper_profile *p)
{
	return hesper_profile_summary(p).total_ns;
}

static void
compute_imbalance(struct imbalance *im, const struct hesper_kernel *merged, const struct process *procs, size_t nprocs)
{
	double sum = 0;

	im->merged = merged;
	im->ran = 0;
	im->min = UINT64_MAX;
	im->max = 0;
	for (size_t i = 0; i < nprocs; i++) {
		const struct hesper_kernel *k = hesper_kernel_table_find(procs[i].profile.kernels, merged->name);
		uint64_t total = k ? hesper_kernel_total_ns(k) : 0;

		im->ran += k != NULL;
		im->min = total < im->min ? total : im->min;
		im->max = total > im->max ? total : im->max;
		sum += (double)total;
	}
	im->mean = nprocs ? sum / (double)nprocs : 0;
}

static void
ratio_cell(char *buf, double num, double den)
{
	if (den > 0)
		snprintf(buf, CELL, "%.2f", num / den);
	else
		snprintf(buf, CELL, num > 0 ? "inf" : "-");
}

/*
 * The two tables below are laid out in two passes over their rows: pass 0 measures the
 * cells, pass 1 prints them. These three helpers are the parts both tables share.
 */

/* Starts every column's width at its title's. */
static void
table_widths(size_t *width, const char *const *titles, size_t nc)
{
	for (size_t c = 0; c < nc; c++)
		width[c] = strlen(titles[c]);
}

/* Prints @heading, the @nc titles right-aligned, "  "@last, then the rule (@last_width dashes under @last). */
static void
table_head(const char *heading, const char *const *titles, size_t *width, size_t nc, const char *last,
	   size_t last_width)
{
	fprintf(stdout, "\n%s\n", heading);
	for (size_t c = 0; c < nc; c++)
		hesper_put_right(stdout, titles[c], width[c], c ? 2 : 1);
	fprintf(stdout, "  %s\n", last);
	width[nc] = last_width;
	hesper_put_rule(stdout, width, nc + 1);
}

/* Pass 0: widens @width to fit the @nc cells; pass 1: prints them right-aligned. */
static void
table_cells(int pass, char cell[][CELL], size_t *width, size_t nc)
{
	for (size_t c = 0; c < nc; c++) {
		if (pass == 0 && hesper_text_width(cell[c]) > width[c])
			width[c] = hesper_text_width(cell[c]);
		if (pass == 1)
			hesper_put_right(stdout, cell[c], width[c], c ? 2 : 1);
	}
}

static void
print_processes(const struct process *procs, size_t n)
{
	static const char *const titles[] = {"Pid", "Wall", "GPU busy", "Kernel time", "Dispatches", "Dropped"};
	enum { NC = sizeof(titles) / sizeof(titles[0]) };
	char cell[NC][CELL];
	size_t width[NC + 1];

	table_widths(width, titles, NC);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			table_head("Processes", titles, width, NC, "Program (file)", 14);
		for (size_t i = 0; i < n; i++) {
			const struct hesper_profile *p = &procs[i].profile;
			struct hesper_profile_summary s = hesper_profile_summary(p);

			snprintf(cell[0], CELL, "%d", p->pid);
			hesper_format_duration(cell[1], CELL, (double)p->wall_ns);
			hesper_format_duration(cell[2], CELL, (double)hesper_profile_gpu_busy_ns(p));
			hesper_format_duration(cell[3], CELL, (double)process_gpu_time(p));
			snprintf(cell[4], CELL, "%" PRIu64, s.dispatches);
			snprintf(cell[5], CELL, "%" PRIu64, p->dropped);
			table_cells(pass, cell, width, NC);
			if (pass == 1) {
				fputs("  ", stdout);
				hesper_put_clean(stdout, p->exe[0] ? p->exe : "?");
				fputs(" (", stdout);
				hesper_put_clean(stdout, procs[i].path);
				fputs(")\n", stdout);
			}
		}
	}
}

static void
print_imbalance(const struct imbalance *rows, size_t n, size_t nprocs)
{
	static const char *const titles[] = {"Processes", "Min", "Mean", "Max", "Max/Min", "Max/Mean"};
	enum { NC = sizeof(titles) / sizeof(titles[0]) };
	char cell[NC][CELL];
	size_t width[NC + 1];

	table_widths(width, titles, NC);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			table_head("Imbalance between processes (total time per process, per kernel)", titles, width,
				   NC, "Name", 4);
		for (size_t i = 0; i < n; i++) {
			const struct imbalance *im = &rows[i];

			snprintf(cell[0], CELL, "%zu/%zu", im->ran, nprocs);
			hesper_format_duration(cell[1], CELL, (double)im->min);
			hesper_format_duration(cell[2], CELL, im->mean);
			hesper_format_duration(cell[3], CELL, (double)im->max);
			ratio_cell(cell[4], (double)im->max, (double)im->min);
			ratio_cell(cell[5], (double)im->max, im->mean);
			table_cells(pass, cell, width, NC);
			if (pass == 1) {
				fputs("  ", stdout);
				hesper_put_clean(stdout, im->merged->name);
				fputc('\n', stdout);
			}
		}
	}
}

static json_object *
ratio_json(double num, double den)
{
	return den > 0 ? json_object_new_double(num / den) : NULL;
}

/* The merged summary JSON: hesper_report_json's output, then "processes" and "imbalance". */
static int
write_json(const char *path, const struct hesper_profile *merged, const struct process *procs, size_t nprocs,
	   const struct imbalance *rows, size_t n)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	json_object *root = NULL, *list, *imb;
	int ret = -1;

	if (!f)
		goto out;
	if (hesper_report_json(f, merged) != 0) {
		fclose(f);
		goto out;
	}
	fclose(f);
	root = json_tokener_parse(text);
	if (!root)
		goto out;

	list = json_object_new_array();
	json_object_object_add(root, "processes", list);
	for (size_t i = 0; i < nprocs; i++) {
		const struct hesper_profile *p = &procs[i].profile;
		json_object *o = json_object_new_object(), *kernels = json_object_new_array();
		struct hesper_kernel **sorted = NULL;
		size_t nk = 0;

		json_object_object_add(o, "file", json_object_new_string(procs[i].path));
		json_object_object_add(o, "pid", json_object_new_int(p->pid));
		json_object_object_add(o, "exe", json_object_new_string(p->exe));
		json_object_object_add(o, "host", json_object_new_string(p->host));
		json_object_object_add(o, "wall_ns", json_object_new_uint64(p->wall_ns));
		json_object_object_add(o, "gpu_busy_ns", json_object_new_uint64(hesper_profile_gpu_busy_ns(p)));
		json_object_object_add(o, "dropped", json_object_new_uint64(p->dropped));
		if (hesper_kernel_table_rows(p->kernels, &sorted, &nk) != 0)
			goto out;
		for (size_t k = 0; k < nk; k++) {
			json_object *row = json_object_new_object();

			json_object_object_add(row, "name", json_object_new_string(sorted[k]->name));
			json_object_object_add(row, "count", json_object_new_uint64(sorted[k]->count));
			json_object_object_add(row, "total_ns",
					       json_object_new_uint64(hesper_kernel_total_ns(sorted[k])));
			json_object_object_add(row, "mean_ns", json_object_new_double(sorted[k]->timed.mean_ns));
			json_object_array_add(kernels, row);
		}
		free(sorted);
		json_object_object_add(o, "kernels", kernels);
		json_object_array_add(list, o);
	}
	imb = json_object_new_array();
	json_object_object_add(root, "imbalance", imb);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(rows[i].merged->name));
		json_object_object_add(o, "processes", json_object_new_uint64(rows[i].ran));
		json_object_object_add(o, "min_total_ns", json_object_new_uint64(rows[i].min));
		json_object_object_add(o, "mean_total_ns", json_object_new_double(rows[i].mean));
		json_object_object_add(o, "max_total_ns", json_object_new_uint64(rows[i].max));
		json_object_object_add(o, "max_over_min", ratio_json((double)rows[i].max, (double)rows[i].min));
		json_object_object_add(o, "max_over_mean", ratio_json((double)rows[i].max, rows[i].mean));
		json_object_array_add(imb, o);
	}
	if (json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED) != 0) {
		fprintf(stderr, "hesper: cannot write '%s': %s\n", path, json_util_get_last_err());
		ret = -2;
		goto out;
	}
	ret = 0;
out:
	if (ret == -1)
		fprintf(stderr, "hesper: cannot build the merged summary (out of memory)\n");
	json_object_put(root);
	free(text);
	return ret;
}

/* The common value of a string field over @procs, or @mixed when they differ. */
static const char *
common(const struct process *procs, size_t n, size_t offset, const char *mixed)
{
	const char *first = (const char *)&procs[0].profile + offset;

	for (size_t i = 1; i < n; i++)
		if (strcmp(first, (const char *)&procs[i].profile + offset) != 0)
			return mixed;
	return first;
}

int
hesper_cmd_merge(int argc, char **argv)
{
	const char *out_prefix = NULL;
	struct process *procs = calloc((size_t)argc, sizeof(*procs));
	char **traces = calloc((size_t)argc, sizeof(*traces));
	struct hesper_profile merged;
	struct imbalance *rows = NULL;
	struct hesper_kernel **sorted = NULL;
	size_t nprocs = 0, loaded = 0, n = 0;
	int ntraces = 0, ret = HESPER_EXIT_USAGE;
	bool merged_init = false;
	char err[512], path[4096];

	if (!procs || !traces) {
		ret = hesper_usage_error("out of memory");
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
			if (i + 1 >= argc) {
				ret = hesper_usage_error("merge: -o needs a value (the output prefix)");
				goto out;
			}
			out_prefix = argv[++i];
		} else if (strcmp(argv[i], "--trace") == 0) {
			if (i + 1 >= argc) {
				ret = hesper_usage_error("merge: --trace needs a file");
				goto out;
			}
			traces[ntraces++] = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ret = hesper_usage_error("merge: unknown option '%s'", argv[i]);
			goto out;
		} else if (ends_with(argv[i], TRACE_SUFFIX)) {
			traces[ntraces++] = argv[i];
		} else {
			procs[nprocs++].path = argv[i];
		}
	}
	if (!out_prefix || nprocs == 0) {
		ret = hesper_usage_error(
			"merge takes summaries and an output prefix (hesper merge A.json B.json... -o OUT)");
		goto out;
	}
	if (hesper_is_database(procs[0].path)) {
		char **paths = calloc(nprocs, sizeof(*paths));
		for (size_t i = 0; paths && i < nprocs; i++) {
			if (!hesper_is_database(procs[i].path)) {
				free(paths);
				ret = hesper_usage_error(
					"merge: '%s' is not an SQLite database; databases merge only with databases",
					procs[i].path);
				goto out;
			}
			paths[i] = (char *)procs[i].path;
		}
		if (!paths || ntraces) {
			free(paths);
			ret = hesper_usage_error(paths ? "merge: trace files do not merge into a database"
						       : "out of memory");
			goto out;
		}
		ret = hesper_merge_databases(out_prefix, paths, nprocs);
		free(paths);
		goto out;
	}
	for (; loaded < nprocs; loaded++) {
		if (hesper_summary_load(procs[loaded].path, &procs[loaded].profile, err, sizeof(err)) != 0) {
			fprintf(stderr, "hesper: %s\n", err);
			loaded++;
			goto out;
		}
	}

	if (hesper_profile_init(&merged) != 0)
		goto oom;
	merged_init = true;
	merged.pid = 0;
	snprintf(merged.exe, sizeof(merged.exe), "%s",
		 common(procs, nprocs, offsetof(struct hesper_profile, exe), "several programs"));
	snprintf(merged.host, sizeof(merged.host), "%s",
		 common(procs, nprocs, offsetof(struct hesper_profile, host), "several hosts"));
	snprintf(merged.mode, sizeof(merged.mode), "%s",
		 common(procs, nprocs, offsetof(struct hesper_profile, mode), "mixed"));
	merged.sample_every = procs[0].profile.sample_every;
	for (size_t i = 0; i < nprocs; i++) {
		if (hesper_profile_merge(&merged, &procs[i].profile) != 0)
			goto oom;
		if (procs[i].profile.sample_every != merged.sample_every)
			merged.sample_every = 0;
	}

	if (hesper_kernel_table_rows(merged.kernels, &sorted, &n) != 0)
		goto oom;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		goto oom;
	for (size_t i = 0; i < n; i++)
		compute_imbalance(&rows[i], sorted[i], procs, nprocs);

	printf("Merged %zu process%s\n", nprocs, nprocs == 1 ? "" : "es");
	if (hesper_report_text(stdout, &merged) != 0)
		goto oom;
	print_processes(procs, nprocs);
	if (n)
		print_imbalance(rows, n, nprocs);

	snprintf(path, sizeof(path), "%s.json", out_prefix);
	int w = write_json(path, &merged, procs, nprocs, rows, n);
	if (w == -1)
		goto oom;
	if (w != 0)
		goto out;
	printf("\nhesper: wrote %s", path);
	if (ntraces) {
		snprintf(path, sizeof(path), "%s%s", out_prefix, TRACE_SUFFIX);
		if (hesper_merge_traces(path, traces, ntraces) != 0)
			goto out;
		printf(" and %s (%d traces)", path, ntraces);
	}
	fputc('\n', stdout);
	ret = 0;
	goto out;
oom:
	fputs("hesper: out of memory\n", stderr);
	ret = 1;
out:
	free(sorted);
	free(rows);
	if (merged_init)
		hesper_profile_free(&merged);
	for (size_t i = 0; i < loaded; i++)
		hesper_profile_free(&procs[i].profile);
	free(procs);
	free(traces);
	return ret;
}
