/*
 * Track and lane layout of timeline events.
 *
 * The events are sorted once by (group, start, longest first); then each group is swept
 * with one stack of open end times per lane: an event goes into the first lane whose
 * innermost open event ends at or before it starts (after popping those that ended) or
 * contains it entirely.
 */
#include "trace_layout.h"

#include <stdlib.h>
#include <string.h>

struct item {
	uint32_t host; /* 0: GPU group, 1: host thread group (sorts after every GPU group) */
	uint32_t key;  /* queue or thread */
	uint32_t kind;
	uint64_t start, end;
	size_t index;
};

struct lane {
	uint64_t *ends; /* open events, innermost last */
	size_t depth, capacity;
};

bool
hesper_trace_kind_is_host(enum hesper_trace_kind kind)
{
	return kind == HESPER_TRACE_HOST_SUBMIT || kind == HESPER_TRACE_HOST_WAIT;
}

static int
cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int
same_group(const struct item *a, const struct item *b)
{
	return a->host == b->host && a->key == b->key && a->kind == b->kind;
}

static int
compare_items(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	int c;

	if ((c = cmp_u64(a->host, b->host)) || (c = cmp_u64(a->key, b->key)) || (c = cmp_u64(a->kind, b->kind)) ||
	    (c = cmp_u64(a->start, b->start)))
		return c;
	if ((c = cmp_u64(b->end, a->end))) /* the enclosing event first */
		return c;
	return cmp_u64(a->index, b->index);
}

/*
 * Puts [start, end) into lane @l if it fits there: after the lane's open events, or inside
 * the innermost when @nest; false otherwise (or out of memory, *@oom set).
 */
static bool
try_lane(struct lane *l, uint64_t start, uint64_t end, bool nest, bool *oom)
{
	while (l->depth > 0 && l->ends[l->depth - 1] <= start)
		l->depth--;
	if (l->depth > 0 && (!nest || end > l->ends[l->depth - 1]))
		return false;
	if (l->depth == l->capacity) {
		size_t capacity = l->capacity ? l->capacity * 2 : 16;
		uint64_t *ends = realloc(l->ends, capacity * sizeof(*ends));

		if (!ends) {
			*oom = true;
			return false;
		}
		l->ends = ends;
		l->capacity = capacity;
	}
	l->ends[l->depth++] = end;
	return true;
}

/* Lays out items[first, last), one group; appends its tracks. Returns 0 or -1 out of memory. */
static int
layout_group(struct hesper_trace_layout *out, const struct item *items, size_t first, size_t last)
{
	struct lane lanes[HESPER_TRACE_MAX_LANES];
	size_t used = 0, base = out->track_count;
	bool oom = false;
	int ret = -1;

	/*
	 * Only label ranges nest: two dispatches (or batches, copies, host calls) of which one
	 * lies within the other ran at the same time, side by side, so they go on two lanes.
	 */
	bool nest = items[first].kind == HESPER_TRACE_REGION;

	memset(lanes, 0, sizeof(lanes));
	for (size_t i = first; i < last && !oom; i++) {
		size_t lane = 0;

		while (lane < used && !try_lane(&lanes[lane], items[i].start, items[i].end, nest, &oom))
			lane++;
		if (!oom && lane == used) {
			if (used < HESPER_TRACE_MAX_LANES &&
			    try_lane(&lanes[used], items[i].start, items[i].end, nest, &oom))
				used++;
			else
				lane = SIZE_MAX;
		}
		out->order[i] = items[i].index;
		out->track_of[i] = lane == SIZE_MAX ? SIZE_MAX : base + lane;
		out->unplaced += lane == SIZE_MAX;
	}
	if (oom)
		goto out;

	struct hesper_trace_track *tracks = realloc(out->tracks, (base + used) * sizeof(*tracks));
	if (!tracks && used > 0)
		goto out;
	if (tracks)
		out->tracks = tracks;
	for (size_t l = 0; l < used; l++) {
		out->tracks[base + l].kind = (enum hesper_trace_kind)items[first].kind;
		out->tracks[base + l].key = items[first].key;
		out->tracks[base + l].lane = (uint32_t)l + 1;
	}
	out->track_count = base + used;
	ret = 0;
out:
	for (size_t l = 0; l < HESPER_TRACE_MAX_LANES; l++)
		free(lanes[l].ends);
	return ret;
}

int
hesper_trace_layout_build(struct hesper_trace_layout *out, const struct hesper_trace_event *events, size_t n)
{
	struct item *items = NULL;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return 0;
	items = malloc(n * sizeof(*items));
	out->order = malloc(n * sizeof(*out->order));
	out->track_of = malloc(n * sizeof(*out->track_of));
	if (!items || !out->order || !out->track_of)
		goto fail;
	out->count = n;

	for (size_t i = 0; i < n; i++) {
		const struct hesper_trace_event *e = &events[i];
		bool host = hesper_trace_kind_is_host(e->kind);

		items[i].host = host;
		items[i].key = host ? e->thread : e->queue;
		items[i].kind = (uint32_t)e->kind;
		items[i].start = e->start_ns;
		items[i].end = e->end_ns > e->start_ns ? e->end_ns : e->start_ns; /* clamped */
		items[i].index = i;
	}
	qsort(items, n, sizeof(*items), compare_items);

	for (size_t first = 0, last; first < n; first = last) {
		for (last = first + 1; last < n && same_group(&items[first], &items[last]); last++)
			;
		if (layout_group(out, items, first, last) != 0)
			goto fail;
	}
	free(items);
	return 0;
fail:
	free(items);
	hesper_trace_layout_free(out);
	return -1;
}

void
hesper_trace_layout_free(struct hesper_trace_layout *l)
{
	free(l->order);
	free(l->track_of);
	free(l->tracks);
	memset(l, 0, sizeof(*l));
}

uint64_t
hesper_trace_origin(const struct hesper_trace *t)
{
	/* 0 means the layer did not set one: start at the first event. */
	uint64_t origin = t->origin_ns ? t->origin_ns : UINT64_MAX;

	for (size_t i = 0; i < t->count; i++)
		if (t->events[i].start_ns < origin)
			origin = t->events[i].start_ns;
	return origin == UINT64_MAX ? 0 : origin;
}
