/* hesper-summary/1 JSON back into a profile (json-c), and merging profiles. */
#include "summary.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SCHEMA "hesper-summary/1"

struct loader {
	const char *path;
	char *err;
	size_t err_size;
};

static int
fail(struct loader *l, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(l->err, l->err_size, "%s: ", l->path);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < l->err_size)
		vsnprintf(l->err + n, l->err_size - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static json_object *
member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* An unsigned integer member; @def when absent. -1 when present but not a number >= 0. */
static int
get_u64(struct loader *l, json_object *o, const char *where, const char *key, uint64_t def, uint64_t *out)
{
	json_object *v = member(o, key);

	*out = def;
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0 && json_object_get_uint64(v) == 0)
			return fail(l, "%s: \"%s\" is negative", where, key);
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_double) && json_object_get_double(v) >= 0) {
		double d = json_object_get_double(v);
		*out = d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)llround(d);
		return 0;
	}
	return fail(l, "%s: \"%s\" is not a number >= 0", where, key);
}

static int
get_double(struct loader *l, json_object *o, const char *where, const char *key, double *out)
{
	json_object *v = member(o, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return fail(l, "%s: \"%s\" is not a number", where, key);
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		*out = 0;
	return 0;
}

static void
copy_string(char *dst, size_t size, json_object *o, const char *key)
{
	json_object *v = member(o, key);

	snprintf(dst, size, "%s", v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "");
}

/* Rebuilds @s from a summary's numbers (see summary.h). */
static void
rebuild_stats(struct hesper_stats *s, uint64_t n, uint64_t total, double mean, uint64_t min, uint64_t max,
	      double stddev, uint64_t med, uint64_t p95, uint64_t p99)
{
	hesper_stats_init(s);
	if (n == 0)
		return;
	s->count = n;
	s->total_ns = total;
	s->total_saturated = total == UINT64_MAX;
	s->mean_ns = mean;
	s->min_ns = min;
	s->max_ns = max;
	s->m2 = n > 1 ? stddev * stddev * (double)(n - 1) : 0;

	/* Nearest ranks of the quantiles the file gives; the histogram puts each there. */
	uint64_t r50 = (uint64_t)ceil(0.5 * (double)n), r95 = (uint64_t)ceil(0.95 * (double)n);
	uint64_t r99 = (uint64_t)ceil(0.99 * (double)n);
	(void)hesper_histogram_add_n(&s->hist, min, 1);
	(void)hesper_histogram_add_n(&s->hist, med, r50 - 1);
	(void)hesper_histogram_add_n(&s->hist, p95, r95 - r50);
	(void)hesper_histogram_add_n(&s->hist, p99, r99 - r95);
	(void)hesper_histogram_add_n(&s->hist, max, n - r99);
}

static int
load_kernel(struct loader *l, json_object *o, struct hesper_kernel_table *t, bool region)
{
	json_object *name = member(o, "name");
	uint64_t count, timed, total, min, max, med, p95, p99;
	double mean, stddev;
	const char *where = region ? "a region" : "a kernel";

	if (!name || !json_object_is_type(name, json_type_string))
		return fail(l, "%s has no \"name\" string", where);
	if (!member(o, "count"))
		return fail(l, "%s \"%s\" has no \"count\"", where, json_object_get_string(name));
	if (get_u64(l, o, where, "count", 0, &count) || get_u64(l, o, where, "timed", count, &timed) ||
	    get_u64(l, o, where, "total_ns", 0, &total) || get_double(l, o, where, "mean_ns", &mean) ||
	    get_u64(l, o, where, "min_ns", 0, &min) || get_u64(l, o, where, "max_ns", 0, &max) ||
	    get_double(l, o, where, "stddev_ns", &stddev) || get_u64(l, o, where, "median_ns", 0, &med) ||
	    get_u64(l, o, where, "p95_ns", med, &p95) || get_u64(l, o, where, "p99_ns", p95, &p99))
		return -1;
	if (timed > count)
		return fail(l, "%s \"%s\": \"timed\" exceeds \"count\"", where, json_object_get_string(name));

	struct hesper_kernel *k = hesper_kernel_table_get(t, json_object_get_string(name));
	if (!k)
		return fail(l, "out of memory");
	if (k->count)
		return fail(l, "%s \"%s\" appears twice", where, json_object_get_string(name));
	if (region) {
		/* Regions carry count and total only. */
		timed = count;
		mean = count ? (double)total / (double)count : 0;
		min = max = med = p95 = p99 = (uint64_t)llround(mean);
		stddev = 0;
	} else if (timed != count) {
		/* total_ns is the estimate mean * count; the timed sum is mean * timed. */
		total = (uint64_t)llround(mean * (double)timed);
	} else if (!member(o, "mean_ns")) {
		mean = count ? (double)total / (double)count : 0;
	}
	hesper_stats_free(&k->timed);
	rebuild_stats(&k->timed, timed, total, mean, min, max, stddev, med, p95, p99);
	k->count = count;
	return 0;
}

static int
load_rows(struct loader *l, json_object *root, const char *key, struct hesper_kernel_table *t, bool region,
	  bool required)
{
	json_object *rows = member(root, key);

	if (!rows)
		return required ? fail(l, "no \"%s\" array", key) : 0;
	if (!json_object_is_type(rows, json_type_array))
		return fail(l, "\"%s\" is not an array", key);
	for (size_t i = 0; i < json_object_array_length(rows); i++)
		if (load_kernel(l, json_object_array_get_idx(rows, i), t, region) != 0)
			return -1;
	return 0;
}

static int
load_devices_and_queues(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *devices = member(root, "devices"), *queues = member(root, "queues");
	uint64_t busy;

	for (size_t i = 0; devices && i < json_object_array_length(devices); i++) {
		json_object *d = json_object_array_get_idx(devices, i);
		struct hesper_device_info info = {0};

		copy_string(info.name, sizeof(info.name), d, "name");
		copy_string(info.driver, sizeof(info.driver), d, "driver");
		copy_string(info.copy, sizeof(info.copy), d, "copy");
		if (get_double(l, d, "a device", "timestamp_period_ns", &info.timestamp_period_ns))
			return -1;
		if (hesper_profile_add_device(p, &info) < 0)
			return fail(l, "out of memory");
	}
	for (size_t i = 0; queues && i < json_object_array_length(queues); i++) {
		json_object *o = json_object_array_get_idx(queues, i);
		uint64_t device, family, index, bits, submits;

		if (get_u64(l, o, "a queue", "device", 0, &device) || get_u64(l, o, "a queue", "family", 0, &family) ||
		    get_u64(l, o, "a queue", "index", 0, &index) ||
		    get_u64(l, o, "a queue", "timestamp_bits", 0, &bits) ||
		    get_u64(l, o, "a queue", "submits", 0, &submits) || get_u64(l, o, "a queue", "busy_ns", 0, &busy))
			return -1;
		struct hesper_queue_info *q = hesper_profile_queue(p, (uint32_t)device, (uint32_t)family, (uint32_t)index);
		if (!q)
			return fail(l, "out of memory");
		q->timestamp_bits = (uint32_t)bits;
		q->submits += submits;
		q->busy_ns += busy;
	}
	/* Without per-queue rows, keep the total busy time on one queue. */
	if (get_u64(l, root, "the summary", "gpu_busy_ns", 0, &busy))
		return -1;
	if (p->queue_count == 0 && busy > 0) {
		struct hesper_queue_info *q = hesper_profile_queue(p, 0, 0, 0);
		if (!q)
			return fail(l, "out of memory");
		q->busy_ns = busy;
	}
	return 0;
}

int
hesper_summary_load(const char *path, struct hesper_profile *out, char *err, size_t err_size)
{
	struct loader l = {path, err, err_size};
	json_object *root = NULL, *v, *process;
	uint64_t n, total;
	int ret = -1;

	if (hesper_profile_init(out) != 0)
		return fail(&l, "out of memory");
	root = json_object_from_file(path);
	if (!root) {
		const char *why = json_util_get_last_err();
		size_t len = why ? strlen(why) : 0;

		while (len > 0 && (why[len - 1] == '\n' || why[len - 1] == ' '))
			len--;
		fail(&l, "cannot read a JSON summary: %.*s", (int)len, why ? why : "unknown error");
		goto out;
	}
	v = member(root, "schema");
	if (!v || !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), SCHEMA) != 0) {
		fail(&l, "not a Hesper summary (\"schema\" is not \"%s\")", SCHEMA);
		goto out;
	}
	process = member(root, "process");
	v = member(process, "pid");
	out->pid = v ? json_object_get_int(v) : 0;
	copy_string(out->exe, sizeof(out->exe), process, "exe");
	copy_string(out->host, sizeof(out->host), process, "host");
	copy_string(out->mode, sizeof(out->mode), root, "mode");

	if (get_u64(&l, root, "the summary", "wall_ns", 0, &out->wall_ns) ||
	    get_u64(&l, root, "the summary", "dropped", 0, &out->dropped) ||
	    get_u64(&l, root, "the summary", "clamped", 0, &out->clamped) ||
	    get_u64(&l, root, "the summary", "sample_every", 1, &n))
		goto out;
	out->sample_every = (uint32_t)n;
	v = member(root, "hesper");
	if (get_u64(&l, v, "\"hesper\"", "timestamps_written", 0, &out->timestamps_written) ||
	    get_u64(&l, v, "\"hesper\"", "hook_ns", 0, &out->hook_ns) ||
	    get_u64(&l, v, "\"hesper\"", "submit_hook_ns", 0, &out->submit_hook_ns) ||
	    get_u64(&l, v, "\"hesper\"", "collector_ns", 0, &out->collector_ns))
		goto out;
	v = member(root, "submits");
	if (get_u64(&l, v, "\"submits\"", "count", 0, &n) || get_u64(&l, v, "\"submits\"", "total_ns", 0, &total))
		goto out;
	rebuild_stats(&out->submits, n, total, n ? (double)total / (double)n : 0, 0, 0, 0, 0, 0, 0);

	if (load_devices_and_queues(&l, root, out) || load_rows(&l, root, "kernels", out->kernels, false, true) ||
	    load_rows(&l, root, "regions", out->regions, true, false) ||
	    load_rows(&l, root, "kernels_by_label", out->labelled, false, false))
		goto out;
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

