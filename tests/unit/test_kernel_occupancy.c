/*
 * Unit tests for analysis/profile/kernel_occupancy.c: the figures read from a kernel's statistics by
 * its vendor's names, its device's model, rows to statistics under each grouping, the most
 * common launch and how much of the device it fills.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "report_fixtures.h"

START_TEST(occupancy_of_each_kernel)
{
	struct hesper_profile p;

	fixture_occupancy_profile(&p);
	struct hesper_occupancy o = hesper_stats_occupancy(&p, &p.pipeline_stats[0]);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_REGISTERS);
	ck_assert_uint_eq(o.groups_per_sm, 8);
	ck_assert_uint_eq(hesper_occupancy_device_groups(&p, &p.pipeline_stats[0], &o), 8 * 132);
	o = hesper_stats_occupancy(&p, &p.pipeline_stats[1]);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_SHARED);
	ck_assert_uint_eq(o.groups_per_sm, 3);
	ck_assert(hesper_stats_shows_occupancy(&p, &p.pipeline_stats[1]));

	/* The figures as other formats: an INT64 and a whole FLOAT64 count, a negative one does not. */
	struct hesper_pipeline_stats *k = &p.pipeline_stats[0];
	k->stats[0].format = HESPER_STAT_INT;
	k->stats[0].value.i = 111;
	ck_assert_uint_eq(hesper_stats_occupancy(&p, k).groups_per_sm, 8);
	k->stats[0].format = HESPER_STAT_FLOAT;
	k->stats[0].value.f = 111.0;
	ck_assert_uint_eq(hesper_stats_occupancy(&p, k).groups_per_sm, 8);
	k->stats[0].value.f = 110.5;
	ck_assert_int_eq(hesper_stats_occupancy(&p, k).limit, HESPER_LIMIT_UNKNOWN);
	k->stats[0].format = HESPER_STAT_INT;
	k->stats[0].value.i = -1;
	ck_assert_str_eq(hesper_stats_occupancy(&p, k).why, "the driver gave no register count");
	k->stats[0].format = HESPER_STAT_BOOL;
	ck_assert_int_eq(hesper_stats_occupancy(&p, k).limit, HESPER_LIMIT_UNKNOWN);
	/* without its shared memory size: an upper bound */
	k = &p.pipeline_stats[1];
	strcpy(k->stats[2].name, "Shared Memory Bytes");
	o = hesper_stats_occupancy(&p, k);
	ck_assert(o.at_most);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_GROUPS);
	/* statistics naming no device of the report */
	k->device = 5;
	ck_assert_int_eq(hesper_stats_occupancy(&p, k).limit, HESPER_LIMIT_UNKNOWN);
	ck_assert(!hesper_stats_shows_occupancy(&p, k));
	ck_assert_ptr_null(hesper_stats_model(&p, k));
	/* a device of another vendor: its statistics' names are not read, the model says why */
	k->device = 0;
	hesper_occupancy_model_none(&p.devices[0].occupancy, "Hesper has no occupancy model of AMD's devices");
	ck_assert_str_eq(hesper_stats_occupancy(&p, k).why, "Hesper has no occupancy model of AMD's devices");
	hesper_profile_free(&p);
}
END_TEST

START_TEST(fill_of_a_launch)
{
	ck_assert_double_eq(hesper_occupancy_fill(16, 1056), 16.0 / 1056.0);
	ck_assert_double_eq(hesper_occupancy_fill(1056, 1056), 1.0);
	ck_assert_double_eq(hesper_occupancy_fill(100000, 1056), 1.0);
	ck_assert_double_eq(hesper_occupancy_fill(0, 1056), -1);
	ck_assert_double_eq(hesper_occupancy_fill(16, 0), -1);
}
END_TEST

