/*
 * Profiling events: struct hesper_event and its functions are the public ones
 * (<hesper/profiling.h>); this adds the unit conversions the writers share.
 */
#ifndef HESPER_EVENT_H
#define HESPER_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include <hesper/profiling.h>

/* Nanoseconds as microseconds. */
double hesper_ns_to_us(uint64_t ns);

/* Nanoseconds as milliseconds. */
double hesper_ns_to_ms(uint64_t ns);

/*
 * The smallest duration in [@lo, @hi] with at least @rank (1..n) of the @n events' durations
 * at or below it: the rank-th smallest, found by bisection without memory (summary.c).
 */
uint64_t hesper_events_duration_rank(const struct hesper_event *events, size_t n, size_t rank, uint64_t lo,
				     uint64_t hi);

#endif
