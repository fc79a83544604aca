/* hesper-summary/1 JSON back into a profile (json-c). */
#include "summary_load.h"

#include <inttypes.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <hesper/profiling.h>

#include "findings.h"
#include "json_file.h"

#define SCHEMA "hesper-summary/1"

struct loader {
	const char *path;
	char *err;
	size_t err_size;
};

#define FAIL(l, status, ...) hesper_json_file_fail((status), (l)->path, (l)->err, (l)->err_size, __VA_ARGS__)
#define BAD(l, ...) FAIL(l, HESPER_ERROR_FORMAT, __VA_ARGS__)
#define NO_MEMORY(l) FAIL(l, HESPER_ERROR_NO_MEMORY, "out of memory")

/* An unsigned integer member; @def when absent. An error when present but not a number >= 0. */
static int
get_u64(struct loader *l, json_object *o, const char *where, const char *key, uint64_t def, uint64_t *out)
{
	json_object *v = hesper_json_member(o, key);

	*out = def;
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0 && json_object_get_uint64(v) == 0)
			return BAD(l, "%s: \"%s\" is negative", where, key);
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_double) && json_object_get_double(v) >= 0) {
		double d = json_object_get_double(v);
		*out = d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)llround(d);
		return 0;
	}
	return BAD(l, "%s: \"%s\" is not a number >= 0", where, key);
}

