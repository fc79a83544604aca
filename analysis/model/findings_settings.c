/*
 * The findings' thresholds: their defaults, and HESPER_FINDINGS read strictly, by the rule
 * every setting is read by (settings_text.h); a bad value keeps them all.
 */
#include "findings_settings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "settings_text.h"

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

struct key {
	const char *name;
	bool share; /* a share in [0, 1], else a count (whole number) or a factor */
	bool whole;
	double max;
};

/* The keys of HESPER_FINDINGS: the parser and its error line are made from this one list. */
static const struct key keys[] = {
	{"idle_share", true, false, 1},          {"idle_min_us", false, true, 1e9},
	{"launch_bound_min", false, true, 1e12}, {"launch_factor", false, false, 1e6},
	{"round_trip_share", true, false, 1},    {"round_trip_min", false, true, 1e12},
	{"underfilled_min", false, true, 1e12},  {"hesper_share", true, false, 1},
	{"slow_memory_share", true, false, 1},
};
#define KEY_COUNT (sizeof(keys) / sizeof(keys[0]))

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

/* Reads one "key=value" entry (trimmed) into @next; false when it is not one. */
static bool
read_entry(struct hesper_findings_settings *next, const char *e, size_t len)
{
	const char *eq = memchr(e, '=', len);
	const char *key = e, *value = eq ? eq + 1 : NULL;
	size_t key_len = eq ? (size_t)(eq - e) : 0, value_len = eq ? len - key_len - 1 : 0;
	double v;

	if (!eq)
		return false;
	hesper_text_trim(&key, &key_len);
	hesper_text_trim(&value, &value_len);
	for (size_t k = 0; k < KEY_COUNT; k++) {
		if (!hesper_text_is(key, key_len, keys[k].name))
			continue;
		if (!hesper_text_decimal(value, value_len, &v) || v > keys[k].max || (keys[k].whole && v != floor(v)))
			return false;
		set_key(next, k, v);
		return true;
	}
	return false;
}

/* The error line for entry @e: what is accepted, from the keys' list. */
static void
describe_error(char *err, size_t size, const char *e, size_t len)
{
	size_t o;

	if (!err || !size)
		return;
	o = (size_t)snprintf(err, size, "HESPER_FINDINGS: '%.*s' is not one of off", (int)(len > 80 ? 80 : len), e);
	for (size_t k = 0; k < KEY_COUNT && o < size; k++)
		o += (size_t)snprintf(err + o, size - o, ", %s=%s", keys[k].name,
				      keys[k].share   ? "0..1"
				      : keys[k].whole ? "N"
						      : "X");
	if (o < size)
		snprintf(err + o, size - o, "; the defaults are kept");
}

int
hesper_findings_settings_parse(struct hesper_findings_settings *s, const char *text, char *err, size_t err_size)
{
	struct hesper_findings_settings next = *s;
	const char *p = text ? text : "";
	size_t len = strlen(p);

	if (err && err_size)
		err[0] = '\0';
	hesper_text_trim(&p, &len);
	if (hesper_text_is(p, len, "off")) {
		s->off = true;
		return 0;
	}
	while (len) {
		const char *comma = memchr(p, ',', len);
		const char *e = p;
		size_t e_len = comma ? (size_t)(comma - p) : len;

		p += comma ? e_len + 1 : e_len;
		len -= comma ? e_len + 1 : e_len;
		hesper_text_trim(&e, &e_len);
		if (e_len == 0 && comma)
			continue; /* "a=1,,b=2": an empty entry between commas says nothing */
		if (!read_entry(&next, e, e_len)) {
			describe_error(err, err_size, e, e_len);
			return -1;
		}
	}
	*s = next;
	return 0;
}
