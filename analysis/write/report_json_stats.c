/*
 * The JSON summary's pipeline statistics with the occupancy reckoned from them, its host
 * waits and its findings (report_json_parts.h).
 */
#include "report_json_parts.h"

#include "findings/findings.h"
#include "profile/profile.h"
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The key of a member written by hand (profile/summary_keys.h). */
#define KEY(id) hesper_summary_key(HESPER_SUMMARY_##id)

/* A number as JSON: whole numbers without a fraction, others with 17 digits. */
static void
put_number(FILE *out, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.17g", v);
}

/* A finding's "numbers": each by its name. */
static void
put_finding_numbers(FILE *out, const struct hesper_finding *x)
{
	fputc('{', out);
	for (size_t k = 0; k < x->number_count; k++) {
		fprintf(out, "%s\"%s\": ", k ? ", " : "", x->numbers[k].key);
		put_number(out, x->numbers[k].value);
	}
	fputc('}', out);
}

/* A gpu_idle finding's "gaps": its queue's largest, each by the list of profile/gap_keys.h, then what the thread did. */
static void
put_gaps(FILE *out, const struct hesper_queue_info *q)
{
	fputc('[', out);
	for (uint32_t g = 0; g < q->gap_count; g++) {
		const struct hesper_gap *gap = &q->gaps[g];
		const char *sep = g ? ", {" : "{";

#define HESPER_PUT_GAP_KEY(member, key, width)                               \
	fprintf(out, "%s\"" key "\": %" PRIu64, sep, (uint64_t)gap->member); \
	sep = ", ";
		HESPER_GAP_KEYS(HESPER_PUT_GAP_KEY)
#undef HESPER_PUT_GAP_KEY
		fprintf(out, ", \"%s\": \"%s\"}", KEY(GAP_DOING), hesper_gap_activity(gap));
	}
	fputc(']', out);
}

int
hesper_findings_write_json(FILE *out, const struct hesper_findings *f)
{
	fputc('[', out);
	for (size_t i = 0; i < f->count; i++) {
		const struct hesper_finding *x = &f->items[i];
		const char *sep = i ? ",\n    {" : "\n    {";

		/* each key of the list (profile/finding_keys.h) written by its kind */
#define HESPER_PUT_FINDING_KEY(member, key, kind)     \
	if (HESPER_FINDING_HAS_##kind(x->member)) {   \
		fprintf(out, "%s\"" key "\": ", sep); \
		HESPER_PUT_FINDING_##kind(x->member); \
		sep = ", ";                           \
	}
#define HESPER_FINDING_HAS_KIND(v) true
#define HESPER_FINDING_HAS_U64(v) true
#define HESPER_FINDING_HAS_NUMBERS(v) true
#define HESPER_FINDING_HAS_ABOUT(v) true
#define HESPER_FINDING_HAS_TEXT(v) true
#define HESPER_FINDING_HAS_GAPS(v) ((v) != NULL)
#define HESPER_PUT_FINDING_KIND(v) fprintf(out, "\"%s\"", hesper_finding_kind_name(v))
#define HESPER_PUT_FINDING_U64(v) fprintf(out, "%" PRIu64, v)
#define HESPER_PUT_FINDING_NUMBERS(v) put_finding_numbers(out, x)
#define HESPER_PUT_FINDING_ABOUT(v) (fputc('[', out), hesper_json_write_string(out, v), fputc(']', out))
#define HESPER_PUT_FINDING_TEXT(v) hesper_json_write_string(out, v)
#define HESPER_PUT_FINDING_GAPS(v) put_gaps(out, v)
		HESPER_FINDING_KEYS(HESPER_PUT_FINDING_KEY)
#undef HESPER_PUT_FINDING_KEY
#undef HESPER_FINDING_HAS_KIND
#undef HESPER_FINDING_HAS_U64
#undef HESPER_FINDING_HAS_NUMBERS
#undef HESPER_FINDING_HAS_ABOUT
#undef HESPER_FINDING_HAS_TEXT
#undef HESPER_FINDING_HAS_GAPS
#undef HESPER_PUT_FINDING_KIND
#undef HESPER_PUT_FINDING_U64
#undef HESPER_PUT_FINDING_NUMBERS
#undef HESPER_PUT_FINDING_ABOUT
#undef HESPER_PUT_FINDING_TEXT
#undef HESPER_PUT_FINDING_GAPS
		fputc('}', out);
	}
	fputs(f->count ? "\n  ]" : "]", out);
	return ferror(out) ? -1 : 0;
}

/*
 * A kernel's "occupancy": the share of its SM's warp slots, resident warps and work groups
 * per SM, the groups that fill the device once and the resource that runs out first; "at_most"
 * and "why" when a resource could not be counted; {"limit": "unknown", "why"} without a model.
 */
