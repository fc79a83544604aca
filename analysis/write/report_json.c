/*
 * The JSON summary, schema "hesper-summary/1" (docs/formats.md): the keys of the
 * schema in its order, then the extra keys (pipeline_stats, queues, clamped, mode, sample_every,
 * group_by, hesper, kernels_by_label). Kernels carry extra keys, "timed" and "span_total_ns";
 * regions "timed" and their statistics. Integers are
 * printed as integers; doubles with 17 significant digits, and never as NaN or Infinity (0
 * instead).
 */
#include "report.h"

#include "findings/findings.h"
#include "profile/profile.h"
#include "report_json_parts.h"
#include "model/model.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The key of a member written by hand (profile/summary_keys.h). */
#define KEY(id) hesper_summary_key(HESPER_SUMMARY_##id)

/* A "queues" row after @lead: its keys in the list's order (profile/queue_keys.h), the findings' with @findings. */
static void
put_queue(FILE *out, const struct hesper_queue_info *q, bool findings, const char *lead)
{
	const char *sep = "{";

	fputs(lead, out);
#define HESPER_PUT_QUEUE_KEY(member, key, how, for_findings, wide)                 \
	if (!(for_findings) || findings) {                                         \
		fprintf(out, "%s\"" key "\": %" PRIu64, sep, (uint64_t)q->member); \
		sep = ", ";                                                        \
	}
	HESPER_QUEUE_KEYS(HESPER_PUT_QUEUE_KEY)
#undef HESPER_PUT_QUEUE_KEY
	fputc('}', out);
}

/*
 * A "devices" entry after @lead: its keys in the list's order (profile/device_keys.h), each
 * when the list says; the findings' numbers with @findings (they come from a live run, or
 * a summary of one read back, never from events).
 */
static void
put_device(FILE *out, const struct hesper_device_info *d, bool findings, const char *lead)
{
	const char *sep = "{";

	fputs(lead, out);
#define HESPER_DEVICE_WHEN_ALWAYS(member) true
#define HESPER_DEVICE_WHEN_SET(member) (d->member[0] != '\0')
#define HESPER_DEVICE_WHEN_CLOCK_KNOWN(member) (d->timing[0] && d->member >= 0)
#define HESPER_DEVICE_WHEN_CLOCK_RATE(member) (d->timing[0] && d->member > 0)
#define HESPER_DEVICE_WHEN_FINDINGS(member) findings
#define HESPER_PUT_DEVICE_TEXT(member, key)   \
	fprintf(out, "%s\"" key "\": ", sep); \
	hesper_json_put_field(out, d->member, sizeof(d->member))
#define HESPER_PUT_DEVICE_REAL(member, key)   \
	fprintf(out, "%s\"" key "\": ", sep); \
	hesper_json_put_double(out, d->member)
#define HESPER_PUT_DEVICE_U64(member, key) fprintf(out, "%s\"" key "\": %" PRIu64, sep, d->member)
#define HESPER_PUT_DEVICE_U32(member, key) fprintf(out, "%s\"" key "\": %" PRIu32, sep, d->member)
/* the model writes its own ", " and nothing when there is neither model nor why */
#define HESPER_PUT_DEVICE_MODEL(member, key) hesper_json_put_occupancy_model(out, key, &d->member)
#define HESPER_PUT_DEVICE_KEY(member, key, kind, when) \
	if (HESPER_DEVICE_WHEN_##when(member)) {       \
		HESPER_PUT_DEVICE_##kind(member, key); \
		sep = ", ";                            \
	}
	HESPER_DEVICE_KEYS(HESPER_PUT_DEVICE_KEY)
#undef HESPER_PUT_DEVICE_KEY
#undef HESPER_PUT_DEVICE_MODEL
#undef HESPER_PUT_DEVICE_U32
#undef HESPER_PUT_DEVICE_U64
#undef HESPER_PUT_DEVICE_REAL
#undef HESPER_PUT_DEVICE_TEXT
#undef HESPER_DEVICE_WHEN_FINDINGS
#undef HESPER_DEVICE_WHEN_CLOCK_RATE
#undef HESPER_DEVICE_WHEN_CLOCK_KNOWN
#undef HESPER_DEVICE_WHEN_SET
#undef HESPER_DEVICE_WHEN_ALWAYS
	fputc('}', out);
}

