/*
 * The layer's report and hesper_print_report print the same kernel table for the same
 * events: one profile filled through the internal API as the layer's collector fills it
 * (a row per kernel, each interval recorded, zero or negative ones counted as clamped and
 * left out of the statistics), the other from the events through the public function.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hesper/profiling.h>

#include "fixtures.h"
#include "write/write.h"

static const char *const names[] = {"matmul", "softmax", "layer_norm", "gelu", "attention#1a2b3c4d", "m\xc3\xbc"};
#define NAMES (sizeof(names) / sizeof(names[0]))

/* The kernel table of a report: from its column titles to the end. */
static const char *
table_of(const char *report)
{
	const char *t = strstr(report, "\n\n Time (%)");

	ck_assert_ptr_nonnull(t);
	return t + 2;
}

/* What the layer prints for @events: its collector's way of filling the profile, then its text writer. */
static char *
layer_report(const struct hesper_event *events, size_t n)
{
	struct hesper_profile p;
	struct capture c;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	for (size_t i = 0; i < n; i++) {
		struct hesper_work w = {.kind = HESPER_WORK_DISPATCH, .name = events[i].name, .timed = true};

		if (events[i].end_ns > events[i].start_ns)
			w.ns = events[i].end_ns - events[i].start_ns;
		else
			w.clamped = true;
		ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	}
	capture_open(&c);
	ck_assert_int_eq(hesper_report_text(c.f, &p), 0);
	capture_close(&c);
	hesper_profile_free(&p);
	return c.buf;
}

static char *
library_report(const struct hesper_event *events, size_t n)
{
	struct capture c;

	capture_open(&c);
	ck_assert_int_eq(hesper_print_report(c.f, events, n), HESPER_OK);
	capture_close(&c);
	return c.buf;
}

static void
assert_same_table(const struct hesper_event *events, size_t n)
{
	char *layer = layer_report(events, n), *lib = library_report(events, n);
	const char *dispatches = strstr(layer, "  dispatches   ");

	ck_assert_str_eq(table_of(lib), table_of(layer));
	/* The counts line too: dispatches, timed, clamped. */
	ck_assert_ptr_nonnull(dispatches);
	ck_assert_int_eq(strncmp(strstr(lib, "  dispatches   "), dispatches, strcspn(dispatches, "\n")), 0);
	free(layer);
	free(lib);
}

START_TEST(known_events)
{
	struct hesper_event ev[] = {
		{"matmul", 0, 1000},     {"softmax", 1000, 2000}, {"matmul", 2000, 4000},
		{"softmax", 4000, 5000}, {"matmul", 5000, 8000},
	};

	assert_same_table(ev, 5);
}
END_TEST

/* Thousands of events over several kernels, durations from ns to seconds, some backwards or zero. */
START_TEST(random_events)
{
	enum { N = 20000 };
	struct hesper_event *ev = malloc(N * sizeof(*ev));
	uint64_t state = 0xfeedbeef, t = 1000000;

	ck_assert_ptr_nonnull(ev);
	for (size_t i = 0; i < N; i++) {
		uint64_t r = xorshift64s(&state);
		uint64_t d = r % 100 == 0 ? 0 : (r >> 8) % (i % 5 == 0 ? 2000000000ull : 50000ull);

		ev[i].name = names[(r >> 40) % NAMES];
		ev[i].start_ns = t;
		ev[i].end_ns = r % 97 == 0 ? t - 10 : t + d;
		t += d + 100;
	}
	assert_same_table(ev, N);
	free(ev);
}
END_TEST

static Suite *
same_table_suite(void)
{
	Suite *s = suite_create("lib_same_table");
	TCase *tc = tcase_create("layer_and_library");

	tcase_add_test(tc, known_events);
	tcase_add_test(tc, random_events);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(same_table_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
