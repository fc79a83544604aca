/* What hesper merge prints and writes beyond the merged table (merge_report.h). */
#include "merge_report.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "write/write.h"

#define CELL 48

static uint64_t
process_gpu_time(const struct hesper_profile *p)
{
	return hesper_profile_summary(p).total_ns;
}

void
hesper_merge_imbalance(struct imbalance *im, const struct hesper_kernel *merged, const struct process *procs,
		       size_t nprocs)
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

void
hesper_merge_print_processes(const struct process *procs, size_t n)
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

void
hesper_merge_print_imbalance(const struct imbalance *rows, size_t n, size_t nprocs)
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

int
hesper_merge_write_json(const char *path, const struct hesper_profile *merged, const struct process *procs,
			size_t nprocs, const struct imbalance *rows, size_t n)
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

/* Appends @s to @out (@size bytes) at *@len; false, leaving @out as it was, when it does not fit. */