static void
put_occupancy(FILE *out, const struct hesper_profile *p, const struct hesper_pipeline_stats *k)
{
	struct hesper_occupancy o = hesper_stats_occupancy(p, k);

	fputc('{', out);
	if (o.limit != HESPER_LIMIT_UNKNOWN) {
		fprintf(out, "\"%s\": ", KEY(OCCUPANCY_SHARE));
		hesper_json_put_double(out, o.share);
		fprintf(out, ", \"%s\": %" PRIu32 ", \"%s\": %" PRIu32 ", \"%s\": %" PRIu64 ", ", KEY(OCCUPANCY_WARPS),
			o.warps_per_sm, KEY(OCCUPANCY_GROUPS), o.groups_per_sm, KEY(OCCUPANCY_DEVICE_GROUPS),
			hesper_occupancy_device_groups(p, k, &o));
	}
	fprintf(out, "\"%s\": ", KEY(OCCUPANCY_LIMIT));
	hesper_json_put_field(out, hesper_occupancy_limit_word(o.limit), 32);
	if (o.at_most)
		fprintf(out, ", \"%s\": true", KEY(OCCUPANCY_AT_MOST));
	if (o.why) {
		fprintf(out, ", \"%s\": ", KEY(OCCUPANCY_WHY));
		hesper_json_put_field(out, o.why, HESPER_NAME_MAX);
	}
	fputc('}', out);
}

void
hesper_json_put_occupancy_model(FILE *out, const char *key, const struct hesper_occupancy_model *m)
{
	if (!m->vendor[0] && !m->why[0])
		return;
	fprintf(out, ", \"%s\": {", key);
	if (!m->vendor[0]) {
		fprintf(out, "\"%s\": ", KEY(MODEL_WHY));
		hesper_json_put_field(out, m->why, sizeof(m->why));
		fputc('}', out);
		return;
	}
	fprintf(out, "\"%s\": ", KEY(MODEL_VENDOR));
	hesper_json_put_field(out, m->vendor, sizeof(m->vendor));
#define HESPER_PUT_FIGURE(member) fprintf(out, ", \"" #member "\": %" PRIu32, m->member);
	HESPER_OCCUPANCY_FIGURES(HESPER_PUT_FIGURE)
#undef HESPER_PUT_FIGURE
	fputc('}', out);
}

/* A pipeline's "stats": the driver's statistics by their names, in its order. */
static void
put_statistics(FILE *out, const struct hesper_pipeline_stats *k)
{
	fputc('{', out);
	for (size_t j = 0; j < k->count; j++) {
		const struct hesper_pipeline_stat *st = &k->stats[j];

		if (j)
			fputs(", ", out);
		hesper_json_put_field(out, st->name, sizeof(st->name));
		fputs(": ", out);
		if (st->format == HESPER_STAT_FLOAT) {
			hesper_json_put_double(out, st->value.f);
		} else {
			char v[32];

			hesper_pipeline_stat_value(st, v, sizeof(v));
			fputs(v, out);
		}
	}
	fputc('}', out);
}

void
hesper_json_put_pipeline_stats(FILE *out, const struct hesper_profile *p)
{
	hesper_json_put_key(out, HESPER_SUMMARY_PIPELINE_STATS);
	fputc('[', out);
	for (size_t i = 0; i < p->pipeline_stats_count; i++) {
		const struct hesper_pipeline_stats *k = &p->pipeline_stats[i];
		const char *sep = i ? ",\n    {" : "\n    {";

		/* each key of the list (profile/pipeline_keys.h) written by its kind */
#define HESPER_PUT_PIPELINE_KEY(member, key, kind) \
	fprintf(out, "%s\"" key "\": ", sep);      \
	HESPER_PUT_PIPELINE_##kind(k->member);     \
	sep = ", ";
#define HESPER_PUT_PIPELINE_NAME(v) hesper_json_put_field(out, v, HESPER_NAME_MAX)
#define HESPER_PUT_PIPELINE_TEXT(v) hesper_json_put_field(out, v, sizeof(v))
#define HESPER_PUT_PIPELINE_U32(v) fprintf(out, "%" PRIu32, v)
#define HESPER_PUT_PIPELINE_U64(v) fprintf(out, "%" PRIu64, v)
#define HESPER_PUT_PIPELINE_WRITTEN(v) fprintf(out, "%" PRIu32, v)
#define HESPER_PUT_PIPELINE_STATS(v) put_statistics(out, k)
#define HESPER_PUT_PIPELINE_TRIPLE(v) (v[0] ? hesper_json_put_triple(out, v) : (void)fputs("null", out))
#define HESPER_PUT_PIPELINE_OCCUPANCY(v) put_occupancy(out, p, k)
		HESPER_PIPELINE_KEYS(HESPER_PUT_PIPELINE_KEY)
#undef HESPER_PUT_PIPELINE_KEY
#undef HESPER_PUT_PIPELINE_NAME
#undef HESPER_PUT_PIPELINE_TEXT
#undef HESPER_PUT_PIPELINE_U32
#undef HESPER_PUT_PIPELINE_U64
#undef HESPER_PUT_PIPELINE_WRITTEN
#undef HESPER_PUT_PIPELINE_STATS
#undef HESPER_PUT_PIPELINE_TRIPLE
#undef HESPER_PUT_PIPELINE_OCCUPANCY
		fputc('}', out);
	}
	fputs(p->pipeline_stats_count ? "\n  ],\n" : "],\n", out);
}

