/* Unit tests for analysis/model/histogram.c. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fixtures.h"
#include "model/model.h"

/* Deterministic PRNG (xorshift64*), so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng_next(void)
{
	return xorshift64s(&rng_state);
}

static double
rng_unit(void)
{
	return (double)(rng_next() >> 11) / 9007199254740992.0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The exact nearest-rank quantile of sorted @v, computed independently of the library. */
static uint64_t
exact_quantile(const uint64_t *v, size_t n, double q)
{
	double r = ceil(q * (double)n);
	size_t rank = r < 1 ? 1 : (size_t)r;

	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static void
assert_within_bound(uint64_t got, uint64_t want)
{
	double err = fabs((double)got - (double)want) / (double)want;

	ck_assert_msg(err <= HESPER_HISTOGRAM_MAX_RELATIVE_ERROR, "got %llu want %llu (error %g)",
		      (unsigned long long)got, (unsigned long long)want, err);
}

START_TEST(empty)
{
	struct hesper_histogram h;

	hesper_histogram_init(&h);
	ck_assert_ptr_null(h.counts);
	ck_assert_uint_eq(h.total, 0);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0.5), 0);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 1), 0);
	hesper_histogram_free(&h);
}
END_TEST

START_TEST(small_values_exact)
{
	struct hesper_histogram h;

	hesper_histogram_init(&h);
	for (uint64_t v = 0; v < 128; v++)
		ck_assert(hesper_histogram_add(&h, v));
	for (uint64_t i = 0; i < 128; i++)
		ck_assert_uint_eq(hesper_histogram_quantile(&h, (double)(i + 1) / 128.0), i);
	hesper_histogram_free(&h);
}
END_TEST

START_TEST(nearest_rank)
{
	struct hesper_histogram h;

	hesper_histogram_init(&h);
	for (uint64_t v = 1; v <= 100; v++)
		hesper_histogram_add(&h, v);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0), 1);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0.001), 1);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0.5), 50);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0.501), 51);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0.95), 95);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0.99), 99);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 1), 100);
	/* Out-of-range and NaN quantiles are clamped, not undefined. */
	ck_assert_uint_eq(hesper_histogram_quantile(&h, -3), 1);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 7), 100);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, NAN), 1);
	hesper_histogram_free(&h);
}
END_TEST

START_TEST(error_bound_random)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct hesper_histogram h;

	ck_assert_ptr_nonnull(v);
	hesper_histogram_init(&h);
	/* Log-uniform over 1 ns .. 10 s. */
	for (size_t i = 0; i < N; i++) {
		v[i] = (uint64_t)llround(exp(rng_unit() * log(1e10)));
		ck_assert(hesper_histogram_add(&h, v[i]));
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	ck_assert_uint_eq(h.total, N);
	for (int i = 0; i <= 1000; i++) {
		double q = i / 1000.0;
		assert_within_bound(hesper_histogram_quantile(&h, q), exact_quantile(v, N, q));
	}
	for (double q = 0.99; q < 1.0; q += 0.0001)
		assert_within_bound(hesper_histogram_quantile(&h, q), exact_quantile(v, N, q));
	/* Bounded memory: one row per power of two at most. */
	ck_assert_int_le(h.hi_row - h.lo_row + 1, 64);
	hesper_histogram_free(&h);
	free(v);
}
END_TEST

START_TEST(every_bucket_edge)
{
	/* The worst case of the bound is the low edge of a bucket; try each power of two's edges. */
	for (int k = 7; k < 64; k++) {
		for (uint64_t sub = 0; sub < 64; sub += 9) {
			uint64_t lo = (1ull << k) + sub * (1ull << (k - 6));
			uint64_t hi = lo + (1ull << (k - 6)) - 1;
			struct hesper_histogram h;

			hesper_histogram_init(&h);
			hesper_histogram_add(&h, lo);
			assert_within_bound(hesper_histogram_quantile(&h, 0.5), lo);
			hesper_histogram_free(&h);
			hesper_histogram_add(&h, hi);
			assert_within_bound(hesper_histogram_quantile(&h, 0.5), hi);
			hesper_histogram_free(&h);
		}
	}
}
END_TEST

START_TEST(extreme_values)
{
	struct hesper_histogram h;

	hesper_histogram_init(&h);
	hesper_histogram_add(&h, UINT64_MAX);
	hesper_histogram_add(&h, 0);
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0.5), 0);
	assert_within_bound(hesper_histogram_quantile(&h, 1), UINT64_MAX);
	ck_assert_int_eq(h.lo_row, 0);
	ck_assert_int_le(h.hi_row, 63);
	hesper_histogram_free(&h);
}
END_TEST

