/*
 * Unit tests for analysis/profile/region_tree.c and the regions' tree in the reports: label paths
 * counted by hesper_profile_add_work, the tree built from them (order, depth, kernels),
 * each path's instance statistics, the text report's tree within 120 columns, and the JSON
 * summary read back printing the same tree.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"
#include "write/write.h"
#include "read/read.h"

#define SEP "\x1f"

static void
region(struct hesper_profile *p, const char *name, const char *path, uint64_t ns)
{
	struct hesper_work w = {
		.kind = HESPER_WORK_REGION, .count = 1, .timed = true, .ns = ns, .name = name, .label_path = path};

	ck_assert_int_eq(hesper_profile_add_work(p, &w), 0);
}

static void
dispatch(struct hesper_profile *p, const char *kernel, const char *path, uint64_t ns)
{
	struct hesper_work w = {.kind = HESPER_WORK_DISPATCH,
				.count = 1,
				.timed = true,
				.ns = ns,
				.name = kernel,
				.label = path ? hesper_label_path_leaf(path) : NULL,
				.label_path = path};

	ck_assert_int_eq(hesper_profile_add_work(p, &w), 0);
}

/*
 * Two frames: frame { pass_a { k } pass_b { inner { k m } } }, then a top-level "load"
 * with one kernel; frame's instances take 10, 20, 30, 40 and 100 ns (below 128: the histogram
 * holds them exactly).
 */
static void
frames(struct hesper_profile *p)
{
	static const uint64_t frame_ns[] = {10, 20, 30, 40, 100};

	ck_assert_int_eq(hesper_profile_init(p), 0);
	strcpy(p->exe, "frames");
	for (size_t i = 0; i < 5; i++) {
		region(p, "frame", "frame", frame_ns[i]);
		region(p, "pass_a", "frame" SEP "pass_a", 40);
		region(p, "pass_b", "frame" SEP "pass_b", 50);
		region(p, "inner", "frame" SEP "pass_b" SEP "inner", 30);
		dispatch(p, "k", "frame" SEP "pass_a", 20);
		dispatch(p, "k", "frame" SEP "pass_b" SEP "inner", 10);
		dispatch(p, "m", "frame" SEP "pass_b" SEP "inner", 12);
	}
	region(p, "load", "load", 5000);
	dispatch(p, "upload", "load", 4000);
	dispatch(p, "k", NULL, 7);
}

START_TEST(leaf_and_depth)
{
	ck_assert_str_eq(hesper_label_path_leaf("a" SEP "b" SEP "c"), "c");
	ck_assert_str_eq(hesper_label_path_leaf("top"), "top");
	ck_assert_uint_eq(hesper_label_path_depth("a" SEP "b" SEP "c"), 3);
	ck_assert_uint_eq(hesper_label_path_depth("a"), 1);
}
END_TEST

START_TEST(tree_order_depth_kernels)
{
	struct hesper_profile p;
	struct hesper_region_tree t;

	frames(&p);
	ck_assert_int_eq(hesper_region_tree_build(p.label_paths, p.label_kernels, &t), 0);
	/* Largest total first among siblings: load (5000) before frame (200); pass_b before pass_a. */
	static const char *const names[] = {"load", "frame", "pass_b", "inner", "pass_a"};
	static const uint32_t depths[] = {0, 0, 1, 2, 1};
	static const size_t kernels[] = {1, 0, 0, 2, 1};
	ck_assert_uint_eq(t.count, 5);
	for (size_t i = 0; i < 5; i++) {
		ck_assert_str_eq(t.nodes[i].name, names[i]);
		ck_assert_uint_eq(t.nodes[i].depth, depths[i]);
		ck_assert_uint_eq(t.nodes[i].kernel_count, kernels[i]);
	}
	/* inner: m (60 ns) before k (50 ns); each with its own count. */
	ck_assert_str_eq(hesper_label_kernel_name(t.nodes[3].kernels[0]), "m");
	ck_assert_str_eq(hesper_label_kernel_name(t.nodes[3].kernels[1]), "k");
	ck_assert_uint_eq(t.nodes[3].kernels[1]->count, 5);
	ck_assert_uint_eq(hesper_kernel_total_ns(t.nodes[3].kernels[1]), 50);
	ck_assert_uint_eq(t.unplaced, 0);
	hesper_region_tree_free(&t);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(orphan_is_a_root)
{
	struct hesper_profile p;
	struct hesper_region_tree t;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	/* The enclosing label never counted (outside a capture window): the node stands at the top. */
	region(&p, "inner", "outer" SEP "inner", 10);
	dispatch(&p, "k", "nowhere", 5);
	ck_assert_int_eq(hesper_region_tree_build(p.label_paths, p.label_kernels, &t), 0);
	ck_assert_uint_eq(t.count, 1);
	ck_assert_uint_eq(t.nodes[0].depth, 0);
	ck_assert_uint_eq(t.unplaced, 1);
	hesper_region_tree_free(&t);
	ck_assert_int_eq(hesper_region_tree_build(NULL, NULL, &t), 0);
	ck_assert_uint_eq(t.count, 0);
	hesper_region_tree_free(&t);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(instance_statistics)
{
	struct hesper_profile p;

	frames(&p);
	const struct hesper_kernel *f = hesper_kernel_table_find(p.label_paths, "frame");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->count, 5);
	ck_assert_uint_eq(f->timed.total_ns, 200);
	ck_assert_uint_eq(f->timed.min_ns, 10);
	ck_assert_uint_eq(f->timed.max_ns, 100);
	ck_assert_double_eq(f->timed.mean_ns, 40);
	ck_assert_uint_eq(hesper_stats_quantile(&f->timed, 0.5), 30);
	ck_assert_uint_eq(hesper_stats_quantile(&f->timed, 0.95), 100);
	/* The per-name row holds the same instances. */
	const struct hesper_kernel *r = hesper_kernel_table_find(p.regions, "frame");
	ck_assert_uint_eq(hesper_stats_quantile(&r->timed, 0.95), 100);
	ck_assert_uint_eq(hesper_kernel_table_find(p.label_kernels, "frame" SEP "pass_a\x1e"
								    "k")
				  ->count,
			  5);
	hesper_profile_free(&p);
}
END_TEST

/* The text report of @p into a string the caller frees. */
static char *
text_of(const struct hesper_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(hesper_report_text(f, p), 0);
	fclose(f);
	return buf;
}

/* Characters (not bytes) of the longest line of @s. */
static size_t
widest_line(const char *s)
{
	size_t widest = 0, w = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			widest = w > widest ? w : widest;
			w = 0;
		} else {
			w += ((unsigned char)*s & 0xc0) != 0x80;
		}
	}
	return w > widest ? w : widest;
}

