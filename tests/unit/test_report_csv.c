/* Unit tests for analysis/write/report_csv.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixtures.h"

static char *
render(const struct hesper_profile *p)
{
	return render_with(hesper_report_csv, p, NULL);
}

#define HEADER "time_percent,total_ns,instances,avg_ns,median_ns,min_ns,max_ns,stddev_ns,p95_ns,p99_ns,timed,name\r\n"

START_TEST(known_profile)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	char *s = render(&p);
	ck_assert_str_eq(s, HEADER "75.00,6000,3,2000.0,2008,1000,3000,1000.0,3000,3000,3,matmul\r\n"
				   "25.00,2000,2,1000.0,1000,1000,1000,0.0,1000,1000,2,softmax\r\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(overlap_totals_from_shares)
{
	struct hesper_profile p;

	fixture_overlap_profile(&p);
	char *s = render(&p);
	/* total_ns and time_percent from the shares, avg_ns and the other statistics from the spans */
	ck_assert_str_eq(s, HEADER "44.44,20000,1,30000.0,30000,30000,30000,0.0,30000,30000,1,ov_a\r\n"
				   "44.44,20000,1,30000.0,30000,30000,30000,0.0,30000,30000,1,ov_b\r\n"
				   "11.11,5000,1,5000.0,5000,5000,5000,0.0,5000,5000,1,solo\r\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(empty_profile)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	char *s = render(&p);
	ck_assert_str_eq(s, HEADER);
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(rfc4180_quoting)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "a,b"), 40);
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "say \"x\""), 30);
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "line\r\nbreak"), 20);
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "plain \u00e9"), 10);
	char *s = render(&p);
	ck_assert_str_eq(s, HEADER "40.00,40,1,40.0,40,40,40,0.0,40,40,1,\"a,b\"\r\n"
				   "30.00,30,1,30.0,30,30,30,0.0,30,30,1,\"say \"\"x\"\"\"\r\n"
				   "20.00,20,1,20.0,20,20,20,0.0,20,20,1,\"line\r\nbreak\"\r\n"
				   "10.00,10,1,10.0,10,10,10,0.0,10,10,1,plain \u00e9\r\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(untimed_and_estimated)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	struct hesper_kernel *k = hesper_kernel_table_get(p.kernels, "sampled");
	hesper_kernel_record(k, 100);
	hesper_kernel_count_untimed(k, 3);
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.kernels, "never"), 9);
	char *s = render(&p);
	ck_assert_str_eq(s, HEADER "100.00,400,4,100.0,100,100,100,0.0,100,100,1,sampled\r\n"
				   ",,9,,,,,,,,0,never\r\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* A memory operation never timed (submit mode): counts and bytes, empty fields where a time would be. */
START_TEST(untimed_memops)
{
	struct hesper_profile p;
	struct hesper_work w = {.kind = HESPER_WORK_MEMORY_OP,
				.memop = HESPER_MEMOP_FILL_BUFFER,
				.count = 3,
				.bytes = 64,
				.sized = true};

	hesper_profile_init(&p);
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	char *s = render_with(hesper_report_memops_csv, &p, NULL);
	ck_assert_str_eq(s, "operation,count,timed,total_ns,mean_ns,bytes,timed_bytes,unsized,mean_gbps,best_gbps,"
			    "gpu_percent\r\n"
			    "fill_buffer,3,0,,,192,0,0,,,\r\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_error_reported)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	assert_write_error_after(hesper_report_csv, &p, 40);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
report_csv_suite(void)
{
	Suite *s = suite_create("report_csv");
	TCase *tc = tcase_create("hesper_report_csv");

	tcase_add_test(tc, known_profile);
	tcase_add_test(tc, empty_profile);
	tcase_add_test(tc, overlap_totals_from_shares);
	tcase_add_test(tc, rfc4180_quoting);
	tcase_add_test(tc, untimed_and_estimated);
	tcase_add_test(tc, untimed_memops);
	tcase_add_test(tc, write_error_reported);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(report_csv_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
