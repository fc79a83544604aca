/* Unit tests for analysis/profile/profile.c. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

START_TEST(init_defaults)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	ck_assert_str_eq(p.mode, "dispatch");
	ck_assert_uint_eq(p.sample_every, 1);
	ck_assert_ptr_nonnull(p.kernels);
	ck_assert_ptr_nonnull(p.regions);
	ck_assert_ptr_nonnull(p.labelled);
	ck_assert_uint_eq(hesper_kernel_table_size(p.kernels), 0);
	ck_assert_uint_eq(p.device_count, 0);
	ck_assert_uint_eq(p.queue_count, 0);
	ck_assert_uint_eq(p.submits.count, 0);
	ck_assert_uint_eq(hesper_profile_gpu_busy_ns(&p), 0);
	hesper_profile_free(&p);
	hesper_profile_free(&p); /* a second free is harmless */
}
END_TEST

START_TEST(add_devices)
{
	struct hesper_profile p;
	struct hesper_device_info d = {.timestamp_period_ns = 52.08};

	hesper_profile_init(&p);
	strcpy(d.name, "GPU A");
	strcpy(d.driver, "1.0");
	ck_assert_int_eq(hesper_profile_add_device(&p, &d), 0);
	memset(d.name, 'x', sizeof(d.name)); /* unterminated: must come out terminated */
	ck_assert_int_eq(hesper_profile_add_device(&p, &d), 1);
	ck_assert_uint_eq(p.device_count, 2);
	ck_assert_str_eq(p.devices[0].name, "GPU A");
	ck_assert_double_eq(p.devices[0].timestamp_period_ns, 52.08);
	ck_assert_uint_eq(strlen(p.devices[1].name), HESPER_NAME_MAX - 1);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(queues)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	struct hesper_queue_info *q = hesper_profile_queue(&p, 0, 2, 1);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(q->device, 0);
	ck_assert_uint_eq(q->family, 2);
	ck_assert_uint_eq(q->index, 1);
	ck_assert_uint_eq(q->busy_ns, 0);
	q->busy_ns = 100;
	q = hesper_profile_queue(&p, 1, 0, 0);
	q->busy_ns = 50;
	q = hesper_profile_queue(&p, 0, 2, 1);
	ck_assert_uint_eq(q->busy_ns, 100); /* the same row again */
	ck_assert_uint_eq(p.queue_count, 2);
	ck_assert_uint_eq(hesper_profile_gpu_busy_ns(&p), 150);
	hesper_profile_queue(&p, 2, 0, 0)->busy_ns = UINT64_MAX;
	ck_assert_uint_eq(hesper_profile_gpu_busy_ns(&p), UINT64_MAX); /* saturates */
	hesper_profile_free(&p);
}
END_TEST

/* The capture window's wall time: opened to closed, stretched to the end of the GPU work inside. */
START_TEST(capture_wall)
{
	struct hesper_capture_info c = {.set = true};

	ck_assert_uint_eq(hesper_capture_wall_ns(&c, 900), 0); /* never opened */
	c.opened = true;
	c.opened_ns = 100;
	ck_assert_uint_eq(hesper_capture_wall_ns(&c, 900), 800); /* open: to the report */
	c.closed = true;
	c.closed_ns = 300;
	ck_assert_uint_eq(hesper_capture_wall_ns(&c, 900), 200);
	c.end_ns = 350; /* the last submission inside ran on after its submit call closed the window */
	ck_assert_uint_eq(hesper_capture_wall_ns(&c, 900), 250);
	c.closed_ns = 100; /* opened and closed by one submission: its GPU time */
	ck_assert_uint_eq(hesper_capture_wall_ns(&c, 900), 250);
	c.end_ns = 0;
	ck_assert_uint_eq(hesper_capture_wall_ns(&c, 900), 0);
}
END_TEST

/* The busy share's wall time: the window's when there is one, never the whole run's. */
START_TEST(busy_wall)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	p.wall_ns = 1000;
	ck_assert_uint_eq(hesper_profile_busy_wall_ns(&p), 1000);
	p.capture = (struct hesper_capture_info){
		.set = true, .opened = true, .opened_ns = 400, .closed = true, .closed_ns = 500};
	ck_assert_uint_eq(hesper_profile_busy_wall_ns(&p), 100);
	p.capture.opened = p.capture.closed = false;
	ck_assert_uint_eq(hesper_profile_busy_wall_ns(&p), 0);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(summary_empty)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	struct hesper_profile_summary s = hesper_profile_summary(&p);
	ck_assert_uint_eq(s.events, 0);
	ck_assert_uint_eq(s.dispatches, 0);
	ck_assert_uint_eq(s.total_ns, 0);
	ck_assert_uint_eq(s.min_ns, 0);
	ck_assert_uint_eq(s.max_ns, 0);
	ck_assert_double_eq(s.avg_ns, 0);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(summary_values)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	struct hesper_kernel *a = hesper_kernel_table_get(p.kernels, "a");
	struct hesper_kernel *b = hesper_kernel_table_get(p.kernels, "b");
	struct hesper_kernel *c = hesper_kernel_table_get(p.kernels, "c");

	hesper_kernel_record(a, 100);
	hesper_kernel_record(a, 300); /* a: 2 timed, total 400 */
	hesper_kernel_record(b, 50);
	hesper_kernel_count_untimed(b, 3); /* b: 1 timed of 4, estimated 200 */
	hesper_kernel_count_untimed(c, 7); /* c: never timed, total 0 */

	struct hesper_profile_summary s = hesper_profile_summary(&p);
	ck_assert_uint_eq(s.events, 3);
	ck_assert_uint_eq(s.dispatches, 13);
	ck_assert_uint_eq(s.total_ns, 600);
	ck_assert_uint_eq(s.min_ns, 50);
	ck_assert_uint_eq(s.max_ns, 300);
	ck_assert_double_eq_tol(s.avg_ns, 450.0 / 3.0, 1e-9);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("hesper_profile_init");

	tcase_add_test(tc, init_defaults);
	tcase_add_test(tc, add_devices);
	tcase_add_test(tc, queues);
	suite_add_tcase(s, tc);

	tc = tcase_create("capture window");
	tcase_add_test(tc, capture_wall);
	tcase_add_test(tc, busy_wall);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_profile_summary");
	tcase_add_test(tc, summary_empty);
	tcase_add_test(tc, summary_values);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(profile_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