START_TEST(text_tree)
{
	struct hesper_profile p;

	frames(&p);
	char *text = text_of(&p);
	const char *tree = strstr(text, "\nRegions (debug labels)\n");
	ck_assert_ptr_nonnull(tree);
	if (getenv("SHOW_TREE"))
		fputs(tree, stderr);
	ck_assert_ptr_nonnull(
		strstr(tree, "    Total  Instances       Avg       Med       P95       Min       Max  Name\n"));
	/* frame: 5 instances, 40 ns mean, median 30, P95 100, min 10, max 100; kernels marked "* ". */
	ck_assert_ptr_nonnull(
		strstr(tree, "   200 ns          5     40 ns     30 ns    100 ns     10 ns    100 ns  frame\n"));
	ck_assert_ptr_nonnull(strstr(tree, "      inner\n"));
	ck_assert_ptr_nonnull(strstr(tree, "        * m\n"));
	ck_assert_ptr_nonnull(strstr(tree, "    pass_a\n"));
	ck_assert_ptr_nonnull(strstr(tree, "    60 ns          5     12 ns" /* Med to Max blank for a kernel */
					   "                                                * m\n"));
	ck_assert_ptr_nonnull(strstr(tree, "      * k\n"));
	/* Order: load, its kernel, frame, pass_b, inner, m, k, pass_a, k. */
	const char *load = strstr(tree, "  load\n"), *frame = strstr(tree, "  frame\n");
	const char *pass_b = strstr(tree, "  pass_b\n"), *pass_a = strstr(tree, "  pass_a\n");
	ck_assert_ptr_nonnull(load);
	ck_assert(load < frame && frame < pass_b && pass_b < pass_a);
	free(text);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(text_tree_fits_120_columns)
{
	struct hesper_profile p;
	char path[4096] = "", name[200];

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	/* Twelve levels of 150-character labels, each with a 150-character kernel. */
	for (int d = 0; d < 12; d++) {
		memset(name, 'a' + d, 150);
		name[150] = '\0';
		if (d)
			strcat(path, SEP);
		strcat(path, name);
		region(&p, name, path, 1000000 - (uint64_t)d);
		dispatch(&p, name, path, 123456);
	}
	char *text = text_of(&p);
	const char *tree = strstr(text, "\nRegions (debug labels)\n");
	ck_assert_ptr_nonnull(tree);
	ck_assert_uint_le(widest_line(tree), 120);
	ck_assert_ptr_nonnull(strstr(tree, "+4 "));      /* depth 12: eight levels indented, then +4 */
	ck_assert_ptr_nonnull(strstr(tree, "\u2026\n")); /* names cut */
	free(text);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(json_read_back_prints_the_same_tree)
{
	struct hesper_profile p, back;
	char path[] = "/tmp/hesper-region-tree-XXXXXX", err[256];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	frames(&p);
	FILE *f = fdopen(fd, "w");
	ck_assert_int_eq(hesper_report_json(f, &p), 0);
	fclose(f);
	ck_assert_int_eq(hesper_summary_load(path, &back, err, sizeof(err)), 0);
	unlink(path);
	const struct hesper_kernel *r = hesper_kernel_table_find(back.regions, "frame");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->timed.min_ns, 10);
	ck_assert_uint_eq(r->timed.max_ns, 100);
	ck_assert_uint_eq(hesper_stats_quantile(&r->timed, 0.95), 100);
	char *a = text_of(&p), *b = text_of(&back);
	const char *ta = strstr(a, "\nRegions (debug labels)\n"), *tb = strstr(b, "\nRegions (debug labels)\n");
	ck_assert_ptr_nonnull(tb);
	ck_assert_str_eq(ta, tb);
	free(a);
	free(b);
	hesper_profile_free(&p);
	hesper_profile_free(&back);
}
END_TEST

static Suite *
region_tree_suite(void)
{
	Suite *s = suite_create("region_tree");
	TCase *tree = tcase_create("hesper_region_tree_build");
	TCase *stats = tcase_create("label path statistics");
	TCase *reports = tcase_create("reports");

	tcase_add_test(tree, leaf_and_depth);
	tcase_add_test(tree, tree_order_depth_kernels);
	tcase_add_test(tree, orphan_is_a_root);
	tcase_add_test(stats, instance_statistics);
	tcase_add_test(reports, text_tree);
	tcase_add_test(reports, text_tree_fits_120_columns);
	tcase_add_test(reports, json_read_back_prints_the_same_tree);
	suite_add_tcase(s, tree);
	suite_add_tcase(s, stats);
	suite_add_tcase(s, reports);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(region_tree_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
