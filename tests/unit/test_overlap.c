/* Unit tests for analysis/model/overlap.c: overlapping intervals' shares of the time they covered. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/model.h"

/* Shares of @n spans into @share; checks they add up to the union, returned. */
static uint64_t
shares_of(const struct hesper_span *spans, size_t n, uint64_t *share)
{
	uint64_t covered = 12345, sum = 0;

	ck_assert_int_eq(hesper_overlap_shares(spans, n, share, &covered), 0);
	for (size_t i = 0; i < n; i++)
		sum += share[i];
	ck_assert_uint_eq(sum, covered);
	return covered;
}

START_TEST(none)
{
	uint64_t covered = 7;

	ck_assert_int_eq(hesper_overlap_shares(NULL, 0, NULL, &covered), 0);
	ck_assert_uint_eq(covered, 0);
	ck_assert_int_eq(hesper_overlap_shares(NULL, 0, NULL, NULL), 0);
}
END_TEST

START_TEST(disjoint_get_their_length)
{
	/* Touching counts as disjoint: [10, 20) and [20, 35) share no time. */
	const struct hesper_span spans[] = {{20, 35}, {10, 20}, {100, 101}, {50, 90}};
	uint64_t share[4];

	ck_assert_uint_eq(shares_of(spans, 4, share), 15 + 10 + 1 + 40);
	ck_assert_uint_eq(share[0], 15);
	ck_assert_uint_eq(share[1], 10);
	ck_assert_uint_eq(share[2], 1);
	ck_assert_uint_eq(share[3], 40);
}
END_TEST

START_TEST(identical_halve)
{
	const struct hesper_span even[] = {{1000, 3000}, {1000, 3000}};
	const struct hesper_span odd[] = {{0, 7}, {0, 7}};
	uint64_t share[2];

	ck_assert_uint_eq(shares_of(even, 2, share), 2000);
	ck_assert_uint_eq(share[0], 1000);
	ck_assert_uint_eq(share[1], 1000);
	/* 3.5 each: the odd unit goes to one of them, the first on the tie */
	ck_assert_uint_eq(shares_of(odd, 2, share), 7);
	ck_assert_uint_eq(share[0], 4);
	ck_assert_uint_eq(share[1], 3);
}
END_TEST

START_TEST(nested_and_partial)
{
	/* [0, 100) holds [40, 60): 40 + 20/2 + 40 = 90 and 10 */
	const struct hesper_span nested[] = {{0, 100}, {40, 60}};
	/* [0, 60) and [40, 100): 40 + 20/2 = 50 each */
	const struct hesper_span partial[] = {{0, 60}, {40, 100}};
	/* three in a staircase: [0,30) [10,40) [20,50):
	 * 0-10: a; 10-20: a,b; 20-30: a,b,c; 30-40: b,c; 40-50: c */
	const struct hesper_span stairs[] = {{0, 30}, {10, 40}, {20, 50}};
	uint64_t share[3];

	ck_assert_uint_eq(shares_of(nested, 2, share), 100);
	ck_assert_uint_eq(share[0], 90);
	ck_assert_uint_eq(share[1], 10);
	ck_assert_uint_eq(shares_of(partial, 2, share), 100);
	ck_assert_uint_eq(share[0], 50);
	ck_assert_uint_eq(share[1], 50);
	/* a: 10 + 5 + 10/3, b: 5 + 10/3 + 5, c: 10/3 + 5 + 10: 18.33, 13.33, 18.33 */
	ck_assert_uint_eq(shares_of(stairs, 3, share), 50);
	ck_assert_uint_ge(share[0], 18);
	ck_assert_uint_le(share[0], 19);
	ck_assert_uint_ge(share[1], 13);
	ck_assert_uint_le(share[1], 14);
	ck_assert_uint_ge(share[2], 18);
	ck_assert_uint_le(share[2], 19);
}
END_TEST

START_TEST(zero_length)
{
	/* Empty intervals (and an end before its start) cover nothing, wherever they lie. */
	const struct hesper_span spans[] = {{50, 50}, {0, 100}, {100, 100}, {0, 0}, {70, 60}, {200, 200}};
	uint64_t share[6];

	ck_assert_uint_eq(shares_of(spans, 6, share), 100);
	ck_assert_uint_eq(share[0], 0);
	ck_assert_uint_eq(share[1], 100);
	ck_assert_uint_eq(share[2], 0);
	ck_assert_uint_eq(share[3], 0);
	ck_assert_uint_eq(share[4], 0);
	ck_assert_uint_eq(share[5], 0);
}
END_TEST