static int
get_double(struct loader *l, json_object *o, const char *where, const char *key, double *out)
{
	json_object *v = hesper_json_member(o, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return BAD(l, "%s: \"%s\" is not a number", where, key);
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		*out = 0;
	return 0;
}

static void
copy_string(char *dst, size_t size, json_object *o, const char *key)
{
	json_object *v = hesper_json_member(o, key);

	snprintf(dst, size, "%s", v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "");
}

/* The string member @key of @o, or NULL when absent or not a string. */
static const char *
get_string(json_object *o, const char *key)
{
	json_object *v = hesper_json_member(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Rebuilds @s from a summary's numbers (see summary_load.h). */
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

int
hesper_summary_row_read(const char *path, json_object *o, bool region, struct hesper_summary_row *row, char *err,
			size_t err_size)
{
	struct loader ld = {path, err, err_size}, *l = &ld;
	json_object *name = hesper_json_member(o, "name");
	const char *where = region ? "a region" : "a kernel";

	memset(row, 0, sizeof(*row));
	if (!name || !json_object_is_type(name, json_type_string))
		return BAD(l, "%s has no \"name\" string", where);
	row->name = json_object_get_string(name);
	if (!hesper_json_member(o, "count"))
		return BAD(l, "%s \"%s\" has no \"count\"", where, row->name);
	if (get_u64(l, o, where, "count", 0, &row->count) || get_u64(l, o, where, "timed", row->count, &row->timed) ||
	    get_u64(l, o, where, "total_ns", 0, &row->total_ns) || get_double(l, o, where, "mean_ns", &row->mean_ns) ||
	    get_u64(l, o, where, "min_ns", 0, &row->min_ns) || get_u64(l, o, where, "max_ns", 0, &row->max_ns) ||
	    get_double(l, o, where, "stddev_ns", &row->stddev_ns) ||
	    get_u64(l, o, where, "median_ns", 0, &row->median_ns) ||
	    get_u64(l, o, where, "p95_ns", row->median_ns, &row->p95_ns) ||
	    get_u64(l, o, where, "p99_ns", row->p95_ns, &row->p99_ns) ||
	    get_u64(l, o, where, "span_total_ns", row->total_ns, &row->span_total_ns))
		return HESPER_ERROR_FORMAT;
	if (row->timed > row->count)
		return BAD(l, "%s \"%s\": \"timed\" exceeds \"count\"", where, row->name);
	row->has_mean = hesper_json_member(o, "mean_ns") != NULL;
	/* What no run can hold, refused as `hesper diff` refuses it: one reader, one verdict. */
	bool bounded = row->timed && hesper_json_member(o, "min_ns") && hesper_json_member(o, "max_ns");
	if (bounded && hesper_json_member(o, "median_ns") &&
	    (row->median_ns < row->min_ns || row->median_ns > row->max_ns))
		return BAD(l,
			   "%s \"%s\": \"median_ns\" (%" PRIu64 ") is outside [\"min_ns\", \"max_ns\"] ([%" PRIu64
			   ", %" PRIu64 "])",
			   where, row->name, row->median_ns, row->min_ns, row->max_ns);
	if (bounded && row->has_mean &&
	    (row->mean_ns < (double)row->min_ns - 1 || row->mean_ns > (double)row->max_ns + 1))
		return BAD(l,
			   "%s \"%s\": \"mean_ns\" (%g) is outside [\"min_ns\", \"max_ns\"] ([%" PRIu64 ", %" PRIu64
			   "])",
			   where, row->name, row->mean_ns, row->min_ns, row->max_ns);
	return HESPER_OK;
}

/* Reads the array of three non-negative integers @key of @o into @out; false (and zeros) when absent or not that. */
static bool
get_triple(json_object *o, const char *key, uint32_t out[3])
{
	json_object *v = hesper_json_member(o, key);

	memset(out, 0, 3 * sizeof(uint32_t));
	if (!v || !json_object_is_type(v, json_type_array) || json_object_array_length(v) != 3)
		return false;
	for (size_t i = 0; i < 3; i++) {
		json_object *c = json_object_array_get_idx(v, i);
		int64_t n = c && json_object_is_type(c, json_type_int) ? json_object_get_int64(c) : -1;

		if (n < 0 || n > UINT32_MAX) {
			memset(out, 0, 3 * sizeof(uint32_t));
			return false;
		}
		out[i] = (uint32_t)n;
	}
	return true;
}

/*
 * A kernel row's launch shapes ("groups", "local_size"), when present: min, max, the
 * most common shape with its count, the unknown count, the timed groups and their time. Other shapes the writer counted
 * are not in the file: known counts only the most common's dispatches (an approximation,
 * like the quantiles).
 */
static int
load_shapes(struct loader *l, json_object *o, struct hesper_kernel *k)
{
	json_object *g = hesper_json_member(o, "groups");
	struct hesper_launch_shapes *s = &k->shapes;
	uint32_t size[3];
	uint64_t n = 0;

	if (get_triple(o, "local_size", size))
		hesper_shapes_set_local_size(s, size, false);
	uint64_t variant = UINT64_MAX;
	if (get_u64(l, o, "a kernel row", "stats_variant", UINT64_MAX, &variant))
		return HESPER_ERROR_FORMAT;
	if (variant < HESPER_STATS_SETS_SEVERAL - 1)
		k->stats_set = (uint32_t)variant + 1;
	if (!g)
		return 0;
	if (get_u64(l, g, "\"groups\"", "unknown", 0, &s->unknown) ||
	    get_u64(l, g, "\"groups\"", "most_common_count", 0, &n) ||
	    get_u64(l, g, "\"groups\"", "timed_groups", 0, &s->timed_groups) ||
	    get_u64(l, g, "\"groups\"", "timed_groups_ns", 0, &s->timed_groups_ns))
		return HESPER_ERROR_FORMAT;
	if (get_triple(g, "most_common", size) && n)
		hesper_shapes_add(s, size, n);
	/* min and max are kept as written, without counting their dispatches again. */
	if (s->known && get_triple(g, "min", size))
		memcpy(s->min, size, sizeof(s->min));
	if (s->known && get_triple(g, "max", size))
		memcpy(s->max, size, sizeof(s->max));
	return 0;
}

/*
 * A region row holds count, total and, from this version on, timed and mean (a summary
 * without them: every run timed, the mean total / count), and later its instances'
 * statistics (@has_stats); without them its statistics are the mean.
 */
static void
region_numbers(struct hesper_summary_row *r, bool has_stats)
{
	if (!r->has_mean)
		r->mean_ns = r->count ? (double)r->total_ns / (double)r->count : 0;
	if (!has_stats) {
		r->min_ns = r->max_ns = r->median_ns = r->p95_ns = r->p99_ns = (uint64_t)llround(r->mean_ns);
		r->stddev_ns = 0;
	}
	r->span_total_ns = r->total_ns; /* regions never split their time with one another */
}

/* Row @o into @t under its name, or under @key when not NULL (a region tree's rows). */
static int
load_row(struct loader *l, json_object *o, struct hesper_kernel_table *t, bool region, const char *key)
{
	struct hesper_summary_row r;
	int ret = hesper_summary_row_read(l->path, o, region, &r, l->err, l->err_size);

	if (ret != HESPER_OK)
		return ret;
	if (key)
		r.name = key;
	struct hesper_kernel *k = hesper_kernel_table_get(t, r.name);
	if (!k)
		return NO_MEMORY(l);
	if (k->count)
		return BAD(l, "%s \"%s\" appears twice", region ? "a region" : "a kernel", r.name);
	if (region)
		region_numbers(&r, hesper_json_member(o, "median_ns") != NULL);
	/* The shares' part of the spans (1 when nothing overlapped), so that the shares' total reads back. */
	double shared = r.span_total_ns ? (double)r.total_ns / (double)r.span_total_ns : 1;
	uint64_t spans = r.span_total_ns, shares = r.total_ns;
	if (r.timed != r.count) {
		/* The totals are estimates, the mean span times count; the timed sums are over the timed. */
		spans = (uint64_t)llround(r.mean_ns * (double)r.timed);
		shares = r.total_ns == r.span_total_ns ? spans : (uint64_t)llround((double)spans * shared);
	} else if (!region && !r.has_mean) {
		r.mean_ns = r.count ? (double)spans / (double)r.count : 0;
	}
	hesper_stats_free(&k->timed);
	rebuild_stats(&k->timed, r.timed, spans, r.mean_ns, r.min_ns, r.max_ns, r.stddev_ns, r.median_ns, r.p95_ns,
		      r.p99_ns);
	k->share_ns = shares;
	k->count = r.count;
	return region ? 0 : load_shapes(l, o, k);
}

/* "kernel_names", when present: the kernels the rows of a grouped summary split, into @t. */
static int
load_kernel_names(struct loader *l, json_object *root, struct hesper_kernel_table *t)
{
	json_object *names = hesper_json_member(root, "kernel_names");

	if (!names)
		return 0;
	if (!json_object_is_type(names, json_type_array))
		return BAD(l, "\"kernel_names\" is not an array");
	for (size_t i = 0; i < json_object_array_length(names); i++) {
		json_object *name = json_object_array_get_idx(names, i);

		if (!json_object_is_type(name, json_type_string))
			return BAD(l, "\"kernel_names\" holds something other than a string");
		if (!hesper_kernel_table_get(t, json_object_get_string(name)))
			return NO_MEMORY(l);
	}
	return 0;
}

/* The "memory_operations" rows, when present; kinds this version does not know are skipped. */
static int
load_memops(struct loader *l, json_object *root, struct hesper_memops *m)
{
	json_object *rows = hesper_json_member(root, "memory_operations");

	if (!rows)
		return 0;
	if (!json_object_is_type(rows, json_type_array))
		return BAD(l, "\"memory_operations\" is not an array");
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		json_object *o = json_object_array_get_idx(rows, i);
		struct hesper_summary_row r;
		int ret = hesper_summary_row_read(l->path, o, false, &r, l->err, l->err_size);

		if (ret != HESPER_OK)
			return ret;
		enum hesper_memop_kind kind = hesper_memop_kind_of(r.name);
		if (kind == HESPER_MEMOP_KINDS)
			continue;
		struct hesper_memop_row *row = &m->rows[kind];
		if (r.timed != r.count)
			r.total_ns = (uint64_t)llround(r.mean_ns * (double)r.timed);
		hesper_stats_free(&row->k.timed);
		rebuild_stats(&row->k.timed, r.timed, r.total_ns, r.mean_ns, r.min_ns, r.max_ns, r.stddev_ns,
			      r.median_ns, r.p95_ns, r.p99_ns);
		row->k.share_ns = r.total_ns; /* memory operations never overlap one another's time */
		row->k.count = r.count;
		if (get_u64(l, o, "a memory operation", "bytes", 0, &row->bytes) ||
		    get_u64(l, o, "a memory operation", "timed_bytes", 0, &row->timed_bytes) ||
		    get_u64(l, o, "a memory operation", "unsized", 0, &row->unsized) ||
		    get_double(l, o, "a memory operation", "best_gbps", &row->best_gbps))
			return HESPER_ERROR_FORMAT;
	}
	return 0;
}

static int
load_kernel(struct loader *l, json_object *o, struct hesper_kernel_table *t, bool region)
{
	return load_row(l, o, t, region, NULL);
}

/*
 * Label path "path" of tree node @o (an array of label strings) into @buf, its labels
 * joined by HESPER_LABEL_PATH_SEP as the layer joins them (separators in a label made '?').
 */
static int
read_path(struct loader *l, json_object *o, char *buf, size_t size)
{
	json_object *path = hesper_json_member(o, "path");
	size_t len = 0, n = path && json_object_is_type(path, json_type_array) ? json_object_array_length(path) : 0;

	if (!n)
		return BAD(l, "a region_tree node has no \"path\" array of labels");
	for (size_t i = 0; i < n; i++) {
		json_object *label = json_object_array_get_idx(path, i);

		if (!label || !json_object_is_type(label, json_type_string))
			return BAD(l, "a region_tree node's \"path\" holds something other than a string");
		const char *text = json_object_get_string(label);
		size_t tl = strlen(text);
		if (len + tl + 2 > size)
			return BAD(l, "a region_tree node's \"path\" is longer than %zu bytes", size - 1);
		if (i)
			buf[len++] = HESPER_LABEL_PATH_SEP;
		for (size_t c = 0; c < tl; c++)
			buf[len++] = text[c] == HESPER_LABEL_PATH_SEP || text[c] == HESPER_LABEL_KERNEL_SEP ? '?'
													    : text[c];
	}
	buf[len] = '\0';
	return 0;
}

/* "region_tree", when present: each node into label_paths, its kernels into label_kernels. */
static int
load_region_tree(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *nodes = hesper_json_member(root, "region_tree");
	char path[2048], key[4096];
	int ret;

	if (!nodes)
		return 0;
	if (!json_object_is_type(nodes, json_type_array))
		return BAD(l, "\"region_tree\" is not an array");
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		json_object *o = json_object_array_get_idx(nodes, i), *kernels;

		if ((ret = read_path(l, o, path, sizeof(path))) || (ret = load_row(l, o, p->label_paths, true, path)))
			return ret;
		kernels = hesper_json_member(o, "kernels");
		if (kernels && !json_object_is_type(kernels, json_type_array))
			return BAD(l, "a region_tree node's \"kernels\" is not an array");
		for (size_t k = 0; kernels && k < json_object_array_length(kernels); k++) {
			json_object *kernel = json_object_array_get_idx(kernels, k);
			json_object *name = hesper_json_member(kernel, "name");

			if (!name || !json_object_is_type(name, json_type_string))
				return BAD(l, "a region_tree kernel has no \"name\" string");
			snprintf(key, sizeof(key), "%s%c%s", path, HESPER_LABEL_KERNEL_SEP,
				 json_object_get_string(name));
			if ((ret = load_row(l, kernel, p->label_kernels, false, key)))
				return ret;
		}
	}
	return 0;
}

static int
load_rows(struct loader *l, json_object *root, const char *key, struct hesper_kernel_table *t, bool region,
	  bool required)
{
	json_object *rows = hesper_json_member(root, key);

	if (!rows)
		return required ? BAD(l, "no \"%s\" array", key) : 0;
	if (!json_object_is_type(rows, json_type_array))
		return BAD(l, "\"%s\" is not an array", key);
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		int ret = load_kernel(l, json_object_array_get_idx(rows, i), t, region);

		if (ret != 0)
			return ret;
	}
	return 0;
}

