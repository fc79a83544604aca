/* Unit tests of hesper_group_by_kernel and hesper_kernel_groups_free (analysis/api/groups.c), through the shared library. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hesper/profiling.h>

/* Three kernels interleaved in time; "b" has the largest total, "a" and "c" tie. */
START_TEST(interleaved_names)
{
	char a_again[] = "a"; /* the same name at another address is the same kernel */
	struct hesper_event ev[] = {
		{"a", 500, 600}, {"b", 0, 300}, {"c", 50, 150}, {a_again, 100, 200}, {"b", 700, 1000}, {"c", 900, 1000},
	};
	struct hesper_kernel_group *g = NULL;
	size_t n = hesper_group_by_kernel(ev, 6, &g);

	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(g[0].name, "b");
	ck_assert_uint_eq(g[0].n_events, 2);
	ck_assert_uint_eq(g[0].summary.total_duration_ns, 600);
	ck_assert_uint_eq(g[0].summary.total_events, 2);
	ck_assert_double_eq_tol(g[0].summary.avg_duration_ms, 0.0003, 1e-15);
	/* Equal totals: by name. */
	ck_assert_str_eq(g[1].name, "a");
	ck_assert_str_eq(g[2].name, "c");
	ck_assert_uint_eq(g[1].summary.total_duration_ns, 200);
	ck_assert_uint_eq(g[2].summary.total_duration_ns, 200);
	/* Each group's events by start, copied. */
	ck_assert_uint_eq(g[1].events[0].start_ns, 100);
	ck_assert_uint_eq(g[1].events[1].start_ns, 500);
	ck_assert_uint_eq(g[2].events[0].start_ns, 50);
	ck_assert_uint_eq(g[2].events[1].start_ns, 900);
	ck_assert_ptr_ne(g[0].events, &ev[1]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < g[i].n_events; j++)
			ck_assert_str_eq(g[i].events[j].name, g[i].name);
	hesper_kernel_groups_free(g, n);
}
END_TEST

START_TEST(one_name)
{
	struct hesper_event ev[] = {{"k", 30, 40}, {"k", 10, 20}, {"k", 20, 30}};
	struct hesper_kernel_group *g = NULL;

	ck_assert_uint_eq(hesper_group_by_kernel(ev, 3, &g), 1);
	ck_assert_uint_eq(g[0].n_events, 3);
	ck_assert_uint_eq(g[0].events[0].start_ns, 10);
	ck_assert_uint_eq(g[0].events[2].start_ns, 30);
	/* The group's summary is the summary of its events. */
	struct hesper_summary s = hesper_summary_from_events(ev, 3);
	ck_assert_mem_eq(&g[0].summary, &s, sizeof(s));
	hesper_kernel_groups_free(g, 1);
}
END_TEST

START_TEST(unnamed_events)
{
	struct hesper_event ev[] = {{NULL, 0, 10}, {"?", 10, 30}, {"x", 0, 5}};
	struct hesper_kernel_group *g = NULL;

	ck_assert_uint_eq(hesper_group_by_kernel(ev, 3, &g), 2);
	ck_assert_str_eq(g[0].name, "?"); /* NULL reads as "?" */
	ck_assert_uint_eq(g[0].n_events, 2);
	ck_assert_uint_eq(g[0].summary.total_duration_ns, 30);
	ck_assert_str_eq(g[1].name, "x");
	hesper_kernel_groups_free(g, 2);
}
END_TEST

START_TEST(empty_and_bad_arguments)
{
	struct hesper_event ev = {"k", 0, 1};
	struct hesper_kernel_group *g = (struct hesper_kernel_group *)&ev;

	ck_assert_uint_eq(hesper_group_by_kernel(NULL, 0, &g), 0);
	ck_assert_ptr_null(g);
	g = (struct hesper_kernel_group *)&ev;
	ck_assert_uint_eq(hesper_group_by_kernel(&ev, 0, &g), 0);
	ck_assert_ptr_null(g);
	ck_assert_uint_eq(hesper_group_by_kernel(NULL, 3, &g), 0);
	ck_assert_ptr_null(g);
	ck_assert_uint_eq(hesper_group_by_kernel(&ev, 1, NULL), 0);
	hesper_kernel_groups_free(NULL, 0);
}
END_TEST

/* Many names, many events: every event lands in its group once, totals add up. */
START_TEST(many)
{
	enum { N = 5000, NAMES = 37 };
	static struct hesper_event ev[N];
	static char names[NAMES][8];
	struct hesper_kernel_group *g = NULL;
	uint64_t total = 0, grouped = 0;
	size_t count = 0;

	for (int i = 0; i < NAMES; i++)
		snprintf(names[i], sizeof(names[i]), "k%d", i);
	for (int i = 0; i < N; i++) {
		ev[i] = (struct hesper_event){names[(i * 7) % NAMES], (uint64_t)(N - i) * 10,
					      (uint64_t)(N - i) * 10 + (uint64_t)i};
		total += (uint64_t)i;
	}
	size_t n = hesper_group_by_kernel(ev, N, &g);
	ck_assert_uint_eq(n, NAMES);
	for (size_t i = 0; i < n; i++) {
		count += g[i].n_events;
		grouped += g[i].summary.total_duration_ns;
		if (i > 0)
			ck_assert_uint_ge(g[i - 1].summary.total_duration_ns, g[i].summary.total_duration_ns);
		for (size_t j = 1; j < g[i].n_events; j++)
			ck_assert_uint_le(g[i].events[j - 1].start_ns, g[i].events[j].start_ns);
	}
	ck_assert_uint_eq(count, N);
	ck_assert_uint_eq(grouped, total);
	hesper_kernel_groups_free(g, n);
}
END_TEST

static Suite *
lib_groups_suite(void)
{
	Suite *s = suite_create("lib_groups");
	TCase *tc = tcase_create("hesper_group_by_kernel");

	tcase_add_test(tc, interleaved_names);
	tcase_add_test(tc, one_name);
	tcase_add_test(tc, unnamed_events);
	tcase_add_test(tc, empty_and_bad_arguments);
	tcase_add_test(tc, many);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(lib_groups_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
