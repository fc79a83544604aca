/* Unit tests for analysis/model/event.c. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/model.h"

/* hesper_event_duration_ns */

START_TEST(duration_normal)
{
	struct hesper_event e = {"k", 1000, 4500};

	ck_assert_uint_eq(hesper_event_duration_ns(&e), 3500);
}
END_TEST

START_TEST(duration_zero_and_negative_clamp)
{
	struct hesper_event same = {"k", 77, 77};
	struct hesper_event backwards = {"k", 100, 40};

	ck_assert_uint_eq(hesper_event_duration_ns(&same), 0);
	ck_assert_uint_eq(hesper_event_duration_ns(&backwards), 0);
}
END_TEST

START_TEST(duration_extremes)
{
	struct hesper_event full = {"k", 0, UINT64_MAX};
	struct hesper_event top = {"k", UINT64_MAX - 1, UINT64_MAX};

	ck_assert_uint_eq(hesper_event_duration_ns(&full), UINT64_MAX);
	ck_assert_uint_eq(hesper_event_duration_ns(&top), 1);
}
END_TEST

/* unit helpers */

START_TEST(units)
{
	ck_assert_double_eq(hesper_ns_to_us(1500), 1.5);
	ck_assert_double_eq(hesper_ns_to_ms(2500000), 2.5);
	ck_assert_double_eq(hesper_ns_to_us(0), 0);
	ck_assert_double_eq_tol(hesper_ns_to_ms(UINT64_MAX), 18446744073709.551615, 1e-2);
}
END_TEST

/* hesper_event_compare */

START_TEST(compare_orders_by_start_then_end)
{
	struct hesper_event ev[] = {
		{"d", UINT64_MAX, UINT64_MAX}, {"b", 10, 30}, {"a", 10, 20}, {"c", 0, UINT64_MAX}, {"e", 5, 6},
	};
	const char *expect = "ceabd";

	qsort(ev, 5, sizeof(ev[0]), hesper_event_compare);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(ev[i].name[0], expect[i]);
}
END_TEST

START_TEST(compare_signs)
{
	/* A difference of 2^63 must not wrap into the wrong sign. */
	struct hesper_event lo = {"lo", 0, 0}, hi = {"hi", 1ull << 63, 1ull << 63};

	ck_assert_int_lt(hesper_event_compare(&lo, &hi), 0);
	ck_assert_int_gt(hesper_event_compare(&hi, &lo), 0);
	ck_assert_int_eq(hesper_event_compare(&lo, &lo), 0);
}
END_TEST

static Suite *
event_suite(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("hesper_event_duration_ns");

	tcase_add_test(tc, duration_normal);
	tcase_add_test(tc, duration_zero_and_negative_clamp);
	tcase_add_test(tc, duration_extremes);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_ns_to");
	tcase_add_test(tc, units);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_event_compare");
	tcase_add_test(tc, compare_orders_by_start_then_end);
	tcase_add_test(tc, compare_signs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(event_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
