/*
 * Reading a clock slot back (spirv_clock.h): its lanes folded into one dispatch's earliest
 * start and latest end, and a reading placed a period off moved back. Pure C, no Vulkan
 * headers.
 */
#include "spirv_clock.h"

/* Whether reading @a comes before @b on a clock of width @mask (modulo it). */
static bool before(uint64_t a, uint64_t b, uint64_t mask)
{
	uint64_t d = (b - a) & mask;
	return d != 0 && d <= mask / 2;
}

bool hesper_clock_lane_written(const uint64_t *lane)
{
	return lane[0] != 0;
}

/*
 * Lanes [@lo, @hi) folded into *@first and *@last: compared modulo @mask, or as plain
 * numbers when @plain (a half of a narrow clock's lanes, folded as the GPU's atomicMax did).
 */
static bool fold(const uint64_t *lanes, size_t row_words, uint32_t lo, uint32_t hi, bool plain, uint64_t mask,
		 uint64_t *first, uint64_t *last)
{
	bool any = false;
	for (uint32_t l = lo; l < hi; l++) {
		const uint64_t *pair = lanes + l * row_words;
		if (!hesper_clock_lane_written(pair))
			continue;
		uint64_t start = ~pair[0] & mask, end = pair[1] & mask;
		if (!any || (plain ? start < *first : before(start, *first, mask)))
			*first = start;
		if (!any || (plain ? end > *last : before(*last, end, mask)))
			*last = end;
		any = true;
	}
	return any;
}

bool hesper_clock_slot_copied(const uint64_t *lanes, size_t row_words)
{
	for (uint32_t l = 0; l < HESPER_CLOCK_LANES; l++)
		if (lanes[l * row_words] == UINT64_MAX && lanes[l * row_words + 1] == UINT64_MAX)
			return false;
	return true;
}

bool hesper_clock_fold_slot(const uint64_t *lanes, size_t row_words, bool narrow_clock, uint64_t mask, uint64_t *first,
			    uint64_t *last)
{
	const uint32_t half = HESPER_CLOCK_LANES / 2;
	const uint64_t flip = 1ull << 31, quarter = 1ull << 30;
	uint64_t first2, last2;

	if (!narrow_clock)
		return fold(lanes, row_words, 0, HESPER_CLOCK_LANES, false, mask, first, last);
	/*
	 * Each half holds every subgroup's readings, the second's on a clock flipped by half a
	 * period. A dispatch whose readings span less than a quarter period cannot hold both
	 * clocks' wraps. Near the first clock's wrap, its readings sit near the middle of the
	 * second's range, and the second half folded them right; otherwise the first did.
	 */
	if (!fold(lanes, row_words, 0, half, true, mask, first, last) ||
	    !fold(lanes, row_words, half, HESPER_CLOCK_LANES, true, mask, &first2, &last2))
		return false;
	if (first2 - quarter < 2 * quarter) {
		*first = first2 ^ flip;
		*last = last2 ^ flip;
	}
	return true;
}

/* How far @at lies outside [0, @length]; 0 inside. */
static double outside(double at, double length)
{
	return at < 0 ? -at : at > length ? at - length : 0;
}

double hesper_clock_nearest(double at, double length, double period)
{
	if (!(period > 0))
		return at;
	while (outside(at + period, length) < outside(at, length))
		at += period;
	while (outside(at - period, length) < outside(at, length))
		at -= period;
	return at;
}
