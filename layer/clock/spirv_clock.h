/*
 * The SPIR-V rewrite behind HESPER_MODE=clock: a copy of a compute module whose entry
 * point reads the device clock when it starts and when it returns, and folds those
 * readings into one slot of a buffer Hesper binds: HESPER_CLOCK_LANES pairs of 64-bit
 * device-clock ticks (~earliest start, latest end), each work group folding into one
 * lane, and the dispatch's work-group counts. Pure C, no Vulkan headers.
 */
#ifndef HESPER_SPIRV_CLOCK_H
#define HESPER_SPIRV_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Work groups fold into one of this many (~start, end) pairs of a slot, picked by the sum
 * of their work-group id's components, so that few of them meet on one address; the reader
 * reduces the pairs. Lanes sit in rows of their own (below), far apart: atomics on one
 * cache line are done one after another where the line lives, and a dispatch of thousands
 * of work groups folding into one line ran several times slower.
 */
#ifndef HESPER_CLOCK_LANES
#define HESPER_CLOCK_LANES 16u
#endif

/*
 * The buffer Hesper binds is lane-major: row r (r < HESPER_CLOCK_LANES) holds lane r of
 * every slot, row HESPER_CLOCK_LANES the dispatches' work-group counts as work group
 * (0, 0, 0) saw them (x | y << 32, then z; 0 while unwritten). A slot's entry in a row is
 * two 64-bit words; the binding's offset selects the slot, and the shader reaches its
 * lane's entry row_words words further per row.
 */
#define HESPER_CLOCK_ROWS (HESPER_CLOCK_LANES + 1u)

/* Where the instrumented module finds its slot: a storage buffer at (set, binding). */
struct hesper_clock_target {
	const char *entry; /* the GLCompute entry point to instrument */
	uint32_t set;
	uint32_t binding;
	/*
	 * Whether work group (0, 0, 0) also folds in NumWorkgroups. Only indirect dispatches
	 * need it, and it costs direct ones: on the H200, 20,000 empty dispatches took 1.60
	 * times their plain GPU time with it against 1.00 without.
	 */
	bool group_counts;
	uint32_t row_words; /* the 64-bit words between two rows of the buffer (even) */
	/*
	 * The device clock is 32 bits wide (lavapipe's wraps every 4.3 s), so a lane's
	 * atomicMax alone would fold a dispatch that runs across the wrap into nonsense (an end
	 * before its start). Each subgroup then folds into two lanes instead of one: lane l of
	 * the first half with its readings as they are, lane l + HESPER_CLOCK_LANES / 2 with bit
	 * 31 flipped, a clock that wraps half a period later. hesper_clock_fold_slot picks the
	 * half whose wrap lies outside the dispatch.
	 */
	bool narrow_clock;
};

/*
 * Whether a slot's lane, its pair (~start, end) at @lane, was written by a work group: by
 * its ~start word, never 0 once written, whereas an end reading may be 0 (a narrow clock at
 * its wrap). The reader's fold and the clock's calibration both go by it.
 */
bool hesper_clock_lane_written(const uint64_t *lane);

/*
 * Whether the copy of a slot reached the results: false when a lane's two words both still
 * hold the results' unwritten mark (all ones). One word alone proves nothing: a start
 * reading of exactly 0 (a 32-bit clock at its wrap, or half a period on its flipped
 * half) folds into an all-ones ~start, while no end reading is ever all ones.
 */
bool hesper_clock_slot_copied(const uint64_t *lanes, size_t row_words);

/*
 * A slot's lanes folded into the earliest start and latest end in device-clock ticks
 * (*@first, *@last): lane l's pair at @lanes + l * @row_words, (~start, end), both 0 when
 * no work group wrote it; a lane counts as written by its ~start, never 0 once written (an
 * end reading may be 0). With @narrow_clock (above), the two halves are folded apart and
 * the half whose clock does not wrap near the dispatch's readings is taken; it holds
 * whenever the dispatch's readings span under 2^30 ticks (about 1 s of lavapipe's
 * nanoseconds). Otherwise every lane is compared as a reading modulo @mask (the clock's
 * width), which orders a wide clock's values and a narrow one's that do not wrap. False
 * when no lane was written.
 */
bool hesper_clock_fold_slot(const uint64_t *lanes, size_t row_words, bool narrow_clock, uint64_t mask, uint64_t *first,
			    uint64_t *last);

/*
 * @at (a reading placed on a clock of period @period, as a distance from its command
 * buffer's start) moved by whole periods to where it lies nearest [0, @length], the
 * command buffer; unmoved when no move brings it nearer (or @period is not positive).
 */
double hesper_clock_nearest(double at, double length, double period);

/*
 * Writes into *@out (malloc'd, *@out_words words) an instrumented copy of the @size
 * bytes of SPIR-V at @code (native byte order, need not be aligned). Returns 0 on
 * success, -1 with *@why set to a fixed, human-readable reason when the module cannot be
 * instrumented (not SPIR-V, byte-swapped, an addressing model other than Logical and
 * PhysicalStorageBuffer64, no such compute entry point, a descriptor already at the
 * target, malformed, out of memory). Modules older
 * than SPIR-V 1.3 come out as 1.3 (the subgroup election needs it): the device must run
 * Vulkan 1.1 or later. Nothing else of the module changes meaning.
 */
int hesper_spirv_clock_instrument(const void *code, size_t size, const struct hesper_clock_target *target,
				  uint32_t **out, size_t *out_words, const char **why);

#endif
