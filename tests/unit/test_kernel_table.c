/* Unit tests for analysis/model/kernel_table.c. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

START_TEST(empty_table)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	size_t n = 99, cursor = 0;

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(hesper_kernel_table_size(t), 0);
	ck_assert_ptr_null(hesper_kernel_table_find(t, "main"));
	ck_assert_ptr_null(hesper_kernel_table_sorted(t, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(hesper_kernel_table_next(t, &cursor));
	hesper_kernel_table_destroy(t);
	hesper_kernel_table_destroy(NULL);
}
END_TEST

START_TEST(get_inserts_once_and_copies_name)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	char name[] = "matmul";
	struct hesper_kernel *k = hesper_kernel_table_get(t, name);

	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->name, "matmul");
	ck_assert_uint_eq(k->count, 0);
	ck_assert_uint_eq(k->timed.count, 0);
	name[0] = 'X'; /* the table owns a copy */
	ck_assert_ptr_eq(hesper_kernel_table_get(t, "matmul"), k);
	ck_assert_ptr_eq(hesper_kernel_table_find(t, "matmul"), k);
	ck_assert_ptr_null(hesper_kernel_table_find(t, "Xatmul"));
	ck_assert_uint_eq(hesper_kernel_table_size(t), 1);
	/* The empty name and a long name are names like any other. */
	ck_assert_ptr_nonnull(hesper_kernel_table_get(t, ""));
	ck_assert_ptr_ne(hesper_kernel_table_get(t, ""), k);
	ck_assert_uint_eq(hesper_kernel_table_size(t), 2);
	hesper_kernel_table_destroy(t);
}
END_TEST

START_TEST(many_names)
{
	enum { N = 100000 };
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	struct hesper_kernel **first = malloc(N * sizeof(*first));
	char name[64];
	size_t cursor = 0, visited = 0;
	struct hesper_kernel *k;

	ck_assert_ptr_nonnull(first);
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "kernel_%d_main", i);
		first[i] = hesper_kernel_table_get(t, name);
		ck_assert_ptr_nonnull(first[i]);
		hesper_kernel_record(first[i], (uint64_t)i);
	}
	ck_assert_uint_eq(hesper_kernel_table_size(t), N);
	/* Rows never move when the table grows, and every name still finds its own row. */
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "kernel_%d_main", i);
		ck_assert_ptr_eq(hesper_kernel_table_find(t, name), first[i]);
		ck_assert_ptr_eq(hesper_kernel_table_get(t, name), first[i]);
		ck_assert_uint_eq(first[i]->count, 1);
		ck_assert_uint_eq(first[i]->timed.total_ns, (uint64_t)i);
	}
	ck_assert_uint_eq(hesper_kernel_table_size(t), N);
	while ((k = hesper_kernel_table_next(t, &cursor)))
		visited++;
	ck_assert_uint_eq(visited, N);

	size_t n;
	struct hesper_kernel **rows = hesper_kernel_table_sorted(t, &n);
	ck_assert_ptr_nonnull(rows);
	ck_assert_uint_eq(n, N);
	for (size_t i = 1; i < n; i++)
		ck_assert_uint_ge(hesper_kernel_total_ns(rows[i - 1]), hesper_kernel_total_ns(rows[i]));
	ck_assert_str_eq(rows[0]->name, "kernel_99999_main");
	free(rows);
	free(first);
	hesper_kernel_table_destroy(t);
}
END_TEST

START_TEST(many_events)
{
	enum { NAMES = 1000, EVENTS = 1000000 };
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	char name[32];

	for (int i = 0; i < EVENTS; i++) {
		snprintf(name, sizeof(name), "k%d", i % NAMES);
		hesper_kernel_record(hesper_kernel_table_get(t, name), 100 + (uint64_t)(i % 7));
	}
	ck_assert_uint_eq(hesper_kernel_table_size(t), NAMES);
	struct hesper_kernel *k = hesper_kernel_table_find(t, "k7");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->count, EVENTS / NAMES);
	ck_assert_uint_eq(k->timed.count, EVENTS / NAMES);
	hesper_kernel_table_destroy(t);
}
END_TEST

