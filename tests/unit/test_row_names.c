/* Unit tests for analysis/model/row_names.c: HESPER_GROUP_BY's words and the rows' names. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static const uint32_t shape[3] = {4, 2, 1};
static const uint32_t none[3] = {0, 0, 0};

START_TEST(words_both_ways)
{
	enum hesper_group_by g = HESPER_GROUP_BY_LABEL;

	ck_assert_str_eq(hesper_group_by_word(HESPER_GROUP_BY_KERNEL), "kernel");
	ck_assert_str_eq(hesper_group_by_word(HESPER_GROUP_BY_SHAPE), "shape");
	ck_assert_str_eq(hesper_group_by_word(HESPER_GROUP_BY_LABEL), "label");
	ck_assert_str_eq(hesper_group_by_word(HESPER_GROUP_BY_COUNT), "kernel");
	ck_assert_str_eq(hesper_group_by_word((enum hesper_group_by)99), "kernel");
	for (unsigned i = 0; i < HESPER_GROUP_BY_COUNT; i++) {
		ck_assert(hesper_group_by_from_word(hesper_group_by_word((enum hesper_group_by)i), &g));
		ck_assert_int_eq(g, (int)i);
	}
	/* Exact words only: the JSON writes them so (the setting's own rule trims and folds case). */
	g = HESPER_GROUP_BY_LABEL;
	ck_assert(!hesper_group_by_from_word("Shape", &g));
	ck_assert(!hesper_group_by_from_word("", &g));
	ck_assert(!hesper_group_by_from_word(NULL, &g));
	ck_assert_int_eq(g, HESPER_GROUP_BY_LABEL);
}
END_TEST

START_TEST(names_per_grouping)
{
	char buf[64];

	ck_assert_uint_eq(hesper_row_name(buf, sizeof buf, HESPER_GROUP_BY_KERNEL, "k", "lab", shape, true), 1);
	ck_assert_str_eq(buf, "k");
	hesper_row_name(buf, sizeof buf, HESPER_GROUP_BY_SHAPE, "k", "lab", shape, true);
	ck_assert_str_eq(buf, "k [4\u00d72\u00d71]");
	/* unknown counts (an indirect dispatch not read back) */
	hesper_row_name(buf, sizeof buf, HESPER_GROUP_BY_SHAPE, "k", NULL, none, false);
	ck_assert_str_eq(buf, "k [?]");
	/* read back as no work group at all: known */
	hesper_row_name(buf, sizeof buf, HESPER_GROUP_BY_SHAPE, "k", NULL, none, true);
	ck_assert_str_eq(buf, "k [0\u00d70\u00d70]");
	hesper_row_name(buf, sizeof buf, HESPER_GROUP_BY_LABEL, "k", "lab", shape, true);
	ck_assert_str_eq(buf, "lab/k");
	/* under no label: the kernel's own name */
	hesper_row_name(buf, sizeof buf, HESPER_GROUP_BY_LABEL, "k", NULL, shape, true);
	ck_assert_str_eq(buf, "k");
}
END_TEST

START_TEST(names_cut_to_fit)
{
	char buf[6];
	const uint32_t big[3] = {4294967295u, 4294967295u, 4294967295u};

	/* the whole name's length, as snprintf: "kern [" + 3 × 10 digits + 2 × 2 bytes + "]" */
	ck_assert_uint_eq(hesper_row_name(buf, sizeof buf, HESPER_GROUP_BY_SHAPE, "kern", NULL, big, true),
			  6 + 30 + 4 + 1);
	ck_assert_str_eq(buf, "kern ");
}
END_TEST

static Suite *
row_names_suite(void)
{
	Suite *s = suite_create("row_names");
	TCase *tc = tcase_create("hesper_group_by_word");

	tcase_add_test(tc, words_both_ways);
	suite_add_tcase(s, tc);
	tc = tcase_create("hesper_row_name");
	tcase_add_test(tc, names_per_grouping);
	tcase_add_test(tc, names_cut_to_fit);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(row_names_suite());

	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
