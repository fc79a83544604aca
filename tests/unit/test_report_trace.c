/* Unit tests for analysis/report_trace.c: the Chrome trace-event JSON, parsed back with json-c. */
#include <check.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixtures.h"

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
			 "GPU 0 Test GPU queue family 0 index 0");

	e = find_x(root, "copy", 0);
	ck_assert_int_eq(ns_of(e, "dur"), 1);
	ck_assert_str_eq(thread_name(root, json_object_get_int64(get(e, "tid"))),
			 "GPU 0 Test GPU queue family 2 index 1");

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
	ck_assert_str_eq(thread_name(root, ta), "GPU 0 Test GPU queue family 0 index 0");
	ck_assert_str_eq(thread_name(root, tb), "GPU 0 Test GPU queue family 0 index 0 lane 2");
	ck_assert_str_eq(thread_name(root, te), "GPU 0 Test GPU queue family 0 index 0 lane 3");
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
			 "GPU 0 GPU \"x\"\\ queue family 0 index 0");
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
	ck_assert_str_eq(thread_name(root, json_object_get_int64(get(e, "tid"))), "GPU ? queue 9");
	json_object_put(root);

	/* No origin set: the first event is time 0. */
	p.trace.origin_ns = 0;
	root = parse(&p);
	ck_assert_int_eq(json_object_get_int64(get(meta(root), "origin_ns")), 999000);
	json_object_put(root);
	hesper_profile_free(&p);
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