START_TEST(record_and_untimed)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	struct hesper_kernel *k = hesper_kernel_table_get(t, "k");

	hesper_kernel_record(k, 10);
	hesper_kernel_record(k, 20);
	hesper_kernel_count_untimed(k, 2);
	ck_assert_uint_eq(k->count, 4);
	ck_assert_uint_eq(k->timed.count, 2);
	ck_assert_uint_eq(k->timed.total_ns, 30);
	hesper_kernel_count_untimed(k, UINT64_MAX);
	ck_assert_uint_eq(k->count, UINT64_MAX); /* saturates */
	hesper_kernel_table_destroy(t);
}
END_TEST

START_TEST(total_rules)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	struct hesper_kernel *all = hesper_kernel_table_get(t, "all");
	struct hesper_kernel *part = hesper_kernel_table_get(t, "part");
	struct hesper_kernel *none = hesper_kernel_table_get(t, "none");
	struct hesper_kernel *half = hesper_kernel_table_get(t, "half");
	struct hesper_kernel *huge = hesper_kernel_table_get(t, "huge");
	struct hesper_kernel *sat = hesper_kernel_table_get(t, "sat");

	/* Every execution timed: the measured sum. */
	hesper_kernel_record(all, 7);
	hesper_kernel_record(all, 8);
	ck_assert_uint_eq(hesper_kernel_total_ns(all), 15);

	/* Half timed: mean 15 x 4 executions. */
	hesper_kernel_record(part, 10);
	hesper_kernel_record(part, 20);
	hesper_kernel_count_untimed(part, 2);
	ck_assert_uint_eq(hesper_kernel_total_ns(part), 60);

	/* Nothing timed: no estimate. */
	hesper_kernel_count_untimed(none, 5);
	ck_assert_uint_eq(hesper_kernel_total_ns(none), 0);

	/* Mean 1.5 x 3 = 4.5 rounds to 5. */
	hesper_kernel_record(half, 1);
	hesper_kernel_record(half, 2);
	hesper_kernel_count_untimed(half, 1);
	ck_assert_uint_eq(hesper_kernel_total_ns(half), 5);

	/* An estimate past 2^64 saturates. */
	hesper_kernel_record(huge, UINT64_MAX / 2);
	hesper_kernel_count_untimed(huge, 10);
	ck_assert_uint_eq(hesper_kernel_total_ns(huge), UINT64_MAX);

	/* A measured sum that saturated stays at the maximum. */
	hesper_kernel_record(sat, UINT64_MAX);
	hesper_kernel_record(sat, 1);
	ck_assert_uint_eq(hesper_kernel_total_ns(sat), UINT64_MAX);
	hesper_kernel_table_destroy(t);
}
END_TEST

START_TEST(share_totals)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	struct hesper_kernel *all = hesper_kernel_table_get(t, "all");
	struct hesper_kernel *part = hesper_kernel_table_get(t, "part");
	struct hesper_kernel *alone = hesper_kernel_table_get(t, "alone");
	struct hesper_kernel *sat = hesper_kernel_table_get(t, "sat");

	/* Every execution timed: the total is the shares', the spans keep theirs and the statistics. */
	hesper_kernel_record_share(all, 30, 10);
	hesper_kernel_record_share(all, 50, 20);
	ck_assert_uint_eq(all->share_ns, 30);
	ck_assert_uint_eq(hesper_kernel_total_ns(all), 30);
	ck_assert_uint_eq(hesper_kernel_span_total_ns(all), 80);
	ck_assert_uint_eq(all->timed.total_ns, 80);
	ck_assert_uint_eq(all->timed.max_ns, 50);

	/* Half timed: spans mean 40 x 4 = 160, scaled by shares over spans (30/80): 60. */
	hesper_kernel_record_share(part, 30, 10);
	hesper_kernel_record_share(part, 50, 20);
	hesper_kernel_count_untimed(part, 2);
	ck_assert_uint_eq(hesper_kernel_span_total_ns(part), 160);
	ck_assert_uint_eq(hesper_kernel_total_ns(part), 60);

	/* Recorded alone (hesper_kernel_record): share = span, totals as they always were. */
	hesper_kernel_record(alone, 1);
	hesper_kernel_record(alone, 2);
	hesper_kernel_count_untimed(alone, 1);
	ck_assert_uint_eq(alone->share_ns, 3);
	ck_assert_uint_eq(hesper_kernel_total_ns(alone), 5);
	ck_assert_uint_eq(hesper_kernel_span_total_ns(alone), 5);

	/* Shares saturate like the spans. */
	hesper_kernel_record_share(sat, UINT64_MAX, UINT64_MAX);
	hesper_kernel_add_shares(sat, 1);
	ck_assert_uint_eq(sat->share_ns, UINT64_MAX);
	hesper_kernel_table_destroy(t);
}
END_TEST