int
hesper_json_put_findings(FILE *out, const struct hesper_profile *p)
{
	struct hesper_findings findings;

	hesper_json_put_key(out, HESPER_SUMMARY_HOST_WAITS);
	fputc('[', out);
	for (size_t i = 0; i < p->host_wait_count; i++) {
		const struct hesper_host_wait *w = &p->host_waits[i];
		const char *sep = i ? ",\n    {" : "\n    {";

		/* each key of the list (profile/wait_keys.h) written by its kind */
#define HESPER_PUT_WAIT_KEY(member, key, kind) \
	fprintf(out, "%s\"" key "\": ", sep);  \
	HESPER_PUT_WAIT_##kind(w->member);     \
	sep = ", ";
#define HESPER_PUT_WAIT_U32(v) fprintf(out, "%" PRIu32, v)
#define HESPER_PUT_WAIT_U64(v) fprintf(out, "%" PRIu64, v)
#define HESPER_PUT_WAIT_CALL(v) fprintf(out, "\"%s\"", hesper_wait_call_name(v))
		HESPER_WAIT_KEYS(HESPER_PUT_WAIT_KEY)
#undef HESPER_PUT_WAIT_KEY
#undef HESPER_PUT_WAIT_U32
#undef HESPER_PUT_WAIT_U64
#undef HESPER_PUT_WAIT_CALL
		fputc('}', out);
	}
	fputs(p->host_wait_count ? "\n  ],\n" : "],\n", out);
	if (hesper_findings_compute(p, &findings) != 0)
		return -1;
	hesper_json_put_key(out, HESPER_SUMMARY_FINDINGS);
	hesper_findings_write_json(out, &findings);
	hesper_findings_free(&findings);
	fputs(",\n", out);
	return 0;
}

void
hesper_json_put_lines(FILE *out, const struct hesper_profile *p)
{
	if (!p->kernel_lines_count)
		return;
	hesper_json_put_key(out, HESPER_SUMMARY_LINES);
	fputc('[', out);
	for (size_t i = 0; i < p->kernel_lines_count; i++) {
		const struct hesper_kernel_lines *k = &p->kernel_lines[i];
		fprintf(out, "%s{\"%s\": ", i ? ",\n    " : "\n    ", KEY(LINES_KERNEL));
		hesper_json_write_string(out, k->kernel);
		fprintf(out, ", \"%s\": %" PRIu64 ", \"%s\": [", KEY(LINES_DISPATCHES), k->dispatches, KEY(LINES_ROWS));
		for (size_t j = 0; j < k->count; j++) {
			const struct hesper_hot_line *l = &k->lines[j];
			const char *sep = j ? ",\n      {" : "\n      {";

			/* each key of the list (profile/line_keys.h) written by its kind, when it says */
#define HESPER_PUT_LINE_KEY(member, key, kind, when)  \
	if (HESPER_LINE_WHEN_##when(l->member)) {     \
		fprintf(out, "%s\"" key "\": ", sep); \
		HESPER_PUT_LINE_##kind(l->member);    \
		sep = ", ";                           \
	}
#define HESPER_LINE_WHEN_ALWAYS(v) true
#define HESPER_LINE_WHEN_SET(v) ((v)[0] != '\0')
#define HESPER_PUT_LINE_TEXT(v) hesper_json_put_field(out, v, sizeof(v))
#define HESPER_PUT_LINE_CODE(v) hesper_json_write_string(out, v) /* terminated within its array */
#define HESPER_PUT_LINE_U32(v) fprintf(out, "%" PRIu32, v)
#define HESPER_PUT_LINE_U64(v) fprintf(out, "%" PRIu64, v)
#define HESPER_PUT_LINE_SHARE(v) hesper_json_put_double(out, v)
#define HESPER_PUT_LINE_CYCLES(v) hesper_json_put_double(out, v)
			HESPER_LINE_KEYS(HESPER_PUT_LINE_KEY)
#undef HESPER_PUT_LINE_KEY
#undef HESPER_LINE_WHEN_ALWAYS
#undef HESPER_LINE_WHEN_SET
#undef HESPER_PUT_LINE_TEXT
#undef HESPER_PUT_LINE_CODE
#undef HESPER_PUT_LINE_U32
#undef HESPER_PUT_LINE_U64
#undef HESPER_PUT_LINE_SHARE
#undef HESPER_PUT_LINE_CYCLES
			fputs("}", out);
		}
		fputs(k->count ? "\n    ]" : "]", out);
		if (k->source) {
			fprintf(out, ", \"%s\": {\"%s\": ", KEY(LINES_SOURCE), KEY(SOURCE_FILE));
			hesper_json_write_string(out, k->source_file);
			fprintf(out, ", \"%s\": ", KEY(SOURCE_TEXT));
			hesper_json_write_string(out, k->source);
			if (k->source_read) {
				fprintf(out, ", \"%s\": ", KEY(SOURCE_READ_FROM));
				hesper_json_write_string(out, k->source_read);
			}
			fputc('}', out);
		}
		fputc('}', out);
	}
	fputs("\n  ],\n", out);
}
