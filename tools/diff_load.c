/* A summary read for `hesper diff`, every number it uses checked (diff_load.h). */
#include "diff_load.h"

#include <math.h>
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

/*
 * The number @key of @o into *@out: absent is @absent (a NAN @absent: required). Refused:
 * not a number, not finite, negative, above @max, a fraction when @whole.
 */
static int
number(struct reader *r, json_object *o, const char *key, double max, bool whole, double absent, double *out)
{
	json_object *v = hesper_json_member(o, key);

	*out = absent;
	if (!v)
		return isnan(absent) ? fail(r, "no \"%s\"", key) : 0;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return fail(r, "\"%s\" is not a number", key);
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		return fail(r, "\"%s\" is %g, not a finite number", key, *out);
	if (*out < 0)
		return fail(r, "\"%s\" is %g, a negative %s", key, *out, whole ? "count" : "time");
	if (*out > max)
		return fail(r, "\"%s\" is %g, more than any run holds (at most %g%s)", key, *out, max,
			    whole ? "" : " ns");
	if (whole && *out != floor(*out))
		return fail(r, "\"%s\" is %g, not a whole number", key, *out);
	return 0;
}

static char *
string_or_empty(json_object *o, const char *key)
{
	json_object *v = hesper_json_member(o, key);

	return strdup(v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "");
}

/* One row of "kernels" into @k: its numbers checked, alone and against each other. */
static int
read_kernel(struct reader *r, json_object *o, struct hesper_diff_kernel *k)
{
	json_object *name = hesper_json_member(o, "name");
	static const char *const times[] = {"total_ns", "span_total_ns", "mean_ns", "min_ns",
					    "max_ns",   "p95_ns",        "p99_ns"};
	double count, timed, min, max, mean, unused;

	r->where[0] = '\0';
	if (!name || !json_object_is_type(name, json_type_string))
		return fail(r, "a kernel has no \"name\" string");
	name_where(r, json_object_get_string(name));
	if (!(k->name = strdup(json_object_get_string(name))))
		return fail(r, "out of memory");
	if (number(r, o, "count", HESPER_DIFF_COUNT_MAX, true, NAN, &count) ||
	    number(r, o, "timed", HESPER_DIFF_COUNT_MAX, true, count, &timed))
		return -1;
	if (timed > count)
		return fail(r, "\"timed\" (%g) is more than \"count\" (%g)", timed, count);
	k->count = (uint64_t)count;
	k->timed = (uint64_t)timed;
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (number(r, o, times[i], HESPER_DIFF_TIME_MAX_NS, false, 0, &unused))
			return -1;
	if (number(r, o, "total_ns", HESPER_DIFF_TIME_MAX_NS, false, 0, &k->total_ns) ||
	    number(r, o, "stddev_ns", HESPER_DIFF_TIME_MAX_NS, false, 0, &k->stddev_ns) ||
	    number(r, o, "median_ns", HESPER_DIFF_TIME_MAX_NS, false, k->timed ? NAN : 0, &k->median_ns) ||
	    number(r, o, "min_ns", HESPER_DIFF_TIME_MAX_NS, false, k->median_ns, &min) ||
	    number(r, o, "max_ns", HESPER_DIFF_TIME_MAX_NS, false, k->median_ns, &max) ||
	    number(r, o, "mean_ns", HESPER_DIFF_TIME_MAX_NS, false, k->median_ns, &mean))
		return -1;
	/* Quantiles are clamped to the extremes when written; a mean lies between them. */
	if (k->timed && (min > k->median_ns || k->median_ns > max))
		return fail(r, "\"median_ns\" (%g) is outside [\"min_ns\", \"max_ns\"] ([%g, %g])", k->median_ns, min,
			    max);
	if (k->timed && (mean < min * (1 - 1e-9) || mean > max * (1 + 1e-9)))
		return fail(r, "\"mean_ns\" (%g) is outside [\"min_ns\", \"max_ns\"] ([%g, %g])", mean, min, max);
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct hesper_diff_kernel *)a)->name, ((const struct hesper_diff_kernel *)b)->name);
}

/* Every device's name and driver, joined with separators no name holds. */
static char *
devices_key(json_object *root)
{
	json_object *devices = hesper_json_member(root, "devices");
	char *key = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&key, &size);

	if (!f)
		return NULL;
	for (size_t i = 0;
	     devices && json_object_is_type(devices, json_type_array) && i < json_object_array_length(devices); i++) {
		json_object *d = json_object_array_get_idx(devices, i), *name = hesper_json_member(d, "name"),
			    *driver = hesper_json_member(d, "driver");

		fprintf(f, "%s%s\x1f%s", i ? "\x1e" : "", name ? json_object_get_string(name) : "",
			driver ? json_object_get_string(driver) : "");
	}
	fclose(f);
	return key;
}

int
hesper_diff_run_load(const char *path, struct hesper_diff_run *run, char *err, size_t err_size)
{
	struct reader r = {path, err, err_size, ""};
	json_object *root = NULL, *kernels, *process;
	int ret = -1;

	memset(run, 0, sizeof(*run));
	run->path = path;
	if (hesper_summary_document(path, &root, err, err_size) != 0)
		goto out;
	process = hesper_json_member(root, "process");
	run->exe = string_or_empty(process, "exe");
	run->mode = string_or_empty(root, "mode");
	run->group_by = string_or_empty(root, "group_by");
	run->devices = devices_key(root);
	if (!run->exe || !run->mode || !run->group_by || !run->devices) {
		fail(&r, "out of memory");
		goto out;
	}
	/* Summaries written before HESPER_GROUP_BY have a row per kernel. */
	if (!run->group_by[0]) {
		free(run->group_by);
		run->group_by = strdup("kernel");
	}
	if (!run->group_by) {
		fail(&r, "out of memory");
		goto out;
	}
	if (hesper_json_member(process, "pid"))
		run->pid = json_object_get_int(hesper_json_member(process, "pid"));
	kernels = hesper_json_member(root, "kernels");
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
