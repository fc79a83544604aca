/* Unit tests: memory-operation rows (memops.c) and launch shapes (launch_shapes.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "model/model.h"
#include "findings/findings.h"
#include "profile/profile.h"
#include "write/write.h"
#include "read/read.h"
#include <hesper/profiling.h>

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
	hesper_memop_record(row, 0, false, 100); /* unsized: time only */
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

START_TEST(shapes_read_back_empty_is_known)
{
	struct hesper_launch_shapes s = {0};
	const uint32_t empty[3] = {0, 0, 0}, a[3] = {3, 2, 1};

	/* An indirect dispatch read back as 0 0 0 ran no group: known, the fewest. */
	hesper_shapes_add_known(&s, a, 2);
	hesper_shapes_add_known(&s, empty, 1);
	hesper_shapes_add(&s, empty, 4);
	ck_assert_uint_eq(s.known, 3);
	ck_assert_uint_eq(s.unknown, 4);
	ck_assert_mem_eq(s.min, empty, sizeof(empty));
	ck_assert_mem_eq(s.max, a, sizeof(a));
	ck_assert_mem_eq(hesper_shapes_most_common(&s)->groups, a, sizeof(a));
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

START_TEST(findings_slow_kind)
{
	struct hesper_profile p;
	struct hesper_memops_finding f[HESPER_MEMOP_KINDS];

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	/* copy_buffer: one fast 1 MB copy (10 GB/s) and 100 small slow ones: slow overall. */
	struct hesper_memop_row *copy = &p.memops.rows[HESPER_MEMOP_COPY_BUFFER];
	hesper_memop_record(copy, 1000000, true, 100000);
	for (int i = 0; i < 100; i++)
		hesper_memop_record(copy, 1000, true, 10000);
	/* fill_buffer: steady 5 GB/s: not slow. */
	for (int i = 0; i < 10; i++)
		hesper_memop_record(&p.memops.rows[HESPER_MEMOP_FILL_BUFFER], 500000, true, 100000);
	/* update_buffer: slow but too little time to matter. */
	hesper_memop_record(&p.memops.rows[HESPER_MEMOP_UPDATE_BUFFER], 1000, true, 10);
	hesper_memop_record(&p.memops.rows[HESPER_MEMOP_UPDATE_BUFFER], 1000, true, 10000);
	ck_assert_uint_eq(hesper_memops_slow(&p, HESPER_MEMOPS_SLOW_FRACTION, f, HESPER_MEMOP_KINDS), 1);
	ck_assert_str_eq(f[0].kind, "copy_buffer");
	ck_assert_uint_eq(f[0].count, 101);
	ck_assert_uint_eq(f[0].timed_ns, 1100000);
	ck_assert_double_eq_tol(f[0].best_gbps, 10.0, 1e-9);
	ck_assert_double_eq_tol(f[0].mean_gbps, 1100000.0 / 1100000.0, 1e-9);
	/* At 10 GB/s the 1.1 MB would take 110 us: 990 us too many. */
	ck_assert_uint_eq(f[0].excess_ns, 990000);
	ck_assert_uint_eq(hesper_memops_slow(&p, HESPER_MEMOPS_SLOW_FRACTION, f, 0), 1);
	hesper_profile_free(&p);
}
END_TEST

/* Operations of one size at different speeds (a loaded machine): no smaller ones to batch. */
START_TEST(findings_one_size_is_not_slow)
{
	struct hesper_profile p;
	struct hesper_memops_finding f[HESPER_MEMOP_KINDS];

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_memop_row *copy = &p.memops.rows[HESPER_MEMOP_COPY_BUFFER];
	/* one 4 MiB copy at 40 GB/s, seven at 4 GB/s: the mean a fifth of the best */
	hesper_memop_record(copy, 4194304, true, 104858);
	for (int i = 0; i < 7; i++)
		hesper_memop_record(copy, 4194304, true, 1048576);
	ck_assert_uint_eq(copy->best_bytes, 4194304);
	ck_assert_uint_eq(hesper_memops_slow(&p, HESPER_MEMOPS_SLOW_FRACTION, f, HESPER_MEMOP_KINDS), 0);
	/* a copy of twice the size that ran no faster than the best: still none */
	hesper_memop_record(copy, 8388608, true, 2097152);
	ck_assert_uint_eq(hesper_memops_slow(&p, HESPER_MEMOPS_SLOW_FRACTION, f, HESPER_MEMOP_KINDS), 0);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(summary_round_trip)
{
	struct hesper_profile p, back;
	char path[] = "/tmp/hesper-test-memops-XXXXXX", err[256] = "";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(hesper_profile_init(&p), 0);
	hesper_memop_record(&p.memops.rows[HESPER_MEMOP_FILL_BUFFER], 4096, true, 1000);
	hesper_memop_count_untimed(&p.memops.rows[HESPER_MEMOP_COPY_IMAGE], 3, 0, false);
	struct hesper_kernel *k = hesper_kernel_table_get(p.kernels, "k");
	hesper_kernel_record(k, 500);
	hesper_shapes_add(&k->shapes, (uint32_t[3]){4, 2, 1}, 3);
	hesper_shapes_add(&k->shapes, (uint32_t[3]){1, 1, 1}, 1);
	hesper_shapes_add(&k->shapes, (uint32_t[3]){0, 0, 0}, 2);
	hesper_shapes_set_local_size(&k->shapes, (uint32_t[3]){64, 1, 1}, false);
	FILE *f = fdopen(fd, "w");
	ck_assert_int_eq(hesper_report_json(f, &p), 0);
	fclose(f);
	ck_assert_int_eq(hesper_summary_load(path, &back, err, sizeof(err)), HESPER_OK);
	unlink(path);
	const struct hesper_memop_row *fill = &back.memops.rows[HESPER_MEMOP_FILL_BUFFER];
	ck_assert_uint_eq(fill->k.count, 1);
	ck_assert_uint_eq(fill->bytes, 4096);
	ck_assert_uint_eq(fill->k.timed.total_ns, 1000);
	ck_assert_double_eq_tol(fill->best_gbps, 4.096, 1e-9);
	ck_assert_uint_eq(back.memops.rows[HESPER_MEMOP_COPY_IMAGE].k.count, 3);
	ck_assert_uint_eq(back.memops.rows[HESPER_MEMOP_COPY_IMAGE].unsized, 3);
	const struct hesper_kernel *kb = hesper_kernel_table_find(back.kernels, "k");
	ck_assert_ptr_nonnull(kb);
	const struct hesper_shape_count *top = hesper_shapes_most_common(&kb->shapes);
	ck_assert_ptr_nonnull(top);
	ck_assert_uint_eq(top->groups[0], 4);
	ck_assert_uint_eq(top->count, 3);
	ck_assert_uint_eq(kb->shapes.min[0], 1);
	ck_assert_uint_eq(kb->shapes.max[0], 4);
	ck_assert_uint_eq(kb->shapes.unknown, 2);
	ck_assert_uint_eq(kb->shapes.local_size[0], 64);
	hesper_profile_free(&p);
	hesper_profile_free(&back);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("memops");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, memop_rows_count_bytes_and_gbps);
	tcase_add_test(tc, shapes_min_max_most_common);
	tcase_add_test(tc, shapes_read_back_empty_is_known);
	tcase_add_test(tc, shapes_local_size);
	tcase_add_test(tc, findings_slow_kind);
	tcase_add_test(tc, findings_one_size_is_not_slow);
	tcase_add_test(tc, summary_round_trip);
	suite_add_tcase(suite, tc);
	SRunner *sr = srunner_create(suite);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
