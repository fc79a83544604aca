/* hesper-summary/1 JSON back into a profile (json-c). */
#include "summary_load.h"

#include <inttypes.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <hesper/profiling.h>

#include "findings/findings.h"
#include "json_file.h"
#include "summary_load_parts.h"

#define SCHEMA "hesper-summary/1"

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

/* What one row of the summary is being read as: where errors go, and which keys it had. */
struct row_reader {
	struct loader *l;
	json_object *o;
	const char *what, *name; /* "a kernel" or "a region", and its name */
	unsigned present;        /* 1 << k for each key k read that the row has */
};

#define HAS(r, k) (((r)->present >> (k)) & 1u)

/*
 * Number @k (model/row_keys.h) of the row into *@out: @absent when absent (NAN: required).
 * Refused: not a number, not finite, negative, past HESPER_SUMMARY_COUNT_MAX (a count) or
 * HESPER_SUMMARY_TIME_MAX_NS (a time), a count with a fraction.
 */
static int
row_number(struct row_reader *r, enum hesper_row_key k, double absent, double *out)
{
	struct loader *l = r->l;
	const char *what = r->what, *name = r->name, *key = hesper_row_key(k);
	bool whole = hesper_row_key_whole(k);
	double max = whole ? HESPER_SUMMARY_COUNT_MAX : HESPER_SUMMARY_TIME_MAX_NS;
	json_object *v = hesper_json_member(r->o, key);

	*out = absent;
	if (!v)
		return isnan(absent) ? BAD(l, "%s \"%s\" has no \"%s\"", what, name, key) : 0;
	r->present |= 1u << k;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return BAD(l, "%s \"%s\": \"%s\" is not a number", what, name, key);
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		return BAD(l, "%s \"%s\": \"%s\" is %g, not a finite number", what, name, key, *out);
	if (*out < 0)
		return BAD(l, "%s \"%s\": \"%s\" is %g, a negative %s", what, name, key, *out,
			   whole ? "count" : "time");
	if (*out > max)
		return BAD(l, "%s \"%s\": \"%s\" is %g, more than any run holds (at most %g%s)", what, name, key, *out,
			   max, whole ? "" : " ns");
	if (whole && *out != floor(*out))
		return BAD(l, "%s \"%s\": \"%s\" is %g, not a whole number", what, name, key, *out);
	return 0;
}

