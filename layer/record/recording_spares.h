/*
 * Spare arrays of recordings: the growable arrays of a recording that is gone, kept for the
 * next one, so that re-recording a command buffer neither grows its arrays again from
 * nothing nor frees them. Freeing a recording's arrays on the program's thread cost
 * re-recording a 1,000-dispatch command buffer of labelled, barrier-separated ops about 75
 * ns a dispatch on lavapipe (bench/hostcost's graph case), mostly glibc merging its free
 * lists on each large free. Pure C, thread-safe; bounded in count and in bytes a set.
 */
#ifndef HESPER_RECORDING_SPARES_H
#define HESPER_RECORDING_SPARES_H

#include <stdbool.h>
#include <stddef.h>

/* Sets kept at most, and the most bytes one set may hold to be kept. */
#define HESPER_RECORDING_SPARES 16u
#define HESPER_RECORDING_SPARE_BYTES (256u << 10)

/* One recording's arrays, each with its capacity in elements; NULL and 0 where it had none. */
struct hesper_recording_arrays {
	void *work;
	size_t work_capacity;
	void *regions;
	size_t region_capacity;
	void *blocks;
	size_t block_capacity;
	void *secondaries;
	size_t secondary_capacity;
	size_t bytes; /* the four arrays' size together */
};

/* Keeps @a's arrays for a later recording: true when kept, false when the caller frees them. */
bool hesper_recording_spares_keep(const struct hesper_recording_arrays *a);

/* The arrays of a recording gone into *@a, or all NULL and 0 when none are kept. */
void hesper_recording_spares_take(struct hesper_recording_arrays *a);

#endif
