/* The summary's findings, clock mode, pipeline statistics, report kind and capture window, read back (summary_load_parts.h). */
#include "summary_load_parts.h"

#include <inttypes.h>
#include <stdlib.h>

#include "findings/findings.h"
#include "summary_load.h"

/* One gap of a gpu_idle finding, into the row of its queue. */
static int
load_gap(struct loader *l, json_object *o, struct hesper_queue_info *q)
{
	struct hesper_gap g = {0};

#define HESPER_GET_GAP_KEY(member, key, width)                        \
	if (HESPER_GET_GAP_##width(l, o, "a gap", key, 0, &g.member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_GAP_U64 get_u64
#define HESPER_GET_GAP_U32 get_u32
	HESPER_GAP_KEYS(HESPER_GET_GAP_KEY)
#undef HESPER_GET_GAP_KEY
#undef HESPER_GET_GAP_U64
#undef HESPER_GET_GAP_U32
	hesper_gaps_keep(q, &g);
	return 0;
}

/* The finding kind named @name into *@kind; false when Hesper does not know it. */
static bool
finding_kind(const char *name, enum hesper_finding_kind *kind)
{
	int k = name ? hesper_finding_kind_from_name(name) : -1;

	if (k < 0)
		return false;
	*kind = (enum hesper_finding_kind)k;
	return true;
}

/* A finding's "numbers" into @f: the names Hesper knows, with a number. */
static void
load_finding_numbers(json_object *numbers, struct hesper_finding *f)
{
	if (!numbers || !json_object_is_type(numbers, json_type_object))
		return;
	json_object_object_foreach(numbers, key, val)
	{
		const char *k = hesper_finding_number_key(key);
		if (k && f->number_count < HESPER_FINDING_NUMBERS &&
		    (json_object_is_type(val, json_type_int) || json_object_is_type(val, json_type_double)))
			f->numbers[f->number_count++] = (struct hesper_finding_number){k, json_object_get_double(val)};
	}
}

/* A finding's "about" (an array of one string) into @about (@size bytes); "" when not one. */
static void
load_about(json_object *list, char *about, size_t size)
{
	json_object *a = list && json_object_is_type(list, json_type_array) && json_object_array_length(list) > 0
				 ? json_object_array_get_idx(list, 0)
				 : NULL;

	snprintf(about, size, "%s", a && json_object_is_type(a, json_type_string) ? json_object_get_string(a) : "");
}

/* A gpu_idle finding's @gaps into the row of the queue it is about. */
static int
load_gaps(struct loader *l, json_object *gaps, const struct hesper_finding *f, struct hesper_profile *p)
{
	for (size_t q = 0; gaps && json_object_is_type(gaps, json_type_array) && q < p->queue_count; q++) {
		char name[64];
		snprintf(name, sizeof(name), "queue %" PRIu32 ":%" PRIu32 ":%" PRIu32, p->queues[q].device,
			 p->queues[q].family, p->queues[q].index);
		if (strcmp(name, f->about) != 0)
			continue;
		p->queues[q].gap_count = 0;
		for (size_t g = 0; g < json_object_array_length(gaps); g++)
			if (load_gap(l, json_object_array_get_idx(gaps, g), &p->queues[q]))
				return HESPER_ERROR_FORMAT;
	}
	return 0;
}

/* "findings" as they were written: kinds and numbers Hesper does not know are skipped. */
int
hesper_load_findings(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *list = hesper_json_member(root, KEY(FINDINGS));
	size_t n;

	if (!list)
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return BAD(l, "\"findings\" is not an array");
	p->findings_loaded = true;
	n = json_object_array_length(list);
	p->loaded_findings = calloc(n ? n : 1, sizeof(*p->loaded_findings));
	if (!p->loaded_findings)
		return NO_MEMORY(l);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(list, i), *gaps = NULL;
		struct hesper_finding *f = &p->loaded_findings[p->loaded_finding_count];
		bool known = true;

		memset(f, 0, sizeof(*f));
		/* each key of the list (profile/finding_keys.h) read by its kind; the kind first */
#define HESPER_GET_FINDING_KEY(member, key, kind) HESPER_GET_FINDING_##kind(member, key)
#define HESPER_GET_FINDING_KIND(member, key) known = finding_kind(get_string(o, key), &f->member);
#define HESPER_GET_FINDING_U64(member, key)                          \
	if (known && get_u64(l, o, "a finding", key, 0, &f->member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_FINDING_NUMBERS(member, key) load_finding_numbers(hesper_json_member(o, key), f);
#define HESPER_GET_FINDING_ABOUT(member, key) load_about(hesper_json_member(o, key), f->member, sizeof(f->member));
#define HESPER_GET_FINDING_TEXT(member, key) copy_string(f->member, sizeof(f->member), o, key);
#define HESPER_GET_FINDING_GAPS(member, key) gaps = hesper_json_member(o, key);
		HESPER_FINDING_KEYS(HESPER_GET_FINDING_KEY)
#undef HESPER_GET_FINDING_KEY
#undef HESPER_GET_FINDING_KIND
#undef HESPER_GET_FINDING_U64
#undef HESPER_GET_FINDING_NUMBERS
#undef HESPER_GET_FINDING_ABOUT
#undef HESPER_GET_FINDING_TEXT
#undef HESPER_GET_FINDING_GAPS
		if (!known)
			continue;
		if (f->kind == HESPER_FINDING_GPU_IDLE && load_gaps(l, gaps, f, p))
			return HESPER_ERROR_FORMAT;
		p->loaded_finding_count++;
	}
	return 0;
}

/* "clock_isolated" and "clock_fallbacks" (clock mode): the dispatches and kernels not timed by the shader clock. */
int
hesper_load_clock(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *list = hesper_json_member(root, KEY(CLOCK_FALLBACKS));

	if (get_u64(l, root, "the summary", KEY(CLOCK_ISOLATED), 0, &out->clock_isolated))
		return HESPER_ERROR_FORMAT;
	if (list && !json_object_is_type(list, json_type_array))
		return BAD(l, "\"clock_fallbacks\" is not an array");
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i);
		const char *kernel = get_string(o, KEY(FALLBACK_KERNEL)), *why = get_string(o, KEY(FALLBACK_WHY));

		if (!kernel)
			return BAD(l, "a clock fallback has no \"kernel\" string");
		if (hesper_profile_add_clock_note(out, kernel, why ? why : "") != 0)
			return NO_MEMORY(l);
	}
	return 0;
}

