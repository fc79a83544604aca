/* Merging profiles loaded from Hesper's JSON summaries (analysis/read/summary_load.c). */
#include "profile_merge.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
		hesper_kernel_add_shares(row, k->share_ns);
		hesper_shapes_merge(&row->shapes, &k->shapes);
		/* the processes' sets are numbered again in the merge: which one a row ran on is not kept */
		row->stats_set = 0;
	}
	return 0;
}

/* The row of @into that is device @d's model (the same name and driver), or -1. */
static int
find_device(const struct hesper_profile *into, const struct hesper_device_info *d)
{
	for (size_t j = 0; j < into->device_count; j++)
		if (strcmp(into->devices[j].name, d->name) == 0 && strcmp(into->devices[j].driver, d->driver) == 0)
			return (int)j;
	return -1;
}

/* @from's counted lines added to @into's of the same kernel (their shares taken again), or kept as they are. */
static int
merge_lines(struct hesper_profile *into, const struct hesper_profile *from)
{
	for (size_t i = 0; i < from->kernel_lines_count; i++) {
		const struct hesper_kernel_lines *k = &from->kernel_lines[i];
		struct hesper_hot_line *lines = NULL;
		size_t count = 0;
		uint64_t dispatches = k->dispatches;

		for (size_t j = 0; j < into->kernel_lines_count; j++)
			if (strcmp(into->kernel_lines[j].kernel, k->kernel) == 0) {
				const struct hesper_kernel_lines *had = &into->kernel_lines[j];
				if (hesper_hot_lines_add(&lines, &count, had->lines, had->count) != 0)
					return -1;
				dispatches += had->dispatches;
			}
		int ret = hesper_hot_lines_add(&lines, &count, k->lines, k->count);
		if (!ret)
			ret = hesper_profile_set_lines(into, k->kernel, lines, count, dispatches);
		/* the source text: the first run's that has one (set_lines keeps what the kernel had) */
		for (size_t j = 0; !ret && k->source && j < into->kernel_lines_count; j++)
			if (strcmp(into->kernel_lines[j].kernel, k->kernel) == 0 && !into->kernel_lines[j].source)
				ret = hesper_profile_set_source(into, k->kernel, k->source_file, k->source,
								k->source_read);
		free(lines);
		if (ret)
			return -1;
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

			device = find_device(into, d);
			if (device < 0 && (device = hesper_profile_add_device(into, d)) < 0)
				return -1;
		}
		struct hesper_queue_info *row = hesper_profile_queue(into, device < 0 ? q->device : (uint32_t)device,
								     q->family, q->index);
		if (!row)
			return -1;
			/* Every count and time of the queue rows adds up (profile/queue_keys.h). */
#define HESPER_MERGE_QUEUE_ID(member)
#define HESPER_MERGE_QUEUE_SET(member) row->member = q->member;
#define HESPER_MERGE_QUEUE_SUM(member) row->member += q->member;
#define HESPER_MERGE_QUEUE_KEY(member, key, how, findings, wide) HESPER_MERGE_QUEUE_##how(member)
		HESPER_QUEUE_KEYS(HESPER_MERGE_QUEUE_KEY)
#undef HESPER_MERGE_QUEUE_KEY
#undef HESPER_MERGE_QUEUE_SUM
#undef HESPER_MERGE_QUEUE_SET
#undef HESPER_MERGE_QUEUE_ID
	}
	for (size_t i = 0; i < from->device_count; i++)
		if (find_device(into, &from->devices[i]) < 0 && hesper_profile_add_device(into, &from->devices[i]) < 0)
			return -1;
	if (merge_rows(into->kernels, from->kernels) || merge_rows(into->regions, from->regions) ||
	    merge_rows(into->labelled, from->labelled) || merge_rows(into->label_paths, from->label_paths) ||
	    merge_rows(into->label_kernels, from->label_kernels) || merge_rows(into->row_kernels, from->row_kernels))
		return -1;
	/* A pipeline's statistics are the same in every process: sets alike are one, their dispatches added up. */
	for (size_t i = 0; i < from->pipeline_stats_count; i++) {
		struct hesper_pipeline_stats s = from->pipeline_stats[i];

		/* Its device by its row in the merge, so that its occupancy is reckoned on the same model. */
		int device = s.device < from->device_count ? find_device(into, &from->devices[s.device]) : -1;
		if (device >= 0)
			s.device = (uint32_t)device;
		if (hesper_profile_add_pipeline_stats(into, &s) < 0)
			return -1;
	}
	hesper_stats_merge(&into->submits, &from->submits);
	hesper_memops_merge(&into->memops, &from->memops);
	/* Process time adds up, like busy time: the share of wall time stays meaningful. */
	if (__builtin_add_overflow(into->wall_ns, from->wall_ns, &into->wall_ns))
		into->wall_ns = UINT64_MAX;
	into->dropped += from->dropped;
	into->clamped += from->clamped;
	/* What Hesper cost and did (profile/cost_keys.h): every SUM key adds up. */
#define HESPER_COST_MERGE_SUM(member) into->member += from->member;
#define HESPER_COST_MERGE_RUN(member)
#define HESPER_MERGE_COST_KEY(member, key, how) HESPER_COST_MERGE_##how(member)
	HESPER_COST_KEYS(HESPER_MERGE_COST_KEY)
#undef HESPER_MERGE_COST_KEY
#undef HESPER_COST_MERGE_RUN
#undef HESPER_COST_MERGE_SUM
	return merge_lines(into, from);
}