/* A clock-mode device's calibration ("clock_error_ns", "clock_ticks_per_us"); the error is -1 (unknown) when absent. */
static int
load_clock_calibration(struct loader *l, json_object *d, struct hesper_device_info *info)
{
	if (get_double(l, d, "a device", "clock_error_ns", &info->clock_error_ns) ||
	    get_double(l, d, "a device", "clock_ticks_per_us", &info->clock_ticks_per_us))
		return HESPER_ERROR_FORMAT;
	if (!hesper_json_member(d, "clock_error_ns"))
		info->clock_error_ns = -1.0;
	return 0;
}

/*
 * A device's "occupancy_model", when there: its figures, or only why there are none. Absent
 * (a summary from before the model, or a device without statistics): no model, no why.
 */
static int
load_occupancy_model(struct loader *l, json_object *d, struct hesper_occupancy_model *m)
{
	static const struct {
		const char *key;
		size_t offset;
	} figures[] = {
#define FIGURE(name) {#name, offsetof(struct hesper_occupancy_model, name)}
		FIGURE(compute_units),    FIGURE(warp_size),
		FIGURE(warps_per_sm),     FIGURE(groups_per_sm),
		FIGURE(registers_per_sm), FIGURE(register_partitions),
		FIGURE(register_unit),    FIGURE(registers_per_thread),
		FIGURE(shared_per_sm),    FIGURE(shared_per_group),
		FIGURE(shared_reserved),  FIGURE(shared_unit),
#undef FIGURE
	};
	json_object *o = hesper_json_member(d, "occupancy_model");

	memset(m, 0, sizeof(*m));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return BAD(l, "a device's \"occupancy_model\" is not an object");
	copy_string(m->vendor, sizeof(m->vendor), o, "vendor");
	copy_string(m->why, sizeof(m->why), o, "why");
	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
		uint64_t v;

		if (get_u64(l, o, "\"occupancy_model\"", figures[i].key, 0, &v))
			return HESPER_ERROR_FORMAT;
		if (v > UINT32_MAX)
			return BAD(l, "\"occupancy_model\": \"%s\" is out of range", figures[i].key);
		uint32_t fig = (uint32_t)v;
		memcpy((char *)m + figures[i].offset, &fig, sizeof(fig));
	}
	return 0;
}

