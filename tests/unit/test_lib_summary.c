/* Unit tests of hesper_summary_from_events and hesper_summary_format (analysis/api/summary.c, event_format.c). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "fixtures.h"

START_TEST(empty_list_is_zero)
{
	struct hesper_event one = {"k", 1, 2};
	struct hesper_summary zero = {0};
	struct hesper_summary a = hesper_summary_from_events(NULL, 0);
	struct hesper_summary b = hesper_summary_from_events(&one, 0);
	struct hesper_summary c = hesper_summary_from_events(NULL, 5);

	ck_assert_mem_eq(&a, &zero, sizeof(zero));
	ck_assert_mem_eq(&b, &zero, sizeof(zero));
	ck_assert_mem_eq(&c, &zero, sizeof(zero));
	ck_assert(!isnan(a.avg_duration_ms));
}
END_TEST

/* Durations 1000, 2000, 3000, 4000, 10000 ns, in no order and under several names. */
START_TEST(known_list)
{
	struct hesper_event ev[] = {
		{"a", 50000, 60000}, {"b", 0, 1000}, {"a", 7000, 10000}, {"c", 1000, 5000}, {"b", 2000, 4000},
	};
	struct hesper_summary s = hesper_summary_from_events(ev, 5);

	ck_assert_uint_eq(s.total_events, 5);
	ck_assert_uint_eq(s.total_duration_ns, 20000);
	ck_assert_double_eq_tol(s.total_duration_ms, 0.02, 1e-15);
	ck_assert_double_eq_tol(s.min_duration_ms, 0.001, 1e-15);
	ck_assert_double_eq_tol(s.max_duration_ms, 0.01, 1e-15);
	ck_assert_double_eq_tol(s.avg_duration_ms, 0.004, 1e-15);
	ck_assert_double_eq_tol(s.median_duration_ms, 0.003, 1e-15);
	ck_assert_double_eq_tol(s.p95_duration_ms, 0.01, 1e-15);
	ck_assert_double_eq_tol(s.p99_duration_ms, 0.01, 1e-15);
	/* Squares of the deviations from 4000 sum to 50e6; / (n - 1) = 12.5e6 ns^2. */
	ck_assert_double_eq_tol(s.stddev_duration_ms, sqrt(12.5e6) / 1e6, 1e-12);
}
END_TEST

/* Nearest rank: the smallest duration with at least ceil(q n) durations at or below it. */
START_TEST(quantiles_exact)
{
	struct hesper_event ev[100];

	for (int i = 0; i < 100; i++)
		ev[i] = (struct hesper_event){"k", 1000000, 1000000 + (uint64_t)(100 - i) * 1000};
	struct hesper_summary s = hesper_summary_from_events(ev, 100);
	ck_assert_double_eq_tol(s.median_duration_ms, 0.050, 1e-12);
	ck_assert_double_eq_tol(s.p95_duration_ms, 0.095, 1e-12);
	ck_assert_double_eq_tol(s.p99_duration_ms, 0.099, 1e-12);
	ck_assert_double_eq_tol(s.min_duration_ms, 0.001, 1e-12);
	ck_assert_double_eq_tol(s.max_duration_ms, 0.100, 1e-12);
}
END_TEST

START_TEST(single_and_backwards)
{
	struct hesper_event one = {"k", 10, 2510};
	struct hesper_event back[] = {{"k", 100, 50}, {"k", 0, 300}};
	struct hesper_summary s = hesper_summary_from_events(&one, 1);

	ck_assert_uint_eq(s.total_events, 1);
	ck_assert_double_eq_tol(s.median_duration_ms, 0.0025, 1e-15);
	ck_assert_double_eq(s.stddev_duration_ms, 0); /* below two events */
	s = hesper_summary_from_events(back, 2);
	ck_assert_uint_eq(s.total_events, 2); /* an event whose end came first counts, as no time */
	ck_assert_uint_eq(s.total_duration_ns, 300);
	ck_assert_double_eq(s.min_duration_ms, 0);
}
END_TEST

START_TEST(total_saturates)
{
	struct hesper_event ev[] = {{"k", 0, UINT64_MAX}, {"k", 0, UINT64_MAX}};
	struct hesper_summary s = hesper_summary_from_events(ev, 2);

	ck_assert_uint_eq(s.total_duration_ns, UINT64_MAX);
	ck_assert(isfinite(s.avg_duration_ms) && isfinite(s.stddev_duration_ms));
}
END_TEST

/* The fallback without memory agrees with sorting, on random lists. */
START_TEST(rank_by_bisection)
{
	uint64_t state = 0x1234567, sorted[257];
	struct hesper_event ev[257];

	for (size_t n = 1; n <= 257; n += 16) {
		for (size_t i = 0; i < n; i++) {
			uint64_t d = xorshift64s(&state) % (i % 3 ? 1000 : 1ull << 40);

			ev[i] = (struct hesper_event){"k", 5, 5 + d};
			sorted[i] = d;
		}
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
				uint64_t t = sorted[j];
				sorted[j] = sorted[j - 1];
				sorted[j - 1] = t;
			}
		for (size_t rank = 1; rank <= n; rank += 7)
			ck_assert_uint_eq(hesper_events_duration_rank(ev, n, rank, sorted[0], sorted[n - 1]),
					  sorted[rank - 1]);
	}
}
END_TEST

START_TEST(format_summary)
{
	struct hesper_event ev[] = {{"a", 0, 1000}, {"a", 0, 2000}, {"a", 0, 3000}, {"a", 0, 4000}, {"a", 0, 10000}};
	struct hesper_summary s = hesper_summary_from_events(ev, 5), empty = {0};
	const char *full = "5 events: total 20.00 \u00b5s, avg 4.000 \u00b5s, min 1.000 \u00b5s, max 10.00 \u00b5s, "
			   "median 3.000 \u00b5s, p95 10.00 \u00b5s, p99 10.00 \u00b5s, stddev 3.536 \u00b5s";
	char buf[256], small[10];

	ck_assert_int_eq(hesper_summary_format(buf, sizeof(buf), &s), (int)strlen(full));
	ck_assert_str_eq(buf, full);
	ck_assert_int_eq(hesper_summary_format(small, sizeof(small), &s), (int)strlen(full));
	ck_assert_str_eq(small, "5 events:");
	ck_assert_int_eq(hesper_summary_format(NULL, 0, &s), (int)strlen(full));
	hesper_summary_format(buf, sizeof(buf), &empty);
	ck_assert_str_eq(buf, "0 events");
	s = hesper_summary_from_events(ev, 1);
	hesper_summary_format(buf, sizeof(buf), &s);
	ck_assert_str_eq(buf, "1 event: total 1.000 \u00b5s, avg 1.000 \u00b5s, min 1.000 \u00b5s, max 1.000 \u00b5s, "
			      "median 1.000 \u00b5s, p95 1.000 \u00b5s, p99 1.000 \u00b5s, stddev 0 ns");
	hesper_summary_format(buf, sizeof(buf), NULL);
	ck_assert_str_eq(buf, "(no summary)");
}
END_TEST

static Suite *
lib_summary_suite(void)
{
	Suite *s = suite_create("lib_summary");
	TCase *tc = tcase_create("hesper_summary_from_events");

	tcase_add_test(tc, empty_list_is_zero);
	tcase_add_test(tc, known_list);
	tcase_add_test(tc, quantiles_exact);
	tcase_add_test(tc, single_and_backwards);
	tcase_add_test(tc, total_saturates);
	tcase_add_test(tc, rank_by_bisection);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_summary_format");
	tcase_add_test(tc, format_summary);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(lib_summary_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
