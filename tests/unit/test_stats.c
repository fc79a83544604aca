/* Unit tests for analysis/model/stats.c: expected values are computed here, independently. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fixtures.h"
#include "model/model.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t
rng_next(void)
{
	return xorshift64s(&rng_state);
}

/* Two-pass mean and sample standard deviation in long double: the reference. */
static void
reference(const uint64_t *v, size_t n, double *mean, double *stddev)
{
	long double sum = 0, sq = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	long double m = sum / n;
	for (size_t i = 0; i < n; i++)
		sq += ((long double)v[i] - m) * ((long double)v[i] - m);
	*mean = (double)m;
	*stddev = n > 1 ? (double)sqrtl(sq / (n - 1)) : 0;
}

static void
assert_close(double got, double want, double rel)
{
	double tol = fabs(want) * rel;

	ck_assert_msg(fabs(got - want) <= tol, "got %.17g want %.17g", got, want);
}

START_TEST(empty)
{
	struct hesper_stats s;

	hesper_stats_init(&s);
	ck_assert_uint_eq(s.count, 0);
	ck_assert_uint_eq(s.total_ns, 0);
	ck_assert(!s.total_saturated);
	ck_assert_uint_eq(s.min_ns, UINT64_MAX);
	ck_assert_uint_eq(s.max_ns, 0);
	ck_assert_double_eq(hesper_stats_stddev(&s), 0);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0.5), 0);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(one_event)
{
	struct hesper_stats s;

	hesper_stats_init(&s);
	hesper_stats_add(&s, 123456789);
	ck_assert_uint_eq(s.count, 1);
	ck_assert_uint_eq(s.total_ns, 123456789);
	ck_assert_uint_eq(s.min_ns, 123456789);
	ck_assert_uint_eq(s.max_ns, 123456789);
	ck_assert_double_eq(s.mean_ns, 123456789.0);
	ck_assert_double_eq(hesper_stats_stddev(&s), 0);
	/* Clamping into [min, max] makes a single value exact, whatever its bucket. */
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0), 123456789);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0.5), 123456789);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 1), 123456789);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(two_events)
{
	struct hesper_stats s;

	hesper_stats_init(&s);
	hesper_stats_add(&s, 10);
	hesper_stats_add(&s, 20);
	ck_assert_uint_eq(s.total_ns, 30);
	ck_assert_double_eq(s.mean_ns, 15);
	/* ((10-15)^2 + (20-15)^2) / (2-1) = 50 */
	ck_assert_double_eq_tol(hesper_stats_stddev(&s), sqrt(50.0), 1e-12);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0.5), 10);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0.51), 20);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(identical_values)
{
	struct hesper_stats s;

	hesper_stats_init(&s);
	for (int i = 0; i < 100000; i++)
		hesper_stats_add(&s, 1000003);
	ck_assert_double_eq(s.mean_ns, 1000003.0);
	ck_assert_double_eq(hesper_stats_stddev(&s), 0);
	ck_assert_uint_eq(s.total_ns, 100000ull * 1000003ull);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0.99), 1000003);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(large_offset_is_stable)
{
	/* Sum-of-squares would lose the variance of these entirely; Welford must not. */
	uint64_t base = 1000000000000000ull; /* 1e15 ns, about 11.6 days */
	uint64_t v[] = {base + 4, base + 7, base + 13, base + 16};
	struct hesper_stats s;

	hesper_stats_init(&s);
	for (int r = 0; r < 1000; r++)
		for (int i = 0; i < 4; i++)
			hesper_stats_add(&s, v[i]);
	/*
	 * Variance of the 4000 values: 90 * 1000 / 3999. The running mean rounds to 1/8 ns at
	 * this magnitude, so allow 1e-4; a sum of squares (~1e33) would be off by ~1e17.
	 */
	assert_close(hesper_stats_stddev(&s), sqrt(90000.0 / 3999.0), 1e-4);
	assert_close(s.mean_ns, (double)(base + 10), 1e-15);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(tiny_values)
{
	struct hesper_stats s;

	hesper_stats_init(&s);
	hesper_stats_add(&s, 0);
	hesper_stats_add(&s, 1);
	ck_assert_uint_eq(s.min_ns, 0);
	ck_assert_uint_eq(s.max_ns, 1);
	ck_assert_double_eq(s.mean_ns, 0.5);
	ck_assert_double_eq_tol(hesper_stats_stddev(&s), sqrt(0.5), 1e-15);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0.5), 0);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 1), 1);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(uint64_max_values)
{
	struct hesper_stats s;

	hesper_stats_init(&s);
	hesper_stats_add(&s, UINT64_MAX);
	hesper_stats_add(&s, UINT64_MAX);
	ck_assert(s.total_saturated);
	ck_assert_uint_eq(s.total_ns, UINT64_MAX);
	ck_assert_uint_eq(s.min_ns, UINT64_MAX);
	ck_assert_uint_eq(s.max_ns, UINT64_MAX);
	ck_assert_double_eq(s.mean_ns, 18446744073709551615.0);
	ck_assert_double_eq(hesper_stats_stddev(&s), 0);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0.5), UINT64_MAX);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(saturation_edge)
{
	struct hesper_stats s;

	hesper_stats_init(&s);
	hesper_stats_add(&s, UINT64_MAX - 5);
	hesper_stats_add(&s, 5);
	ck_assert(!s.total_saturated);
	ck_assert_uint_eq(s.total_ns, UINT64_MAX);
	hesper_stats_add(&s, 1);
	ck_assert(s.total_saturated);
	ck_assert_uint_eq(s.total_ns, UINT64_MAX);
	/* Saturated stays saturated. */
	hesper_stats_add(&s, 0);
	ck_assert(s.total_saturated);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(random_against_reference)
{
	enum { N = 20000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct hesper_stats s;
	double mean, sd;
	uint64_t mn = UINT64_MAX, mx = 0, sum = 0;

	ck_assert_ptr_nonnull(v);
	hesper_stats_init(&s);
	for (size_t i = 0; i < N; i++) {
		v[i] = 1000 + rng_next() % 50000000;
		hesper_stats_add(&s, v[i]);
		sum += v[i];
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	reference(v, N, &mean, &sd);
	ck_assert_uint_eq(s.count, N);
	ck_assert_uint_eq(s.total_ns, sum);
	ck_assert_uint_eq(s.min_ns, mn);
	ck_assert_uint_eq(s.max_ns, mx);
	assert_close(s.mean_ns, mean, 1e-12);
	assert_close(hesper_stats_stddev(&s), sd, 1e-9);
	/* Extreme quantiles are clamped to the exact extremes. */
	ck_assert_uint_eq(hesper_stats_quantile(&s, 0), mn);
	ck_assert_uint_eq(hesper_stats_quantile(&s, 1), mx);
	hesper_stats_free(&s);
	free(v);
}
END_TEST

START_TEST(merge_matches_single_pass)
{
	enum { NA = 3000, NB = 7000 };
	uint64_t *v = malloc((NA + NB) * sizeof(*v));
	struct hesper_stats a, b, all, empty;
	double mean, sd;

	ck_assert_ptr_nonnull(v);
	hesper_stats_init(&a);
	hesper_stats_init(&b);
	hesper_stats_init(&all);
	hesper_stats_init(&empty);
	for (size_t i = 0; i < NA + NB; i++) {
		/* Two populations with very different means stress the cross term. */
		v[i] = i < NA ? 100 + rng_next() % 1000 : 5000000000ull + rng_next() % 1000000;
		hesper_stats_add(i < NA ? &a : &b, v[i]);
		hesper_stats_add(&all, v[i]);
	}
	reference(v, NA + NB, &mean, &sd);
	hesper_stats_merge(&a, &b);
	hesper_stats_merge(&a, &empty);
	ck_assert_uint_eq(a.count, NA + NB);
	ck_assert_uint_eq(a.total_ns, all.total_ns);
	ck_assert_uint_eq(a.min_ns, all.min_ns);
	ck_assert_uint_eq(a.max_ns, all.max_ns);
	assert_close(a.mean_ns, mean, 1e-12);
	assert_close(hesper_stats_stddev(&a), sd, 1e-9);
	for (int i = 0; i <= 100; i++)
		ck_assert_uint_eq(hesper_stats_quantile(&a, i / 100.0), hesper_stats_quantile(&all, i / 100.0));

	/* Into an empty one: a copy. */
	hesper_stats_merge(&empty, &all);
	ck_assert_uint_eq(empty.count, all.count);
	ck_assert_double_eq(empty.mean_ns, all.mean_ns);
	ck_assert_double_eq(empty.m2, all.m2);
	ck_assert_uint_eq(empty.min_ns, all.min_ns);
	hesper_stats_free(&a);
	hesper_stats_free(&b);
	hesper_stats_free(&all);
	hesper_stats_free(&empty);
	free(v);
}
END_TEST

START_TEST(merge_saturates)
{
	struct hesper_stats a, b;

	hesper_stats_init(&a);
	hesper_stats_init(&b);
	hesper_stats_add(&a, UINT64_MAX / 2 + 1);
	hesper_stats_add(&b, UINT64_MAX / 2 + 1);
	hesper_stats_merge(&a, &b);
	ck_assert(a.total_saturated);
	ck_assert_uint_eq(a.total_ns, UINT64_MAX);
	ck_assert_uint_eq(a.count, 2);
	hesper_stats_free(&a);
	hesper_stats_free(&b);
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("hesper_stats_add");

	tcase_add_test(tc, empty);
	tcase_add_test(tc, one_event);
	tcase_add_test(tc, two_events);
	tcase_add_test(tc, identical_values);
	tcase_add_test(tc, large_offset_is_stable);
	tcase_add_test(tc, tiny_values);
	tcase_add_test(tc, uint64_max_values);
	tcase_add_test(tc, saturation_edge);
	tcase_add_test(tc, random_against_reference);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_stats_merge");
	tcase_add_test(tc, merge_matches_single_pass);
	tcase_add_test(tc, merge_saturates);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
