/* Unit tests for analysis/write/report_trace.c: the Chrome trace-event JSON, parsed back with json-c. */
#include <check.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixtures.h"
#include "timeline/timeline.h"

#define GPU_TID_BASE 1000000000

/* The report of @p parsed; fails the test when it is not JSON of the expected shape. */
static json_object *
parse(const struct hesper_profile *p)
{
	char *text = render_with(hesper_report_trace, p, NULL);
	json_object *root = json_tokener_parse(text), *v;

	ck_assert_msg(root != NULL, "not JSON:\n%s", text);
	ck_assert(json_object_object_get_ex(root, "displayTimeUnit", &v));
	ck_assert_str_eq(json_object_get_string(v), "ns");
	ck_assert(json_object_object_get_ex(root, "traceEvents", &v));
	ck_assert(json_object_is_type(v, json_type_array));
	ck_assert(json_object_object_get_ex(root, "metadata", &v));
	ck_assert(json_object_is_type(v, json_type_object));
	free(text);
	return root;
}

static json_object *
get(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s in %s", key, json_object_to_json_string(o));
	return v;
}

static json_object *
meta(json_object *root)
{
	return get(root, "metadata");
}

static size_t
event_count(json_object *root)
{
	return json_object_array_length(get(root, "traceEvents"));
}

static json_object *
event(json_object *root, size_t i)
{
	return json_object_array_get_idx(get(root, "traceEvents"), i);
}

/* The name given to thread @tid by a thread_name event, or NULL. */
static const char *
thread_name(json_object *root, int64_t tid)
{
	for (size_t i = 0; i < event_count(root); i++) {
		json_object *e = event(root, i);

		if (strcmp(json_object_get_string(get(e, "ph")), "M") == 0 &&
		    strcmp(json_object_get_string(get(e, "name")), "thread_name") == 0 &&
		    json_object_get_int64(get(e, "tid")) == tid)
			return json_object_get_string(get(get(e, "args"), "name"));
	}
	return NULL;
}

/* The @n-th "X" event named @name (0 = first), or NULL. */
static json_object *
find_x(json_object *root, const char *name, int n)
{
	for (size_t i = 0; i < event_count(root); i++) {
		json_object *e = event(root, i);

		if (strcmp(json_object_get_string(get(e, "ph")), "X") == 0 &&
		    strcmp(json_object_get_string(get(e, "name")), name) == 0 && n-- == 0)
			return e;
	}
	return NULL;
}

static size_t
count_x(json_object *root)
{
	size_t n = 0;

	for (size_t i = 0; i < event_count(root); i++)
		n += strcmp(json_object_get_string(get(event(root, i), "ph")), "X") == 0;
	return n;
}

/* ts/dur in integer nanoseconds (they are printed with three decimals). */
static int64_t
ns_of(json_object *e, const char *key)
{
	return (int64_t)(json_object_get_double(get(e, key)) * 1000.0 + 0.5);
}

static const char *
str_of(json_object *e, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(e, key, &v) ? json_object_get_string(v) : NULL;
}

static bool
is_ph(json_object *e, const char *ph)
{
	return strcmp(str_of(e, "ph"), ph) == 0;
}

/* The innermost "X" event on thread @tid whose slice holds @ts (start <= ts < end), or NULL. */
static json_object *
enclosing_slice(json_object *root, int64_t tid, int64_t ts)
{
	json_object *best = NULL;

	for (size_t i = 0; i < event_count(root); i++) {
		json_object *e = event(root, i);
		int64_t start;

		if (!is_ph(e, "X") || json_object_get_int64(get(e, "tid")) != tid)
			continue;
		start = ns_of(e, "ts");
		if (start <= ts && ts < start + ns_of(e, "dur") && (!best || start >= ns_of(best, "ts")))
			best = e;
	}
	return best;
}

/*
 * The Trace Event Format's rules as Perfetto and chrome://tracing apply them, checked on
 * a whole trace: one thread_name per thread and no two alike, every slice's thread named;
 * slices of one thread disjoint or nested; every flow start "s" matched by exactly one flow
 * end "f" (same id, category and name) that binds to its enclosing slice ("bp": "e"), the
 * start inside a submit call's slice and the end inside a GPU slice (batch, dispatch or
 * memory operation) of the same submission. Returns the number of flows.
 */