static int
load_devices(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *devices = hesper_json_member(root, "devices");

	if (devices && !json_object_is_type(devices, json_type_array))
		return BAD(l, "\"devices\" is not an array");
	for (size_t i = 0; devices && i < json_object_array_length(devices); i++) {
		json_object *d = json_object_array_get_idx(devices, i);
		struct hesper_device_info info = {0};

		copy_string(info.name, sizeof(info.name), d, "name");
		copy_string(info.driver, sizeof(info.driver), d, "driver");
		copy_string(info.copy, sizeof(info.copy), d, "copy");
		copy_string(info.timing, sizeof(info.timing), d, "timing");
		copy_string(info.pipeline_stats, sizeof(info.pipeline_stats), d, "pipeline_stats");
		uint64_t units;
		if (load_clock_calibration(l, d, &info) ||
		    get_double(l, d, "a device", "timestamp_period_ns", &info.timestamp_period_ns) ||
		    get_u64(l, d, "a device", "dispatch_cost_ns", 0, &info.dispatch_cost_ns) ||
		    get_u64(l, d, "a device", "timestamp_cost_ns", 0, &info.timestamp_cost_ns) ||
		    get_u64(l, d, "a device", "compute_units", 0, &units) ||
		    load_occupancy_model(l, d, &info.occupancy))
			return HESPER_ERROR_FORMAT;
		info.compute_units = (uint32_t)units;
		if (hesper_profile_add_device(p, &info) < 0)
			return NO_MEMORY(l);
	}
	return 0;
}

