/* The size of a submission record's results buffer (result_slots.h). */
#include "result_slots.h"

uint32_t hesper_result_slots(uint32_t need, uint32_t peak)
{
	uint64_t want = need > peak ? need : peak;
	if (want < HESPER_RESULT_MIN_SLOTS)
		want = HESPER_RESULT_MIN_SLOTS;
	/*
	 * A power of two: a queue's records then share a few sizes and stop growing after one
	 * step. Past pow2_most slots (512 KiB), a multiple of it instead: a submission of a
	 * million timed dispatches would otherwise get up to twice the memory it needs.
	 */
	const uint64_t pow2_most = 65536;
	uint64_t size = HESPER_RESULT_MIN_SLOTS;
	while (size < want && size < pow2_most)
		size *= 2;
	if (size < want)
		size = (want + pow2_most - 1) / pow2_most * pow2_most;
	return size > UINT32_MAX / 2 ? need : (uint32_t)size;
}
