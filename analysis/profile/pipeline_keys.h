/*
 * The keys of a row of the JSON summary's "pipeline_stats" (one pipeline's statistics), in
 * the order the writer puts them: the one list the writer (write/report_json_stats.c) and
 * the reader (read/summary_load_run.c) take their keys from, and the reader its checks.
 * PIPELINE_KEY(member of struct hesper_pipeline_stats, key, kind)
 *   NAME:      the kernel's name, which the row must have
 *   TEXT:      a string member
 *   U32, U64:  a number; a U32 past 2^32 - 1 is an error
 *   STATS:     the driver's statistics, an object of booleans and numbers
 *   WRITTEN:   a number written and not read back (the sets are numbered again as they are added)
 *   TRIPLE:    the work-group size, [x, y, z] or null
 *   OCCUPANCY: reckoned from the row and the device when written, again when read
 */
#ifndef HESPER_PIPELINE_KEYS_H
#define HESPER_PIPELINE_KEYS_H

#define HESPER_PIPELINE_KEYS(PIPELINE_KEY)                \
	PIPELINE_KEY(kernel, "kernel", NAME)              \
	PIPELINE_KEY(executable, "executable", TEXT)      \
	PIPELINE_KEY(subgroup_size, "subgroup_size", U32) \
	PIPELINE_KEY(stats, "stats", STATS)               \
	PIPELINE_KEY(variant, "variant", WRITTEN)         \
	PIPELINE_KEY(dispatches, "dispatches", U64)       \
	PIPELINE_KEY(device, "device", U32)               \
	PIPELINE_KEY(local_size, "local_size", TRIPLE)    \
	PIPELINE_KEY(occupancy, "occupancy", OCCUPANCY)

#endif
