/*
 * The timeline as Chrome trace-event JSON ("hesper-trace/1"), which Perfetto's UI and
 * chrome://tracing open:
 *   {"displayTimeUnit": "ns", "traceEvents": [...], "metadata": {...}}
 * One process (pid = the profiled pid). Each GPU queue has a track for its dispatches, one
 * for its memory operations, one for its label regions and one for its batches; each host
 * thread has one for its submit calls and one for its waits. Events of one track are
 * disjoint or perfectly nested (trace_layout.h); what would overlap partially goes to
 * further lanes, tracks named "... lane 2" and so on. Tracks are threads: one "M" event
 * names each (thread id) and one orders it; every name is distinct. A host thread's first
 * track keeps its real thread id, every other track gets a synthetic one.
 * "X" events carry ts and dur in microseconds with three decimals (whole nanoseconds),
 * relative to the trace origin: trace.origin_ns, or the first event when that is earlier.
 * Flow events link each submit call to the first GPU work it started (trace_flows.h): an
 * "s" inside the call's slice and an "f" with "bp": "e" inside the GPU slice, with the same
 * category, name and id.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "timeline/timeline.h"
#include "trace_names.h"

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

/*
 * The thread id of each of the @n @tracks into @tids, @order (NULL: as they are) being
 * the tracks in display order: a host thread's first track keeps the thread's real id,
 * every other track gets GPU_TID_BASE + its index, so no two tracks share an id.
 */
static void
assign_tids(const struct hesper_trace_track *tracks, const size_t *order, size_t n, uint64_t *tids)
{
	const struct hesper_trace_track *prev = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t k = order ? order[i] : i;
		const struct hesper_trace_track *t = &tracks[k];
		bool host = hesper_trace_kind_is_host(t->kind);
		bool first = host && !(prev && hesper_trace_kind_is_host(prev->kind) && prev->key == t->key);

		tids[k] = first && t->key > 0 && t->key < GPU_TID_BASE ? t->key : GPU_TID_BASE + k;
		prev = t;
	}
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

/* A flow id unique among the processes a merged trace may hold: the pid, then the flow's number. */
static uint64_t
flow_id(int pid, uint64_t number)
{
	return ((uint64_t)(uint32_t)pid << 40) | (number & ((UINT64_C(1) << 40) - 1));
}