static int
load_queues(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *queues = hesper_json_member(root, "queues");
	uint64_t busy;

	if (queues && !json_object_is_type(queues, json_type_array))
		return BAD(l, "\"queues\" is not an array");
	for (size_t i = 0; queues && i < json_object_array_length(queues); i++) {
		json_object *o = json_object_array_get_idx(queues, i);
		uint64_t device, family, index, bits, submits, calls, trips, batches, idle;

		if (get_u64(l, o, "a queue", "device", 0, &device) || get_u64(l, o, "a queue", "family", 0, &family) ||
		    get_u64(l, o, "a queue", "index", 0, &index) ||
		    get_u64(l, o, "a queue", "timestamp_bits", 0, &bits) ||
		    get_u64(l, o, "a queue", "submits", 0, &submits) || get_u64(l, o, "a queue", "busy_ns", 0, &busy) ||
		    get_u64(l, o, "a queue", "submit_calls", 0, &calls) ||
		    get_u64(l, o, "a queue", "round_trips", 0, &trips) ||
		    get_u64(l, o, "a queue", "timed_batches", 0, &batches) ||
		    get_u64(l, o, "a queue", "idle_ns", 0, &idle))
			return HESPER_ERROR_FORMAT;
		struct hesper_queue_info *q = hesper_profile_queue(p, (uint32_t)device, (uint32_t)family,
								   (uint32_t)index);
		if (!q)
			return NO_MEMORY(l);
		q->timestamp_bits = (uint32_t)bits;
		q->submits += submits;
		q->busy_ns += busy;
		q->submit_calls += calls;
		q->round_trips += trips;
		q->timed_batches += batches;
		q->idle_ns += idle;
	}
	/* Without per-queue rows, keep the total busy time on one queue. */
	if (get_u64(l, root, "the summary", "gpu_busy_ns", 0, &busy))
		return HESPER_ERROR_FORMAT;
	if (p->queue_count == 0 && busy > 0) {
		struct hesper_queue_info *q = hesper_profile_queue(p, 0, 0, 0);
		if (!q)
			return NO_MEMORY(l);
		q->busy_ns = busy;
	}
	return 0;
}

/* "host_waits": rows per thread and call; calls Hesper does not know are skipped. */
static int
load_host_waits(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *rows = hesper_json_member(root, "host_waits");

	if (rows && !json_object_is_type(rows, json_type_array))
		return BAD(l, "\"host_waits\" is not an array");
	for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
		json_object *o = json_object_array_get_idx(rows, i), *call = hesper_json_member(o, "call");
		uint64_t thread, count, total, max;
		uint32_t c = 0;

		if (get_u64(l, o, "a host wait", "thread", 0, &thread) ||
		    get_u64(l, o, "a host wait", "count", 0, &count) ||
		    get_u64(l, o, "a host wait", "total_ns", 0, &total) ||
		    get_u64(l, o, "a host wait", "max_ns", 0, &max))
			return HESPER_ERROR_FORMAT;
		while (c < HESPER_WAIT_CALLS && !(call && json_object_is_type(call, json_type_string) &&
						  strcmp(json_object_get_string(call), hesper_wait_call_name(c)) == 0))
			c++;
		if (c < HESPER_WAIT_CALLS &&
		    hesper_profile_add_host_wait(p, (uint32_t)thread, (enum hesper_wait_call)c, count, total, max) != 0)
			return NO_MEMORY(l);
	}
	return 0;
}

/* One gap of a gpu_idle finding, into the row of its queue. */
static int
load_gap(struct loader *l, json_object *o, struct hesper_queue_info *q)
{
	struct hesper_gap g = {0};
	uint64_t thread;

	if (get_u64(l, o, "a gap", "start_ns", 0, &g.start_ns) ||
	    get_u64(l, o, "a gap", "length_ns", 0, &g.length_ns) ||
	    get_u64(l, o, "a gap", "waiting_ns", 0, &g.waiting_ns) ||
	    get_u64(l, o, "a gap", "recording_ns", 0, &g.recording_ns) ||
	    get_u64(l, o, "a gap", "submitting_ns", 0, &g.submitting_ns) ||
	    get_u64(l, o, "a gap", "other_ns", 0, &g.other_ns) || get_u64(l, o, "a gap", "thread", 0, &thread) ||
	    get_u64(l, o, "a gap", "submission", 0, &g.submission))
		return HESPER_ERROR_FORMAT;
	g.thread = (uint32_t)thread;
	hesper_gaps_keep(q, &g);
	return 0;
}

