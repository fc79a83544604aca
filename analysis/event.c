/* Profiling events: durations, unit conversions and ordering. */
#include "event.h"

uint64_t
hesper_event_duration_ns(const struct hesper_event *e)
{
	/* Drivers do return end < start now and then; a negative span is no time at all. */
	return e->end_ns > e->start_ns ? e->end_ns - e->start_ns : 0;
}

double
hesper_ns_to_us(uint64_t ns)
{
	return (double)ns / 1e3;
}

double
hesper_ns_to_ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* Compares without subtracting: the difference of two uint64_t does not fit an int. */
static int
compare_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

int
hesper_event_compare_start(const void *a, const void *b)
{
	const struct hesper_event *x = a, *y = b;
	int c = compare_u64(x->start_ns, y->start_ns);

	return c ? c : compare_u64(x->end_ns, y->end_ns);
}