/* "kernel_names": the kernels that @t's rows are of (the kernels table's rows split them), by name. */
static void
put_kernel_names(FILE *out, const struct hesper_kernel_table *t)
{
	size_t n = 0;
	struct hesper_kernel **rows = hesper_kernel_table_sorted(t, &n);

	hesper_json_put_key(out, HESPER_SUMMARY_KERNEL_NAMES);
	fputc('[', out);
	for (size_t i = 0; rows && i < n; i++) {
		fputs(i ? ", " : "", out);
		hesper_json_write_string(out, rows[i]->name);
	}
	fputs("],\n", out);
	free(rows);
}

/* ", "KEY": V" for row key @k (model/row_keys.h), a whole number. */
static void
put_row_u64(FILE *out, enum hesper_row_key k, uint64_t v)
{
	fprintf(out, ", \"%s\": %" PRIu64, hesper_row_key(k), v);
}

/* The same for a number with a fraction (a mean, a standard deviation). */
static void
put_row_double(FILE *out, enum hesper_row_key k, double v)
{
	fprintf(out, ", \"%s\": ", hesper_row_key(k));
	hesper_json_put_double(out, v);
}

/* The statistics of @s past its mean: median_ns, min_ns, max_ns, stddev_ns, p95_ns, p99_ns. */
static void
put_instance_keys(FILE *out, const struct hesper_stats *s)
{
	put_row_u64(out, HESPER_ROW_MEDIAN, hesper_stats_quantile(s, 0.5));
	put_row_u64(out, HESPER_ROW_MIN, s->count ? s->min_ns : 0);
	put_row_u64(out, HESPER_ROW_MAX, s->max_ns);
	put_row_double(out, HESPER_ROW_STDDEV, hesper_stats_stddev(s));
	put_row_u64(out, HESPER_ROW_P95, hesper_stats_quantile(s, 0.95));
	put_row_u64(out, HESPER_ROW_P99, hesper_stats_quantile(s, 0.99));
}

/*
 * The keys of a kernel row under the name @name, from "{" up to (not including) its
 * closing "}". total_ns is from the shares (hesper_kernel_total_ns), the statistics from
 * the whole durations; with @spans, span_total_ns is those durations' total
 * (hesper_kernel_span_total_ns).
 */
static void
put_kernel_keys_named(FILE *out, const char *name, const struct hesper_kernel *k, bool spans)
{
	const struct hesper_stats *s = &k->timed;

	fprintf(out, "{\"%s\": ", KEY(ROW_NAME));
	hesper_json_write_string(out, name);
	put_row_u64(out, HESPER_ROW_COUNT, k->count);
	put_row_u64(out, HESPER_ROW_TOTAL, hesper_kernel_total_ns(k));
	put_row_double(out, HESPER_ROW_MEAN, s->mean_ns);
	put_instance_keys(out, s);
	put_row_u64(out, HESPER_ROW_TIMED, s->count);
	if (spans)
		put_row_u64(out, HESPER_ROW_SPAN_TOTAL, hesper_kernel_span_total_ns(k));
}

static void
put_kernel_keys(FILE *out, const struct hesper_kernel *k, bool spans)
{
	put_kernel_keys_named(out, k->name, k, spans);
}

/*
 * A kernel row's launch shapes, when it has any: "groups" (min, max and most common
 * work-group counts, with most_common_count, unknown: indirect dispatches not read back, and
 * the work groups of the timed dispatches with known counts, their time and the groups run
 * per µs) and "local_size" (null when unknown).
 */
/* @v as [x, y, z], or null where NULL. */
static void
put_triple_or_null(FILE *out, const uint32_t *v)
{
	if (v)
		hesper_json_put_triple(out, v);
	else
		fputs("null", out);
}