/* "findings" as they were written: kinds and numbers Hesper does not know are skipped. */
static int
load_findings(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *list = hesper_json_member(root, "findings");
	size_t n;

	if (!list)
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return BAD(l, "\"findings\" is not an array");
	p->findings_loaded = true;
	n = json_object_array_length(list);
	p->loaded_findings = calloc(n ? n : 1, sizeof(*p->loaded_findings));
	if (!p->loaded_findings)
		return NO_MEMORY(l);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(list, i), *v = hesper_json_member(o, "kind");
		int kind = v && json_object_is_type(v, json_type_string)
				   ? hesper_finding_kind_from_name(json_object_get_string(v))
				   : -1;
		struct hesper_finding *f = &p->loaded_findings[p->loaded_finding_count];
		json_object *numbers = hesper_json_member(o, "numbers"), *about = hesper_json_member(o, "about");

		if (kind < 0)
			continue;
		memset(f, 0, sizeof(*f));
		f->kind = (enum hesper_finding_kind)kind;
		if (get_u64(l, o, "a finding", "time_at_stake_ns", 0, &f->time_at_stake_ns))
			return HESPER_ERROR_FORMAT;
		if (about && json_object_is_type(about, json_type_array) && json_object_array_length(about) > 0) {
			json_object *a = json_object_array_get_idx(about, 0);
			snprintf(f->about, sizeof(f->about), "%s",
				 json_object_is_type(a, json_type_string) ? json_object_get_string(a) : "");
		}
		copy_string(f->advice, sizeof(f->advice), o, "advice");
		if (numbers && json_object_is_type(numbers, json_type_object)) {
			json_object_object_foreach(numbers, key, val)
			{
				const char *k = hesper_finding_number_key(key);
				if (k && f->number_count < HESPER_FINDING_NUMBERS &&
				    (json_object_is_type(val, json_type_int) ||
				     json_object_is_type(val, json_type_double)))
					f->numbers[f->number_count++] = (struct hesper_finding_number){
						k, json_object_get_double(val)};
			}
		}
		json_object *gaps = hesper_json_member(o, "gaps");
		for (size_t q = 0; f->kind == HESPER_FINDING_GPU_IDLE && q < p->queue_count; q++) {
			char name[64];
			snprintf(name, sizeof(name), "queue %" PRIu32 ":%" PRIu32 ":%" PRIu32, p->queues[q].device,
				 p->queues[q].family, p->queues[q].index);
			if (strcmp(name, f->about) != 0 || !gaps || !json_object_is_type(gaps, json_type_array))
				continue;
			p->queues[q].gap_count = 0;
			for (size_t g = 0; g < json_object_array_length(gaps); g++)
				if (load_gap(l, json_object_array_get_idx(gaps, g), &p->queues[q]))
					return HESPER_ERROR_FORMAT;
		}
		p->loaded_finding_count++;
	}
	return 0;
}

int
hesper_summary_document(const char *path, json_object **root, char *err, size_t err_size)
{
	struct loader l = {path, err, err_size};
	json_object *v;
	int ret = hesper_json_file_load(path, root, err, err_size);

	if (ret != HESPER_OK)
		return ret;
	v = hesper_json_member(*root, "schema");
	if (!v || !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), SCHEMA) != 0) {
		json_object_put(*root);
		*root = NULL;
		return BAD(&l, "not a Hesper summary (\"schema\" is not \"%s\")", SCHEMA);
	}
	return HESPER_OK;
}

/* "dropped_causes": the count of each cause this reader knows (a newer one's others stay unrecorded). */
static int
load_drop_causes(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *causes = hesper_json_member(root, "dropped_causes");
	enum hesper_drop_cause c;

	if (!causes)
		return 0;
	if (!json_object_is_type(causes, json_type_object))
		return BAD(l, "\"dropped_causes\" is not an object");
	json_object_object_foreach(causes, key, val)
	{
		(void)val;
		if (hesper_drop_cause_named(key, strlen(key), &c) &&
		    get_u64(l, causes, "\"dropped_causes\"", key, 0, &out->dropped_by[c]))
			return HESPER_ERROR_FORMAT;
	}
	return 0;
}

