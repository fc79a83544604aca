/* Unit tests for layer/state/hook_time.c: the sampled host time of Hesper's hooks. */
#include <check.h>
#include <stdlib.h>
#include <time.h>

#include "hook_time.h"

/* Spins for at least @ns of the monotonic clock. */
static void
spin(uint64_t ns)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec < ns);
}

/* One call in HESPER_HOOK_SAMPLE of a thread's is sampled, whatever the calls between. */
START_TEST(one_call_in_the_sample_is_timed)
{
	unsigned sampled = 0;
	for (unsigned i = 0; i < 10 * HESPER_HOOK_SAMPLE; i++) {
		uint64_t t = hesper_hook_start();
		sampled += t != 0;
		ck_assert_uint_eq(hesper_hook_pause(t), t != 0);
		ck_assert_uint_eq(hesper_hook_resume(0), 0);
	}
	ck_assert_uint_eq(sampled, 10);
}
END_TEST

/* A sampled hook counts its stretches of work, HESPER_HOOK_SAMPLE times each, and not the driver's call between. */
START_TEST(a_sampled_hook_counts_its_work_not_the_drivers)
{
	uint64_t t = 0;
	while (!t)
		t = hesper_hook_start();
	uint64_t before = hesper_hook_sampled_ns();
	spin(200000); /* the hook's own work: 0.2 ms */
	t = hesper_hook_pause(t);
	spin(100000000); /* the driver's call: 100 ms, not counted */
	t = hesper_hook_resume(t);
	ck_assert_uint_ne(t, 0);
	spin(300000); /* more of the hook's work: 0.3 ms */
	hesper_hook_pause(t);
	uint64_t added = hesper_hook_sampled_ns() - before;
	ck_assert_uint_ge(added, 500000ull * HESPER_HOOK_SAMPLE);
	/* the 100 ms between would add 6.4 s; a loaded machine's scheduling delays stay far below 50 ms */
	ck_assert_uint_lt(added, 50000000ull * HESPER_HOOK_SAMPLE);
	/* an unsampled hook adds nothing */
	before = hesper_hook_sampled_ns();
	hesper_hook_pause(0);
	ck_assert_uint_eq(hesper_hook_sampled_ns(), before);
}
END_TEST

static Suite *
hook_time_suite(void)
{
	Suite *s = suite_create("hook_time");
	TCase *tc = tcase_create("sampling");
	tcase_add_test(tc, one_call_in_the_sample_is_timed);
	tcase_add_test(tc, a_sampled_hook_counts_its_work_not_the_drivers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(hook_time_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