START_TEST(rows_extend_both_ways)
{
	struct hesper_histogram h;

	hesper_histogram_init(&h);
	hesper_histogram_add(&h, 1000);
	ck_assert_int_eq(h.lo_row, h.hi_row);
	hesper_histogram_add(&h, 1);
	hesper_histogram_add(&h, 1000000000000ull);
	ck_assert_int_lt(h.lo_row, h.hi_row);
	/* Counts already held survive the moves. */
	ck_assert_uint_eq(hesper_histogram_quantile(&h, 0), 1);
	assert_within_bound(hesper_histogram_quantile(&h, 0.5), 1000);
	assert_within_bound(hesper_histogram_quantile(&h, 1), 1000000000000ull);
	ck_assert_uint_eq(h.total, 3);
	hesper_histogram_free(&h);
	ck_assert_ptr_null(h.counts);
	ck_assert_uint_eq(h.total, 0);
}
END_TEST

START_TEST(merge_equals_adding_all)
{
	struct hesper_histogram a, b, all, empty;

	hesper_histogram_init(&a);
	hesper_histogram_init(&b);
	hesper_histogram_init(&all);
	hesper_histogram_init(&empty);
	for (int i = 0; i < 5000; i++) {
		uint64_t x = rng_next() % 100000, y = rng_next() % 100000000000ull;

		hesper_histogram_add(&a, x);
		hesper_histogram_add(&b, y);
		hesper_histogram_add(&all, x);
		hesper_histogram_add(&all, y);
	}
	ck_assert(hesper_histogram_merge(&a, &b));
	ck_assert(hesper_histogram_merge(&a, &empty));
	ck_assert_uint_eq(a.total, all.total);
	for (int i = 0; i <= 200; i++)
		ck_assert_uint_eq(hesper_histogram_quantile(&a, i / 200.0), hesper_histogram_quantile(&all, i / 200.0));

	/* Into an empty histogram. */
	ck_assert(hesper_histogram_merge(&empty, &all));
	ck_assert_uint_eq(empty.total, all.total);
	ck_assert_uint_eq(hesper_histogram_quantile(&empty, 0.9), hesper_histogram_quantile(&all, 0.9));
	hesper_histogram_free(&a);
	hesper_histogram_free(&b);
	hesper_histogram_free(&all);
	hesper_histogram_free(&empty);
}
END_TEST

START_TEST(add_n_equals_repeated_add)
{
	struct hesper_histogram a, b;

	hesper_histogram_init(&a);
	hesper_histogram_init(&b);
	ck_assert(hesper_histogram_add_n(&a, 5000, 0));
	ck_assert_uint_eq(a.total, 0);
	ck_assert(hesper_histogram_add_n(&a, 5000, 7));
	ck_assert(hesper_histogram_add_n(&a, 12, 3));
	for (int i = 0; i < 7; i++)
		hesper_histogram_add(&b, 5000);
	for (int i = 0; i < 3; i++)
		hesper_histogram_add(&b, 12);
	ck_assert_uint_eq(a.total, 10);
	for (int i = 0; i <= 20; i++)
		ck_assert_uint_eq(hesper_histogram_quantile(&a, i / 20.0), hesper_histogram_quantile(&b, i / 20.0));
	hesper_histogram_free(&a);
	hesper_histogram_free(&b);
}
END_TEST

START_TEST(bucket_ranges_tile)
{
	uint64_t lo, hi, prev_hi = 0;

	/* Consecutive buckets cover 0..2^64 without gaps, and every value maps into its own. */
	for (int row = 0; row <= 58; row++) {
		for (int sub = 0; sub < HESPER_HISTOGRAM_SUB_BUCKETS; sub++) {
			hesper_histogram_bucket_range(row, sub, &lo, &hi);
			ck_assert_uint_eq(lo, prev_hi);
			ck_assert_uint_gt(hi, lo);
			struct hesper_histogram h;
			hesper_histogram_init(&h);
			hesper_histogram_add(&h, lo);
			ck_assert_int_eq(h.lo_row, row);
			ck_assert_uint_eq(h.counts[sub], 1);
			hesper_histogram_free(&h);
			prev_hi = hi;
		}
	}
	ck_assert_uint_eq(prev_hi, UINT64_MAX);
}
END_TEST

static Suite *
histogram_suite(void)
{
	Suite *s = suite_create("histogram");
	TCase *tc = tcase_create("hesper_histogram_quantile");

	tcase_add_test(tc, empty);
	tcase_add_test(tc, small_values_exact);
	tcase_add_test(tc, nearest_rank);
	tcase_add_test(tc, error_bound_random);
	tcase_add_test(tc, every_bucket_edge);
	tcase_add_test(tc, extreme_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_histogram_add");
	tcase_add_test(tc, rows_extend_both_ways);
	tcase_add_test(tc, add_n_equals_repeated_add);
	tcase_add_test(tc, bucket_ranges_tile);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_histogram_merge");
	tcase_add_test(tc, merge_equals_adding_all);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(histogram_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
