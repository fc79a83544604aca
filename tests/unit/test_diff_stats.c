/*
 * Unit tests for tools/diff_stats.c, `hesper diff`'s statistics: expected values are
 * computed here from the model's definition, and the model is run against simulated runs
 * of a machine that other processes slow down now and then.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "diff_stats.h"
#include "fixtures.h"

#define SE_OF_MEDIAN sqrt(M_PI / 2) /* the standard error of a normal sample's median, in stddev / sqrt(n) */

static struct hesper_diff_estimate
judged(double time_ns, double noise_ns)
{
	return (struct hesper_diff_estimate){.time_ns = time_ns, .noise_ns = noise_ns, .runs = 1, .judged = true};
}

START_TEST(lone_run_is_its_median_with_its_own_spread)
{
	struct hesper_diff_sample run = {1000, 200, 16};
	struct hesper_diff_estimate e = hesper_diff_estimate(&run, 1);

	ck_assert_double_eq(e.time_ns, 1000);
	ck_assert_double_eq_tol(e.noise_ns, SE_OF_MEDIAN * 200 / 4, 0.1);
	ck_assert_uint_eq(e.runs, 1);
	ck_assert(e.judged);
}
END_TEST

START_TEST(lone_run_needs_a_few_dispatches)
{
	struct hesper_diff_sample run = {1000, 0, HESPER_DIFF_MIN_TIMED - 1};

	ck_assert(!hesper_diff_estimate(&run, 1).judged);
	run.timed = HESPER_DIFF_MIN_TIMED;
	ck_assert(hesper_diff_estimate(&run, 1).judged);
	/* Two runs of one dispatch each: their disagreement is a noise. */
	struct hesper_diff_sample two[2] = {{1000, 0, 1}, {1300, 0, 1}};
	struct hesper_diff_estimate e = hesper_diff_estimate(two, 2);
	ck_assert(e.judged);
	ck_assert_double_eq(e.noise_ns, 300);
}
END_TEST

START_TEST(side_is_its_fastest_run_and_the_gap_to_the_next)
{
	struct hesper_diff_sample runs[] = {{1500, 10, 100}, {1000, 40, 25}, {0, 0, 0}, {1100, 5, 100}, {2000, 1, 9}};
	struct hesper_diff_estimate e = hesper_diff_estimate(runs, 5);
	/* Each run's standard error of its median: 1, 8, 0.5 and 1/3 stddevs over sqrt(n); their median. */
	double within = SE_OF_MEDIAN * (0.5 + 1.0) / 2;

	ck_assert_double_eq(e.time_ns, 1000);
	ck_assert_double_eq_tol(e.noise_ns, sqrt(within * within + 100 * 100), 0.1);
	ck_assert_uint_eq(e.runs, 4); /* the run that timed nothing does not count */
}
END_TEST

START_TEST(untimed_side_is_not_compared)
{
	struct hesper_diff_sample none = {0, 0, 0};
	struct hesper_diff_estimate a = hesper_diff_estimate(&none, 1), b = judged(1000, 10);

	ck_assert(isnan(a.time_ns));
	ck_assert_int_eq(hesper_diff_compare(&a, &b, 10, 2).verdict, HESPER_DIFF_UNTIMED);
	ck_assert_int_eq(hesper_diff_compare(&b, &a, 10, 2).verdict, HESPER_DIFF_UNTIMED);
}
END_TEST

START_TEST(verdicts)
{
	struct hesper_diff_estimate a = judged(1000, 30), b;
	struct hesper_diff_change c;

	/* Within the threshold: the same, however small the noise. */
	b = judged(1100, 0);
	c = hesper_diff_compare(&a, &b, 10, 2);
	ck_assert_int_eq(c.verdict, HESPER_DIFF_SAME);
	ck_assert_double_eq_tol(c.ratio, 1.1, 1e-12);
	ck_assert_double_eq_tol(c.noise_ns, 30, 1e-9);
	/* Past the threshold, within 2 x the noise of both sides (hypot(30, 40) = 50). */
	b = judged(1000 + 2 * 50, 40);
	ck_assert_int_eq(hesper_diff_compare(&a, &b, 5, 2).verdict, HESPER_DIFF_NOISE);
	b.time_ns = 1000 + 2 * 50 + 1;
	ck_assert_int_eq(hesper_diff_compare(&a, &b, 5, 2).verdict, HESPER_DIFF_SLOWER);
	ck_assert_int_eq(hesper_diff_compare(&a, &b, 5, 3).verdict, HESPER_DIFF_NOISE);
	ck_assert_int_eq(hesper_diff_compare(&a, &b, 20, 2).verdict, HESPER_DIFF_SAME);
	/* The other way. */
	ck_assert_int_eq(hesper_diff_compare(&b, &a, 5, 2).verdict, HESPER_DIFF_FASTER);
	/* A side whose noise is unknown cannot be judged. */
	b.judged = false;
	ck_assert_int_eq(hesper_diff_compare(&a, &b, 5, 2).verdict, HESPER_DIFF_FEW);
	/* From nothing to something. */
	a = judged(0, 0);
	b = judged(500, 10);
	c = hesper_diff_compare(&a, &b, 10, 2);
	ck_assert(isinf(c.ratio));
	ck_assert_int_eq(c.verdict, HESPER_DIFF_SLOWER);
	c = hesper_diff_compare(&a, &a, 10, 2);
	ck_assert_double_eq(c.ratio, 1);
	ck_assert_int_eq(c.verdict, HESPER_DIFF_SAME);
}
END_TEST

