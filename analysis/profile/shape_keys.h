/*
 * The keys of a kernel row's "groups" (its launch shapes), in the order the writer puts
 * them: the one list the writer (write/report_json.c) and the reader (read/summary_load.c)
 * take their keys from, and the reader its checks.
 * SHAPE_KEY(member of struct hesper_launch_shapes, key, kind)
 *   BOUND:  min or max, [x, y, z] or null; read back as written where a shape is known
 *   TOP:    the most common shape, [x, y, z] or null (hesper_shapes_most_common)
 *   COUNT:  its dispatches; with it, the shape is counted again when read
 *   U64:    a count or time
 *   RATE:   the timed groups per µs, written and not read (worked out again from the two before)
 */
#ifndef HESPER_SHAPE_KEYS_H
#define HESPER_SHAPE_KEYS_H

#define HESPER_SHAPE_KEYS(SHAPE_KEY)                       \
	SHAPE_KEY(min, "min", BOUND)                       \
	SHAPE_KEY(max, "max", BOUND)                       \
	SHAPE_KEY(shapes, "most_common", TOP)              \
	SHAPE_KEY(shapes, "most_common_count", COUNT)      \
	SHAPE_KEY(unknown, "unknown", U64)                 \
	SHAPE_KEY(timed_groups, "timed_groups", U64)       \
	SHAPE_KEY(timed_groups_ns, "timed_groups_ns", U64) \
	SHAPE_KEY(timed_groups, "per_us", RATE)

#endif
