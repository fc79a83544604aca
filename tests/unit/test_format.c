/* Unit tests for analysis/model/format.c. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

struct format_case {
	double ns;
	const char *text;
};

static const struct format_case cases[] = {
	{0, "0 ns"},
	{0.4, "0 ns"},
	{1, "1 ns"},
	{812, "812 ns"},
	{999.4, "999 ns"},
	{999.6, "1.000 \u00b5s"}, /* rounds up into the next unit */
	{1000, "1.000 \u00b5s"},
	{1234, "1.234 \u00b5s"},
	{12350, "12.35 \u00b5s"},
	{123450.5, "123.5 \u00b5s"},
	{9999.6, "10.00 \u00b5s"}, /* still four significant digits */
	{999960, "1.000 ms"},
	{4210000, "4.210 ms"},
	{56780000, "56.78 ms"},
	{1250000000, "1.250 s"},
	{61500000000.0, "61.50 s"},
	{1234000000000.0, "1234 s"}, /* seconds never move on */
	{-1500, "-1.500 \u00b5s"},
	{-0.2, "0 ns"}, /* no "-0" */
	{18446744073709551615.0, "18446744074 s"},
};

START_TEST(table)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *r = hesper_format_duration(buf, sizeof(buf), cases[i].ns);
		ck_assert_ptr_eq(r, buf);
		ck_assert_msg(strcmp(buf, cases[i].text) == 0, "%.17g ns: got '%s', want '%s'", cases[i].ns, buf,
			      cases[i].text);
	}
}
END_TEST

START_TEST(non_finite)
{
	char buf[16];

	ck_assert_str_eq(hesper_format_duration(buf, sizeof(buf), NAN), "-");
	ck_assert_str_eq(hesper_format_duration(buf, sizeof(buf), INFINITY), "-");
}
END_TEST

START_TEST(small_buffer)
{
	char buf[5] = "zzzz";

	/* Truncated, terminated, no overflow (ASan would see one). */
	hesper_format_duration(buf, sizeof(buf), 4210000);
	ck_assert_str_eq(buf, "4.21");
	hesper_format_duration(buf, 0, 1); /* size 0: nothing written */
	ck_assert_str_eq(buf, "4.21");
}
END_TEST

/* A finding's numbers as a reader wants them: the key's unit taken into the value. */
START_TEST(finding_numbers)
{
	static const struct {
		const char *key;
		double value;
		const char *want;
	} cases[] = {
		{"idle_ns", 43829000, "idle 43.83 ms"},
		{"mean_gap_ns", 643400, "mean gap 643.4 \u00b5s"},
		{"idle_unit_ns", 1500, "idle unit 1.500 \u00b5s"},
		{"idle_share", 0.365, "idle share 36.5%"},
		{"round_trip_share", 1, "round trip share 100.0%"},
		{"bytes", 9792, "bytes 9.792 kB"},
		{"bytes", 512, "bytes 512 B"},
		{"bytes", 4194304, "bytes 4.194 MB"},
		{"staged_bytes", 2500000000.0, "staged 2.500 GB"},
		{"mean_gbps", 0.0122381, "mean 0.0122 GB/s"},
		{"compute_units", 16, "compute units 16"},
		{"ratio", 0.25, "ratio 0.25"},
	};
	char buf[96];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_str_eq(hesper_format_finding_number(buf, sizeof(buf), cases[i].key, cases[i].value),
				 cases[i].want);
	/* Truncated, terminated, no overflow (ASan would see one). */
	char small[8];
	ck_assert_str_eq(hesper_format_finding_number(small, sizeof(small), "idle_ns", 43829000), "idle 43");
}
END_TEST

static Suite *
format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("hesper_format_duration");

	tcase_add_test(tc, table);
	tcase_add_test(tc, non_finite);
	tcase_add_test(tc, small_buffer);
	suite_add_tcase(s, tc);
	tc = tcase_create("hesper_format_finding_number");
	tcase_add_test(tc, finding_numbers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(format_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
