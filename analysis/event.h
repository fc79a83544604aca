/* One timed piece of GPU work: the C form of a profiling event. */
#ifndef HESPER_EVENT_H
#define HESPER_EVENT_H

#include <stdint.h>

struct hesper_event {
	const char *name;   /* kernel name; not owned */
	uint64_t start_ns;  /* GPU start, ns on the device's timeline */
	uint64_t end_ns;    /* GPU end, ns on the device's timeline */
};

/* Duration of @e in ns; 0 when end precedes start (callers count those as clamped). */
uint64_t hesper_event_duration_ns(const struct hesper_event *e);

/* Nanoseconds as microseconds. */
double hesper_ns_to_us(uint64_t ns);

/* Nanoseconds as milliseconds. */
double hesper_ns_to_ms(uint64_t ns);

/* qsort() comparator ordering struct hesper_event by start time, then end time. */
int hesper_event_compare_start(const void *a, const void *b);

#endif
