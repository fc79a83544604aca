/*
 * The layer's finished work into the profile: each dispatch, memory operation, label region
 * and batch counted, with its time when it has one, in every table and counter it belongs to.
 */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double
hesper_underfill_share(const uint32_t groups[3], uint32_t compute_units)
{
	if (!compute_units || !groups[0] || !groups[1] || !groups[2])
		return 0;
	uint64_t total = (uint64_t)groups[0] * groups[1] * groups[2];
	if (total >= compute_units)
		return 0;
	return (double)(compute_units - total) / (double)compute_units;
}

/* Whether @w's time enters the statistics: timed, and not clamped (0 ns is no measurement). */
static bool
measured(const struct hesper_work *w)
{
	return w->timed && !w->clamped;
}

/*
 * Hands @w to @p's timeline as an event of @kind named @name, when it was measured and is
 * traced: from its start on the host clock for its time.
 */
static void
keep_event(struct hesper_profile *p, const struct hesper_work *w, enum hesper_trace_kind kind, const char *name)
{
	if (!w->at.traced || !measured(w) || !p->keep_event)
		return;
	struct hesper_trace_event e = {
		.kind = kind,
		.device = w->at.device,
		.queue = w->at.queue,
		.name = name,
		.start_ns = w->at.start_ns,
		.end_ns = w->at.start_ns + w->ns,
		.command_buffer = w->at.command_buffer,
		.submission = w->at.submission,
	};
	if (kind == HESPER_TRACE_DISPATCH) {
		memcpy(e.groups, w->groups, sizeof(e.groups));
		if (!w->local_size_varies)
			memcpy(e.local_size, w->local_size, sizeof(e.local_size));
	}
	if (kind == HESPER_TRACE_MEMORY_OP)
		e.bytes = w->bytes;
	p->keep_event(p, &e);
}

/* @n pieces in @row: one timed in @ns with its share @share_ns, or @n untimed (a clamped one too). */
static void
count_in(struct hesper_kernel *row, const struct hesper_work *w, uint64_t n, uint64_t ns, uint64_t share_ns)
{
	if (!row)
		return;
	if (measured(w))
		hesper_kernel_record_share(row, ns, share_ns);
	else
		hesper_kernel_count_untimed(row, n);
}

/* The "label/kernel" row of a dispatch inside a debug label. */
static struct hesper_kernel *
labelled_row(struct hesper_profile *p, const char *label, const char *kernel)
{
	char name[1024];

	snprintf(name, sizeof(name), "%s/%s", label, kernel);
	return hesper_kernel_table_get(p->labelled, name);
}

/* The "path<KERNEL_SEP>kernel" row of a dispatch inside the label path @path. */
static struct hesper_kernel *
pathed_row(struct hesper_profile *p, const char *path, const char *kernel)
{
	char name[2048];

	snprintf(name, sizeof(name), "%s%c%s", path, HESPER_LABEL_KERNEL_SEP, kernel);
	return hesper_kernel_table_get(p->label_kernels, name);
}

/* Whether @w's work-group counts are known: given, or read back from an indirect dispatch. */
static bool
groups_known(const struct hesper_work *w)
{
	return w->groups_read_back || w->groups[0] || w->groups[1] || w->groups[2];
}

/* @w's row name under @p's grouping into @buf; false when it does not fit. */
static bool
row_name(const struct hesper_profile *p, const struct hesper_work *w, char *buf, size_t size)
{
	return hesper_row_name(buf, size, p->group_by, w->name, w->label, w->groups, groups_known(w)) < size;
}

struct hesper_kernel *
hesper_profile_dispatch_row(struct hesper_profile *p, const struct hesper_work *w)
{
	char name[1024];

	if (!w->name)
		return NULL;
	if (p->group_by == HESPER_GROUP_BY_KERNEL)
		return hesper_kernel_table_get(p->kernels, w->name);
	return row_name(p, w, name, sizeof(name)) ? hesper_kernel_table_get(p->kernels, name) : NULL;
}

/*
 * Grouped by shape or label: forgets @rows' kernel and under-filled rows unless they were
 * found for @w's shape and label, and keys them to those.
 */
static void
key_rows(const struct hesper_profile *p, const struct hesper_work *w, struct hesper_work_rows *rows)
{
	bool known = groups_known(w);

	if (p->group_by == HESPER_GROUP_BY_KERNEL)
		return;
	if (rows->keyed &&
	    (p->group_by == HESPER_GROUP_BY_SHAPE
		     ? rows->key_known == known && memcmp(rows->key_groups, w->groups, sizeof(w->groups)) == 0
		     : rows->key_label == w->label))
		return;
	rows->kernel = rows->underfilled = NULL;
	rows->keyed = true;
	rows->key_known = known;
	memcpy(rows->key_groups, w->groups, sizeof(rows->key_groups));
	rows->key_label = w->label;
}

