/*
 * The HTML report's timeline (report_html_parts.h): its section, and its data as JSON
 * for the page script, which draws it on a canvas that zooms. Every event the trace kept
 * is in the page up to HESPER_HTML_TIMELINE_MAX of them, the earliest when there are
 * more: a page with millions of events would not open. The section says how many are
 * not in the page, from when on, and where they are (the trace report).
 *
 * The data: {"total", "shown", "limit", "left_out", "not_drawn", "last_start_ns",
 * "tracks": [names], "kinds": [{"name", "colour"}], "names": [event names],
 * "events": [[track, start, duration, kind, name index]]}, times in ns from the trace's
 * origin, events by track then start (as trace_layout.h places them).
 */
#include "report_html_parts.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/timeline.h"
#include "write/write.h"

/* Each kind's name and colour in the page, by enum hesper_trace_kind (dispatches: one hue per kernel). */
static const struct {
	const char *name, *colour;
} kinds[] = {
	[HESPER_TRACE_DISPATCH] = {"dispatch", "#888"},
	[HESPER_TRACE_REGION] = {"label region", "#b07aa1"},
	[HESPER_TRACE_BATCH] = {"batch", "#76b7b2"},
	[HESPER_TRACE_HOST_SUBMIT] = {"submit call", "#f28e2b"},
	[HESPER_TRACE_MEMORY_OP] = {"memory operation", "#4e79a7"},
	[HESPER_TRACE_HOST_WAIT] = {"host wait", "#bab0ac"},
};
#define KIND_COUNT (sizeof(kinds) / sizeof(kinds[0]))

/* Whether event @a comes before @b on the timeline: earlier start, longer first on ties. */
static bool
before(const struct hesper_trace_event *a, const struct hesper_trace_event *b)
{
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns;
	return a->end_ns > b->end_ns;
}

static void
sift_down(const struct hesper_trace_event **heap, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && before(heap[c], heap[c + 1]))
			c++;
		if (!before(heap[i], heap[c]))
			return;
		const struct hesper_trace_event *tmp = heap[i];
		heap[i] = heap[c];
		heap[c] = tmp;
		i = c;
	}
}

/*
 * Copies into @first the @want earliest events of @t (a max-heap of the earliest seen so
 * far: memory bounded by @want, not by the trace). Returns how many were copied.
 */
static size_t
earliest_events(const struct hesper_trace *t, struct hesper_trace_event *first, size_t want,
		const struct hesper_trace_event **heap)
{
	size_t n = 0;

	for (size_t i = 0; i < t->count; i++) {
		const struct hesper_trace_event *e = &t->events[i];

		if (n < want) {
			heap[n++] = e;
			if (n == want)
				for (size_t j = n / 2; j-- > 0;)
					sift_down(heap, n, j);
		} else if (want > 0 && before(e, heap[0])) {
			heap[0] = e;
			sift_down(heap, n, 0);
		}
	}
	for (size_t i = 0; i < n; i++)
		first[i] = *heap[i];
	return n;
}

/* The name the page shows for @e. */
static const char *
shown_name(const struct hesper_trace_event *e)
{
	return e->kind == HESPER_TRACE_BATCH         ? "batch"
	       : e->kind == HESPER_TRACE_HOST_SUBMIT ? "vkQueueSubmit"
	       : e->name                             ? e->name
						     : "?";
}

static int
compare_names(const void *pa, const void *pb, void *events)
{
	const struct hesper_trace_event *e = events;

	return strcmp(shown_name(&e[*(const size_t *)pa]), shown_name(&e[*(const size_t *)pb]));
}

/*
 * Each of the @n @events' index into the table of distinct names (@name_of), the table
 * written as the JSON array "names". Returns 0, or -1 out of memory.
 */
static int
put_names(FILE *out, const struct hesper_trace_event *events, size_t n, uint32_t *name_of)
{
	size_t *by_name = malloc((n ? n : 1) * sizeof(*by_name));
	uint32_t distinct = 0;

	if (!by_name)
		return -1;
	for (size_t i = 0; i < n; i++)
		by_name[i] = i;
	qsort_r(by_name, n, sizeof(*by_name), compare_names, (void *)events);
	fputs("\"names\": [", out);
	for (size_t i = 0; i < n; i++) {
		const char *name = shown_name(&events[by_name[i]]);

		if (i == 0 || strcmp(name, shown_name(&events[by_name[i - 1]])) != 0) {
			fputs(distinct++ ? ", " : "", out);
			hesper_html_json_string(out, name);
		}
		name_of[by_name[i]] = distinct - 1;
	}
	fputs("],\n", out);
	free(by_name);
	return 0;
}

