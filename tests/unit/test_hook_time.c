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

/* Runs @calls hooks that do nothing; counts the sampled ones into @sampled, by their call number modulo 4 and 64. */
static unsigned
sample_calls(unsigned calls, unsigned by4[4], unsigned by64[64])
{
	unsigned sampled = 0;
	for (unsigned i = 0; i < calls; i++) {
		uint64_t t = hesper_hook_start();
		ck_assert_uint_eq(hesper_hook_pause(t), t != 0);
		ck_assert_uint_eq(hesper_hook_resume(0), 0);
		if (t) {
			sampled++;
			by4[i % 4]++;
			by64[i % 64]++;
		}
	}
	return sampled;
}

/* One call in HESPER_HOOK_SAMPLE of a thread's is sampled on average. */
START_TEST(one_call_in_the_sample_is_timed_on_average)
{
	unsigned by4[4] = {0}, by64[64] = {0};
	unsigned sampled = sample_calls(1000 * HESPER_HOOK_SAMPLE, by4, by64);
	/* the gaps' spread gives about 1000 +- 18 */
	ck_assert_uint_ge(sampled, 800);
	ck_assert_uint_le(sampled, 1250);
}
END_TEST

/*
 * A program's recording repeats a pattern of a few commands: the sampled calls must fall on
 * every place of it, not on the same hook each time (every 64th call of a pattern of 4 does).
 */
START_TEST(sampled_calls_fall_on_every_place_of_a_pattern)
{
	unsigned by4[4] = {0}, by64[64] = {0};
	unsigned sampled = sample_calls(1000 * HESPER_HOOK_SAMPLE, by4, by64);
	for (unsigned r = 0; r < 4; r++)
		ck_assert_uint_ge(by4[r] * 100, sampled * 15); /* a quarter each, about +-1.4 % */
	for (unsigned r = 0; r < 64; r++)
		ck_assert_uint_le(by64[r] * 100, sampled * 5); /* 1.6 % each, the largest near 2.5 % */
}
END_TEST

/* A sampled hook counts its stretches of work, HESPER_HOOK_SAMPLE times each, and not the driver's call between. */
START_TEST(a_sampled_hook_counts_its_work_not_the_drivers)
{
	uint64_t t = 0;
	while (!t)
		t = hesper_hook_start();
	uint64_t before = hesper_hook_own_ns();
	spin(200000); /* the hook's own work: 0.2 ms */
	t = hesper_hook_pause(t);
	spin(100000000); /* the driver's call: 100 ms, not counted */
	t = hesper_hook_resume(t);
	ck_assert_uint_ne(t, 0);
	spin(300000); /* more of the hook's work: 0.3 ms */
	hesper_hook_pause(t);
	uint64_t added = hesper_hook_own_ns() - before;
	ck_assert_uint_ge(added, 500000ull * HESPER_HOOK_SAMPLE);
	/* the 100 ms between would add 6.4 s; a loaded machine's scheduling delays stay far below 50 ms */
	ck_assert_uint_lt(added, 50000000ull * HESPER_HOOK_SAMPLE);
	/* an unsampled hook adds nothing */
	before = hesper_hook_own_ns();
	hesper_hook_pause(0);
	ck_assert_uint_eq(hesper_hook_own_ns(), before);
}
END_TEST

/* Rare work inside a hook counts once, sampled stretch or not, and not again in the stretch. */
START_TEST(rare_work_counts_once)
{
	/* in an unsampled call */
	uint64_t before = hesper_hook_own_ns();
	uint64_t r = hesper_now_ns();
	spin(10000000); /* a pool made: 10 ms */
	hesper_hook_rare_end(r);
	uint64_t added = hesper_hook_own_ns() - before;
	ck_assert_uint_ge(added, 10000000ull);
	ck_assert_uint_lt(added, 320000000ull); /* counted 64 times would be 640 ms */

	/* in a sampled one: the stretch's own work 64 times, the rare work once */
	uint64_t t = 0;
	while (!t)
		t = hesper_hook_start();
	before = hesper_hook_own_ns();
	spin(100000); /* the hook's own work: 0.1 ms */
	r = hesper_now_ns();
	spin(10000000);
	hesper_hook_rare_end(r);
	hesper_hook_pause(t);
	added = hesper_hook_own_ns() - before;
	ck_assert_uint_ge(added, 10000000ull + 100000ull * HESPER_HOOK_SAMPLE);
	ck_assert_uint_lt(added, 320000000ull + 100000ull * HESPER_HOOK_SAMPLE);
}
END_TEST

static Suite *
hook_time_suite(void)
{
	Suite *s = suite_create("hook_time");
	TCase *tc = tcase_create("sampling");
	tcase_add_test(tc, one_call_in_the_sample_is_timed_on_average);
	tcase_add_test(tc, sampled_calls_fall_on_every_place_of_a_pattern);
	tcase_add_test(tc, a_sampled_hook_counts_its_work_not_the_drivers);
	tcase_add_test(tc, rare_work_counts_once);
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