static void
put_shapes(FILE *out, const struct hesper_launch_shapes *s)
{
	const struct hesper_shape_count *top = hesper_shapes_most_common(s);
	const char *sep = "{";

	if (!s->known && !s->unknown)
		return;
	fprintf(out, ", \"%s\": ", KEY(KERNEL_GROUPS));
	/* each key of the list (profile/shape_keys.h) written by its kind */
#define HESPER_PUT_SHAPE_KEY(member, key, kind) \
	fprintf(out, "%s\"" key "\": ", sep);   \
	HESPER_PUT_SHAPE_##kind(s->member);     \
	sep = ", ";
#define HESPER_PUT_SHAPE_BOUND(v) put_triple_or_null(out, top ? v : NULL)
#define HESPER_PUT_SHAPE_TOP(v) put_triple_or_null(out, top ? top->groups : NULL)
#define HESPER_PUT_SHAPE_COUNT(v) fprintf(out, "%" PRIu64, top ? top->count : 0)
#define HESPER_PUT_SHAPE_U64(v) fprintf(out, "%" PRIu64, v)
#define HESPER_PUT_SHAPE_RATE(v) hesper_json_put_double(out, hesper_shapes_groups_per_us(s))
	HESPER_SHAPE_KEYS(HESPER_PUT_SHAPE_KEY)
#undef HESPER_PUT_SHAPE_KEY
#undef HESPER_PUT_SHAPE_BOUND
#undef HESPER_PUT_SHAPE_TOP
#undef HESPER_PUT_SHAPE_COUNT
#undef HESPER_PUT_SHAPE_U64
#undef HESPER_PUT_SHAPE_RATE
	fprintf(out, "}, \"%s\": ", KEY(KERNEL_LOCAL_SIZE));
	put_triple_or_null(out, s->local_size[0] ? s->local_size : NULL);
}

static void
put_kernel(FILE *out, const struct hesper_kernel *k)
{
	put_kernel_keys(out, k, true);
	put_shapes(out, &k->shapes);
	/* the one set of pipeline statistics its dispatches ran on, when one is known */
	if (k->stats_set && k->stats_set != HESPER_STATS_SETS_SEVERAL)
		fprintf(out, ", \"%s\": %" PRIu32, KEY(KERNEL_STATS_VARIANT), k->stats_set - 1);
	fputc('}', out);
}

/*
 * "memory_operations": one row per kind that ran, in the kinds' order: a kernel row's
 * keys, then bytes (all counted), timed_bytes, unsized, mean_gbps (timed bytes over timed
 * time) and best_gbps (the fastest single operation).
 */
static void
put_memops(FILE *out, const struct hesper_memops *m)
{
	bool any = false;

	hesper_json_put_key(out, HESPER_SUMMARY_MEMORY_OPERATIONS);
	fputc('[', out);
	for (int i = 0; i < HESPER_MEMOP_KINDS; i++) {
		const struct hesper_memop_row *row = &m->rows[i];

		if (!row->k.count)
			continue;
		fputs(any ? ",\n    " : "\n    ", out);
		any = true;
		put_kernel_keys(out, &row->k, false);
		/* each key of the list (profile/memop_keys.h) written by its kind */
#define HESPER_PUT_MEMOP_KEY(member, key, kind) \
	fputs(", \"" key "\": ", out);          \
	HESPER_PUT_MEMOP_##kind(row->member);
#define HESPER_PUT_MEMOP_U64(v) fprintf(out, "%" PRIu64, v)
#define HESPER_PUT_MEMOP_REAL(v) hesper_json_put_double(out, v)
#define HESPER_PUT_MEMOP_MEAN(v) hesper_json_put_double(out, hesper_memop_mean_gbps(row))
		HESPER_MEMOP_KEYS(HESPER_PUT_MEMOP_KEY)
#undef HESPER_PUT_MEMOP_KEY
#undef HESPER_PUT_MEMOP_U64
#undef HESPER_PUT_MEMOP_REAL
#undef HESPER_PUT_MEMOP_MEAN
		fputc('}', out);
	}
	fputs(any ? "\n  ]" : "]", out);
}

/* A region row's numbers: count, total_ns, mean_ns, timed, then the statistics past the mean. */
static void
put_region_keys(FILE *out, const struct hesper_kernel *k)
{
	put_row_u64(out, HESPER_ROW_COUNT, k->count);
	put_row_u64(out, HESPER_ROW_TOTAL, hesper_kernel_total_ns(k));
	put_row_double(out, HESPER_ROW_MEAN, k->timed.mean_ns);
	put_row_u64(out, HESPER_ROW_TIMED, k->timed.count);
	put_instance_keys(out, &k->timed);
}

/*
 * A region row: name, count, total_ns (the stable keys), then mean_ns and timed as a
 * kernel row has them, so that a reader tells an estimated total (not every run timed) apart.
 */
