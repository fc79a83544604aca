/*
 * The capture window (see capture.h). Its state changes only on the collector's side,
 * under the process lock; the record hooks read one atomic flag (struct hesper_process.capture_closed).
 *
 * Where the boundary is exact:
 * - time bounds are checked per submission, against the host time of its submit call:
 *   a submission made inside the window is timed whole, even the part the GPU runs after
 *   the stop time;
 * - label bounds are exact to the dispatch within one queue: the window opens at the first
 *   dispatch after the start label's first execution begins, and closes after the last
 *   dispatch before the stop label's N-th execution ends. Runs on several queues are taken
 *   in the order the collector accounts for them (queue by queue), not the GPU's order.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "state/state.h"
#include "analysis.h"
#include "record/record.h"

enum window_state { NOT_OPENED, OPEN, CLOSED };

static struct {
	bool set;
	struct hesper_capture_bound start, stop;
	struct hesper_name *start_label, *stop_label; /* interned: compared by pointer */
	uint64_t process_start_ns;
	enum window_state state;
	uint64_t opened_host_ns, closed_host_ns; /* host clock */
	uint64_t stop_seen;                      /* runs of the stop label ended inside so far */
	uint64_t last_end_host_ns;               /* host clock: the latest end of GPU work inside */
	uint64_t outside, memops_outside, submissions_outside;
} window;

static pthread_once_t window_once = PTHREAD_ONCE_INIT;

/* Reads the window from the settings; HESPER_START counts from the process start. */
static void window_init(void)
{
	const struct hesper_process *p = hesper_process();
	const struct hesper_settings *s = &p->settings;
	uint64_t start_ns = p->start_ns;
	window.start = s->start;
	window.stop = s->stop;
	window.process_start_ns = start_ns;
	window.set = s->start.kind != HESPER_BOUND_NONE || s->stop.kind != HESPER_BOUND_NONE;
	if (s->start.kind == HESPER_BOUND_LABEL)
		window.start_label = hesper_intern(s->start.label);
	if (s->stop.kind == HESPER_BOUND_LABEL)
		window.stop_label = hesper_intern(s->stop.label);
	if ((s->start.kind == HESPER_BOUND_LABEL && !window.start_label) ||
	    (s->stop.kind == HESPER_BOUND_LABEL && !window.stop_label)) {
		hesper_log("out of memory reading the capture window; every dispatch is timed");
		window.set = false;
	}
	if (s->start.kind == HESPER_BOUND_NONE || (s->start.kind == HESPER_BOUND_TIME && s->start.ns == 0)) {
		window.state = OPEN;
		window.opened_host_ns = start_ns;
	}
}

bool hesper_capture_set(void)
{
	pthread_once(&window_once, window_init);
	return window.set;
}

static void open_at(uint64_t host_ns)
{
	window.state = OPEN;
	window.opened_host_ns = host_ns;
}

static void close_at(uint64_t host_ns)
{
	window.state = CLOSED;
	window.closed_host_ns = host_ns;
	atomic_store(&hesper_process()->capture_closed, true);
}

