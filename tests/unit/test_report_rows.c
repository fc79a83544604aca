/* Unit tests for analysis/write/report_rows.c: the numbers behind the text and HTML kernel tables. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "report_fixtures.h"

START_TEST(totals_saturate)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	struct hesper_kernel *rows[2];

	ck_assert_ptr_nonnull(t);
	rows[0] = hesper_kernel_table_get(t, "a");
	rows[1] = hesper_kernel_table_get(t, "b");
	hesper_kernel_record(rows[0], 1000);
	hesper_kernel_record(rows[1], 24);
	ck_assert_uint_eq(hesper_rows_total_ns(rows, 2), 1024);
	ck_assert_uint_eq(hesper_rows_total_ns(rows, 0), 0);
	hesper_kernel_record(rows[1], UINT64_MAX);
	ck_assert_uint_eq(hesper_rows_total_ns(rows, 2), UINT64_MAX);
	hesper_kernel_table_destroy(t);
}
END_TEST

START_TEST(known_numbers)
{
	struct hesper_profile p;
	struct hesper_kernel **rows;
	size_t n;

	fixture_known_profile(&p);
	ck_assert_int_eq(hesper_kernel_table_rows(p.kernels, &rows, &n), 0);
	ck_assert_uint_eq(n, 2);
	uint64_t sum = hesper_rows_total_ns(rows, n);
	ck_assert_uint_eq(sum, 8000);
	ck_assert_uint_eq(hesper_rows_not_all_timed(rows, n), 0);

	/* matmul: 1000, 2000, 3000 ns */
	struct hesper_row r = hesper_row_numbers(rows[0], sum);
	ck_assert_uint_eq(r.total_ns, 6000);
	ck_assert_double_eq_tol(r.percent, 75.0, 1e-9);
	ck_assert(r.timed);
	ck_assert(!r.estimated);
	ck_assert_double_eq_tol(r.mean_ns, 2000.0, 1e-9);
	ck_assert_double_eq(r.median_ns, (double)hesper_stats_quantile(&rows[0]->timed, 0.5));
	ck_assert_double_eq(r.p95_ns, (double)hesper_stats_quantile(&rows[0]->timed, 0.95));
	ck_assert_double_eq(r.min_ns, 1000.0);
	ck_assert_double_eq(r.max_ns, 3000.0);
	ck_assert_double_eq_tol(r.stddev_ns, 1000.0, 1e-6);
	/* With no sum, no percentage. */
	ck_assert_double_eq(hesper_row_numbers(rows[1], 0).percent, 0.0);
	free(rows);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(estimated_and_untimed)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	struct hesper_kernel *rows[3];

	ck_assert_ptr_nonnull(t);
	rows[0] = hesper_kernel_table_get(t, "all");
	rows[1] = hesper_kernel_table_get(t, "sampled");
	rows[2] = hesper_kernel_table_get(t, "never");
	hesper_kernel_record(rows[0], 100);
	hesper_kernel_record(rows[1], 100);
	hesper_kernel_count_untimed(rows[1], 3);
	hesper_kernel_count_untimed(rows[2], 2);
	ck_assert_uint_eq(hesper_rows_not_all_timed(rows, 3), 2);

	struct hesper_row r = hesper_row_numbers(rows[1], 500);
	ck_assert(r.timed);
	ck_assert(r.estimated);
	ck_assert_uint_eq(r.total_ns, 400); /* Avg x Instances */
	ck_assert_double_eq_tol(r.percent, 80.0, 1e-9);

	r = hesper_row_numbers(rows[2], 500);
	ck_assert(!r.timed);
	ck_assert(!r.estimated);
	ck_assert_uint_eq(r.total_ns, 0);
	ck_assert_double_eq(r.median_ns, 0.0);
	hesper_kernel_table_destroy(t);
}
END_TEST

static Suite *
report_rows_suite(void)
{
	Suite *s = suite_create("report_rows");
	TCase *tc = tcase_create("hesper_row_numbers");

	tcase_add_test(tc, totals_saturate);
	tcase_add_test(tc, known_numbers);
	tcase_add_test(tc, estimated_and_untimed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(report_rows_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