static void
put_region(FILE *out, const struct hesper_kernel *k)
{
	fprintf(out, "{\"%s\": ", KEY(ROW_NAME));
	hesper_json_write_string(out, k->name);
	put_region_keys(out, k);
	fputc('}', out);
}

/* The label path @path as an array of its labels, outermost first; false when memory runs out. */
static bool
put_path(FILE *out, const char *path)
{
	char *copy = strdup(path), *label = copy;

	if (!copy)
		return false;
	fputc('[', out);
	for (char *c = copy;; c++) {
		bool last = *c == '\0';

		if (*c != HESPER_LABEL_PATH_SEP && !last)
			continue;
		*c = '\0';
		if (label != copy)
			fputs(", ", out);
		hesper_json_write_string(out, label);
		label = c + 1;
		if (last)
			break;
	}
	fputc(']', out);
	free(copy);
	return true;
}

/*
 * "region_tree" (when any label path was counted): one node per label path, depth first,
 * each with name (its innermost label), path (its labels, outermost first), depth, a
 * region row's keys over its instances, and kernels (those that ran directly in it, with a
 * kernel row's keys); then @end. False when memory runs out.
 */
static bool
put_region_tree(FILE *out, const struct hesper_profile *p, const char *end)
{
	struct hesper_region_tree t;
	bool ok = true;

	if (!p->label_paths || !hesper_kernel_table_size(p->label_paths))
		return true;
	if (hesper_region_tree_build(p->label_paths, p->label_kernels, &t) != 0)
		return false;
	hesper_json_put_key(out, HESPER_SUMMARY_REGION_TREE);
	fputc('[', out);
	for (size_t i = 0; i < t.count && ok; i++) {
		const struct hesper_region_node *node = &t.nodes[i];
		const struct hesper_kernel *k = node->row;

		fprintf(out, "%s{\"%s\": ", i ? ",\n    " : "\n    ", KEY(NODE_NAME));
		hesper_json_write_string(out, node->name);
		fprintf(out, ", \"%s\": ", KEY(NODE_PATH));
		ok = put_path(out, k->name);
		fprintf(out, ", \"%s\": %" PRIu32, KEY(NODE_DEPTH), node->depth);
		put_region_keys(out, k);
		fprintf(out, ", \"%s\": [", KEY(NODE_KERNELS));
		for (size_t j = 0; j < node->kernel_count; j++) {
			fputs(j ? ", " : "", out);
			put_kernel_keys_named(out, hesper_label_kernel_name(node->kernels[j]), node->kernels[j], true);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs(t.count ? "\n  ]" : "]", out);
	fputs(end, out);
	hesper_region_tree_free(&t);
	return ok;
}

/* Writes "key": [rows...] sorted as the tables sort, then @end; false when memory runs out. */
static bool
put_rows(FILE *out, const char *key, const struct hesper_kernel_table *t,
	 void (*put)(FILE *, const struct hesper_kernel *), const char *end)
{
	size_t n = 0;
	struct hesper_kernel **rows = NULL;

	if (hesper_kernel_table_rows(t, &rows, &n) != 0)
		return false;
	fprintf(out, "  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		put(out, rows[i]);
	}
	fputs(n ? "\n  ]" : "]", out);
	fputs(end, out);
	free(rows);
	return true;
}

/* "report" (when reports are written while the program runs) and "capture" (with a window): which report this is, and the window. */
static void
put_live(FILE *out, const struct hesper_profile *p)
{
	if (p->report.live || p->report.partial) {
		hesper_json_put_key(out, HESPER_SUMMARY_REPORT);
		fprintf(out, "{\"%s\": %s, \"%s\": %" PRIu64, hesper_summary_key(HESPER_SUMMARY_REPORT_FINAL),
			p->report.partial ? "false" : "true", hesper_summary_key(HESPER_SUMMARY_REPORT_NUMBER),
			p->report.number);
		if (p->report.reason) {
			fprintf(out, ", \"%s\": ", hesper_summary_key(HESPER_SUMMARY_REPORT_REASON));
			hesper_json_write_string(out, p->report.reason);
		}
		fputs("},\n", out);
	}
	if (p->report.signal) {
		hesper_json_put_key(out, HESPER_SUMMARY_ENDED_BY_SIGNAL);
		hesper_json_write_string(out, p->report.signal);
		fputs(",\n", out);
	}
	if (!p->capture.set)
		return;
	/* its keys in the list's order (profile/capture_keys.h), each when the list says */
	const struct hesper_capture_info *c = &p->capture;
	const char *sep = "{";

	hesper_json_put_key(out, HESPER_SUMMARY_CAPTURE);
#define HESPER_CAPTURE_WHEN_ALWAYS true
#define HESPER_CAPTURE_WHEN_OPENED c->opened
#define HESPER_CAPTURE_WHEN_CLOSED c->closed
#define HESPER_PUT_CAPTURE_TEXT(member, key)  \
	fprintf(out, "%s\"" key "\": ", sep); \
	hesper_json_put_field(out, c->member, sizeof(c->member))
#define HESPER_PUT_CAPTURE_U64(member, key) fprintf(out, "%s\"" key "\": %" PRIu64, sep, c->member)
#define HESPER_PUT_CAPTURE_STATE(member, key) \
	fprintf(out, "%s\"" key "\": \"%s\"", sep, c->closed ? "closed" : c->opened ? "open" : "not opened")
#define HESPER_PUT_CAPTURE_WALL(member, key) \
	fprintf(out, "%s\"" key "\": %" PRIu64, sep, hesper_capture_wall_ns(c, p->wall_ns))
#define HESPER_PUT_CAPTURE_KEY(member, key, kind, when) \
	if (HESPER_CAPTURE_WHEN_##when) {               \
		HESPER_PUT_CAPTURE_##kind(member, key); \
		sep = ", ";                             \
	}
	HESPER_CAPTURE_KEYS(HESPER_PUT_CAPTURE_KEY)
#undef HESPER_PUT_CAPTURE_KEY
#undef HESPER_PUT_CAPTURE_WALL
#undef HESPER_PUT_CAPTURE_STATE
#undef HESPER_PUT_CAPTURE_U64
#undef HESPER_PUT_CAPTURE_TEXT
#undef HESPER_CAPTURE_WHEN_CLOSED
#undef HESPER_CAPTURE_WHEN_OPENED
#undef HESPER_CAPTURE_WHEN_ALWAYS
	fputs("},\n", out);
}

int
hesper_report_json(FILE *out, const struct hesper_profile *p)
{
	int ret = -1;

	fputs("{\n", out);
	hesper_json_put_key(out, HESPER_SUMMARY_SCHEMA);
	fputs("\"hesper-summary/1\",\n", out);
	hesper_json_put_key(out, HESPER_SUMMARY_PROCESS);
	fprintf(out, "{\"%s\": %d, \"%s\": ", KEY(PID), p->pid, KEY(EXE));
	hesper_json_put_field(out, p->exe, sizeof(p->exe));
	fprintf(out, ", \"%s\": ", KEY(HOST));
	hesper_json_put_field(out, p->host, sizeof(p->host));
	fputs("},\n", out);
	hesper_json_put_key(out, HESPER_SUMMARY_DEVICES);
	fputc('[', out);
	for (size_t i = 0; i < p->device_count; i++)
		put_device(out, &p->devices[i], p->findings_ready || p->findings_loaded, i ? ",\n    " : "\n    ");
	fputs(p->device_count ? "\n  ],\n" : "],\n", out);
	hesper_json_put_key(out, HESPER_SUMMARY_WALL_NS);
	fprintf(out, "%" PRIu64 ",\n", p->wall_ns);
	hesper_json_put_key(out, HESPER_SUMMARY_GPU_BUSY_NS);
	fprintf(out, "%" PRIu64 ",\n", hesper_profile_gpu_busy_ns(p));
	if (!put_rows(out, hesper_summary_key(HESPER_SUMMARY_KERNELS), p->kernels, put_kernel, ",\n"))
		goto out;
	if (!put_rows(out, hesper_summary_key(HESPER_SUMMARY_REGIONS), p->regions, put_region, ",\n"))
		goto out;
	if (strcmp(p->mode, "clock") == 0) {
		/* Clock mode: the kernels timed with timestamps instead, and why. */
		hesper_json_put_key(out, HESPER_SUMMARY_CLOCK_FALLBACKS);
		fputc('[', out);
		for (size_t i = 0; i < p->clock_note_count; i++) {
			fprintf(out, "%s{\"%s\": ", i ? ",\n    " : "\n    ", KEY(FALLBACK_KERNEL));
			hesper_json_put_field(out, p->clock_notes[i].kernel, sizeof(p->clock_notes[i].kernel));
			fprintf(out, ", \"%s\": ", KEY(FALLBACK_WHY));
			hesper_json_put_field(out, p->clock_notes[i].why, sizeof(p->clock_notes[i].why));
			fputc('}', out);
		}
		fputs(p->clock_note_count ? "\n  ],\n" : "],\n", out);
		hesper_json_put_key(out, HESPER_SUMMARY_CLOCK_ISOLATED);
		fprintf(out, "%" PRIu64 ",\n", p->clock_isolated);
	}
	/* Where a device said whether it has them (a live run or its summary): the statistics, maybe none. */
	bool stats_known = p->pipeline_stats_count > 0;
	for (size_t i = 0; i < p->device_count; i++)
		stats_known |= p->devices[i].pipeline_stats[0] != '\0';
	if (stats_known)
		hesper_json_put_pipeline_stats(out, p);
	hesper_json_put_lines(out, p);
	hesper_json_put_key(out, HESPER_SUMMARY_SUBMITS);
	fprintf(out, "{\"%s\": %" PRIu64 ", \"%s\": %" PRIu64 "},\n", KEY(SUBMITS_COUNT), p->submits.count,
		KEY(SUBMITS_TOTAL_NS), p->submits.total_ns);
	hesper_json_put_key(out, HESPER_SUMMARY_DROPPED);
	fprintf(out, "%" PRIu64 ",\n", p->dropped);
	hesper_json_put_key(out, HESPER_SUMMARY_DROPPED_CAUSES);
	fputc('{', out);
	/* Only the causes that happened: {} when nothing was dropped. */
	for (unsigned c = 0, n = 0; c < HESPER_DROP_CAUSES; c++)
		if (p->dropped_by[c])
			fprintf(out, "%s\"%s\": %" PRIu64, n++ ? ", " : "",
				hesper_drop_cause_key((enum hesper_drop_cause)c), p->dropped_by[c]);
	fputs("},\n", out);

	hesper_json_put_key(out, HESPER_SUMMARY_QUEUES);
	fputc('[', out);
	for (size_t i = 0; i < p->queue_count; i++)
		put_queue(out, &p->queues[i], p->findings_ready || p->findings_loaded, i ? ",\n    " : "\n    ");
	fputs(p->queue_count ? "\n  ],\n" : "],\n", out);
	hesper_json_put_key(out, HESPER_SUMMARY_CLAMPED);
	fprintf(out, "%" PRIu64 ",\n", p->clamped);
	hesper_json_put_key(out, HESPER_SUMMARY_MODE);
	hesper_json_put_field(out, p->mode, sizeof(p->mode));
	fputs(",\n", out);
	hesper_json_put_key(out, HESPER_SUMMARY_SAMPLE_EVERY);
	fprintf(out, "%" PRIu32 ",\n", p->sample_every);
	hesper_json_put_key(out, HESPER_SUMMARY_GROUP_BY);
	fprintf(out, "\"%s\",\n", hesper_group_by_word(p->group_by));
	if (p->group_by != HESPER_GROUP_BY_KERNEL)
		put_kernel_names(out, p->row_kernels);
	const char *sep = "{";

	hesper_json_put_key(out, HESPER_SUMMARY_HESPER);
#define HESPER_PUT_COST_KEY(member, key, how)                              \
	fprintf(out, "%s\"" key "\": %" PRIu64, sep, (uint64_t)p->member); \
	sep = ", ";
	HESPER_COST_KEYS(HESPER_PUT_COST_KEY)
#undef HESPER_PUT_COST_KEY
	fputs("},\n", out);
	put_live(out, p);
	if ((p->findings_ready || p->findings_loaded) && hesper_json_put_findings(out, p) != 0)
		goto out;
	/* region_tree and memory_operations only when there are some: other summaries stay as they were. */
	if (!put_region_tree(out, p, ",\n"))
		goto out;
	if (!put_rows(out, hesper_summary_key(HESPER_SUMMARY_KERNELS_BY_LABEL), p->labelled, put_kernel,
		      hesper_memops_count(&p->memops) ? ",\n" : "\n}\n"))
		goto out;
	if (hesper_memops_count(&p->memops)) {
		put_memops(out, &p->memops);
		fputs("\n}\n", out);
	}
	ret = 0;
out:
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}
