/*
 * Raw timestamps as the collector reads them: extended to 64 bits on a queue's timeline
 * (timestamps may have fewer valid bits and wrap), and intervals in nanoseconds, zero or
 * negative ones told apart (clamped) so that their time is left out of the statistics.
 */
#ifndef HESPER_TICKS_H
#define HESPER_TICKS_H

#include <stdbool.h>
#include <stdint.h>

struct hesper_queue;

/* @raw extended to 64 bits on @q's timeline; collector only (it keeps @q's last reading). */
uint64_t hesper_extend_ticks(struct hesper_queue *q, uint64_t raw, uint64_t mask);

/* @ticks (a length on a queue's timeline) in nanoseconds at @period ns a tick, to the nearest. */
uint64_t hesper_ticks_ns(uint64_t ticks, double period);

/* The interval between two raw timestamps in ns into *@ns; false (and 0) when it is zero or negative: clamped. */
bool hesper_interval_ns(uint64_t start, uint64_t end, uint64_t mask, double period, uint64_t *ns);

#endif
