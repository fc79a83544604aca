/* Unit tests for layer/submit/result_slots.c: the sizes of submission records' results buffers. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "result_slots.h"

START_TEST(small_needs_round_to_powers_of_two)
{
	ck_assert_uint_eq(hesper_result_slots(0, 0), HESPER_RESULT_MIN_SLOTS);
	ck_assert_uint_eq(hesper_result_slots(1, 0), 1024);
	ck_assert_uint_eq(hesper_result_slots(1024, 0), 1024);
	ck_assert_uint_eq(hesper_result_slots(1025, 0), 2048);
	/* clock mode's 34 words a dispatch, 40 dispatches */
	ck_assert_uint_eq(hesper_result_slots(1360, 0), 2048);
	ck_assert_uint_eq(hesper_result_slots(65536, 0), 65536);
}
END_TEST

START_TEST(the_queue_peak_sizes_every_record)
{
	/* a record recycled for a small need still gets the queue's largest, so it grows once */
	ck_assert_uint_eq(hesper_result_slots(100, 3000), 4096);
	ck_assert_uint_eq(hesper_result_slots(3000, 3000), 4096);
	ck_assert_uint_eq(hesper_result_slots(5000, 3000), 8192);
	/* whatever the order the needs come in, one size */
	uint32_t sizes[] = {hesper_result_slots(1500, 3500), hesper_result_slots(3500, 3500),
			    hesper_result_slots(2100, 3500)};
	ck_assert_uint_eq(sizes[0], sizes[1]);
	ck_assert_uint_eq(sizes[1], sizes[2]);
}
END_TEST

START_TEST(large_needs_grow_by_steps_not_doubling)
{
	/* a million timed dispatches (two queries each): not the next power of two, 4,194,304 */
	uint32_t s = hesper_result_slots(2000000, 2000000);
	ck_assert_uint_ge(s, 2000000);
	ck_assert_uint_lt(s, 2000000 + 65536);
	ck_assert_uint_eq(s % 65536, 0);
	ck_assert_uint_eq(hesper_result_slots(65537, 0), 131072);
	ck_assert_uint_eq(hesper_result_slots(131073, 0), 196608);
	/* past what a buffer may hold: the need itself, for the caller to refuse */
	ck_assert_uint_eq(hesper_result_slots(UINT32_MAX / 2 + 10, 0), UINT32_MAX / 2 + 10);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("result_slots");
	TCase *tc = tcase_create("sizes");
	tcase_add_test(tc, small_needs_round_to_powers_of_two);
	tcase_add_test(tc, the_queue_peak_sizes_every_record);
	tcase_add_test(tc, large_needs_grow_by_steps_not_doubling);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