static size_t
check_trace_rules(json_object *root)
{
	size_t n = event_count(root), flows = 0;

	for (size_t i = 0; i < n; i++) {
		json_object *a = event(root, i);
		int64_t tid = json_object_get_int64(get(a, "tid"));

		if (is_ph(a, "M") && strcmp(str_of(a, "name"), "thread_name") == 0) {
			for (size_t j = i + 1; j < n; j++) {
				json_object *b = event(root, j);

				if (!is_ph(b, "M") || strcmp(str_of(b, "name"), "thread_name") != 0)
					continue;
				ck_assert_msg(json_object_get_int64(get(b, "tid")) != tid,
					      "thread %" PRId64 " named twice", tid);
				ck_assert_msg(strcmp(str_of(get(a, "args"), "name"), str_of(get(b, "args"), "name")),
					      "two threads named '%s'", str_of(get(a, "args"), "name"));
			}
		}
		if (is_ph(a, "X")) {
			ck_assert_msg(thread_name(root, tid) != NULL, "thread %" PRId64 " has slices, no name", tid);
			int64_t s0 = ns_of(a, "ts"), e0 = s0 + ns_of(a, "dur");
			for (size_t j = i + 1; j < n; j++) {
				json_object *b = event(root, j);

				if (!is_ph(b, "X") || json_object_get_int64(get(b, "tid")) != tid)
					continue;
				int64_t s1 = ns_of(b, "ts"), e1 = s1 + ns_of(b, "dur");
				bool apart = e0 <= s1 || e1 <= s0,
				     nested = (s0 <= s1 && e1 <= e0) || (s1 <= s0 && e0 <= e1);
				ck_assert_msg(apart || nested,
					      "thread %" PRId64 ": [%" PRId64 ", %" PRId64 ") and [%" PRId64
					      ", %" PRId64 ") overlap partially",
					      tid, s0, e0, s1, e1);
			}
		}
		if (!is_ph(a, "s"))
			continue;
		json_object *end = NULL;
		for (size_t j = 0; j < n; j++) {
			json_object *b = event(root, j);

			if ((is_ph(b, "f") || is_ph(b, "s")) && b != a &&
			    strcmp(str_of(b, "id"), str_of(a, "id")) == 0) {
				ck_assert_msg(is_ph(b, "f") && !end, "flow %s: more than one start or end",
					      str_of(a, "id"));
				end = b;
			}
		}
		ck_assert_msg(end != NULL, "flow %s has no end", str_of(a, "id"));
		ck_assert_str_eq(str_of(end, "cat"), str_of(a, "cat"));
		ck_assert_str_eq(str_of(end, "name"), str_of(a, "name"));
		ck_assert_str_eq(str_of(end, "bp"), "e");
		json_object *from = enclosing_slice(root, tid, ns_of(a, "ts"));
		json_object *to = enclosing_slice(root, json_object_get_int64(get(end, "tid")), ns_of(end, "ts"));
		ck_assert_msg(from && strcmp(str_of(from, "cat"), "submit") == 0, "flow %s starts outside a submit",
			      str_of(a, "id"));
		ck_assert_msg(to && (strcmp(str_of(to, "cat"), "batch") == 0 ||
				     strcmp(str_of(to, "cat"), "dispatch") == 0 ||
				     strcmp(str_of(to, "cat"), "memory") == 0),
			      "flow %s ends outside GPU work", str_of(a, "id"));
		ck_assert_int_eq(json_object_get_int64(get(get(from, "args"), "submission")),
				 json_object_get_int64(get(get(to, "args"), "submission")));
		flows++;
	}
	/* Each end was matched to one start above: an end without a start is one too many. */
	size_t ends = 0;
	for (size_t i = 0; i < n; i++)
		ends += is_ph(event(root, i), "f");
	ck_assert_uint_eq(ends, flows);
	return flows;
}

static void
base_profile(struct hesper_profile *p)
{
	fixture_profile(p, 321, "app", "h", "");
	hesper_profile_queue(p, 0, 2, 1);
	p->trace.origin_ns = 1000000;
}

static void
add(struct hesper_profile *p, enum hesper_trace_kind kind, uint32_t queue, const char *name, uint64_t start,
    uint64_t end)
{
	struct hesper_trace_event e = {
		.kind = kind,
		.queue = queue,
		.thread = 77,
		.name = name,
		.start_ns = start,
		.end_ns = end,
		.groups = {4, 2, 1},
		.command_buffer = 0xabcdef,
		.submission = 5,
	};

	ck_assert(hesper_trace_add(&p->trace, &e));
}

