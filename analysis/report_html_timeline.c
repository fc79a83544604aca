/*
 * The HTML report's timeline (report_html_parts.h): its section, and its data as JSON
 * for the page script, which draws it on a canvas. Only the first HTML_TIMELINE_MAX
 * events are drawn: a page with every event of a long run would not open; the trace
 * report has them all.
 */
#include "report_html_parts.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "trace_layout.h"

#define HTML_TIMELINE_MAX 2000u /* events drawn in the timeline */

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

/* The timeline data, as JSON for the script: tracks and [track, start, duration, kind, name] events. */
int
hesper_html_timeline_data(FILE *out, const struct hesper_profile *p)
{
	const struct hesper_trace *t = &p->trace;
	size_t shown = t->count < HTML_TIMELINE_MAX ? t->count : HTML_TIMELINE_MAX;
	struct hesper_trace_event *first = NULL;
	const struct hesper_trace_event **heap = NULL;
	struct hesper_trace_layout l = {0};
	char name[HESPER_TRACK_NAME_MAX];
	uint64_t origin = hesper_trace_origin(t);
	int ret = -1;

	if (shown) {
		first = malloc(shown * sizeof(*first));
		heap = malloc(shown * sizeof(*heap));
		if (!first || !heap)
			goto out;
		shown = earliest_events(t, first, shown, heap);
	}
	if (hesper_trace_layout_build(&l, first, shown) != 0)
		goto out;

	fprintf(out, "{\"total\": %zu, \"shown\": %zu, \"left_out\": %" PRIu64 ", \"not_drawn\": %zu, \"tracks\": [",
		t->count, shown, t->left_out, l.unplaced);
	for (size_t i = 0; i < l.track_count; i++) {
		hesper_trace_track_name(name, sizeof(name), p, &l.tracks[i]);
		fputs(i ? ", " : "", out);
		hesper_html_json_string(out, name);
	}
	fputs("],\n\"events\": [", out);
	for (size_t i = 0, n = 0; i < l.count; i++) {
		const struct hesper_trace_event *e = &first[l.order[i]];
		uint64_t end = e->end_ns > e->start_ns ? e->end_ns : e->start_ns;

		if (l.track_of[i] == SIZE_MAX)
			continue;
		fprintf(out, "%s[%zu, %" PRIu64 ", %" PRIu64 ", %d, ", n++ ? ",\n" : "\n", l.track_of[i],
			e->start_ns - origin, end - e->start_ns, (int)e->kind);
		hesper_html_json_string(out, e->kind == HESPER_TRACE_BATCH         ? "batch"
					     : e->kind == HESPER_TRACE_HOST_SUBMIT ? "vkQueueSubmit"
					     : e->name                             ? e->name
										   : "?");
		fputc(']', out);
	}
	fputs("]}", out);
	ret = 0;
out:
	hesper_trace_layout_free(&l);
	free(first);
	free(heap);
	return ret;
}

void
hesper_html_timeline(FILE *out, const struct hesper_profile *p)
{
	const struct hesper_trace *t = &p->trace;
	size_t shown = t->count < HTML_TIMELINE_MAX ? t->count : HTML_TIMELINE_MAX;

	fputs("<h2>Timeline</h2>\n", out);
	if (t->count == 0) {
		fprintf(out, "<p class=\"note\">No timeline events were kept%s.</p>\n",
			t->left_out ? " (all were left out by the event cap)" : "");
	} else {
		fprintf(out, "<p class=\"note\">The first %zu of %zu events kept", shown, t->count);
		if (t->left_out)
			fprintf(out, " (%" PRIu64 " more were left out by the cap)", t->left_out);
		fputs(", from the first event on; one row per queue lane, labels, submissions and host threads. "
		      "Hover for details; the trace report has all of them.</p>\n",
		      out);
	}
	fputs("<div id=\"timeline\"><div id=\"tip\"></div></div>\n", out);
}