START_TEST(rows_to_statistics)
{
	struct hesper_profile p;

	fixture_occupancy_profile(&p);
	ck_assert_ptr_eq(hesper_row_stats(&p, "matmul"), &p.pipeline_stats[0]);
	ck_assert_ptr_eq(hesper_row_stats(&p, "matmul [16\u00d71\u00d71]"), &p.pipeline_stats[0]);
	ck_assert_ptr_eq(hesper_row_stats(&p, "matmul [?]"), &p.pipeline_stats[0]);
	ck_assert_ptr_eq(hesper_row_stats(&p, "frame/softmax"), &p.pipeline_stats[1]);
	ck_assert_ptr_null(hesper_row_stats(&p, "matmul2"));
	ck_assert_ptr_null(hesper_row_stats(&p, "xmatmul"));
	ck_assert_ptr_null(hesper_row_stats(&p, "reduce"));

	/* A kernel whose name has a '/' of its own is its row, not the row of a label over "x". */
	struct hesper_pipeline_stats x = {.kernel = "x"}, kx = {.kernel = "k/x"};
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(&p, &x), 0);
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(&p, &kx), 0);
	ck_assert_str_eq(hesper_row_stats(&p, "k/x")->kernel, "k/x");
	ck_assert_str_eq(hesper_row_stats(&p, "label/x")->kernel, "x");
	hesper_profile_free(&p);
}
END_TEST

START_TEST(most_common_launch)
{
	struct hesper_profile p;
	static const uint32_t big[3] = {8, 8, 2}, small[3] = {2, 1, 1};

	fixture_occupancy_profile(&p);
	ck_assert_uint_eq(hesper_stats_common_groups(&p, &p.pipeline_stats[0]), 16);
	ck_assert_uint_eq(hesper_stats_common_groups(&p, &p.pipeline_stats[1]), 4);
	/* Grouped by shape: the row with the most dispatches of its shape, a tie to the first name. */
	struct hesper_kernel *a = hesper_kernel_table_get(p.kernels, "softmax [8\u00d78\u00d72]");
	struct hesper_kernel *b = hesper_kernel_table_get(p.kernels, "softmax [2\u00d71\u00d71]");
	hesper_shapes_add(&a->shapes, big, 2);
	hesper_shapes_add(&b->shapes, small, 2);
	/* "softmax" (4, twice), "softmax [2×1×1]" (2, twice), "softmax [8×8×2]" (128, twice): the first name */
	ck_assert_uint_eq(hesper_stats_common_groups(&p, &p.pipeline_stats[1]), 4);
	hesper_shapes_add(&a->shapes, big, 1);
	ck_assert_uint_eq(hesper_stats_common_groups(&p, &p.pipeline_stats[1]), 128);

	char words[512];
	hesper_occupancy_words(words, sizeof(words), &p, &p.pipeline_stats[1]);
	ck_assert_str_eq(words,
			 "occupancy 9.4% (shared memory): 3 work groups and 6 warps per SM; 396 work groups fill "
			 "the device once, its most common launch (128) fills 32% of it");
	/* cut to fit, always terminated */
	hesper_occupancy_words(words, 12, &p, &p.pipeline_stats[1]);
	ck_assert_str_eq(words, "occupancy 9");
	/* the device's SMs unknown: no fill */
	p.devices[0].occupancy.compute_units = 0;
	hesper_occupancy_words(words, sizeof(words), &p, &p.pipeline_stats[1]);
	ck_assert_str_eq(words, "occupancy 9.4% (shared memory): 3 work groups and 6 warps per SM");
	/* an upper bound */
	p.devices[0].occupancy.shared_per_sm = 0;
	hesper_occupancy_words(words, sizeof(words), &p, &p.pipeline_stats[1]);
	ck_assert_str_eq(words,
			 "occupancy at most 100% (work groups; the device's shared memory per SM is unknown): 32 "
			 "work groups and 64 warps per SM");
	hesper_profile_free(&p);
}
END_TEST

static Suite *
kernel_occupancy_suite(void)
{
	Suite *s = suite_create("kernel_occupancy");
	TCase *tc = tcase_create("hesper_stats_occupancy");

	tcase_add_test(tc, occupancy_of_each_kernel);
	tcase_add_test(tc, fill_of_a_launch);
	suite_add_tcase(s, tc);
	tc = tcase_create("hesper_row_stats");
	tcase_add_test(tc, rows_to_statistics);
	tcase_add_test(tc, most_common_launch);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(kernel_occupancy_suite());

	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
