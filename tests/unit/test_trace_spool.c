/*
 * Unit tests for analysis/timeline/trace_spool.c and the trace written from it: every event kept
 * past HESPER_MAX_EVENTS, lanes of disjoint events, several chunks read back, the trace
 * parsed back with json-c.
 */
#include <check.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixtures.h"
#include "timeline/timeline.h"

static json_object *
get(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
	return v;
}

static struct hesper_trace_event
dispatch(uint64_t start, uint64_t end)
{
	return (struct hesper_trace_event){.kind = HESPER_TRACE_DISPATCH,
					   .queue = 0,
					   .name = "k",
					   .start_ns = start,
					   .end_ns = end,
					   .groups = {1, 1, 1}};
}

START_TEST(spool_keeps_every_event)
{
	struct hesper_profile p;
	const size_t n = 10000; /* more than one chunk read back */

	fixture_profile(&p, 7, "app", "h", "1");
	hesper_trace_init(&p.trace, 10);
	p.trace.origin_ns = 1000;
	p.trace.spool = hesper_trace_spool_open();
	ck_assert_ptr_nonnull(p.trace.spool);
	for (size_t i = 0; i < n; i++) {
		struct hesper_trace_event e = dispatch(2000 + 100 * i, 2000 + 100 * i + 50);
		hesper_trace_add(&p.trace, &e);
	}
	/* Two overlapping regions (the second inside the first) and a host submit. */
	struct hesper_trace_event outer = {
		.kind = HESPER_TRACE_REGION, .name = "outer", .start_ns = 2000, .end_ns = 900000};
	struct hesper_trace_event inner = {
		.kind = HESPER_TRACE_REGION, .name = "inner", .start_ns = 3000, .end_ns = 4000};
	struct hesper_trace_event sub = {
		.kind = HESPER_TRACE_HOST_SUBMIT, .thread = 42, .start_ns = 1500, .end_ns = 1800};
	hesper_trace_add(&p.trace, &outer);
	hesper_trace_add(&p.trace, &inner);
	hesper_trace_add(&p.trace, &sub);
	ck_assert_uint_eq(p.trace.count, 10);
	ck_assert_uint_eq(p.trace.left_out, n + 3 - 10);
	ck_assert_uint_eq(p.trace.spool->count, n + 3);
	ck_assert_uint_eq(p.trace.spool->track_count, 4); /* dispatches, 2 region lanes, the thread */

	char *text = render_with(hesper_report_trace, &p, NULL);
	json_object *root = json_tokener_parse(text);
	ck_assert_msg(root != NULL, "not JSON");
	json_object *events = get(root, "traceEvents"), *meta = get(root, "metadata");
	size_t x = 0, lanes2 = 0;
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		if (strcmp(json_object_get_string(get(e, "ph")), "X") == 0) {
			x++;
			if (strcmp(json_object_get_string(get(e, "name")), "inner") == 0)
				lanes2 = (size_t)json_object_get_int64(get(e, "tid"));
		}
	}
	ck_assert_uint_eq(x, n + 3);
	ck_assert_uint_ne(lanes2, 0);
	ck_assert(json_object_get_boolean(get(meta, "streamed")));
	ck_assert_int_eq(json_object_get_int64(get(meta, "events")), (int64_t)(n + 3));
	ck_assert_int_eq(json_object_get_int64(get(meta, "events_left_out")), 0);
	ck_assert_int_eq(json_object_get_int64(get(meta, "origin_ns")), 1000);
	/* The host thread keeps its own id; the inner region got a lane of its own. */
	ck_assert(strstr(text, "\"tid\": 42, \"ts\": 0.500") != NULL);
	ck_assert(strstr(text, "labels lane 2") != NULL);
	json_object_put(root);
	free(text);
	hesper_trace_free(&p.trace);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(spool_past_the_lanes)
{
	struct hesper_trace_spool *s = hesper_trace_spool_open();

	ck_assert_ptr_nonnull(s);
	/* HESPER_TRACE_MAX_LANES events all overlapping, then one more: it has no lane. */
	for (unsigned i = 0; i <= HESPER_TRACE_MAX_LANES; i++) {
		struct hesper_trace_event e = dispatch(100 + i, 10000);
		ck_assert(hesper_trace_spool_add(s, &e) == (i < HESPER_TRACE_MAX_LANES));
	}
	ck_assert_uint_eq(s->count, HESPER_TRACE_MAX_LANES);
	ck_assert_uint_eq(s->unplaced, 1);
	ck_assert_uint_eq(s->track_count, HESPER_TRACE_MAX_LANES);
	/* After they ended, the first lane takes the next. */
	struct hesper_trace_event later = dispatch(20000, 20001);
	ck_assert(hesper_trace_spool_add(s, &later));
	ck_assert_uint_eq(s->track_count, HESPER_TRACE_MAX_LANES);
	hesper_trace_spool_close(s);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("trace_spool");
	TCase *tc = tcase_create("spool");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, spool_keeps_every_event);
	tcase_add_test(tc, spool_past_the_lanes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