int
hesper_summary_row_read(const char *path, json_object *o, bool region, struct hesper_summary_row *row, char *err,
			size_t err_size)
{
	struct loader ld = {path, err, err_size}, *l = &ld;
	json_object *name = hesper_json_member(o, KEY(ROW_NAME));
	const char *what = region ? "a region" : "a kernel";
	double count, timed, total, span, mean, stddev, min, max, median, p95, p99;

	memset(row, 0, sizeof(*row));
	if (!name || !json_object_is_type(name, json_type_string))
		return BAD(l, "%s has no \"name\" string", what);
	row->name = json_object_get_string(name);
	const char *nm = row->name;
	struct row_reader rr = {l, o, what, nm, 0}, *r = &rr;
	if (row_number(r, HESPER_ROW_COUNT, NAN, &count) || row_number(r, HESPER_ROW_TIMED, count, &timed))
		return HESPER_ERROR_FORMAT;
	if (timed > count)
		return BAD(l, "%s \"%s\": \"timed\" (%g) is more than \"count\" (%g)", what, nm, timed, count);
	if (row_number(r, HESPER_ROW_TOTAL, 0, &total) || row_number(r, HESPER_ROW_SPAN_TOTAL, total, &span) ||
	    row_number(r, HESPER_ROW_STDDEV, 0, &stddev) || row_number(r, HESPER_ROW_MEDIAN, 0, &median) ||
	    row_number(r, HESPER_ROW_MIN, 0, &min) || row_number(r, HESPER_ROW_MAX, 0, &max) ||
	    row_number(r, HESPER_ROW_MEAN, 0, &mean) || row_number(r, HESPER_ROW_P95, median, &p95) ||
	    row_number(r, HESPER_ROW_P99, p95, &p99))
		return HESPER_ERROR_FORMAT;
	row->count = (uint64_t)count;
	row->timed = (uint64_t)timed;
	row->total_ns = (uint64_t)llround(total);
	row->span_total_ns = (uint64_t)llround(span);
	row->mean_ns = mean;
	row->stddev_ns = stddev;
	row->min_ns = (uint64_t)llround(min);
	row->max_ns = (uint64_t)llround(max);
	row->median_ns = (uint64_t)llround(median);
	row->p95_ns = (uint64_t)llround(p95);
	row->p99_ns = (uint64_t)llround(p99);
	row->has_mean = HAS(r, HESPER_ROW_MEAN);
	/* Quantiles are clamped to the extremes when written; a mean lies between them. */
	bool bounded = row->timed && HAS(r, HESPER_ROW_MIN) && HAS(r, HESPER_ROW_MAX);
	if (bounded && HAS(r, HESPER_ROW_MEDIAN) && (row->median_ns < row->min_ns || row->median_ns > row->max_ns))
		return BAD(l,
			   "%s \"%s\": \"median_ns\" (%" PRIu64 ") is outside [\"min_ns\", \"max_ns\"] ([%" PRIu64
			   ", %" PRIu64 "])",
			   what, nm, row->median_ns, row->min_ns, row->max_ns);
	if (bounded && row->has_mean &&
	    (row->mean_ns < (double)row->min_ns - 1 || row->mean_ns > (double)row->max_ns + 1))
		return BAD(l,
			   "%s \"%s\": \"mean_ns\" (%g) is outside [\"min_ns\", \"max_ns\"] ([%" PRIu64 ", %" PRIu64
			   "])",
			   what, nm, row->mean_ns, row->min_ns, row->max_ns);
	return HESPER_OK;
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
	json_object *g = hesper_json_member(o, KEY(KERNEL_GROUPS));
	struct hesper_launch_shapes *s = &k->shapes;
	uint32_t size[3], top[3];
	uint64_t n = 0;
	bool has_top = false;

	if (get_triple(o, KEY(KERNEL_LOCAL_SIZE), size))
		hesper_shapes_set_local_size(s, size, false);
	uint64_t variant = UINT64_MAX;
	if (get_u64(l, o, "a kernel row", KEY(KERNEL_STATS_VARIANT), UINT64_MAX, &variant))
		return HESPER_ERROR_FORMAT;
	if (variant < HESPER_STATS_SETS_SEVERAL - 1)
		k->stats_set = (uint32_t)variant + 1;
	if (!g)
		return 0;
		/* each key of the list (profile/shape_keys.h) read by its kind: the most common shape and
	 * the counts first, then min and max, kept as written without counting their dispatches
	 * again, where a shape is known */
#define HESPER_GET_SHAPE_KEY(member, key, kind) HESPER_GET_SHAPE_##kind(member, key)
#define HESPER_GET_SHAPE_BOUND(member, key)
#define HESPER_GET_SHAPE_TOP(member, key) has_top = get_triple(g, key, top);
#define HESPER_GET_SHAPE_COUNT(member, key)          \
	if (get_u64(l, g, "\"groups\"", key, 0, &n)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_SHAPE_U64(member, key)                    \
	if (get_u64(l, g, "\"groups\"", key, 0, &s->member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_SHAPE_RATE(member, key)
	HESPER_SHAPE_KEYS(HESPER_GET_SHAPE_KEY)
	if (has_top && n)
		hesper_shapes_add(s, top, n);
#undef HESPER_GET_SHAPE_BOUND
#undef HESPER_GET_SHAPE_TOP
#undef HESPER_GET_SHAPE_COUNT
#undef HESPER_GET_SHAPE_U64
#define HESPER_GET_SHAPE_BOUND(member, key)       \
	if (s->known && get_triple(g, key, size)) \
		memcpy(s->member, size, sizeof(s->member));
#define HESPER_GET_SHAPE_TOP(member, key)
#define HESPER_GET_SHAPE_COUNT(member, key)
#define HESPER_GET_SHAPE_U64(member, key)
	HESPER_SHAPE_KEYS(HESPER_GET_SHAPE_KEY)
#undef HESPER_GET_SHAPE_KEY
#undef HESPER_GET_SHAPE_BOUND
#undef HESPER_GET_SHAPE_TOP
#undef HESPER_GET_SHAPE_COUNT
#undef HESPER_GET_SHAPE_U64
#undef HESPER_GET_SHAPE_RATE
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
		region_numbers(&r, hesper_json_member(o, hesper_row_key(HESPER_ROW_MEDIAN)) != NULL);
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
	json_object *names = hesper_json_member(root, KEY(KERNEL_NAMES));

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
	json_object *rows = hesper_json_member(root, KEY(MEMORY_OPERATIONS));

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
		/* each key of the list (profile/memop_keys.h) read by its kind */
#define HESPER_GET_MEMOP_KEY(member, key, kind) HESPER_GET_MEMOP_##kind(member, key)
#define HESPER_GET_MEMOP_U64(member, key)                              \
	if (get_u64(l, o, "a memory operation", key, 0, &row->member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_MEMOP_REAL(member, key)                             \
	if (get_double(l, o, "a memory operation", key, &row->member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_MEMOP_MEAN(member, key)
		HESPER_MEMOP_KEYS(HESPER_GET_MEMOP_KEY)
#undef HESPER_GET_MEMOP_KEY
#undef HESPER_GET_MEMOP_U64
#undef HESPER_GET_MEMOP_REAL
#undef HESPER_GET_MEMOP_MEAN
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
	json_object *path = hesper_json_member(o, KEY(NODE_PATH));
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
	json_object *nodes = hesper_json_member(root, KEY(REGION_TREE));
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
		kernels = hesper_json_member(o, KEY(NODE_KERNELS));
		if (kernels && !json_object_is_type(kernels, json_type_array))
			return BAD(l, "a region_tree node's \"kernels\" is not an array");
		for (size_t k = 0; kernels && k < json_object_array_length(kernels); k++) {
			json_object *kernel = json_object_array_get_idx(kernels, k);
			json_object *name = hesper_json_member(kernel, KEY(ROW_NAME));

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

int
hesper_summary_document(const char *path, json_object **root, char *err, size_t err_size)
{
	struct loader l = {path, err, err_size};
	json_object *v;
	int ret = hesper_json_file_load(path, root, err, err_size);

	if (ret != HESPER_OK)
		return ret;
	v = hesper_json_member(*root, KEY(SCHEMA));
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
	json_object *causes = hesper_json_member(root, KEY(DROPPED_CAUSES));
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
	json_object *process = hesper_json_member(root, KEY(PROCESS)), *v;
	uint64_t n, total;

	v = hesper_json_member(process, KEY(PID));
	out->pid = v ? json_object_get_int(v) : 0;
	copy_string(out->exe, sizeof(out->exe), process, KEY(EXE));
	copy_string(out->host, sizeof(out->host), process, KEY(HOST));
	copy_string(out->mode, sizeof(out->mode), root, KEY(MODE));

	if (get_u64(l, root, "the summary", KEY(WALL_NS), 0, &out->wall_ns) ||
	    get_u64(l, root, "the summary", KEY(DROPPED), 0, &out->dropped) ||
	    get_u64(l, root, "the summary", KEY(CLAMPED), 0, &out->clamped) ||
	    get_u64(l, root, "the summary", KEY(SAMPLE_EVERY), 1, &n))
		return HESPER_ERROR_FORMAT;
	out->sample_every = (uint32_t)n;
	/* Absent in summaries written before HESPER_GROUP_BY: a row per kernel. */
	const char *group_by = get_string(root, KEY(GROUP_BY));
	if (group_by && !hesper_group_by_from_word(group_by, &out->group_by))
		return BAD(l, "the summary: \"group_by\" is \"%s\", not kernel, shape or label", group_by);
	if (load_drop_causes(l, root, out))
		return HESPER_ERROR_FORMAT;
	v = hesper_json_member(root, KEY(HESPER));
	/* What Hesper cost and did (profile/cost_keys.h): each SUM key read back; a RUN key is the trace's. */
#define HESPER_COST_READ_SUM(member, key)                      \
	if (get_u64(l, v, "\"hesper\"", key, 0, &out->member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_COST_READ_RUN(member, key)
#define HESPER_READ_COST_KEY(member, key, how) HESPER_COST_READ_##how(member, key)
	HESPER_COST_KEYS(HESPER_READ_COST_KEY)
#undef HESPER_READ_COST_KEY
#undef HESPER_COST_READ_RUN
#undef HESPER_COST_READ_SUM
	v = hesper_json_member(root, KEY(SUBMITS));
	if (get_u64(l, v, "\"submits\"", KEY(SUBMITS_COUNT), 0, &n) ||
	    get_u64(l, v, "\"submits\"", KEY(SUBMITS_TOTAL_NS), 0, &total))
		return HESPER_ERROR_FORMAT;
	rebuild_stats(&out->submits, n, total, n ? (double)total / (double)n : 0, 0, 0, 0, 0, 0, 0);
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
	if ((ret = load_process(&l, root, out)) || (ret = hesper_load_devices(&l, root, out)) ||
	    (ret = hesper_load_queues(&l, root, out)) ||
	    (ret = load_rows(&l, root, KEY(KERNELS), out->kernels, false, true)) ||
	    (ret = load_rows(&l, root, KEY(REGIONS), out->regions, true, false)) ||
	    (ret = load_rows(&l, root, KEY(KERNELS_BY_LABEL), out->labelled, false, false)) ||
	    (ret = load_kernel_names(&l, root, out->row_kernels)) || (ret = load_region_tree(&l, root, out)) ||
	    (ret = load_memops(&l, root, &out->memops)) || (ret = hesper_load_host_waits(&l, root, out)) ||
	    (ret = hesper_load_findings(&l, root, out)) || (ret = hesper_load_clock(&l, root, out)) ||
	    (ret = hesper_load_pipeline_stats(&l, root, out)) || (ret = hesper_load_lines(&l, root, out)) ||
	    (ret = hesper_load_report_kind(&l, root, out)) || (ret = hesper_load_capture(&l, root, &out->capture)))
		goto out;
	ret = HESPER_OK;
out:
	json_object_put(root);
	return ret;
}
