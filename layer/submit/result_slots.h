/*
 * How many result slots a submission record's buffer is made with: a pure rule, so that a
 * queue's recycled records stop growing after a step and a large submission does not get
 * twice the memory it needs (copies.c, submission.c).
 */
#ifndef HESPER_RESULT_SLOTS_H
#define HESPER_RESULT_SLOTS_H

#include <stdint.h>

/* Fewest result slots a submission record's buffer is made with. */
#define HESPER_RESULT_MIN_SLOTS 1024u

/*
 * Slots of a new results buffer for a need of @need on a queue whose largest need so far is
 * @peak: the larger rounded up to a power of two up to 65,536, to a multiple of 65,536 past
 * it; at least HESPER_RESULT_MIN_SLOTS; @need itself where that passes UINT32_MAX / 2.
 */
uint32_t hesper_result_slots(uint32_t need, uint32_t peak);

#endif
