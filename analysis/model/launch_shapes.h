/*
 * Launch shapes of one kernel: the work-group counts its dispatches asked for (smallest,
 * largest, most common) and its work-group (local) size. Memory is fixed: the most
 * common shapes are counted in HESPER_SHAPE_SLOTS slots by the space-saving method, exact
 * while a kernel has at most that many distinct shapes.
 */
#ifndef HESPER_LAUNCH_SHAPES_H
#define HESPER_LAUNCH_SHAPES_H

#include <stdbool.h>
#include <stdint.h>

#define HESPER_SHAPE_SLOTS 8

struct hesper_shape_count {
	uint32_t groups[3];
	uint64_t count; /* 0: free slot */
};

struct hesper_launch_shapes {
	uint64_t known;          /* dispatches with known group counts */
	uint64_t unknown;        /* dispatches whose group counts Hesper could not see (indirect, not read back) */
	uint32_t min[3], max[3]; /* the shapes with fewest and most groups in all (the first seen on a tie) */
	struct hesper_shape_count top[HESPER_SHAPE_SLOTS];
	uint64_t timed_groups;    /* work groups of the timed dispatches whose counts are known */
	uint64_t timed_groups_ns; /* those dispatches' time: the two give the groups run per µs */
	uint32_t local_size[3];   /* work-group size; 0 0 0 unknown */
	bool local_size_varies;   /* pipelines of this name have different work-group sizes */
};

/* The work groups of a launch of @g (x·y·z). */
uint64_t hesper_shape_groups(const uint32_t g[3]);

/* Counts @n dispatches of @groups work groups (0 0 0: unknown, an indirect dispatch). */
void hesper_shapes_add(struct hesper_launch_shapes *s, const uint32_t groups[3], uint64_t n);

/* Counts @n dispatches of @groups work groups, known even when 0 0 0 (an indirect dispatch read back). */
void hesper_shapes_add_known(struct hesper_launch_shapes *s, const uint32_t groups[3], uint64_t n);

/* Adds a timed dispatch of @groups work groups (known) that took @ns to the work-groups rate. */
void hesper_shapes_add_timed(struct hesper_launch_shapes *s, const uint32_t groups[3], uint64_t ns);

/* Work groups run per microsecond by the timed dispatches whose counts are known; 0 when none. */
double hesper_shapes_groups_per_us(const struct hesper_launch_shapes *s);

/* The most common shape counted so far, or NULL when none is known. */
const struct hesper_shape_count *hesper_shapes_most_common(const struct hesper_launch_shapes *s);

/* Adds the shapes of @from to @into (the most common ones slot by slot). */
void hesper_shapes_merge(struct hesper_launch_shapes *into, const struct hesper_launch_shapes *from);

/* Sets the local size (all zero: unknown); a size different from one set before marks it as varying. */
void hesper_shapes_set_local_size(struct hesper_launch_shapes *s, const uint32_t size[3], bool varies);

#endif