/* Writes @f as a flow start and a flow end (bound to the slice enclosing it) with id @id. */
static void
put_flow(FILE *out, int pid, uint64_t id, const struct hesper_trace_flow *f, uint64_t origin)
{
	fprintf(out, "{\"ph\": \"s\", \"pid\": %d, \"tid\": %" PRIu64 ", \"ts\": ", pid, f->from_tid);
	put_us(out, f->from_ns - origin);
	fprintf(out, ", \"cat\": \"flow\", \"name\": \"vkQueueSubmit\", \"id\": \"0x%" PRIx64 "\"},\n", id);
	fprintf(out, "{\"ph\": \"f\", \"bp\": \"e\", \"pid\": %d, \"tid\": %" PRIu64 ", \"ts\": ", pid, f->to_tid);
	put_us(out, f->to_ns - origin);
	fprintf(out, ", \"cat\": \"flow\", \"name\": \"vkQueueSubmit\", \"id\": \"0x%" PRIx64 "\"},\n", id);
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
put_metadata(FILE *out, const struct hesper_profile *p, const struct hesper_trace_layout *l, uint64_t origin,
	     uint64_t flows)
{
	const struct hesper_trace *t = &p->trace;

	put_metadata_head(out, p, origin);
	fprintf(out,
		",\n  \"events\": %zu, \"events_left_out\": %" PRIu64 ", \"max_events\": %" PRIu64
		", \"events_not_drawn\": %zu, \"tracks\": %zu, \"flows\": %" PRIu64 "}\n",
		t->count, t->left_out, t->max_events, l->unplaced, l->track_count, flows);
}

/* The process's "M" events and each track's name and order; @tids: the tracks' thread ids. */
static void
put_tracks(FILE *out, const struct hesper_profile *p, const struct hesper_trace_track *tracks, const size_t *order,
	   size_t n, const uint64_t *tids)
{
	char name[TRACK_NAME_MAX];

	snprintf(name, sizeof(name), "%.*s", HESPER_NAME_MAX, p->exe[0] ? p->exe : "?");
	put_metadata_event(out, p->pid, 0, "process_name", "name", name, 0);
	snprintf(name, sizeof(name), "host %.*s", HESPER_NAME_MAX, p->host[0] ? p->host : "?");
	put_metadata_event(out, p->pid, 0, "process_labels", "labels", name, 0);
	for (size_t i = 0; i < n; i++) {
		size_t k = order ? order[i] : i;

		hesper_trace_track_name(name, sizeof(name), p, &tracks[k]);
		put_metadata_event(out, p->pid, tids[k], "thread_name", "name", name, 0);
		put_metadata_event(out, p->pid, tids[k], "thread_sort_index", "sort_index", NULL, i);
	}
}

/* --- the trace from a spool: every event, read back in chunks (HESPER_TRACE_ALL) --- */

struct spool_writer {
	FILE *out;
	const struct hesper_profile *p;
	uint64_t origin;
	const uint64_t *tids; /* by spooled track */
	struct hesper_flow_matcher flows;
	uint64_t flow_count;
};

static int
put_spooled(const struct hesper_spool_record *r, void *arg)
{
	struct spool_writer *w = arg;
	struct hesper_trace_flow flow;
	uint64_t tid = w->tids[r->track];

	put_event(w->out, w->p, &r->event, tid, w->origin);
	if (hesper_flow_matcher_feed(&w->flows, &r->event, tid, &flow))
		put_flow(w->out, w->p->pid, flow_id(w->p->pid, ++w->flow_count), &flow, w->origin);
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
	uint64_t origin = t->origin_ns && t->origin_ns <= s->first_start_ns ? t->origin_ns
			  : s->first_start_ns != UINT64_MAX                 ? s->first_start_ns
									    : t->origin_ns;
	size_t n = s->track_count ? s->track_count : 1;
	size_t *order = malloc(n * sizeof(*order));
	uint64_t *tids = malloc(n * sizeof(*tids));
	struct spool_writer w = {out, p, origin, tids, {0}, 0};
	struct hesper_trace_flow flow;
	int ret = -1;

	if (!order || !tids)
		goto out;
	for (size_t i = 0; i < s->track_count; i++)
		order[i] = i;
	qsort_r(order, s->track_count, sizeof(*order), compare_tracks, s->tracks);
	assign_tids(s->tracks, order, s->track_count, tids);

	fputs("{\"displayTimeUnit\": \"ns\",\n\"traceEvents\": [\n", out);
	put_tracks(out, p, s->tracks, order, s->track_count, tids);
	hesper_flow_matcher_init(&w.flows);
	if (hesper_trace_spool_each(s, put_spooled, &w) != 0)
		goto out;
	if (hesper_flow_matcher_finish(&w.flows, &flow))
		put_flow(out, p->pid, flow_id(p->pid, ++w.flow_count), &flow, origin);
	fprintf(out,
		"{\"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"name\": \"process_sort_index\", "
		"\"args\": {\"sort_index\": 0}}\n],\n",
		p->pid);
	put_metadata_head(out, p, origin);
	fprintf(out,
		",\n  \"events\": %" PRIu64 ", \"events_left_out\": %" PRIu64 ", \"max_events\": null"
		", \"events_not_drawn\": %" PRIu64 ", \"tracks\": %zu, \"flows\": %" PRIu64
		", \"streamed\": true}\n}\n",
		s->count, s->lost, s->unplaced, s->track_count, w.flow_count);
	ret = 0;
out:
	free(order);
	free(tids);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}

/*
 * Writes the flows of the @n events of @t, read in the order they were produced; @tid_of:
 * each event's track's thread id, UINT64_MAX for one not drawn. Returns how many.
 */
static uint64_t
put_flows(FILE *out, const struct hesper_profile *p, const uint64_t *tid_of, uint64_t origin)
{
	const struct hesper_trace *t = &p->trace;
	struct hesper_flow_matcher m;
	struct hesper_trace_flow flow;
	uint64_t count = 0;

	hesper_flow_matcher_init(&m);
	for (size_t i = 0; i < t->count; i++)
		if (tid_of[i] != UINT64_MAX && hesper_flow_matcher_feed(&m, &t->events[i], tid_of[i], &flow))
			put_flow(out, p->pid, flow_id(p->pid, ++count), &flow, origin);
	if (hesper_flow_matcher_finish(&m, &flow))
		put_flow(out, p->pid, flow_id(p->pid, ++count), &flow, origin);
	return count;
}

int
hesper_report_trace(FILE *out, const struct hesper_profile *p)
{
	const struct hesper_trace *t = &p->trace;
	struct hesper_trace_layout l;
	uint64_t origin = hesper_trace_origin(t);
	uint64_t *tids = NULL, *tid_of = NULL, flows;
	int ret = -1;

	if (t->spool)
		return write_spooled(out, p);
	if (hesper_trace_layout_build(&l, t->events, t->count) != 0)
		return -1;
	tids = malloc((l.track_count ? l.track_count : 1) * sizeof(*tids));
	tid_of = malloc((t->count ? t->count : 1) * sizeof(*tid_of));
	if (!tids || !tid_of)
		goto out;
	assign_tids(l.tracks, NULL, l.track_count, tids);
	for (size_t i = 0; i < l.count; i++)
		tid_of[l.order[i]] = l.track_of[i] == SIZE_MAX ? UINT64_MAX : tids[l.track_of[i]];

	fputs("{\"displayTimeUnit\": \"ns\",\n\"traceEvents\": [\n", out);
	put_tracks(out, p, l.tracks, NULL, l.track_count, tids);
	for (size_t i = 0; i < l.count; i++)
		if (l.track_of[i] != SIZE_MAX)
			put_event(out, p, &t->events[l.order[i]], tids[l.track_of[i]], origin);
	flows = put_flows(out, p, tid_of, origin);
	/* The list ends with an event that is always valid, so every real one can end in ",". */
	fprintf(out,
		"{\"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"name\": \"process_sort_index\", "
		"\"args\": {\"sort_index\": 0}}\n],\n",
		p->pid);
	put_metadata(out, p, &l, origin, flows);
	fputs("}\n", out);
	ret = 0;
out:
	free(tids);
	free(tid_of);
	hesper_trace_layout_free(&l);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}
