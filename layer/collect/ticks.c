/* Raw timestamps to ticks on a queue's timeline and to nanoseconds (see ticks.h). */
#include "ticks.h"

#include <math.h>

#include "state/state.h"

/* @raw extended to 64 bits on @q's timeline (timestamps may have fewer valid bits and wrap). */
uint64_t hesper_extend_ticks(struct hesper_queue *q, uint64_t raw, uint64_t mask)
{
	raw &= mask;
	if (!q->seen_tick) {
		q->seen_tick = true;
		q->last_raw = raw;
		q->last_ext = raw;
		return raw;
	}
	uint64_t forward = (raw - q->last_raw) & mask;
	if (forward <= mask / 2) {
		q->last_raw = raw;
		q->last_ext += forward;
		return q->last_ext;
	}
	return q->last_ext - ((q->last_raw - raw) & mask); /* slightly older than the newest seen */
}

uint64_t hesper_ticks_ns(uint64_t ticks, double period)
{
	return (uint64_t)llround((double)ticks * period);
}

/* The interval between two raw timestamps in ns into *@ns; false (and 0) when zero or negative: clamped. */
bool hesper_interval_ns(uint64_t start, uint64_t end, uint64_t mask, double period, uint64_t *ns)
{
	uint64_t ticks = (end - start) & mask;
	*ns = 0;
	/* More than half the counter's range forward is an end before its start. */
	if (ticks == 0 || ticks > mask / 2)
		return false;
	*ns = hesper_ticks_ns(ticks, period);
	return true;
}