/* The process, mode and counters of the summary. */
static int
load_process(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *process = hesper_json_member(root, "process"), *v;
	uint64_t n, total;

	v = hesper_json_member(process, "pid");
	out->pid = v ? json_object_get_int(v) : 0;
	copy_string(out->exe, sizeof(out->exe), process, "exe");
	copy_string(out->host, sizeof(out->host), process, "host");
	copy_string(out->mode, sizeof(out->mode), root, "mode");

	if (get_u64(l, root, "the summary", "wall_ns", 0, &out->wall_ns) ||
	    get_u64(l, root, "the summary", "dropped", 0, &out->dropped) ||
	    get_u64(l, root, "the summary", "clamped", 0, &out->clamped) ||
	    get_u64(l, root, "the summary", "sample_every", 1, &n))
		return HESPER_ERROR_FORMAT;
	out->sample_every = (uint32_t)n;
	/* Absent in summaries written before HESPER_GROUP_BY: a row per kernel. */
	const char *group_by = get_string(root, "group_by");
	if (group_by && !hesper_group_by_from_word(group_by, &out->group_by))
		return BAD(l, "the summary: \"group_by\" is \"%s\", not kernel, shape or label", group_by);
	if (load_drop_causes(l, root, out))
		return HESPER_ERROR_FORMAT;
	v = hesper_json_member(root, "hesper");
	if (get_u64(l, v, "\"hesper\"", "timestamps_written", 0, &out->timestamps_written) ||
	    get_u64(l, v, "\"hesper\"", "hook_ns", 0, &out->hook_ns) ||
	    get_u64(l, v, "\"hesper\"", "submit_hook_ns", 0, &out->submit_hook_ns) ||
	    get_u64(l, v, "\"hesper\"", "collector_ns", 0, &out->collector_ns))
		return HESPER_ERROR_FORMAT;
	v = hesper_json_member(root, "submits");
	if (get_u64(l, v, "\"submits\"", "count", 0, &n) || get_u64(l, v, "\"submits\"", "total_ns", 0, &total))
		return HESPER_ERROR_FORMAT;
	rebuild_stats(&out->submits, n, total, n ? (double)total / (double)n : 0, 0, 0, 0, 0, 0, 0);
	return 0;
}

/* "clock_isolated" and "clock_fallbacks" (clock mode): the dispatches and kernels not timed by the shader clock. */
static int
load_clock(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *list = hesper_json_member(root, "clock_fallbacks");

	if (get_u64(l, root, "the summary", "clock_isolated", 0, &out->clock_isolated))
		return HESPER_ERROR_FORMAT;
	if (list && !json_object_is_type(list, json_type_array))
		return BAD(l, "\"clock_fallbacks\" is not an array");
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i);
		const char *kernel = get_string(o, "kernel"), *why = get_string(o, "why");

		if (!kernel)
			return BAD(l, "a clock fallback has no \"kernel\" string");
		if (hesper_profile_add_clock_note(out, kernel, why ? why : "") != 0)
			return NO_MEMORY(l);
	}
	return 0;
}

/* One statistic of "stats": its value's JSON type gives its format; false when it is no bool or number. */
static bool
load_statistic(const char *name, json_object *v, struct hesper_pipeline_stat *st)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", name);
	if (json_object_is_type(v, json_type_boolean)) {
		st->format = HESPER_STAT_BOOL;
		st->value.b = json_object_get_boolean(v);
	} else if (json_object_is_type(v, json_type_int)) {
		/* json-c keeps integers as int64, and past it as uint64: either way exact */
		int64_t i = json_object_get_int64(v);
		uint64_t u = json_object_get_uint64(v);
		st->format = i < 0 ? HESPER_STAT_INT : HESPER_STAT_UINT;
		if (i < 0)
			st->value.i = i;
		else
			st->value.u = u;
	} else if (json_object_is_type(v, json_type_double)) {
		st->format = HESPER_STAT_FLOAT;
		st->value.f = json_object_get_double(v);
	} else {
		return false;
	}
	return true;
}

/* "pipeline_stats": per kernel, the driver's statistics of its pipeline. */
static int
load_pipeline_stats(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *list = hesper_json_member(root, "pipeline_stats");
	int ret = 0;

	if (list && !json_object_is_type(list, json_type_array))
		return BAD(l, "\"pipeline_stats\" is not an array");
	for (size_t i = 0; list && i < json_object_array_length(list) && !ret; i++) {
		json_object *o = json_object_array_get_idx(list, i), *stats = hesper_json_member(o, "stats");
		const char *kernel = get_string(o, "kernel");
		struct hesper_pipeline_stats k = {.kernel = (char *)kernel};
		uint64_t subgroup = 0, device = 0, dispatches = 0;

		if (!kernel || (stats && !json_object_is_type(stats, json_type_object)))
			return BAD(
				l,
				"a \"pipeline_stats\" row has no \"kernel\" string or a \"stats\" that is no object");
		/* "variant" is not read: the sets are numbered again as they are added, in their order */
		if (get_u64(l, o, "a \"pipeline_stats\" row", "subgroup_size", 0, &subgroup) ||
		    get_u64(l, o, "a \"pipeline_stats\" row", "device", 0, &device) ||
		    get_u64(l, o, "a \"pipeline_stats\" row", "dispatches", 0, &dispatches))
			return HESPER_ERROR_FORMAT;
		k.dispatches = dispatches;
		copy_string(k.executable, sizeof(k.executable), o, "executable");
		k.subgroup_size = (uint32_t)subgroup;
		/* "occupancy" is not read: the reports reckon it again from these, as when it was written. */
		k.device = device > UINT32_MAX ? UINT32_MAX : (uint32_t)device;
		get_triple(o, "local_size", k.local_size);
		size_t n = stats ? (size_t)json_object_object_length(stats) : 0;
		k.stats = n ? calloc(n, sizeof(*k.stats)) : NULL;
		if (n && !k.stats)
			return NO_MEMORY(l);
		if (stats) {
			json_object_object_foreach(stats, name, v)
			{
				if (!load_statistic(name, v, &k.stats[k.count]))
					ret = BAD(l, "the statistic \"%s\" is no boolean or number", name);
				else
					k.count++;
			}
		}
		if (!ret && hesper_profile_add_pipeline_stats(out, &k) < 0)
			ret = NO_MEMORY(l);
		free(k.stats);
	}
	return ret;
}

