/*
 * Human-readable durations, and the numbers of findings.
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
#include <string.h>

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

/* @bytes with an SI unit and four significant digits ("812 B", "4.194 MB"), as GB/s counts them. */
static void
bytes_text(char *buf, size_t size, double bytes)
{
	static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && fabs(bytes) >= 999.95)
		bytes /= 1000, u++;
	if (u == 0)
		snprintf(buf, size, "%.0f B", bytes);
	else
		snprintf(buf, size, "%.*f %s", fabs(bytes) < 10 ? 3 : fabs(bytes) < 100 ? 2 : 1, bytes, units[u]);
}

/* Whether @key ends in @suffix; *@len gets the length before it. */
static bool
ends_with(const char *key, const char *suffix, size_t *len)
{
	size_t k = strlen(key), n = strlen(suffix);

	*len = k >= n ? k - n : k;
	return k > n && strcmp(key + k - n, suffix) == 0;
}

const char *
hesper_format_finding_number(char *buf, size_t size, const char *key, double value)
{
	char label[48], v[48];
	size_t len;

	if (ends_with(key, "_ns", &len)) {
		hesper_format_duration(v, sizeof(v), value);
	} else if (ends_with(key, "_share", &len)) {
		len = strlen(key); /* "idle share": the share is part of the name */
		snprintf(v, sizeof(v), "%.1f%%", 100.0 * value);
	} else if (ends_with(key, "_gbps", &len)) {
		snprintf(v, sizeof(v), "%.3g GB/s", value);
	} else if (strcmp(key, "bytes") == 0 || ends_with(key, "_bytes", &len)) {
		len = strcmp(key, "bytes") == 0 ? strlen(key) : len;
		bytes_text(v, sizeof(v), value);
	} else {
		len = strlen(key);
		if (value == floor(value) && fabs(value) < 9e15)
			snprintf(v, sizeof(v), "%.0f", value);
		else
			snprintf(v, sizeof(v), "%.3g", value);
	}
	/* The key without its unit, words apart: "mean_gap_ns" reads "mean gap". */
	snprintf(label, sizeof(label), "%.*s", (int)(len < sizeof(label) - 1 ? len : sizeof(label) - 1), key);
	for (char *c = label; *c; c++)
		if (*c == '_')
			*c = ' ';
	if (size)
		snprintf(buf, size, "%s %s", label, v);
	return buf;
}