static int
merge_rows(struct hesper_kernel_table *into, const struct hesper_kernel_table *from)
{
	size_t cursor = 0;
	struct hesper_kernel *k;

	while ((k = hesper_kernel_table_next(from, &cursor))) {
		struct hesper_kernel *row = hesper_kernel_table_get(into, k->name);

		if (!row)
			return -1;
		row->count += k->count;
		hesper_stats_merge(&row->timed, &k->timed);
	}
	return 0;
}

int
hesper_profile_merge(struct hesper_profile *into, const struct hesper_profile *from)
{
	for (size_t i = 0; i < from->queue_count; i++) {
		const struct hesper_queue_info *q = &from->queues[i];
		int device = -1;

		/* The same device model in two processes is one device row. */
		if (q->device < from->device_count) {
			const struct hesper_device_info *d = &from->devices[q->device];

			for (size_t j = 0; j < into->device_count && device < 0; j++)
				if (strcmp(into->devices[j].name, d->name) == 0 &&
				    strcmp(into->devices[j].driver, d->driver) == 0)
					device = (int)j;
			if (device < 0 && (device = hesper_profile_add_device(into, d)) < 0)
				return -1;
		}
		struct hesper_queue_info *row =
			hesper_profile_queue(into, device < 0 ? q->device : (uint32_t)device, q->family, q->index);
		if (!row)
			return -1;
		row->timestamp_bits = q->timestamp_bits;
		row->submits += q->submits;
		row->busy_ns += q->busy_ns;
	}
	for (size_t i = 0; i < from->device_count; i++) {
		bool seen = false;

		for (size_t j = 0; j < into->device_count; j++)
			seen |= strcmp(into->devices[j].name, from->devices[i].name) == 0 &&
				strcmp(into->devices[j].driver, from->devices[i].driver) == 0;
		if (!seen && hesper_profile_add_device(into, &from->devices[i]) < 0)
			return -1;
	}
	if (merge_rows(into->kernels, from->kernels) || merge_rows(into->regions, from->regions) ||
	    merge_rows(into->labelled, from->labelled))
		return -1;
	hesper_stats_merge(&into->submits, &from->submits);
	/* Process time adds up, like busy time: the share of wall time stays meaningful. */
	if (__builtin_add_overflow(into->wall_ns, from->wall_ns, &into->wall_ns))
		into->wall_ns = UINT64_MAX;
	into->dropped += from->dropped;
	into->clamped += from->clamped;
	into->timestamps_written += from->timestamps_written;
	into->hook_ns += from->hook_ns;
	into->submit_hook_ns += from->submit_hook_ns;
	into->collector_ns += from->collector_ns;
	into->collected += from->collected;
	return 0;
}
