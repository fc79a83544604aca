/* The findings' thresholds: their defaults, and HESPER_FINDINGS read strictly (a bad value keeps them all). */
#include "findings_settings.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
hesper_findings_settings_default(struct hesper_findings_settings *s)
{
	*s = (struct hesper_findings_settings){
		.off = false,
		.idle_share = 0.2,
		.idle_min_ns = 1000000,
		.launch_bound_min = 100,
		.launch_factor = 2.0,
		.round_trip_share = 0.5,
		.round_trip_min = 10,
		.underfilled_min = 100,
		.hesper_share = 0.1,
		.slow_memory_share = HESPER_MEMOPS_SLOW_FRACTION,
	};
}

/* Parses a non-negative finite number into *@out; false when @text is not one. */
static bool
parse_number(const char *text, size_t len, double *out)
{
	char buf[64], *end;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, text, len);
	buf[len] = '\0';
	errno = 0;
	double v = strtod(buf, &end);
	if (errno || *end || !isfinite(v) || v < 0 || buf[0] == ' ')
		return false;
	*out = v;
	return true;
}

struct key {
	const char *name;
	bool share; /* a share in [0, 1], else a count (whole number) or a factor */
	bool whole;
	double max;
};

static const struct key keys[] = {
	{"idle_share", true, false, 1},          {"idle_min_us", false, true, 1e9},
	{"launch_bound_min", false, true, 1e12}, {"launch_factor", false, false, 1e6},
	{"round_trip_share", true, false, 1},    {"round_trip_min", false, true, 1e12},
	{"underfilled_min", false, true, 1e12},  {"hesper_share", true, false, 1},
	{"slow_memory_share", true, false, 1},
};

static void
set_key(struct hesper_findings_settings *s, size_t k, double v)
{
	switch (k) {
	case 0: s->idle_share = v; break;
	case 1: s->idle_min_ns = (uint64_t)v * 1000u; break;
	case 2: s->launch_bound_min = (uint64_t)v; break;
	case 3: s->launch_factor = v; break;
	case 4: s->round_trip_share = v; break;
	case 5: s->round_trip_min = (uint64_t)v; break;
	case 6: s->underfilled_min = (uint64_t)v; break;
	case 7: s->hesper_share = v; break;
	default: s->slow_memory_share = v; break;
	}
}

int
hesper_findings_settings_parse(struct hesper_findings_settings *s, const char *text, char *err, size_t err_size)
{
	struct hesper_findings_settings next = *s;
	const char *p = text ? text : "";

	if (err && err_size)
		err[0] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (strcmp(p, "off") == 0 || strcmp(p, "off\n") == 0) {
		s->off = true;
		return 0;
	}
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		size_t k = 0, n = sizeof(keys) / sizeof(keys[0]);
		double v = 0;

		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\n'))
			len--;
		if (len == 0 && end) {
			p = end + 1;
			continue;
		}
		if (!eq)
			goto bad;
		while (k < n &&
		       !((size_t)(eq - p) == strlen(keys[k].name) && memcmp(p, keys[k].name, (size_t)(eq - p)) == 0))
			k++;
		if (k == n || !parse_number(eq + 1, len - (size_t)(eq + 1 - p), &v) || v > keys[k].max ||
		    (keys[k].whole && v != floor(v)))
			goto bad;
		set_key(&next, k, v);
		p = end ? end + 1 : p + strlen(p);
		while (*p == ' ' || *p == '\t')
			p++;
		continue;
	bad:
		if (err && err_size)
			snprintf(err, err_size,
				 "HESPER_FINDINGS: '%.*s' is not one of off, idle_share=0..1, idle_min_us=N, "
				 "launch_bound_min=N, launch_factor=X, round_trip_share=0..1, round_trip_min=N, "
				 "underfilled_min=N, hesper_share=0..1; the defaults are kept",
				 (int)(len > 80 ? 80 : len), p);
		return -1;
	}
	*s = next;
	return 0;
}