/* Time bounds, at a submission made at @host_ns. */
static void apply_time(uint64_t host_ns)
{
	if (window.state == NOT_OPENED && window.start.kind == HESPER_BOUND_TIME &&
	    host_ns >= window.process_start_ns + window.start.ns)
		open_at(host_ns);
	if (window.state == OPEN && window.stop.kind == HESPER_BOUND_TIME &&
	    host_ns >= window.opened_host_ns + window.stop.ns)
		close_at(host_ns);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Where the stop label closes the window in @rec's run: the end position of the run of
 * the stop label, among those begun at region index @first or later, that makes
 * window.stop.nth; UINT64_MAX when it does not close here (the ones seen are counted).
 */
static uint64_t stop_label_end(const struct hesper_recording *rec, uint32_t first)
{
	uint64_t small[64], *ends = small;
	size_t n = 0, cap = sizeof(small) / sizeof(small[0]);
	uint64_t closes = UINT64_MAX;
	for (size_t i = first; i < rec->region_count; i++) {
		const struct hesper_region_record *r = &rec->regions[i];
		if (r->label != window.stop_label || r->end_at == HESPER_REGION_OPEN)
			continue;
		if (n == cap) {
			uint64_t *grown = malloc(cap * 2 * sizeof(*grown));
			if (!grown)
				break; /* out of memory: the later ends of this run are not counted */
			memcpy(grown, ends, n * sizeof(*ends));
			if (ends != small)
				free(ends);
			ends = grown;
			cap *= 2;
		}
		ends[n++] = r->end_at;
	}
	/* Nested runs of one label end inner first: in order of their ends, not their begins. */
	qsort(ends, n, sizeof(*ends), compare_u64);
	uint64_t wanted = window.stop.nth - window.stop_seen;
	if (n >= wanted) {
		closes = ends[wanted - 1];
		window.stop_seen = window.stop.nth;
	} else {
		window.stop_seen += n;
	}
	if (ends != small)
		free(ends);
	return closes;
}

struct hesper_capture_span hesper_capture_run(const struct hesper_recording *rec, uint64_t host_ns, uint32_t *opened_at)
{
	struct hesper_capture_span none = {0, 0};
	*opened_at = UINT32_MAX;
	if (!hesper_capture_set())
		return (struct hesper_capture_span){0, UINT64_MAX};
	apply_time(host_ns);
	if (window.state == CLOSED)
		return none;
	uint64_t from = 0;
	uint32_t first_region = 0;
	if (window.state == NOT_OPENED) {
		if (window.start.kind != HESPER_BOUND_LABEL)
			return none;
		size_t i = 0;
		while (i < rec->region_count && rec->regions[i].label != window.start_label)
			i++;
		if (i == rec->region_count)
			return none;
		open_at(host_ns);
		from = rec->regions[i].begin_at;
		first_region = (uint32_t)i;
		*opened_at = first_region;
	}
	uint64_t to = UINT64_MAX;
	if (window.stop.kind == HESPER_BOUND_LABEL) {
		to = stop_label_end(rec, first_region);
		if (to != UINT64_MAX)
			close_at(host_ns);
	}
	return (struct hesper_capture_span){from, to};
}

bool hesper_capture_open_at(uint64_t host_ns)
{
	if (!hesper_capture_set())
		return true;
	apply_time(host_ns);
	return window.state == OPEN;
}

void hesper_capture_count_outside(uint64_t dispatches, uint64_t memops)
{
	window.outside += dispatches;
	window.memops_outside += memops;
}

void hesper_capture_count_submission(bool inside)
{
	if (!inside)
		window.submissions_outside++;
}

void hesper_capture_note_end(uint64_t host_ns)
{
	if (host_ns > window.last_end_host_ns)
		window.last_end_host_ns = host_ns;
}

/* Host time @ns as time since the process start (0 when before it). */
static uint64_t since_start(uint64_t ns)
{
	return ns > window.process_start_ns ? ns - window.process_start_ns : 0;
}

void hesper_capture_describe(struct hesper_capture_info *out)
{
	memset(out, 0, sizeof(*out));
	out->set = hesper_capture_set();
	if (!out->set)
		return;
	hesper_capture_bound_format(&window.start, false, out->start, sizeof(out->start));
	hesper_capture_bound_format(&window.stop, true, out->stop, sizeof(out->stop));
	out->opened = window.state != NOT_OPENED;
	out->closed = window.state == CLOSED;
	out->opened_ns = out->opened ? since_start(window.opened_host_ns) : 0;
	out->closed_ns = out->closed ? since_start(window.closed_host_ns) : 0;
	/* Work inside that the GPU finished after the close still belongs to the window's time. */
	out->end_ns = window.last_end_host_ns ? since_start(window.last_end_host_ns) : 0;
	out->outside = window.outside;
	out->memops_outside = window.memops_outside;
	out->submissions_outside = window.submissions_outside;
}
