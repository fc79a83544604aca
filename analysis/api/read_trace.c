/*
 * hesper_read_trace: the dispatches of a hesper-trace/1 Chrome trace back into events.
 * "X" events of category "dispatch"; ts and dur are microseconds printed to the
 * nanosecond, read from their text exactly. The events and their names share one
 * allocation (events first, then the names).
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <hesper/profiling.h>

#include "read/read.h"

#define SCHEMA "hesper-trace/1"

struct reader {
	const char *path;
	char *err;
	size_t err_size;
};

#define BAD(r, ...) hesper_json_file_fail(HESPER_ERROR_FORMAT, (r)->path, (r)->err, (r)->err_size, __VA_ARGS__)

/* "D+" or "D+.D{1,3}" microseconds as ns; false for any other text. */
static bool
exact_us(const char *s, uint64_t *ns)
{
	uint64_t us = 0, frac = 0;
	int digits = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++)
		if (__builtin_mul_overflow(us, 10, &us) || __builtin_add_overflow(us, (uint64_t)(*s - '0'), &us))
			return false;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s) && digits < 3; s++, digits++)
			frac = frac * 10 + (uint64_t)(*s - '0');
	if (*s)
		return false;
	for (; digits < 3; digits++)
		frac *= 10;
	return !__builtin_mul_overflow(us, 1000, ns) && !__builtin_add_overflow(*ns, frac, ns);
}

/* Member @key of event @e, microseconds >= 0, as ns. */
static int
get_us(struct reader *r, json_object *e, const char *key, uint64_t *ns)
{
	json_object *v = hesper_json_member(e, key);
	double us;

	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return BAD(r, "a dispatch event has no number \"%s\"", key);
	if (exact_us(json_object_get_string(v), ns))
		return HESPER_OK;
	us = json_object_get_double(v);
	if (!(us >= 0) || !(us * 1e3 < 18446744073709551615.0))
		return BAD(r, "a dispatch event's \"%s\" is not a time >= 0", key);
	*ns = (uint64_t)llround(us * 1e3);
	return HESPER_OK;
}

/* The name of @e when it is a dispatch ("X", category "dispatch"), else NULL. */
static const char *
dispatch_name(json_object *e)
{
	json_object *ph = hesper_json_member(e, "ph"), *cat = hesper_json_member(e, "cat");
	json_object *name = hesper_json_member(e, "name");

	if (!ph || !cat || !json_object_is_type(ph, json_type_string) || !json_object_is_type(cat, json_type_string) ||
	    strcmp(json_object_get_string(ph), "X") != 0 || strcmp(json_object_get_string(cat), "dispatch") != 0)
		return NULL;
	return name && json_object_is_type(name, json_type_string) ? json_object_get_string(name) : "?";
}

/* The "traceEvents" array of a trace Hesper wrote, and its origin; an error for anything else. */
static int
open_trace(struct reader *r, json_object *root, json_object **events, uint64_t *origin)
{
	json_object *meta = hesper_json_member(root, "metadata");
	json_object *schema = hesper_json_member(meta, "schema"), *o = hesper_json_member(meta, "origin_ns");

	if (!schema || !json_object_is_type(schema, json_type_string) ||
	    strcmp(json_object_get_string(schema), SCHEMA) != 0)
		return BAD(r, "not a Hesper trace (\"metadata\".\"schema\" is not \"%s\")", SCHEMA);
	*events = hesper_json_member(root, "traceEvents");
	if (!*events || !json_object_is_type(*events, json_type_array))
		return BAD(r, "no \"traceEvents\" array");
	*origin = 0;
	if (o && json_object_is_type(o, json_type_int) && json_object_get_int64(o) >= 0)
		*origin = json_object_get_uint64(o);
	return HESPER_OK;
}

/* Fills @out (NULL: only counts) with the dispatches of @events; *@count and *@name_bytes get the totals. */
static int
collect(struct reader *r, json_object *events, uint64_t origin, struct hesper_event *out, char *names, size_t *count,
	size_t *name_bytes)
{
	*count = *name_bytes = 0;
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		const char *name = dispatch_name(e);
		uint64_t ts, dur;
		int ret;

		if (!name)
			continue;
		if ((ret = get_us(r, e, "ts", &ts)) != HESPER_OK || (ret = get_us(r, e, "dur", &dur)) != HESPER_OK)
			return ret;
		size_t len = strlen(name) + 1;
		if (out) {
			struct hesper_event *ev = &out[*count];

			memcpy(names + *name_bytes, name, len);
			ev->name = names + *name_bytes;
			ev->start_ns = __builtin_add_overflow(origin, ts, &ev->start_ns) ? UINT64_MAX : ev->start_ns;
			ev->end_ns = __builtin_add_overflow(ev->start_ns, dur, &ev->end_ns) ? UINT64_MAX : ev->end_ns;
		}
		(*count)++;
		*name_bytes += len;
	}
	return HESPER_OK;
}

int
hesper_read_trace(const char *path, struct hesper_event **events, size_t *n, char *err, size_t err_size)
{
	struct reader r = {path, err, err_size};
	json_object *root = NULL, *list = NULL;
	struct hesper_event *ev = NULL;
	size_t count = 0, name_bytes = 0;
	uint64_t origin = 0;
	int ret;

	if (!events || !n || !path)
		return hesper_json_file_fail(HESPER_ERROR_ARGUMENT, path, err, err_size,
					     "no path or no result pointer");
	*events = NULL;
	*n = 0;
	if ((ret = hesper_json_file_load(path, &root, err, err_size)) != HESPER_OK ||
	    (ret = open_trace(&r, root, &list, &origin)) != HESPER_OK ||
	    (ret = collect(&r, list, origin, NULL, NULL, &count, &name_bytes)) != HESPER_OK || count == 0)
		goto out;
	ev = malloc(count * sizeof(*ev) + name_bytes);
	if (!ev) {
		ret = hesper_json_file_fail(HESPER_ERROR_NO_MEMORY, path, err, err_size, "out of memory");
		goto out;
	}
	(void)collect(&r, list, origin, ev, (char *)(ev + count), &count, &name_bytes);
	qsort(ev, count, sizeof(*ev), hesper_event_compare);
	*events = ev;
	*n = count;
out:
	json_object_put(root);
	return ret;
}

void
hesper_events_free(struct hesper_event *events)
{
	free(events);
}
