/*
 * Raw timestamps as the collector reads them: extended to 64 bits on a queue's timeline
 * (timestamps may have fewer valid bits and wrap), and intervals in nanoseconds, zero or
 * negative ones clamped to 0 and counted.
 */
#ifndef HESPER_TICKS_H
#define HESPER_TICKS_H

#include <stdint.h>

struct hesper_queue;

/* @raw extended to 64 bits on @q's timeline; collector only (it keeps @q's last reading). */
uint64_t hesper_extend_ticks(struct hesper_queue *q, uint64_t raw, uint64_t mask);

/* The interval between two raw timestamps in ns; zero or negative ones are 0, counted in *@clamped. */
uint64_t hesper_interval_ns(uint64_t start, uint64_t end, uint64_t mask, double period, uint64_t *clamped);

#endif