/* One statistic of "stats": its value's JSON type gives its format; false when it is no bool or number. */
static bool
load_statistic(const char *name, json_object *v, struct hesper_pipeline_stat *st)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", name);
	if (json_object_is_type(v, json_type_boolean)) {
		st->format = HESPER_STAT_BOOL;
		st->value.b = json_object_get_boolean(v);
	} else if (json_object_is_type(v, json_type_int)) {
		/* json-c keeps integers as int64, and past it as uint64: either way exact */
		int64_t i = json_object_get_int64(v);
		uint64_t u = json_object_get_uint64(v);
		st->format = i < 0 ? HESPER_STAT_INT : HESPER_STAT_UINT;
		if (i < 0)
			st->value.i = i;
		else
			st->value.u = u;
	} else if (json_object_is_type(v, json_type_double)) {
		st->format = HESPER_STAT_FLOAT;
		st->value.f = json_object_get_double(v);
	} else {
		return false;
	}
	return true;
}

/* "pipeline_stats": per kernel, the driver's statistics of its pipeline. */
int
hesper_load_pipeline_stats(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *list = hesper_json_member(root, KEY(PIPELINE_STATS));
	int ret = 0;

	if (list && !json_object_is_type(list, json_type_array))
		return BAD(l, "\"pipeline_stats\" is not an array");
	for (size_t i = 0; list && i < json_object_array_length(list) && !ret; i++) {
		json_object *o = json_object_array_get_idx(list, i), *stats = NULL;
		struct hesper_pipeline_stats k = {0};
		const char *where = "a \"pipeline_stats\" row";

		/* each key of the list (profile/pipeline_keys.h) read by its kind; 32-bit figures past
		 * 2^32 - 1 are refused, not cut (get_u32), as everywhere in the summary */
#define HESPER_GET_PIPELINE_KEY(member, key, kind) HESPER_GET_PIPELINE_##kind(member, key)
#define HESPER_GET_PIPELINE_NAME(member, key) k.member = (char *)get_string(o, key);
#define HESPER_GET_PIPELINE_TEXT(member, key) copy_string(k.member, sizeof(k.member), o, key);
#define HESPER_GET_PIPELINE_U32(member, key)         \
	if (get_u32(l, o, where, key, 0, &k.member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_PIPELINE_U64(member, key)         \
	if (get_u64(l, o, where, key, 0, &k.member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_PIPELINE_STATS(member, key) stats = hesper_json_member(o, key);
#define HESPER_GET_PIPELINE_WRITTEN(member, key)
#define HESPER_GET_PIPELINE_TRIPLE(member, key) get_triple(o, key, k.member);
#define HESPER_GET_PIPELINE_OCCUPANCY(member, key)
		HESPER_PIPELINE_KEYS(HESPER_GET_PIPELINE_KEY)
#undef HESPER_GET_PIPELINE_KEY
#undef HESPER_GET_PIPELINE_NAME
#undef HESPER_GET_PIPELINE_TEXT
#undef HESPER_GET_PIPELINE_U32
#undef HESPER_GET_PIPELINE_U64
#undef HESPER_GET_PIPELINE_STATS
#undef HESPER_GET_PIPELINE_WRITTEN
#undef HESPER_GET_PIPELINE_TRIPLE
#undef HESPER_GET_PIPELINE_OCCUPANCY
		if (!k.kernel || (stats && !json_object_is_type(stats, json_type_object)))
			return BAD(
				l,
				"a \"pipeline_stats\" row has no \"kernel\" string or a \"stats\" that is no object");
		size_t n = stats ? (size_t)json_object_object_length(stats) : 0;
		k.stats = n ? calloc(n, sizeof(*k.stats)) : NULL;
		if (n && !k.stats)
			return NO_MEMORY(l);
		if (stats) {
			json_object_object_foreach(stats, name, v)
			{
				if (!load_statistic(name, v, &k.stats[k.count]))
					ret = BAD(l, "the statistic \"%s\" is no boolean or number", name);
				else
					k.count++;
			}
		}
		if (!ret && hesper_profile_add_pipeline_stats(out, &k) < 0)
			ret = NO_MEMORY(l);
		free(k.stats);
	}
	return ret;
}

/* One line of a kernel's "lines" into @line; an error when a number is not one a count could give. */
static int
load_line(struct loader *l, json_object *o, struct hesper_hot_line *line)
{
	memset(line, 0, sizeof(*line));
	/* each key of the list (profile/line_keys.h) read by its kind */
#define HESPER_GET_LINE_KEY(member, key, kind, when) HESPER_GET_LINE_##kind(member, key)
#define HESPER_GET_LINE_TEXT(member, key) copy_string(line->member, sizeof(line->member), o, key);
#define HESPER_GET_LINE_CODE HESPER_GET_LINE_TEXT
#define HESPER_GET_LINE_U32(member, key)                    \
	if (get_u32(l, o, "a line", key, 0, &line->member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_LINE_U64(member, key)                    \
	if (get_u64(l, o, "a line", key, 0, &line->member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_LINE_SHARE(member, key)                  \
	if (get_double(l, o, "a line", key, &line->member)) \
		return HESPER_ERROR_FORMAT;                 \
	if (!(line->member >= 0 && line->member <= 1))      \
		return BAD(l, "a line: \"%s\" (%g) is not within [0, 1]", key, line->member);
#define HESPER_GET_LINE_CYCLES(member, key)                 \
	if (get_double(l, o, "a line", key, &line->member)) \
		return HESPER_ERROR_FORMAT;                 \
	if (!(line->member >= 0))                           \
		return BAD(l, "a line: \"%s\" (%g) is negative", key, line->member);
	HESPER_LINE_KEYS(HESPER_GET_LINE_KEY)
#undef HESPER_GET_LINE_KEY
#undef HESPER_GET_LINE_TEXT
#undef HESPER_GET_LINE_CODE
#undef HESPER_GET_LINE_U32
#undef HESPER_GET_LINE_U64
#undef HESPER_GET_LINE_SHARE
#undef HESPER_GET_LINE_CYCLES
	return 0;
}

int
hesper_load_lines(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *list = hesper_json_member(root, KEY(LINES));

	if (list && !json_object_is_type(list, json_type_array))
		return BAD(l, "\"lines\" is not an array");
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i), *rows = hesper_json_member(o, KEY(LINES_ROWS));
		const char *kernel = get_string(o, KEY(LINES_KERNEL));
		uint64_t dispatches = 0;

		if (!kernel || !rows || !json_object_is_type(rows, json_type_array))
			return BAD(l, "a \"lines\" entry has no \"kernel\" string or no \"lines\" array");
		if (get_u64(l, o, "a \"lines\" entry", KEY(LINES_DISPATCHES), 0, &dispatches))
			return HESPER_ERROR_FORMAT;
		size_t n = json_object_array_length(rows);
		struct hesper_hot_line *lines = n ? calloc(n, sizeof(*lines)) : NULL;
		if (n && !lines)
			return NO_MEMORY(l);
		int ret = 0;
		for (size_t j = 0; j < n && !ret; j++)
			ret = load_line(l, json_object_array_get_idx(rows, j), &lines[j]);
		if (!ret && hesper_profile_set_lines(out, kernel, lines, n, dispatches) != 0)
			ret = NO_MEMORY(l);
		json_object *source = hesper_json_member(o, KEY(LINES_SOURCE));
		const char *file = get_string(source, KEY(SOURCE_FILE)), *text = get_string(source, KEY(SOURCE_TEXT));
		const char *read_from = get_string(source, KEY(SOURCE_READ_FROM));
		if (!ret && source && (!file || !text))
			ret = BAD(l, "a \"lines\" entry's \"source\" has no \"file\" or \"text\" string");
		if (!ret && source && hesper_profile_set_source(out, kernel, file, text, read_from) != 0)
			ret = NO_MEMORY(l);
		free(lines);
		if (ret)
			return ret;
	}
	return 0;
}

/* A copy of @s in @out's report.owned[@slot] (freed with @out); NULL for NULL, and *@failed when out of memory. */
static const char *
keep_string(struct hesper_profile *out, int slot, const char *s, bool *failed)
{
	if (!s)
		return NULL;
	out->report.owned[slot] = strdup(s);
	*failed |= !out->report.owned[slot];
	return out->report.owned[slot];
}

/* "report" (reports written while the program runs) and "ended_by_signal": which report this is. */
int
hesper_load_report_kind(struct loader *l, json_object *root, struct hesper_profile *out)
{
	json_object *r = hesper_json_member(root, KEY(REPORT));
	bool failed = false;

	out->report.signal = keep_string(out, 1, get_string(root, KEY(ENDED_BY_SIGNAL)), &failed);
	if (r) {
		json_object *final = hesper_json_member(r, KEY(REPORT_FINAL));

		if (!json_object_is_type(r, json_type_object))
			return BAD(l, "\"report\" is not an object");
		out->report.live = true;
		/* Only a report that says it is not the final one was written while the program ran. */
		out->report.partial = final && json_object_is_type(final, json_type_boolean) &&
				      !json_object_get_boolean(final);
		if (get_u64(l, r, "\"report\"", KEY(REPORT_NUMBER), 0, &out->report.number))
			return HESPER_ERROR_FORMAT;
		out->report.reason = keep_string(out, 0, get_string(r, KEY(REPORT_REASON)), &failed);
	}
	return failed ? NO_MEMORY(l) : 0;
}

/* "capture": the capture window as the run stated it, when one was asked for. */
int
hesper_load_capture(struct loader *l, json_object *root, struct hesper_capture_info *c)
{
	json_object *o = hesper_json_member(root, KEY(CAPTURE));
	const char *state;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return BAD(l, "\"capture\" is not an object");
	c->set = true;
	uint64_t wall = 0;
	/* each key of the list (profile/capture_keys.h) read by its kind */
#define HESPER_GET_CAPTURE_TEXT(member, key) (copy_string(c->member, sizeof(c->member), o, key), 0)
#define HESPER_GET_CAPTURE_U64(member, key) get_u64(l, o, "\"capture\"", key, 0, &c->member)
/* a window closes only once it opened: "closed" is both */
#define HESPER_GET_CAPTURE_STATE(member, key)                                                   \
	((state = get_string(o, key)), (c->opened = state && strcmp(state, "not opened") != 0), \
	 (c->closed = state && strcmp(state, "closed") == 0), 0)
#define HESPER_GET_CAPTURE_WALL(member, key) get_u64(l, o, "\"capture\"", key, 0, &wall)
#define HESPER_GET_CAPTURE_KEY(member, key, kind, when) || HESPER_GET_CAPTURE_##kind(member, key)
	if (0 HESPER_CAPTURE_KEYS(HESPER_GET_CAPTURE_KEY))
		return HESPER_ERROR_FORMAT;
#undef HESPER_GET_CAPTURE_KEY
#undef HESPER_GET_CAPTURE_WALL
#undef HESPER_GET_CAPTURE_STATE
#undef HESPER_GET_CAPTURE_U64
#undef HESPER_GET_CAPTURE_TEXT
	/* The window's wall time as the run measured it: from its opening to the end it ran to. */
	if (c->opened && wall)
		c->end_ns = c->opened_ns + wall;
	return 0;
}
