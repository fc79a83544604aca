/*
 * Human-readable durations.
 *
 * The rule: the largest unit of ns, µs, ms, s in which the value is at least 1 (below
 * 1000 ns: ns), with four significant digits: "812 ns" (whole nanoseconds), "4.210 ms",
 * "12.35 µs", "123.5 ms". A value that rounds up to 1000 moves to the next unit
 * ("999.96 µs" prints as "1.000 ms"). Seconds never move on: "1234 s". Negative values
 * get a minus sign; NaN and infinities print as "-".
 */
#include "format.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

struct unit {
	const char *name;
	double ns;
};

static const struct unit units[] = {
	{"ns", 1},
	{"\u00b5s", 1e3}, /* MICRO SIGN, as nsys and perf print it */
	{"ms", 1e6},
	{"s", 1e9},
};
#define UNIT_COUNT (sizeof(units) / sizeof(units[0]))

/* Decimals that give @v (>= 0) four significant digits, none below 1 for whole numbers. */
static int
decimals_for(double v)
{
	return v < 10 ? 3 : v < 100 ? 2 : v < 1000 ? 1 : 0;
}

static double
round_to(double v, int decimals)
{
	double scale = pow(10, decimals);

	return round(v * scale) / scale;
}

const char *
hesper_format_duration(char *buf, size_t size, double ns)
{
	if (size == 0)
		return buf;
	if (!isfinite(ns)) {
		snprintf(buf, size, "-");
		return buf;
	}

	const char *sign = ns < 0 ? "-" : "";
	double mag = fabs(ns);

	for (size_t i = 0; i < UNIT_COUNT; i++) {
		double v = mag / units[i].ns;
		bool last = i + 1 == UNIT_COUNT;
		int d = i == 0 ? 0 : decimals_for(v);
		double r = round_to(v, d);

		if (r >= 1000 && !last)
			continue;
		/* Rounding may add a digit (9.9996 -> 10.000): recount so there are still four. */
		if (i > 0)
			d = decimals_for(r);
		if (r == 0)
			sign = "";
		snprintf(buf, size, "%s%.*f %s", sign, d, r, units[i].name);
		return buf;
	}
	return buf; /* unreachable: the last unit always prints */
}
