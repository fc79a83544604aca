/*
 * The timeline as Chrome trace-event JSON ("hesper-trace/1"), which Perfetto's UI and
 * chrome://tracing open:
 *   {"displayTimeUnit": "ns", "traceEvents": [...], "metadata": {...}}
 * One process (pid = the profiled pid). Each GPU queue has a track for its dispatches,
 * one for its label regions and one for its batches; each host thread that submitted
 * has one for its submit calls. Events of one track are disjoint or perfectly nested
 * (trace_layout.h); what would overlap partially goes to further lanes, tracks named
 * "... lane 2" and so on. Tracks are threads: "M" events name them and order them.
 * "X" events carry ts and dur in microseconds with three decimals (whole nanoseconds),
 * relative to the trace origin: trace.origin_ns, or the first event when that is earlier.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "trace_layout.h"
#include "trace_spool.h"

#ifndef HESPER_VERSION
#define HESPER_VERSION "unknown"
#endif

#define TRACK_NAME_MAX HESPER_TRACK_NAME_MAX
/* Synthetic thread ids start above any Linux thread id (at most 2^22), below INT32_MAX. */
#define GPU_TID_BASE 1000000000u

static const char *
kind_category(enum hesper_trace_kind kind)
{
	switch (kind) {
	case HESPER_TRACE_DISPATCH: return "dispatch";
	case HESPER_TRACE_REGION: return "region";
	case HESPER_TRACE_BATCH: return "batch";
	case HESPER_TRACE_HOST_SUBMIT: return "submit";
	case HESPER_TRACE_MEMORY_OP: return "memory";
	case HESPER_TRACE_HOST_WAIT: return "wait";
	}
	return "?";
}

/* A host thread's first lane keeps the real thread id; every other track gets a synthetic one. */
static uint64_t
track_tid(const struct hesper_trace_layout *l, size_t track)
{
	const struct hesper_trace_track *t = &l->tracks[track];

	if (hesper_trace_kind_is_host(t->kind) && t->lane == 1 && t->key > 0 && t->key < GPU_TID_BASE)
		return t->key;
	return GPU_TID_BASE + track;
}

/* Nanoseconds as microseconds with three decimals, exactly. */
static void
put_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static void
put_metadata_event(FILE *out, int pid, uint64_t tid, const char *what, const char *arg, const char *name,
		   uint64_t number)
{
	fprintf(out, "{\"ph\": \"M\", \"pid\": %d, \"tid\": %" PRIu64 ", \"name\": \"%s\", \"args\": {\"%s\": ", pid,
		tid, what, arg);
	if (name)
		hesper_json_write_string(out, name);
	else
		fprintf(out, "%" PRIu64, number);
	fputs("}},\n", out);
}

static void
put_args(FILE *out, const struct hesper_profile *p, const struct hesper_trace_event *e)
{
	char queue[TRACK_NAME_MAX];

	fputs("\"args\": {", out);
	switch (e->kind) {
	case HESPER_TRACE_DISPATCH:
		fputs("\"kernel\": ", out);
		hesper_json_write_string(out, e->name ? e->name : "?");
		fputs(", ", out);
		if (p->from_events)
			break; /* a program's own events carry no dispatch size */
		fprintf(out, "\"groups\": [%" PRIu32 ", %" PRIu32 ", %" PRIu32 "], ", e->groups[0], e->groups[1],
			e->groups[2]);
		if (e->groups[0] == 0 && e->groups[1] == 0 && e->groups[2] == 0)
			fputs("\"indirect\": true, ", out);
		if (e->local_size[0])
			fprintf(out, "\"local_size\": [%" PRIu32 ", %" PRIu32 ", %" PRIu32 "], ", e->local_size[0],
				e->local_size[1], e->local_size[2]);
		break;
	case HESPER_TRACE_REGION:
		fputs("\"label\": ", out);
		hesper_json_write_string(out, e->name ? e->name : "?");
		fputs(", ", out);
		break;
	case HESPER_TRACE_BATCH: break;
	case HESPER_TRACE_MEMORY_OP: fprintf(out, "\"bytes\": %" PRIu64 ", ", e->bytes); break;
	case HESPER_TRACE_HOST_WAIT: break;
	case HESPER_TRACE_HOST_SUBMIT:
		hesper_trace_queue_name(queue, sizeof(queue), p, e->queue);
		fputs("\"queue\": ", out);
		hesper_json_write_string(out, queue);
		fputs(", ", out);
		break;
	}
	if (e->command_buffer)
		fprintf(out, "\"command_buffer\": \"0x%016" PRIx64 "\", ", e->command_buffer);
	fprintf(out, "\"submission\": %" PRIu64 "}", e->submission);
}

