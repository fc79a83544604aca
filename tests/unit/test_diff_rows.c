/*
 * Unit tests for tools/diff_rows.c, `hesper diff`'s verdict lines: a change within the noise
 * says where the noise comes from (a side's fastest runs apart, or the dispatches' spread).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_rows.h"
#include "fixtures.h"

/* A row of kernel @name, A at 1000 ns and B at @b_ns, each side's noise @within (dispatches) and @gap (runs). */
static struct hesper_diff_row
row(const char *name, double b_ns, double within_a, double gap_a, double within_b, double gap_b)
{
	struct hesper_diff_row r = {.name = name, .in = {true, true}, .count = {10, 10}, .total = {1e4, 10 * b_ns}};
	double within[2] = {within_a, within_b}, gap[2] = {gap_a, gap_b}, time[2] = {1000, b_ns};

	for (int s = 0; s < 2; s++) {
		struct hesper_diff_sample runs[2] = {{time[s], 0, 10}, {time[s] + gap[s], 0, 10}};
		r.est[s] = hesper_diff_estimate(runs, 2);
		/* the noise as hesper_diff_estimate adds it up, with the dispatches' part set to @within */
		r.est[s].noise_ns = sqrt(within[s] * within[s] + gap[s] * gap[s]);
	}
	r.change = hesper_diff_compare(&r.est[0], &r.est[1], 10, 3);
	return r;
}

/* The verdict lines of @rows, as a string the caller frees. */
static char *
verdict(const struct hesper_diff_row *rows, size_t n, size_t *slower)
{
	struct capture c;

	capture_open(&c);
	*slower = hesper_diff_print_verdict(c.f, rows, n, 10);
	capture_close(&c);
	return c.buf;
}

START_TEST(noise_from_a_side_whose_fastest_run_stood_apart)
{
	/* B 1.4x, B's two fastest runs 600 ns apart (43% of its 1400): the noise is the runs' gap */
	struct hesper_diff_row rows[1] = {row("blur", 1400, 5, 0, 5, 600)};
	size_t slower;

	ck_assert_int_eq(rows[0].change.verdict, HESPER_DIFF_NOISE);
	char *text = verdict(rows, 1, &slower);
	ck_assert_uint_eq(slower, 0);
	ck_assert_msg(strstr(text, "blur (1.40x, noise ±60.0%: B's two fastest runs 42.9% apart)"), "%s", text);
	ck_assert_msg(strstr(text, "more runs a side (--runs N"), "%s", text);
	free(text);
}
END_TEST

START_TEST(noise_from_the_dispatches_spread)
{
	/* B 1.4x, both sides' runs agree (gaps 10 ns) but each run's dispatches spread (within 300 ns) */
	struct hesper_diff_row rows[1] = {row("reduce", 1400, 300, 10, 300, 10)};
	size_t slower;

	ck_assert_int_eq(rows[0].change.verdict, HESPER_DIFF_NOISE);
	char *text = verdict(rows, 1, &slower);
	ck_assert_msg(strstr(text, "reduce (1.40x, noise ±42.4%: the dispatches' spread within a run)"), "%s", text);
	ck_assert_msg(!strstr(text, "--runs N"), "%s", text);
	free(text);
}
END_TEST

START_TEST(slower_rows_name_no_noise_source)
{
	struct hesper_diff_row rows[1] = {row("matmul", 1500, 5, 0, 5, 5)};
	size_t slower;

	ck_assert_int_eq(rows[0].change.verdict, HESPER_DIFF_SLOWER);
	char *text = verdict(rows, 1, &slower);
	ck_assert_uint_eq(slower, 1);
	ck_assert_msg(strstr(text, "matmul (1.50x, noise ±"), "%s", text);
	ck_assert_msg(!strstr(text, "apart") && !strstr(text, "spread within"), "%s", text);
	free(text);
}
END_TEST

static Suite *
diff_rows_suite(void)
{
	Suite *s = suite_create("diff_rows");
	TCase *tc = tcase_create("verdict");

	tcase_add_test(tc, noise_from_a_side_whose_fastest_run_stood_apart);
	tcase_add_test(tc, noise_from_the_dispatches_spread);
	tcase_add_test(tc, slower_rows_name_no_noise_source);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(diff_rows_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
