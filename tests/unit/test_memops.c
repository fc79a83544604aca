/* Unit tests: memory-operation rows (memops.c) and launch shapes (launch_shapes.c). */
#include <check.h>
#include <stdlib.h>

#include "launch_shapes.h"
#include "memops.h"

START_TEST(memop_rows_count_bytes_and_gbps)
{
	struct hesper_memops m;

	hesper_memops_init(&m);
	ck_assert_str_eq(m.rows[HESPER_MEMOP_FILL_BUFFER].k.name, "fill_buffer");
	ck_assert_int_eq(hesper_memop_kind_of("copy_image_to_buffer"), HESPER_MEMOP_COPY_IMAGE_TO_BUFFER);
	ck_assert_int_eq(hesper_memop_kind_of("nope"), HESPER_MEMOP_KINDS);
	struct hesper_memop_row *row = &m.rows[HESPER_MEMOP_COPY_BUFFER];
	hesper_memop_record(row, 1000, true, 500);  /* 2 GB/s */
	hesper_memop_record(row, 3000, true, 1000); /* 3 GB/s */
	hesper_memop_count_untimed(row, 2, 700, true);
	hesper_memop_record(row, 0, false, 100);    /* unsized: time only */
	ck_assert_uint_eq(row->k.count, 5);
	ck_assert_uint_eq(row->k.timed.count, 3);
	ck_assert_uint_eq(row->bytes, 1000 + 3000 + 1400);
	ck_assert_uint_eq(row->timed_bytes, 4000);
	ck_assert_uint_eq(row->unsized, 1);
	ck_assert_double_eq_tol(hesper_memop_mean_gbps(row), 4000.0 / 1600.0, 1e-12);
	ck_assert_double_eq_tol(row->best_gbps, 3.0, 1e-12);
	struct hesper_memop_stats s = hesper_memop_stats(&m, HESPER_MEMOP_COPY_BUFFER);
	ck_assert_str_eq(s.name, "copy_buffer");
	ck_assert_uint_eq(s.count, 5);
	ck_assert_uint_eq(s.timed, 3);
	ck_assert_uint_eq(s.timed_ns, 1600);
	ck_assert_double_eq_tol(s.best_gbps, 3.0, 1e-12);
	ck_assert_uint_eq(hesper_memops_count(&m), 5);
	ck_assert_uint_eq(hesper_memop_stats(&m, HESPER_MEMOP_KINDS).count, 0);
	hesper_memops_free(&m);
}
END_TEST

START_TEST(shapes_min_max_most_common)
{
	struct hesper_launch_shapes s = {0};
	const uint32_t a[3] = {3, 2, 1}, b[3] = {7, 1, 1}, c[3] = {2, 2, 2}, none[3] = {0, 0, 0};

	ck_assert_ptr_null(hesper_shapes_most_common(&s));
	hesper_shapes_add(&s, a, 5);
	hesper_shapes_add(&s, b, 2);
	hesper_shapes_add(&s, c, 1);
	hesper_shapes_add(&s, none, 2);
	ck_assert_uint_eq(s.known, 8);
	ck_assert_uint_eq(s.unknown, 2);
	ck_assert_mem_eq(s.min, a, sizeof(a));
	ck_assert_mem_eq(s.max, c, sizeof(c));
	const struct hesper_shape_count *top = hesper_shapes_most_common(&s);
	ck_assert_mem_eq(top->groups, a, sizeof(a));
	ck_assert_uint_eq(top->count, 5);
	/* Past the slots, a frequent shape still wins. */
	for (uint32_t i = 1; i <= 20; i++)
		hesper_shapes_add(&s, (uint32_t[3]){100 + i, 1, 1}, 1);
	hesper_shapes_add(&s, (uint32_t[3]){9, 9, 1}, 40);
	top = hesper_shapes_most_common(&s);
	ck_assert_uint_eq(top->groups[0], 9);
	ck_assert_uint_ge(top->count, 40);
}
END_TEST

START_TEST(shapes_local_size)
{
	struct hesper_launch_shapes s = {0};

	hesper_shapes_set_local_size(&s, (uint32_t[3]){8, 4, 2}, false);
	hesper_shapes_set_local_size(&s, (uint32_t[3]){8, 4, 2}, false);
	ck_assert_uint_eq(s.local_size[0], 8);
	ck_assert(!s.local_size_varies);
	hesper_shapes_set_local_size(&s, (uint32_t[3]){16, 4, 2}, false);
	ck_assert(s.local_size_varies);
	ck_assert_uint_eq(s.local_size[0], 0);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("memops");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, memop_rows_count_bytes_and_gbps);
	tcase_add_test(tc, shapes_min_max_most_common);
	tcase_add_test(tc, shapes_local_size);
	suite_add_tcase(suite, tc);
	SRunner *sr = srunner_create(suite);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
