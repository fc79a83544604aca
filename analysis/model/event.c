/* Profiling events: construction from timestamps and ticks, durations, ordering. */
#include "event.h"

#include <math.h>

struct hesper_event
hesper_event_from_timestamps(const char *name, uint64_t start_ns, uint64_t end_ns)
{
	struct hesper_event e = {name, start_ns, end_ns};

	return e;
}

/* @ticks x @period ns, rounded; saturates at UINT64_MAX. */
static uint64_t
ticks_to_ns(uint64_t ticks, double period)
{
	/* long double keeps all 64 bits of a tick count where the platform has them. */
	long double ns = roundl((long double)ticks * (long double)period);

	return ns >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)ns;
}

struct hesper_event
hesper_event_from_ticks(const char *name, uint64_t start, uint64_t end, float timestamp_period,
			uint32_t timestamp_valid_bits)
{
	uint64_t mask = timestamp_valid_bits >= 64 ? ~0ull : (1ull << timestamp_valid_bits) - 1;
	uint64_t ticks = (end - start) & mask;
	double period = timestamp_period;
	struct hesper_event e = {name, 0, 0};

	if (!(period > 0) || !isfinite(period))
		return e;
	e.start_ns = ticks_to_ns(start & mask, period);
	/* More than half the range apart: the end came first, not a wrap. */
	if (ticks > mask / 2)
		ticks = 0;
	/* The duration the layer computes: (end - start) & mask ticks x period, in double. */
	double ns = round((double)ticks * period);
	uint64_t duration = ns >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)ns;
	e.end_ns = __builtin_add_overflow(e.start_ns, duration, &e.end_ns) ? UINT64_MAX : e.end_ns;
	return e;
}

uint64_t
hesper_event_duration_ns(const struct hesper_event *e)
{
	/* Drivers do return end < start now and then; a negative span is no time at all. */
	return e->end_ns > e->start_ns ? e->end_ns - e->start_ns : 0;
}

double
hesper_event_duration_us(const struct hesper_event *e)
{
	return hesper_ns_to_us(hesper_event_duration_ns(e));
}

double
hesper_event_duration_ms(const struct hesper_event *e)
{
	return hesper_ns_to_ms(hesper_event_duration_ns(e));
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
hesper_event_compare(const void *a, const void *b)
{
	const struct hesper_event *x = a, *y = b;
	int c = compare_u64(x->start_ns, y->start_ns);

	return c ? c : compare_u64(x->end_ns, y->end_ns);
}