START_TEST(rounding_adds_up)
{
	/* Three identical intervals of 10: 3.33 each, the one unit left to the first. */
	const struct hesper_span three[] = {{5, 15}, {5, 15}, {5, 15}};
	/* Seven of length 1: each gets 0 or 1, and exactly one gets it. */
	const struct hesper_span seven[] = {{9, 10}, {9, 10}, {9, 10}, {9, 10}, {9, 10}, {9, 10}, {9, 10}};
	uint64_t share[7], sum = 0;

	ck_assert_uint_eq(shares_of(three, 3, share), 10);
	ck_assert_uint_eq(share[0], 4);
	ck_assert_uint_eq(share[1], 3);
	ck_assert_uint_eq(share[2], 3);
	ck_assert_uint_eq(shares_of(seven, 7, share), 1);
	for (size_t i = 0; i < 7; i++) {
		ck_assert_uint_le(share[i], 1);
		sum += share[i];
	}
	ck_assert_uint_eq(sum, 1);
}
END_TEST

START_TEST(extremes)
{
	/* The widest time line there is: the fixed-point sums must not overflow. */
	const struct hesper_span spans[] = {{0, UINT64_MAX}, {0, UINT64_MAX}, {UINT64_MAX - 1, UINT64_MAX}};
	uint64_t share[3];

	ck_assert_uint_eq(shares_of(spans, 3, share), UINT64_MAX);
	ck_assert_uint_ge(share[0], UINT64_MAX / 2 - 1);
	ck_assert_uint_ge(share[1], UINT64_MAX / 2 - 1);
	ck_assert_uint_le(share[2], 1);
}
END_TEST

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Shares against a direct count, unit by unit, on random intervals (small coordinates). */
START_TEST(many_against_brute_force)
{
	enum { N = 300, T = 2000 };
	struct hesper_span *spans = malloc(N * sizeof(*spans));
	uint64_t *share = malloc(N * sizeof(*share));
	double *exact = calloc(N, sizeof(*exact));
	uint64_t state = 0x9e3779b97f4a7c15ull, covered_units = 0;

	ck_assert_ptr_nonnull(spans);
	ck_assert_ptr_nonnull(share);
	ck_assert_ptr_nonnull(exact);
	for (size_t i = 0; i < N; i++) {
		uint64_t a = xorshift(&state) % T, len = xorshift(&state) % 120;

		spans[i] = (struct hesper_span){a, a + len};
	}
	for (uint64_t t = 0; t < T + 120; t++) {
		unsigned active = 0;

		for (size_t i = 0; i < N; i++)
			active += spans[i].start <= t && t < spans[i].end;
		covered_units += active > 0;
		for (size_t i = 0; i < N && active; i++)
			if (spans[i].start <= t && t < spans[i].end)
				exact[i] += 1.0 / active;
	}
	ck_assert_uint_eq(shares_of(spans, N, share), covered_units);
	for (size_t i = 0; i < N; i++) {
		/* Whole units: within one unit of the exact share, and a lone interval exactly its length. */
		ck_assert_double_le(share[i], exact[i] + 1.0);
		ck_assert_double_ge(share[i], exact[i] - 1.0);
		if (spans[i].end == spans[i].start)
			ck_assert_uint_eq(share[i], 0);
	}
	free(spans);
	free(share);
	free(exact);
}
END_TEST

/* Back-to-back dispatches with a few running at once, as clock mode sees them: shares add up to the busy time. */
START_TEST(many_back_to_back)
{
	enum { N = 2000 };
	struct hesper_span *spans = malloc(N * sizeof(*spans));
	uint64_t *share = malloc(N * sizeof(*share));
	uint64_t sum_spans = 0;

	ck_assert_ptr_nonnull(spans);
	ck_assert_ptr_nonnull(share);
	/* Each starts 7,000 units after the one before and lasts 33,500: about five at once. */
	for (size_t i = 0; i < N; i++) {
		spans[i] = (struct hesper_span){1000000 + i * 7000, 1000000 + i * 7000 + 33500};
		sum_spans += 33500;
	}
	uint64_t covered = shares_of(spans, N, share);
	ck_assert_uint_eq(covered, (N - 1) * 7000 + 33500);
	ck_assert_uint_lt(covered, sum_spans / 4);
	/* In the steady middle, five or so share every stretch: each gets about 7,000. */
	for (size_t i = 10; i < N - 10; i++) {
		ck_assert_uint_ge(share[i], 6999);
		ck_assert_uint_le(share[i], 7001);
	}
	free(spans);
	free(share);
}
END_TEST

static Suite *
overlap_suite(void)
{
	Suite *s = suite_create("overlap");
	TCase *tc = tcase_create("hesper_overlap_shares");

	tcase_add_test(tc, none);
	tcase_add_test(tc, disjoint_get_their_length);
	tcase_add_test(tc, identical_halve);
	tcase_add_test(tc, nested_and_partial);
	tcase_add_test(tc, zero_length);
	tcase_add_test(tc, rounding_adds_up);
	tcase_add_test(tc, extremes);
	tcase_add_test(tc, many_against_brute_force);
	tcase_add_test(tc, many_back_to_back);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(overlap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