START_TEST(sorted_order)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	const char *expect[] = {"big", "a_tie", "b_tie", "estimated", "small", "untimed"};
	size_t n;

	hesper_kernel_record(hesper_kernel_table_get(t, "small"), 1);
	hesper_kernel_record(hesper_kernel_table_get(t, "b_tie"), 50);
	hesper_kernel_record(hesper_kernel_table_get(t, "big"), 1000);
	hesper_kernel_record(hesper_kernel_table_get(t, "a_tie"), 50);
	hesper_kernel_count_untimed(hesper_kernel_table_get(t, "untimed"), 100);
	/* 10 timed, 4 executions: estimated total 40 sorts below the measured 50s. */
	struct hesper_kernel *e = hesper_kernel_table_get(t, "estimated");
	hesper_kernel_record(e, 10);
	hesper_kernel_count_untimed(e, 3);

	struct hesper_kernel **rows = hesper_kernel_table_sorted(t, &n);
	ck_assert_ptr_nonnull(rows);
	ck_assert_uint_eq(n, 6);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(rows[i]->name, expect[i]);
	free(rows);
	hesper_kernel_table_destroy(t);
}
END_TEST

START_TEST(rows_empty_is_no_error)
{
	struct hesper_kernel_table *t = hesper_kernel_table_create();
	struct hesper_kernel **rows = (struct hesper_kernel **)&rows;
	size_t n = 99;

	ck_assert_int_eq(hesper_kernel_table_rows(NULL, &rows, &n), 0);
	ck_assert_ptr_null(rows);
	ck_assert_uint_eq(n, 0);
	n = 99;
	ck_assert_int_eq(hesper_kernel_table_rows(t, &rows, &n), 0);
	ck_assert_ptr_null(rows);
	ck_assert_uint_eq(n, 0);

	hesper_kernel_record(hesper_kernel_table_get(t, "small"), 1);
	hesper_kernel_record(hesper_kernel_table_get(t, "big"), 1000);
	ck_assert_int_eq(hesper_kernel_table_rows(t, &rows, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(rows[0]->name, "big");
	ck_assert_str_eq(rows[1]->name, "small");
	free(rows);
	hesper_kernel_table_destroy(t);
}
END_TEST

static Suite *
kernel_table_suite(void)
{
	Suite *s = suite_create("kernel_table");
	TCase *tc = tcase_create("hesper_kernel_table_get");

	tcase_add_test(tc, empty_table);
	tcase_add_test(tc, get_inserts_once_and_copies_name);
	tcase_add_test(tc, many_names);
	tcase_add_test(tc, many_events);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_kernel_record");
	tcase_add_test(tc, record_and_untimed);
	tcase_add_test(tc, total_rules);
	tcase_add_test(tc, share_totals);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_kernel_table_sorted");
	tcase_add_test(tc, sorted_order);
	tcase_add_test(tc, rows_empty_is_no_error);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(kernel_table_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
