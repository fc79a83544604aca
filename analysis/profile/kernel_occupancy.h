/*
 * A profile's kernels and their theoretical occupancy (occupancy.h): the figures read from a
 * kernel's pipeline statistics under its vendor's names, its device's model, the kernel row a
 * statistics entry belongs to, and how much of the device one launch fills. The text, JSON
 * and HTML reports and the findings share them.
 */
#ifndef HESPER_KERNEL_OCCUPANCY_H
#define HESPER_KERNEL_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "profile.h"

/* The occupancy model of the device @s was made on; NULL when @s names no device of @p. */
const struct hesper_occupancy_model *hesper_stats_model(const struct hesper_profile *p,
							const struct hesper_pipeline_stats *s);

/* The theoretical occupancy of kernel @s of @p on its device. */
struct hesper_occupancy hesper_stats_occupancy(const struct hesper_profile *p, const struct hesper_pipeline_stats *s);

/* Work groups that fill @s's device once at occupancy @o (resident per SM × SMs); 0 when unknown. */
uint64_t hesper_occupancy_device_groups(const struct hesper_profile *p, const struct hesper_pipeline_stats *s,
					const struct hesper_occupancy *o);

/* The share of the device a launch of @groups work groups fills: min(1, groups / @device_groups); -1 when unknown. */
double hesper_occupancy_fill(uint64_t groups, uint64_t device_groups);

/*
 * The statistics of the kernel whose dispatches row @row (under @p's grouping) counts: of
 * its sets, the one most of its dispatches ran on; NULL when none.
 */
const struct hesper_pipeline_stats *hesper_row_stats(const struct hesper_profile *p, const char *row);

/*
 * The work groups (x·y·z) of the most common launch among @s's kernel rows (under any
 * grouping: the row with the most dispatches of its most common shape); 0 when none is known.
 */
uint64_t hesper_stats_common_groups(const struct hesper_profile *p, const struct hesper_pipeline_stats *s);

/* @share (0..1) as the reports write a percentage of the device or SM: whole from 10 % up, one decimal below. */
void hesper_occupancy_percent(char *buf, size_t size, double share);

/*
 * Kernel @s's occupancy in words into @buf (@size > 0, cut to fit): "occupancy 25% (registers):
 * 8 work groups and 16 warps per SM; 1056 work groups fill the device once, its most common
 * launch (16) fills 1.5% of it", "occupancy at most ... (warps; why): ...", "occupancy unknown: why".
 */
void hesper_occupancy_words(char *buf, size_t size, const struct hesper_profile *p,
			    const struct hesper_pipeline_stats *s);

/* Whether the reports have anything to say of @s's occupancy: its device has a model, or why it has none. */
bool hesper_stats_shows_occupancy(const struct hesper_profile *p, const struct hesper_pipeline_stats *s);

/*
 * Which of its kernel's sets of pipeline statistics @s is, for the reports, into @buf:
 * "pipeline 2 of 2, 5200 dispatches"; "" when its kernel has one set.
 */
void hesper_stats_set_words(char *buf, size_t size, const struct hesper_profile *p,
			    const struct hesper_pipeline_stats *s);

#endif