/*
 * Simulated runs: a kernel of @base ns, @dispatches per run, each dispatch off by up to
 * +-10 %, the first one 3 x (a cold start); a run is disturbed as a whole (2 x: another
 * process took a core) with probability @p_disturbed. The run's median and stddev as
 * Hesper would report them.
 */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double
uniform(void)
{
	return (double)(xorshift64s(&rng) >> 11) / 9007199254740992.0;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct hesper_diff_sample
simulated_run(double base, size_t dispatches, double p_disturbed)
{
	double v[64], sum = 0, sq = 0, load = uniform() < p_disturbed ? 2 : 1;

	for (size_t i = 0; i < dispatches; i++) {
		v[i] = base * load * (0.9 + 0.2 * uniform()) * (i == 0 ? 3 : 1);
		sum += v[i];
	}
	for (size_t i = 0; i < dispatches; i++)
		sq += (v[i] - sum / (double)dispatches) * (v[i] - sum / (double)dispatches);
	qsort(v, dispatches, sizeof(v[0]), by_value);
	return (struct hesper_diff_sample){v[(dispatches + 1) / 2 - 1], sqrt(sq / (double)(dispatches - 1)),
					   dispatches};
}

/* How many of @trials comparisons of @runs-run sides (B @factor times slower) are found slower. */
static int
slower_found(double factor, size_t runs, int trials, double p_disturbed)
{
	int found = 0;

	for (int t = 0; t < trials; t++) {
		struct hesper_diff_sample a[8], b[8];

		for (size_t r = 0; r < runs; r++) {
			a[r] = simulated_run(1e6, 41, p_disturbed);
			b[r] = simulated_run(1e6 * factor, 41, p_disturbed);
		}
		struct hesper_diff_estimate ea = hesper_diff_estimate(a, runs), eb = hesper_diff_estimate(b, runs);
		found += hesper_diff_compare(&ea, &eb, 10, 2).verdict == HESPER_DIFF_SLOWER;
	}
	return found;
}

START_TEST(runs_see_past_a_busy_machine)
{
	/* A quiet machine: one run a side tells a 1.5x slowdown and nothing from identical runs. */
	ck_assert_int_eq(slower_found(1.0, 1, 500, 0), 0);
	ck_assert_int_eq(slower_found(1.5, 1, 500, 0), 500);
	/* Half the runs slowed down 2x from outside: a lone run a side is fooled often ... */
	ck_assert_int_gt(slower_found(1.0, 1, 500, 0.5), 50);
	/* ... the fastest of 8 runs a side is almost never (all 8 disturbed: 1 in 256) ... */
	ck_assert_int_le(slower_found(1.0, 8, 500, 0.5), 5);
	/*
	 * ... and sees the slowdown unless a side has fewer than two undisturbed runs (9 in
	 * 256 a side): then the gap to its second fastest run is a disturbed run's, a noise
	 * as large as the disturbance, and the change is put down to noise.
	 */
	ck_assert_int_ge(slower_found(1.5, 8, 500, 0.5), 450);
}
END_TEST

START_TEST(one_slow_dispatch_does_not_hide_a_change)
{
	/*
	 * As seen on a loaded machine: five 5 ms dispatches a run, and in A's fastest run one of
	 * them took 100 ms (stddev 43 ms). Its own standard error (24 ms) hid the 1.48x change;
	 * the median of the runs' errors does not.
	 */
	struct hesper_diff_sample a[5] = {
		{5.14e6, 43e6, 5}, {5.3e6, 0.2e6, 5}, {5.4e6, 0.3e6, 5}, {5.5e6, 0.2e6, 5}, {5.6e6, 0.1e6, 5}};
	struct hesper_diff_sample b[5] = {
		{7.63e6, 0.1e6, 5}, {7.7e6, 0.2e6, 5}, {7.8e6, 0.1e6, 5}, {8.0e6, 0.3e6, 5}, {8.1e6, 0.2e6, 5}};
	struct hesper_diff_estimate ea = hesper_diff_estimate(a, 5), eb = hesper_diff_estimate(b, 5);

	ck_assert_double_lt(ea.noise_ns, 1e6);
	ck_assert_int_eq(hesper_diff_compare(&ea, &eb, 10, 2).verdict, HESPER_DIFF_SLOWER);
	/* Alone, that run can tell nothing better than its own spread. */
	ea = hesper_diff_estimate(a, 1);
	ck_assert_double_gt(ea.noise_ns, 20e6);
}
END_TEST

static Suite *
diff_stats_suite(void)
{
	Suite *s = suite_create("diff_stats");
	TCase *tc = tcase_create("hesper_diff_estimate");

	tcase_add_test(tc, lone_run_is_its_median_with_its_own_spread);
	tcase_add_test(tc, lone_run_needs_a_few_dispatches);
	tcase_add_test(tc, side_is_its_fastest_run_and_the_gap_to_the_next);
	tcase_add_test(tc, one_slow_dispatch_does_not_hide_a_change);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_diff_compare");
	tcase_add_test(tc, untimed_side_is_not_compared);
	tcase_add_test(tc, verdicts);
	tcase_add_test(tc, runs_see_past_a_busy_machine);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(diff_stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