int
hesper_html_timeline_data(FILE *out, const struct hesper_profile *p)
{
	const struct hesper_trace *t = &p->trace;
	size_t shown = t->count < HESPER_HTML_TIMELINE_MAX ? t->count : HESPER_HTML_TIMELINE_MAX;
	struct hesper_trace_event *first = NULL;
	const struct hesper_trace_event **heap = NULL;
	uint32_t *name_of = NULL;
	struct hesper_trace_layout l = {0};
	char name[HESPER_TRACK_NAME_MAX];
	uint64_t origin = hesper_trace_origin(t), last_start = 0;
	int ret = -1;

	if (shown) {
		first = malloc(shown * sizeof(*first));
		heap = malloc(shown * sizeof(*heap));
		name_of = malloc(shown * sizeof(*name_of));
		if (!first || !heap || !name_of)
			goto out;
		shown = earliest_events(t, first, shown, heap);
	}
	if (hesper_trace_layout_build(&l, first, shown) != 0)
		goto out;
	for (size_t i = 0; i < shown; i++)
		if (first[i].start_ns - origin > last_start)
			last_start = first[i].start_ns - origin;

	fprintf(out,
		"{\"total\": %zu, \"shown\": %zu, \"limit\": %u, \"left_out\": %" PRIu64
		", \"not_drawn\": %zu, \"last_start_ns\": %" PRIu64 ",\n\"tracks\": [",
		t->count, shown, HESPER_HTML_TIMELINE_MAX, t->left_out, l.unplaced, last_start);
	for (size_t i = 0; i < l.track_count; i++) {
		hesper_trace_track_name(name, sizeof(name), p, &l.tracks[i]);
		fputs(i ? ", " : "", out);
		hesper_html_json_string(out, name);
	}
	fputs("],\n\"kinds\": [", out);
	for (size_t k = 0; k < KIND_COUNT; k++)
		fprintf(out, "%s{\"name\": \"%s\", \"colour\": \"%s\"}", k ? ", " : "", kinds[k].name, kinds[k].colour);
	fputs("],\n", out);
	if (put_names(out, first, shown, name_of) != 0)
		goto out;
	fputs("\"events\": [", out);
	for (size_t i = 0, n = 0; i < l.count; i++) {
		const struct hesper_trace_event *e = &first[l.order[i]];
		uint64_t end = e->end_ns > e->start_ns ? e->end_ns : e->start_ns;

		if (l.track_of[i] == SIZE_MAX)
			continue;
		fprintf(out, "%s[%zu,%" PRIu64 ",%" PRIu64 ",%d,%" PRIu32 "]", n++ ? ",\n" : "\n", l.track_of[i],
			e->start_ns - origin, end - e->start_ns, (int)e->kind, name_of[l.order[i]]);
	}
	fputs("]}", out);
	ret = 0;
out:
	hesper_trace_layout_free(&l);
	free(first);
	free(heap);
	free(name_of);
	return ret;
}

void
hesper_html_timeline(FILE *out, const struct hesper_profile *p)
{
	const struct hesper_trace *t = &p->trace;
	size_t shown = t->count < HESPER_HTML_TIMELINE_MAX ? t->count : HESPER_HTML_TIMELINE_MAX;

	fputs("<h2>Timeline</h2>\n<p class=\"note\" id=\"timeline-note\">", out);
	if (t->count == 0) {
		fprintf(out, "No timeline events were kept%s.",
			t->left_out ? " (all were left out by the event cap, HESPER_MAX_EVENTS)" : "");
	} else if (shown == t->count) {
		fprintf(out, "All %zu events the run kept", t->count);
	} else {
		/* Honest about what is missing, and where it is. */
		fprintf(out,
			"This page holds the first %zu of the %zu events the run kept (a page holds at most %u); "
			"the other %zu, later in the run, are not drawn here: the trace report "
			"(<code>trace:PATH</code>) has every event kept",
			shown, t->count, HESPER_HTML_TIMELINE_MAX, t->count - shown);
	}
	if (t->count && t->left_out)
		fprintf(out,
			"; %" PRIu64 " more were left out by the event cap (HESPER_MAX_EVENTS; HESPER_TRACE_ALL=1 "
			"streams every event to the trace report)",
			t->left_out);
	if (t->count)
		fputs(". One row per queue's dispatches, memory operations, labels and submissions, and per host "
		      "thread's submit calls and waits (further lanes where work overlapped). Scroll over the "
		      "timeline or use the buttons to zoom, drag to move; every event in the page is drawn at every "
		      "zoom (events narrower than a pixel share it), hover for details.",
		      out);
	fputs("</p>\n<div id=\"timeline\"><div id=\"tip\"></div></div>\n", out);
}