/* A copy of @s in @out's report.owned[@slot] (freed with @out); NULL for NULL, and *@failed when out of memory. */
static const char *
keep_string(struct hesper_profile *out, int slot, const char *s, bool *failed)
{
	if (!s)
		return NULL;
	out->report.owned[slot] = strdup(s);
	*failed |= !out->report.owned[slot];
	return out->report.owned[slot];
}

/* "report" (reports written while the program runs) and "ended_by_signal": which report this is. */
static int
load_report_kind(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *r = hesper_json_member(root, "report");
	bool failed = false;

	out->report.signal = keep_string(out, 1, get_string(root, "ended_by_signal"), &failed);
	if (r) {
		json_object *final = hesper_json_member(r, "final");

		if (!json_object_is_type(r, json_type_object))
			return BAD(l, "\"report\" is not an object");
		out->report.live = true;
		/* Only a report that says it is not the final one was written while the program ran. */
		out->report.partial = final && json_object_is_type(final, json_type_boolean) &&
				      !json_object_get_boolean(final);
		if (get_u64(l, r, "\"report\"", "number", 0, &out->report.number))
			return HESPER_ERROR_FORMAT;
		out->report.reason = keep_string(out, 0, get_string(r, "reason"), &failed);
	}
	return failed ? NO_MEMORY(l) : 0;
}

/* "capture": the capture window as the run stated it, when one was asked for. */
static int
load_capture(struct loader *l, json_object *root, struct hesper_capture_info *c)
{
	json_object *o = hesper_json_member(root, "capture");
	const char *state;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return BAD(l, "\"capture\" is not an object");
	c->set = true;
	copy_string(c->start, sizeof(c->start), o, "start");
	copy_string(c->stop, sizeof(c->stop), o, "stop");
	/* A window closes only once it opened: "closed" is both. */
	state = get_string(o, "state");
	c->opened = state && strcmp(state, "not opened") != 0;
	c->closed = state && strcmp(state, "closed") == 0;
	uint64_t wall = 0;
	if (get_u64(l, o, "\"capture\"", "opened_ns", 0, &c->opened_ns) ||
	    get_u64(l, o, "\"capture\"", "closed_ns", 0, &c->closed_ns) ||
	    get_u64(l, o, "\"capture\"", "dispatches_outside", 0, &c->outside) ||
	    get_u64(l, o, "\"capture\"", "submissions_outside", 0, &c->submissions_outside) ||
	    get_u64(l, o, "\"capture\"", "memory_ops_outside", 0, &c->memops_outside) ||
	    get_u64(l, o, "\"capture\"", "wall_ns", 0, &wall))
		return HESPER_ERROR_FORMAT;
	/* The window's wall time as the run measured it: from its opening to the end it ran to. */
	if (c->opened && wall)
		c->end_ns = c->opened_ns + wall;
	return 0;
}

int
hesper_summary_load(const char *path, struct hesper_profile *out, char *err, size_t err_size)
{
	struct loader l = {path, err, err_size};
	json_object *root = NULL;
	int ret;

	if (hesper_profile_init(out) != 0)
		return NO_MEMORY(&l);
	ret = hesper_summary_document(path, &root, err, err_size);
	if (ret != HESPER_OK)
		goto out;
	if ((ret = load_process(&l, root, out)) || (ret = load_devices(&l, root, out)) ||
	    (ret = load_queues(&l, root, out)) || (ret = load_rows(&l, root, "kernels", out->kernels, false, true)) ||
	    (ret = load_rows(&l, root, "regions", out->regions, true, false)) ||
	    (ret = load_rows(&l, root, "kernels_by_label", out->labelled, false, false)) ||
	    (ret = load_kernel_names(&l, root, out->row_kernels)) || (ret = load_region_tree(&l, root, out)) ||
	    (ret = load_memops(&l, root, &out->memops)) || (ret = load_host_waits(&l, root, out)) ||
	    (ret = load_findings(&l, root, out)) || (ret = load_clock(&l, root, out)) ||
	    (ret = load_pipeline_stats(&l, root, out)) || (ret = load_report_kind(&l, root, out)) ||
	    (ret = load_capture(&l, root, &out->capture)))
		goto out;
	ret = HESPER_OK;
out:
	json_object_put(root);
	return ret;
}