static const char *
event_name(const struct hesper_trace_event *e)
{
	switch (e->kind) {
	case HESPER_TRACE_BATCH: return "batch";
	case HESPER_TRACE_HOST_SUBMIT: return "vkQueueSubmit";
	default: return e->name ? e->name : "?";
	}
}

static void
put_event(FILE *out, const struct hesper_profile *p, const struct hesper_trace_event *e, uint64_t tid, uint64_t origin)
{
	uint64_t end = e->end_ns > e->start_ns ? e->end_ns : e->start_ns;

	fprintf(out, "{\"ph\": \"X\", \"pid\": %d, \"tid\": %" PRIu64 ", \"ts\": ", p->pid, tid);
	put_us(out, e->start_ns - origin);
	fputs(", \"dur\": ", out);
	put_us(out, end - e->start_ns);
	fprintf(out, ", \"cat\": \"%s\", \"name\": ", kind_category(e->kind));
	hesper_json_write_string(out, event_name(e));
	fputs(", ", out);
	put_args(out, p, e);
	fputs("},\n", out);
}

/* The trace's "metadata" object up to its alignment error; the caller writes the counts and closes it. */
static void
put_metadata_head(FILE *out, const struct hesper_profile *p, uint64_t origin)
{
	const struct hesper_trace *t = &p->trace;

	fputs("\"metadata\": {\"schema\": \"hesper-trace/1\", \"hesper_version\": ", out);
	hesper_json_write_string(out, HESPER_VERSION);
	fprintf(out, ", \"pid\": %d, \"exe\": ", p->pid);
	hesper_json_write_string(out, p->exe);
	fputs(", \"host\": ", out);
	hesper_json_write_string(out, p->host);
	fprintf(out,
		",\n  \"clock\": \"CLOCK_MONOTONIC\", \"origin_ns\": %" PRIu64 ", \"calibrated\": %s, "
		"\"alignment_error_ns\": ",
		origin, t->calibrated ? "true" : "false");
	if (t->alignment_error_ns >= 0 && isfinite(t->alignment_error_ns))
		fprintf(out, "%.17g", t->alignment_error_ns);
	else
		fputs("null", out);
}

static void
put_metadata(FILE *out, const struct hesper_profile *p, const struct hesper_trace_layout *l, uint64_t origin)
{
	const struct hesper_trace *t = &p->trace;

	put_metadata_head(out, p, origin);
	fprintf(out,
		",\n  \"events\": %zu, \"events_left_out\": %" PRIu64 ", \"max_events\": %" PRIu64
		", \"events_not_drawn\": %zu, \"tracks\": %zu}\n",
		t->count, t->left_out, t->max_events, l->unplaced, l->track_count);
}

/* --- the trace from a spool: every event, read back in chunks (HESPER_TRACE_ALL) --- */

/* A spooled track's thread id: as track_tid() for the layout's tracks. */
static uint64_t
spool_tid(const struct hesper_trace_spool *s, size_t track)
{
	const struct hesper_trace_track *t = &s->tracks[track];

	if (hesper_trace_kind_is_host(t->kind) && t->lane == 1 && t->key > 0 && t->key < GPU_TID_BASE)
		return t->key;
	return GPU_TID_BASE + track;
}

struct spool_writer {
	FILE *out;
	const struct hesper_profile *p;
	uint64_t origin;
};

static int
put_spooled(const struct hesper_spool_record *r, void *arg)
{
	struct spool_writer *w = arg;

	put_event(w->out, w->p, &r->event, spool_tid(w->p->trace.spool, r->track), w->origin);
	return ferror(w->out) ? -1 : 0;
}

/* Track order as the layout's: GPU groups by queue then kind, then host threads; lanes in order. */
static int
compare_tracks(const void *pa, const void *pb, void *tracks)
{
	const struct hesper_trace_track *t = tracks;
	const struct hesper_trace_track *a = &t[*(const size_t *)pa], *b = &t[*(const size_t *)pb];
	unsigned ha = hesper_trace_kind_is_host(a->kind), hb = hesper_trace_kind_is_host(b->kind);

	if (ha != hb)
		return ha < hb ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return (a->lane > b->lane) - (a->lane < b->lane);
}