START_TEST(empty_profile)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	json_object *root = parse(&p), *m = meta(root);

	ck_assert_uint_eq(count_x(root), 0);
	ck_assert_str_eq(json_object_get_string(get(m, "schema")), "hesper-trace/1");
	ck_assert_int_eq(json_object_get_int64(get(m, "events")), 0);
	ck_assert_int_eq(json_object_get_int64(get(m, "events_left_out")), 0);
	ck_assert_int_eq(json_object_get_int64(get(m, "max_events")), HESPER_TRACE_DEFAULT_MAX_EVENTS);
	ck_assert(!json_object_get_boolean(get(m, "calibrated")));
	ck_assert(json_object_is_type(get(m, "alignment_error_ns"), json_type_null));
	ck_assert(json_object_is_type(get(m, "hesper_version"), json_type_string));
	/* The process is named even with no events (and no exe: "?"). */
	json_object *e = event(root, 0);
	ck_assert_str_eq(json_object_get_string(get(e, "name")), "process_name");
	ck_assert_str_eq(json_object_get_string(get(get(e, "args"), "name")), "?");
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(tracks_and_events)
{
	struct hesper_profile p;

	base_profile(&p);
	p.trace.calibrated = true;
	p.trace.alignment_error_ns = 250.5;
	p.trace.left_out = 3;
	add(&p, HESPER_TRACE_DISPATCH, 0, "matmul", 1001000, 1002500);
	add(&p, HESPER_TRACE_REGION, 0, "frame", 1000500, 1010000);
	add(&p, HESPER_TRACE_BATCH, 0, NULL, 1000400, 1010000);
	add(&p, HESPER_TRACE_HOST_SUBMIT, 0, NULL, 1000000, 1000300);
	add(&p, HESPER_TRACE_DISPATCH, 1, "copy", 1001000, 1001001);

	json_object *root = parse(&p), *m = meta(root), *e, *args;

	ck_assert_uint_eq(count_x(root), 5);
	ck_assert_int_eq(json_object_get_int64(get(m, "events")), 5);
	ck_assert_int_eq(json_object_get_int64(get(m, "events_left_out")), 3);
	ck_assert_int_eq(json_object_get_int64(get(m, "origin_ns")), 1000000);
	ck_assert(json_object_get_boolean(get(m, "calibrated")));
	ck_assert_double_eq(json_object_get_double(get(m, "alignment_error_ns")), 250.5);
	ck_assert_str_eq(json_object_get_string(get(m, "exe")), "app");
	ck_assert_int_eq(json_object_get_int(get(m, "pid")), 321);

	e = find_x(root, "matmul", 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(json_object_get_int(get(e, "pid")), 321);
	ck_assert_int_eq(ns_of(e, "ts"), 1000);
	ck_assert_int_eq(ns_of(e, "dur"), 1500);
	ck_assert_str_eq(json_object_get_string(get(e, "cat")), "dispatch");
	args = get(e, "args");
	ck_assert_str_eq(json_object_get_string(get(args, "kernel")), "matmul");
	ck_assert_str_eq(json_object_get_string(get(args, "command_buffer")), "0x0000000000abcdef");
	ck_assert_int_eq(json_object_get_int(get(args, "submission")), 5);
	ck_assert_int_eq(json_object_array_length(get(args, "groups")), 3);
	ck_assert_int_eq(json_object_get_int(json_object_array_get_idx(get(args, "groups"), 0)), 4);
	ck_assert_str_eq(thread_name(root, json_object_get_int64(get(e, "tid"))),
			 "GPU 0 Test GPU queue family 0 index 0 dispatches");

	e = find_x(root, "copy", 0);
	ck_assert_int_eq(ns_of(e, "dur"), 1);
	ck_assert_str_eq(thread_name(root, json_object_get_int64(get(e, "tid"))),
			 "GPU 0 Test GPU queue family 2 index 1 dispatches");

	e = find_x(root, "frame", 0);
	ck_assert_str_eq(json_object_get_string(get(get(e, "args"), "label")), "frame");
	ck_assert_str_eq(thread_name(root, json_object_get_int64(get(e, "tid"))),
			 "GPU 0 Test GPU queue family 0 index 0 labels");
	e = find_x(root, "batch", 0);
	ck_assert_str_eq(thread_name(root, json_object_get_int64(get(e, "tid"))),
			 "GPU 0 Test GPU queue family 0 index 0 submissions");

	/* Host submits keep the real thread id, and say which queue they went to. */
	e = find_x(root, "vkQueueSubmit", 0);
	ck_assert_int_eq(json_object_get_int64(get(e, "tid")), 77);
	ck_assert_int_eq(ns_of(e, "ts"), 0);
	ck_assert_str_eq(thread_name(root, 77), "CPU thread 77 submits");
	ck_assert_str_eq(json_object_get_string(get(get(e, "args"), "queue")), "GPU 0 Test GPU queue family 0 index 0");
	ck_assert_uint_eq(check_trace_rules(root), 1);
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(overlaps_go_to_lanes)
{
	struct hesper_profile p;

	base_profile(&p);
	add(&p, HESPER_TRACE_DISPATCH, 0, "a", 1001000, 1002000);
	add(&p, HESPER_TRACE_DISPATCH, 0, "b", 1001500, 1002500); /* overlaps a partially: lane 2 */
	/* inside a and b: dispatches do not nest (it ran beside them): lane 3 */
	add(&p, HESPER_TRACE_DISPATCH, 0, "c", 1001600, 1001700);
	add(&p, HESPER_TRACE_DISPATCH, 0, "d", 1002000, 1003000); /* starts as a ends: lane 1 */
	add(&p, HESPER_TRACE_DISPATCH, 0, "e", 1001900, 1002600); /* crosses a, b and d; after c: lane 3 */
	/* Label ranges do nest: one within another shares its lane. */
	add(&p, HESPER_TRACE_REGION, 0, "outer", 1001000, 1003000);
	add(&p, HESPER_TRACE_REGION, 0, "inner", 1001500, 1002000);

	json_object *root = parse(&p);
	int64_t ta = json_object_get_int64(get(find_x(root, "a", 0), "tid"));
	int64_t tb = json_object_get_int64(get(find_x(root, "b", 0), "tid"));
	int64_t tc = json_object_get_int64(get(find_x(root, "c", 0), "tid"));
	int64_t td = json_object_get_int64(get(find_x(root, "d", 0), "tid"));
	int64_t te = json_object_get_int64(get(find_x(root, "e", 0), "tid"));

	int64_t touter = json_object_get_int64(get(find_x(root, "outer", 0), "tid"));
	int64_t tinner = json_object_get_int64(get(find_x(root, "inner", 0), "tid"));

	ck_assert_int_eq(ta, td);
	ck_assert_int_ne(ta, tc);
	ck_assert_int_ne(tb, tc);
	ck_assert_int_ne(ta, tb);
	ck_assert_int_eq(te, tc);
	ck_assert_int_ge(ta, GPU_TID_BASE);
	ck_assert_str_eq(thread_name(root, ta), "GPU 0 Test GPU queue family 0 index 0 dispatches");
	ck_assert_str_eq(thread_name(root, tb), "GPU 0 Test GPU queue family 0 index 0 dispatches lane 2");
	ck_assert_str_eq(thread_name(root, te), "GPU 0 Test GPU queue family 0 index 0 dispatches lane 3");
	ck_assert_int_eq(touter, tinner);
	ck_assert_int_eq(json_object_get_int64(get(meta(root), "tracks")), 4);
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

/* Deterministic PRNG (xorshift64*). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng_next(void)
{
	return xorshift64s(&rng_state);
}

struct span {
	int64_t tid, start, end;
};

static int
cmp_span(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end < b->end) - (a->end > b->end);
}

START_TEST(no_partial_overlap_on_any_thread)
{
	struct hesper_profile p;
	enum { N = 3000 };

	base_profile(&p);
	for (int i = 0; i < N; i++) {
		uint64_t start = 1000000 + rng_next() % 1000000, len = rng_next() % 20000;
		enum hesper_trace_kind kind = (enum hesper_trace_kind)(rng_next() % 4);

		add(&p, kind, (uint32_t)(rng_next() % 2), "k", start, i % 50 == 0 ? start - 5 : start + len);
	}

	json_object *root = parse(&p);
	struct span *spans = calloc(N, sizeof(*spans));
	size_t n = 0;

	ck_assert_ptr_nonnull(spans);
	for (size_t i = 0; i < event_count(root); i++) {
		json_object *e = event(root, i);

		if (strcmp(json_object_get_string(get(e, "ph")), "X") != 0)
			continue;
		ck_assert_uint_lt(n, N);
		spans[n].tid = json_object_get_int64(get(e, "tid"));
		spans[n].start = ns_of(e, "ts");
		spans[n].end = spans[n].start + ns_of(e, "dur");
		ck_assert_int_ge(ns_of(e, "dur"), 0);
		n++;
	}
	ck_assert_uint_eq(n, N - json_object_get_int64(get(meta(root), "events_not_drawn")));
	ck_assert_uint_gt(n, N / 2);
	qsort(spans, n, sizeof(*spans), cmp_span);

	/* Per thread: every event is disjoint from or nested in each open one (a stack). */
	int64_t stack[N];
	size_t depth = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && spans[i].tid != spans[i - 1].tid)
			depth = 0;
		while (depth > 0 && stack[depth - 1] <= spans[i].start)
			depth--;
		ck_assert_msg(depth == 0 || spans[i].end <= stack[depth - 1],
			      "tid %" PRId64 ": [%" PRId64 ", %" PRId64 ") overlaps an open event ending at %" PRId64,
			      spans[i].tid, spans[i].start, spans[i].end, stack[depth - 1]);
		stack[depth++] = spans[i].end;
	}
	free(spans);
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(lanes_are_bounded)
{
	struct hesper_profile p;

	base_profile(&p);
	/* 70 events, each overlapping the previous one partially: 64 lanes, 6 not drawn. */
	for (uint64_t i = 0; i < 70; i++)
		add(&p, HESPER_TRACE_DISPATCH, 0, "k", 1000000 + i, 1001000 + i);

	json_object *root = parse(&p);

	ck_assert_int_eq(json_object_get_int64(get(meta(root), "events_not_drawn")), 6);
	ck_assert_int_eq(json_object_get_int64(get(meta(root), "tracks")), 64);
	ck_assert_uint_eq(count_x(root), 64);
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(names_escaped)
{
	struct hesper_profile p;
	const char *nasty = "q\"uote\\back\nline</script>\x01";

	base_profile(&p);
	strcpy(p.exe, "my \"app\"");
	strcpy(p.devices[0].name, "GPU \"x\"\\");
	add(&p, HESPER_TRACE_DISPATCH, 0, nasty, 1001000, 1002000);
	add(&p, HESPER_TRACE_REGION, 0, "bad \xff utf8", 1001000, 1002000);

	json_object *root = parse(&p), *e = find_x(root, nasty, 0);

	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(json_object_get_string(get(get(e, "args"), "kernel")), nasty);
	ck_assert_str_eq(thread_name(root, json_object_get_int64(get(e, "tid"))),
			 "GPU 0 GPU \"x\"\\ queue family 0 index 0 dispatches");
	ck_assert_ptr_nonnull(find_x(root, "bad \xef\xbf\xbd utf8", 0));
	ck_assert_str_eq(json_object_get_string(get(meta(root), "exe")), "my \"app\"");
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(origin_and_unknown_queue)
{
	struct hesper_profile p;

	base_profile(&p);
	/* An event before the origin moves the origin; an unknown queue still gets a track. */
	add(&p, HESPER_TRACE_DISPATCH, 9, "early", 999000, 999500);
	add(&p, HESPER_TRACE_DISPATCH, 0, "later", 1000000, 1000001);

	json_object *root = parse(&p), *e = find_x(root, "early", 0);

	ck_assert_int_eq(json_object_get_int64(get(meta(root), "origin_ns")), 999000);
	ck_assert_int_eq(ns_of(e, "ts"), 0);
	ck_assert_int_eq(ns_of(find_x(root, "later", 0), "ts"), 1000);
	ck_assert_str_eq(thread_name(root, json_object_get_int64(get(e, "tid"))), "GPU ? queue 9 dispatches");
	json_object_put(root);

	/* No origin set: the first event is time 0. */
	p.trace.origin_ns = 0;
	root = parse(&p);
	ck_assert_int_eq(json_object_get_int64(get(meta(root), "origin_ns")), 999000);
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

/* An event of @kind on @queue from thread @thread, part of submission @submission. */
static void
add_to(struct hesper_profile *p, enum hesper_trace_kind kind, uint32_t queue, uint32_t thread, uint64_t submission,
       const char *name, uint64_t start, uint64_t end)
{
	struct hesper_trace_event e = {
		.kind = kind,
		.queue = queue,
		.thread = thread,
		.name = name,
		.start_ns = start,
		.end_ns = end,
		.submission = submission,
		.bytes = kind == HESPER_TRACE_MEMORY_OP ? 64 : 0,
	};

	ck_assert(hesper_trace_add(&p->trace, &e));
}

/* The tid of the first "X" event of category @cat, or -1. */
static int64_t
tid_of_cat(json_object *root, const char *cat)
{
	for (size_t i = 0; i < event_count(root); i++) {
		json_object *e = event(root, i);

		if (is_ph(e, "X") && strcmp(str_of(e, "cat"), cat) == 0)
			return json_object_get_int64(get(e, "tid"));
	}
	return -1;
}

START_TEST(every_track_named_once_and_distinctly)
{
	struct hesper_profile p;

	/* One queue's four kinds of GPU track; one thread that submits and waits, one that only waits. */
	base_profile(&p);
	ck_assert(hesper_trace_name_thread(&p.trace, 77, "render"));
	add_to(&p, HESPER_TRACE_DISPATCH, 0, 77, 1, "k", 1001000, 1002000);
	add_to(&p, HESPER_TRACE_MEMORY_OP, 0, 77, 1, "copy buffer", 1002000, 1003000);
	add_to(&p, HESPER_TRACE_REGION, 0, 77, 1, "frame", 1001000, 1003000);
	add_to(&p, HESPER_TRACE_BATCH, 0, 77, 1, NULL, 1000900, 1003000);
	add_to(&p, HESPER_TRACE_HOST_SUBMIT, 0, 77, 1, "vkQueueSubmit", 1000000, 1000500);
	add_to(&p, HESPER_TRACE_HOST_WAIT, 0, 77, 0, "vkWaitForFences", 1000600, 1003100);
	add_to(&p, HESPER_TRACE_HOST_WAIT, 0, 78, 0, "vkQueueWaitIdle", 1000600, 1003100);

	json_object *root = parse(&p);

	check_trace_rules(root);
	ck_assert_str_eq(thread_name(root, tid_of_cat(root, "dispatch")),
			 "GPU 0 Test GPU queue family 0 index 0 dispatches");
	ck_assert_str_eq(thread_name(root, tid_of_cat(root, "memory")),
			 "GPU 0 Test GPU queue family 0 index 0 memory operations");
	ck_assert_str_eq(thread_name(root, tid_of_cat(root, "region")), "GPU 0 Test GPU queue family 0 index 0 labels");
	ck_assert_str_eq(thread_name(root, tid_of_cat(root, "batch")),
			 "GPU 0 Test GPU queue family 0 index 0 submissions");
	/* The thread's submits keep its real id; its waits get a track of their own. */
	ck_assert_int_eq(tid_of_cat(root, "submit"), 77);
	ck_assert_str_eq(thread_name(root, 77), "CPU thread 77 (render) submits");
	int64_t waits = -1, only_waits = -1;
	for (size_t i = 0; i < event_count(root); i++) {
		json_object *e = event(root, i);

		if (is_ph(e, "X") && strcmp(str_of(e, "name"), "vkWaitForFences") == 0)
			waits = json_object_get_int64(get(e, "tid"));
		if (is_ph(e, "X") && strcmp(str_of(e, "name"), "vkQueueWaitIdle") == 0)
			only_waits = json_object_get_int64(get(e, "tid"));
	}
	ck_assert_int_ge(waits, GPU_TID_BASE);
	ck_assert_str_eq(thread_name(root, waits), "CPU thread 77 (render) waits");
	/* A thread that only waited keeps its real id there, and no name was read for it. */
	ck_assert_int_eq(only_waits, 78);
	ck_assert_str_eq(thread_name(root, 78), "CPU thread 78 waits");
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

/* The flows of @root as "s"/"f" pairs: the slices they bind to, in the order of their starts. */
static void
flow_slices(json_object *root, size_t i, json_object **from, json_object **to)
{
	size_t seen = 0;

	*from = *to = NULL;
	for (size_t k = 0; k < event_count(root) && !*from; k++) {
		json_object *s = event(root, k);

		if (!is_ph(s, "s") || seen++ != i)
			continue;
		*from = enclosing_slice(root, json_object_get_int64(get(s, "tid")), ns_of(s, "ts"));
		for (size_t j = 0; j < event_count(root); j++) {
			json_object *f = event(root, j);

			if (is_ph(f, "f") && strcmp(str_of(f, "id"), str_of(s, "id")) == 0)
				*to = enclosing_slice(root, json_object_get_int64(get(f, "tid")), ns_of(f, "ts"));
		}
	}
}

START_TEST(flows_from_submits_to_their_first_gpu_work)
{
	struct hesper_profile p;
	json_object *from, *to;

	base_profile(&p);
	/* Submission 1 on queue 0: its batch starts first (the events come as the collector makes them). */
	add_to(&p, HESPER_TRACE_DISPATCH, 0, 77, 1, "k1", 1001000, 1002000);
	add_to(&p, HESPER_TRACE_REGION, 0, 77, 1, "frame", 1000700, 1003000); /* a label is no GPU work */
	add_to(&p, HESPER_TRACE_HOST_SUBMIT, 0, 77, 1, "vkQueueSubmit", 1000000, 1000400);
	add_to(&p, HESPER_TRACE_BATCH, 0, 77, 1, NULL, 1000800, 1002000);
	/* Submission 1 on queue 1 is another one: its memory operation comes first, a zero-length dispatch before it. */
	add_to(&p, HESPER_TRACE_DISPATCH, 1, 78, 1, "k2", 1004000, 1004000);
	add_to(&p, HESPER_TRACE_MEMORY_OP, 1, 78, 1, "fill buffer", 1004100, 1004300);
	add_to(&p, HESPER_TRACE_HOST_SUBMIT, 1, 78, 1, "vkQueueSubmit", 1003500, 1003900);
	/* A wait between submissions belongs to none. */
	add_to(&p, HESPER_TRACE_HOST_WAIT, 0, 78, 0, "vkWaitForFences", 1003950, 1004400);
	/* Submission 2 on queue 0 had no timed GPU work: no flow. */
	add_to(&p, HESPER_TRACE_HOST_SUBMIT, 0, 77, 2, "vkQueueSubmit", 1005000, 1005100);
	/* Submission 3 on queue 0: GPU work but its submit call was not kept: no flow. */
	add_to(&p, HESPER_TRACE_DISPATCH, 0, 77, 3, "k3", 1006000, 1006500);

	json_object *root = parse(&p);

	ck_assert_uint_eq(check_trace_rules(root), 2);
	ck_assert_int_eq(json_object_get_int64(get(meta(root), "flows")), 2);
	flow_slices(root, 0, &from, &to);
	ck_assert_str_eq(str_of(from, "cat"), "submit");
	ck_assert_int_eq(ns_of(from, "ts"), 0);
	ck_assert_str_eq(str_of(to, "cat"), "batch");
	flow_slices(root, 1, &from, &to);
	ck_assert_int_eq(ns_of(from, "ts"), 3500);
	ck_assert_str_eq(str_of(to, "name"), "fill buffer");
	json_object_put(root);

	/* The same events streamed (HESPER_TRACE_ALL) give the same flows. */
	p.trace.spool = hesper_trace_spool_open();
	ck_assert_ptr_nonnull(p.trace.spool);
	for (size_t i = 0; i < p.trace.count; i++)
		ck_assert(hesper_trace_spool_add(p.trace.spool, &p.trace.events[i]));
	root = parse(&p);
	ck_assert(json_object_get_boolean(get(meta(root), "streamed")));
	ck_assert_uint_eq(check_trace_rules(root), 2);
	flow_slices(root, 0, &from, &to);
	ck_assert_str_eq(str_of(to, "cat"), "batch");
	flow_slices(root, 1, &from, &to);
	ck_assert_str_eq(str_of(to, "name"), "fill buffer");
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(flow_ids_unique_per_process)
{
	struct hesper_profile p;

	base_profile(&p);
	add_to(&p, HESPER_TRACE_HOST_SUBMIT, 0, 77, 1, "vkQueueSubmit", 1000000, 1000400);
	add_to(&p, HESPER_TRACE_BATCH, 0, 77, 1, NULL, 1000800, 1002000);

	json_object *root = parse(&p);
	char want[32];

	/* The pid in the id keeps the flows of processes merged into one trace apart. */
	snprintf(want, sizeof(want), "0x%" PRIx64, ((uint64_t)321 << 40) | 1);
	for (size_t i = 0; i < event_count(root); i++)
		if (is_ph(event(root, i), "s") || is_ph(event(root, i), "f"))
			ck_assert_str_eq(str_of(event(root, i), "id"), want);
	json_object_put(root);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(random_traces_keep_the_rules)
{
	struct hesper_profile p;
	enum { SUBMISSIONS = 30 };

	/* Submissions on two queues from three threads, each with random GPU work, as the collector makes them. */
	base_profile(&p);
	for (int round = 0; round < 2; round++) {
		for (uint64_t s = 1; s <= SUBMISSIONS; s++) {
			uint32_t queue = (uint32_t)(rng_next() % 2), thread = 70 + (uint32_t)(rng_next() % 3);
			uint64_t at = 1000000 + s * 10000 + rng_next() % 5000;

			for (uint64_t k = rng_next() % 4; k > 0; k--) {
				uint64_t start = at + 500 + rng_next() % 6000, len = rng_next() % 3000;
				enum hesper_trace_kind kind = (enum hesper_trace_kind)(rng_next() % 5);

				if (kind == HESPER_TRACE_HOST_SUBMIT)
					kind = HESPER_TRACE_MEMORY_OP;
				add_to(&p, kind, queue, thread, s, "k", start, start + len);
			}
			if (rng_next() % 8)
				add_to(&p, HESPER_TRACE_HOST_SUBMIT, queue, thread, s, "vkQueueSubmit", at,
				       at + rng_next() % 400);
			if (rng_next() % 3 == 0)
				add_to(&p, HESPER_TRACE_HOST_WAIT, queue, thread, 0, "vkWaitForFences", at + 450,
				       at + 450 + rng_next() % 9000);
		}
		json_object *root = parse(&p);

		ck_assert_uint_gt(check_trace_rules(root), SUBMISSIONS / 2);
		json_object_put(root);
		/* The second round: the same events streamed. */
		p.trace.spool = hesper_trace_spool_open();
		ck_assert_ptr_nonnull(p.trace.spool);
		for (size_t i = 0; i < p.trace.count; i++)
			ck_assert(hesper_trace_spool_add(p.trace.spool, &p.trace.events[i]));
		root = parse(&p);
		ck_assert_uint_gt(check_trace_rules(root), SUBMISSIONS / 2);
		json_object_put(root);
		hesper_trace_spool_close(p.trace.spool);
		p.trace.spool = NULL;
	}
	hesper_profile_free(&p);
}
END_TEST

START_TEST(thread_names_first_seen_and_bounded)
{
	struct hesper_trace t;

	hesper_trace_init(&t, 10);
	ck_assert(hesper_trace_name_thread(&t, 30, "main"));
	ck_assert(hesper_trace_name_thread(&t, 10, "a name longer than the kernel keeps"));
	ck_assert(hesper_trace_name_thread(&t, 20, NULL));
	/* The name a thread had when first seen stays. */
	ck_assert(hesper_trace_name_thread(&t, 30, "renamed"));
	ck_assert_str_eq(hesper_trace_thread_name(&t, 30), "main");
	ck_assert_uint_eq(strlen(hesper_trace_thread_name(&t, 10)), HESPER_THREAD_NAME_MAX - 1);
	/* Seen without a name: known, but nameless. */
	ck_assert(hesper_trace_thread_known(&t, 20));
	ck_assert_ptr_null(hesper_trace_thread_name(&t, 20));
	ck_assert(!hesper_trace_thread_known(&t, 40));
	for (uint32_t tid = 100; t.thread_count < HESPER_TRACE_MAX_THREADS; tid++)
		ck_assert(hesper_trace_name_thread(&t, tid, "w"));
	ck_assert(!hesper_trace_name_thread(&t, 99, "one too many"));
	ck_assert_ptr_null(hesper_trace_thread_name(&t, 99));
	for (size_t i = 1; i < t.thread_count; i++)
		ck_assert_uint_lt(t.threads[i - 1].tid, t.threads[i].tid);
	hesper_trace_free(&t);
}
END_TEST

START_TEST(write_error_reported)
{
	struct hesper_profile p;

	base_profile(&p);
	add(&p, HESPER_TRACE_DISPATCH, 0, "k", 1001000, 1002000);
	assert_write_error_full(hesper_report_trace, &p);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
report_trace_suite(void)
{
	Suite *s = suite_create("report_trace");
	TCase *tc = tcase_create("hesper_report_trace");

	tcase_add_test(tc, empty_profile);
	tcase_add_test(tc, tracks_and_events);
	tcase_add_test(tc, overlaps_go_to_lanes);
	tcase_add_test(tc, no_partial_overlap_on_any_thread);
	tcase_add_test(tc, lanes_are_bounded);
	tcase_add_test(tc, names_escaped);
	tcase_add_test(tc, origin_and_unknown_queue);
	tcase_add_test(tc, every_track_named_once_and_distinctly);
	tcase_add_test(tc, flows_from_submits_to_their_first_gpu_work);
	tcase_add_test(tc, flow_ids_unique_per_process);
	tcase_add_test(tc, random_traces_keep_the_rules);
	tcase_add_test(tc, thread_names_first_seen_and_bounded);
	tcase_add_test(tc, write_error_reported);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(report_trace_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
