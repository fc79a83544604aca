/* A summary read for `hesper diff`, every number it uses checked (diff_load.h). */
#include "diff_load.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

#define QUOTE_MAX 80 /* bytes of a kernel's name in an error line */

struct reader {
	const char *path;
	char *err;
	size_t size;
	char where[QUOTE_MAX + 16]; /* 'kernel "name"', for the error line */
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, r->size, "%s: %s%s", r->path, r->where, r->where[0] ? ": " : "");

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < r->size)
		vsnprintf(r->err + n, r->size - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* 'kernel "NAME"' into r->where, control characters as '?' and cut at QUOTE_MAX bytes. */
static void
name_where(struct reader *r, const char *name)
{
	size_t o = (size_t)snprintf(r->where, sizeof(r->where), "kernel \"");

	for (size_t i = 0; name[i] && i < QUOTE_MAX; i++)
		r->where[o++] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	snprintf(r->where + o, sizeof(r->where) - o, "%s\"", strlen(name) > QUOTE_MAX ? "..." : "");
}

/* One row of "kernels" into @k, read and checked as every reader of summaries does (hesper_summary_row_read). */
static int
read_kernel(struct reader *r, json_object *o, struct hesper_diff_kernel *k)
{
	struct hesper_summary_row row;

	r->where[0] = '\0';
	if (hesper_summary_row_read(r->path, o, false, &row, r->err, r->size) != HESPER_OK)
		return -1;
	if (!(k->name = strdup(row.name)))
		return fail(r, "out of memory");
	/* The median is what the comparison reads; summaries older than it are printed, not compared. */
	if (row.timed && !hesper_json_member(o, hesper_row_key(HESPER_ROW_MEDIAN))) {
		name_where(r, row.name);
		return fail(r, "no \"median_ns\" (a summary too old to compare)");
	}
	k->count = row.count;
	k->timed = row.timed;
	k->total_ns = (double)row.total_ns;
	k->stddev_ns = row.stddev_ns;
	k->median_ns = (double)row.median_ns;
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct hesper_diff_kernel *)a)->name, ((const struct hesper_diff_kernel *)b)->name);
}

/* Every device's name and driver, joined with separators no name holds. */
static char *
devices_key(const struct hesper_profile *p)
{
	char *key = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&key, &size);

	if (!f)
		return NULL;
	for (size_t i = 0; i < p->device_count; i++)
		fprintf(f, "%s%s\x1f%s", i ? "\x1e" : "", p->devices[i].name, p->devices[i].driver);
	fclose(f);
	return key;
}

int
hesper_diff_run_load(const char *path, struct hesper_diff_run *run, char *err, size_t err_size)
{
	struct reader r = {path, err, err_size, ""};
	json_object *root = NULL, *kernels;
	int ret = -1;

	memset(run, 0, sizeof(*run));
	run->path = path;
	/*
	 * The file read whole as `hesper report` reads it, so that what one refuses the other
	 * refuses too; what the run was comes from there. The rows are read again from the
	 * document, for their exact medians (the profile keeps them as a histogram).
	 */
	struct hesper_profile whole;
	int loaded = hesper_summary_load(path, &whole, err, err_size);
	if (loaded == HESPER_OK) {
		run->exe = strdup(whole.exe);
		run->mode = strdup(whole.mode);
		run->group_by = strdup(hesper_group_by_word(whole.group_by));
		run->devices = devices_key(&whole);
		run->pid = whole.pid;
	}
	hesper_profile_free(&whole);
	if (loaded != HESPER_OK)
		goto out;
	if (!run->exe || !run->mode || !run->group_by || !run->devices) {
		fail(&r, "out of memory");
		goto out;
	}
	if (hesper_summary_document(path, &root, err, err_size) != 0)
		goto out;
	kernels = hesper_json_member(root, hesper_summary_key(HESPER_SUMMARY_KERNELS));
	if (!kernels || !json_object_is_type(kernels, json_type_array)) {
		fail(&r, "no \"kernels\" array");
		goto out;
	}
	run->kernels = calloc(json_object_array_length(kernels) + 1, sizeof(*run->kernels));
	if (!run->kernels) {
		fail(&r, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(kernels); i++) {
		if (read_kernel(&r, json_object_array_get_idx(kernels, i), &run->kernels[run->nkernels++]) != 0)
			goto out;
	}
	qsort(run->kernels, run->nkernels, sizeof(*run->kernels), by_name);
	for (size_t i = 1; i < run->nkernels; i++) {
		if (strcmp(run->kernels[i - 1].name, run->kernels[i].name) == 0) {
			name_where(&r, run->kernels[i].name);
			fail(&r, "appears twice");
			goto out;
		}
	}
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

const struct hesper_diff_kernel *
hesper_diff_run_kernel(const struct hesper_diff_run *run, const char *name)
{
	struct hesper_diff_kernel key = {.name = (char *)name};

	return run->nkernels ? bsearch(&key, run->kernels, run->nkernels, sizeof(key), by_name) : NULL;
}

void
hesper_diff_run_free(struct hesper_diff_run *run)
{
	for (size_t i = 0; i < run->nkernels; i++)
		free(run->kernels[i].name);
	free(run->kernels);
	free(run->exe);
	free(run->mode);
	free(run->group_by);
	free(run->devices);
	memset(run, 0, sizeof(*run));
}