static int
write_spooled(FILE *out, const struct hesper_profile *p)
{
	struct hesper_trace_spool *s = p->trace.spool;
	const struct hesper_trace *t = &p->trace;
	char name[TRACK_NAME_MAX];
	uint64_t origin = t->origin_ns && t->origin_ns <= s->first_start_ns ? t->origin_ns
			  : s->first_start_ns != UINT64_MAX                 ? s->first_start_ns
									    : t->origin_ns;
	size_t *order = malloc((s->track_count ? s->track_count : 1) * sizeof(*order));
	int ret = -1;

	if (!order)
		return -1;
	for (size_t i = 0; i < s->track_count; i++)
		order[i] = i;
	qsort_r(order, s->track_count, sizeof(*order), compare_tracks, s->tracks);

	fputs("{\"displayTimeUnit\": \"ns\",\n\"traceEvents\": [\n", out);
	snprintf(name, sizeof(name), "%.*s", HESPER_NAME_MAX, p->exe[0] ? p->exe : "?");
	put_metadata_event(out, p->pid, 0, "process_name", "name", name, 0);
	snprintf(name, sizeof(name), "host %.*s", HESPER_NAME_MAX, p->host[0] ? p->host : "?");
	put_metadata_event(out, p->pid, 0, "process_labels", "labels", name, 0);
	for (size_t i = 0; i < s->track_count; i++) {
		hesper_trace_track_name(name, sizeof(name), p, &s->tracks[order[i]]);
		put_metadata_event(out, p->pid, spool_tid(s, order[i]), "thread_name", "name", name, 0);
		put_metadata_event(out, p->pid, spool_tid(s, order[i]), "thread_sort_index", "sort_index", NULL, i);
	}
	struct spool_writer w = {out, p, origin};
	if (hesper_trace_spool_each(s, put_spooled, &w) != 0)
		goto out;
	fprintf(out,
		"{\"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"name\": \"process_sort_index\", "
		"\"args\": {\"sort_index\": 0}}\n],\n",
		p->pid);
	put_metadata_head(out, p, origin);
	fprintf(out,
		",\n  \"events\": %" PRIu64 ", \"events_left_out\": %" PRIu64 ", \"max_events\": null"
		", \"events_not_drawn\": %" PRIu64 ", \"tracks\": %zu, \"streamed\": true}\n}\n",
		s->count, s->lost, s->unplaced, s->track_count);
	ret = 0;
out:
	free(order);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}

int
hesper_report_trace(FILE *out, const struct hesper_profile *p)
{
	const struct hesper_trace *t = &p->trace;
	struct hesper_trace_layout l;
	char name[TRACK_NAME_MAX];
	uint64_t origin = hesper_trace_origin(t);
	int ret = -1;

	if (t->spool)
		return write_spooled(out, p);
	if (hesper_trace_layout_build(&l, t->events, t->count) != 0)
		return -1;

	fputs("{\"displayTimeUnit\": \"ns\",\n\"traceEvents\": [\n", out);
	snprintf(name, sizeof(name), "%.*s", HESPER_NAME_MAX, p->exe[0] ? p->exe : "?");
	put_metadata_event(out, p->pid, 0, "process_name", "name", name, 0);
	snprintf(name, sizeof(name), "host %.*s", HESPER_NAME_MAX, p->host[0] ? p->host : "?");
	put_metadata_event(out, p->pid, 0, "process_labels", "labels", name, 0);
	for (size_t i = 0; i < l.track_count; i++) {
		hesper_trace_track_name(name, sizeof(name), p, &l.tracks[i]);
		put_metadata_event(out, p->pid, track_tid(&l, i), "thread_name", "name", name, 0);
		put_metadata_event(out, p->pid, track_tid(&l, i), "thread_sort_index", "sort_index", NULL, i);
	}
	for (size_t i = 0; i < l.count; i++)
		if (l.track_of[i] != SIZE_MAX)
			put_event(out, p, &t->events[l.order[i]], track_tid(&l, l.track_of[i]), origin);
	/* The list ends with an event that is always valid, so every real one can end in ",". */
	fprintf(out,
		"{\"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"name\": \"process_sort_index\", "
		"\"args\": {\"sort_index\": 0}}\n],\n",
		p->pid);
	put_metadata(out, p, &l, origin);
	fputs("}\n", out);
	ret = 0;

	hesper_trace_layout_free(&l);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}