static int
add_dispatch(struct hesper_profile *p, const struct hesper_work *w, uint64_t n)
{
	struct hesper_work_rows found = {0}, *rows = w->rows ? w->rows : &found;
	double idle_share = hesper_underfill_share(w->groups, w->compute_units);

	if (!w->name)
		return -1;
	key_rows(p, w, rows);
	if (!rows->kernel)
		rows->kernel = hesper_profile_dispatch_row(p, w);
	if (w->label && !rows->labelled)
		rows->labelled = labelled_row(p, w->label, w->name);
	if (w->label_path && !rows->pathed)
		rows->pathed = pathed_row(p, w->label_path, w->name);
	/* Under the kernel row's name: the finding reads the two side by side. */
	if (idle_share > 0 && !rows->underfilled && rows->kernel)
		rows->underfilled = hesper_kernel_table_get(p->underfilled, rows->kernel->name);

	struct hesper_kernel *row = rows->kernel;
	struct hesper_kernel *lrow = w->label ? rows->labelled : NULL;
	struct hesper_kernel *prow = w->label_path ? rows->pathed : NULL;
	struct hesper_kernel *urow = idle_share > 0 ? rows->underfilled : NULL;
	if (row) {
		if (w->groups_read_back)
			hesper_shapes_add_known(&row->shapes, w->groups, n);
		else
			hesper_shapes_add(&row->shapes, w->groups, n);
		if (w->local_size_varies || w->local_size[0] || w->local_size[1] || w->local_size[2])
			hesper_shapes_set_local_size(&row->shapes, w->local_size, w->local_size_varies);
		if (measured(w) && groups_known(w))
			hesper_shapes_add_timed(&row->shapes, w->groups, w->ns);
	}
	uint64_t share = w->has_share ? w->share_ns : w->ns;
	count_in(row, w, n, w->ns, share);
	count_in(lrow, w, n, w->ns, share);
	count_in(prow, w, n, w->ns, share);
	/* The time the idle compute units could have used. */
	uint64_t idle = (uint64_t)llround((double)w->ns * idle_share);
	count_in(urow, w, n, idle, w->has_share ? (uint64_t)llround((double)share * idle_share) : idle);
	/* The set of pipeline statistics it ran with counts it, and its row notes which set that was. */
	if (row && w->stats_set)
		row->stats_set = !row->stats_set || row->stats_set == w->stats_set ? w->stats_set
										   : HESPER_STATS_SETS_SEVERAL;
	for (size_t i = 0; w->stats_set && i < p->pipeline_stats_count; i++) {
		struct hesper_pipeline_stats *k = &p->pipeline_stats[i];
		if (k->variant + 1 == w->stats_set && strcmp(k->kernel, w->name) == 0) {
			k->dispatches += n;
			break;
		}
	}
	/* Grouped, the rows are of kernels the header counts: each kernel once, by name. */
	struct hesper_kernel *of = p->group_by != HESPER_GROUP_BY_KERNEL
					   ? hesper_kernel_table_get(p->row_kernels, w->name)
					   : NULL;
	if (of)
		of->count += n;
	/* Shown under its row's name, which outlives the trace (rows are never removed). */
	keep_event(p, w, HESPER_TRACE_DISPATCH, row ? row->name : w->name);
	if (w->timed)
		p->collected++;
	else if (w->dropped) {
		p->dropped += n;
		if ((unsigned)w->why < HESPER_DROP_CAUSES)
			p->dropped_by[w->why] += n;
	}
	return row && (!w->label || lrow) && (!w->label_path || prow) && (idle_share <= 0 || urow) &&
			       (p->group_by == HESPER_GROUP_BY_KERNEL || of)
		       ? 0
		       : -1;
}

static int
add_memory_op(struct hesper_profile *p, const struct hesper_work *w, uint64_t n)
{
	if ((unsigned)w->memop >= HESPER_MEMOP_KINDS)
		return -1;
	struct hesper_memop_row *row = &p->memops.rows[w->memop];
	if (measured(w))
		hesper_memop_record(row, w->bytes, w->sized, w->ns);
	else
		hesper_memop_count_untimed(row, n, w->bytes, w->sized);
	keep_event(p, w, HESPER_TRACE_MEMORY_OP, row->k.name);
	return 0;
}

static int
add_region(struct hesper_profile *p, const struct hesper_work *w, uint64_t n)
{
	struct hesper_kernel *row = w->name ? hesper_kernel_table_get(p->regions, w->name) : NULL;
	/* Each instance's time goes into its path's distribution as well: one frame's, one layer's. */
	struct hesper_kernel *prow = w->label_path ? hesper_kernel_table_get(p->label_paths, w->label_path) : NULL;

	count_in(row, w, n, w->ns, w->ns);
	count_in(prow, w, n, w->ns, w->ns);
	keep_event(p, w, HESPER_TRACE_REGION, w->name);
	return row && (!w->label_path || prow) ? 0 : -1;
}

static int
add_batch(struct hesper_profile *p, const struct hesper_work *w)
{
	if (w->queue >= p->queue_count)
		return -1;
	struct hesper_queue_info *q = &p->queues[w->queue];
	if (!w->timed)
		return 0;
	q->timed_batches++;
	if (w->gap) {
		q->idle_ns += w->gap->length_ns;
		hesper_gaps_keep(q, w->gap);
	}
	hesper_stats_add(&p->submits, w->ns);
	keep_event(p, w, HESPER_TRACE_BATCH, "batch");
	return 0;
}

int
hesper_profile_add_work(struct hesper_profile *p, const struct hesper_work *w)
{
	uint64_t n = w->timed ? 1 : w->count;

	/* Batches are spans of extended ticks, never clamped; the other kinds count theirs here. */
	if (w->timed && w->clamped && w->kind != HESPER_WORK_BATCH)
		p->clamped++;
	switch (w->kind) {
	case HESPER_WORK_DISPATCH: return add_dispatch(p, w, n);
	case HESPER_WORK_MEMORY_OP: return add_memory_op(p, w, n);
	case HESPER_WORK_REGION: return add_region(p, w, n);
	case HESPER_WORK_BATCH: return add_batch(p, w);
	}
	return -1;
}
