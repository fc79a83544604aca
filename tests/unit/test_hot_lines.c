/*
 * Unit tests for analysis/model/hot_lines.c (counted blocks attributed to source lines) and
 * analysis/write/source_listing.c (the hot lines' source file, line by line).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profile/profile.h"
#include "write/write.h"

/* The entry of @file's @line in @lines, or NULL. */
static const struct hesper_hot_line *
find(const struct hesper_hot_line *lines, size_t n, const char *file, uint32_t line)
{
	for (size_t i = 0; i < n; i++)
		if (lines[i].line == line && strcmp(lines[i].file, file) == 0)
			return &lines[i];
	return NULL;
}

/*
 * A loop header (line 9, 2 instructions) and body (line 10, 3 instructions, and line 9's
 * increment, 1), a store (line 12) and a block without line information.
 */
START_TEST(blocks_split_among_their_lines)
{
	const struct hesper_line_run header[] = {{"k.comp", 9, 2}};
	const struct hesper_line_run body[] = {{"k.comp", 10, 3}, {"k.comp", 9, 1}};
	const struct hesper_line_run store[] = {{"k.comp", 12, 4}};
	const struct hesper_line_run bare[] = {{NULL, 0, 5}};
	const struct hesper_counted_block blocks[] = {
		{.ticks = 1000, .executions = 4100, .runs = header, .run_count = 1},
		{.ticks = 8000, .executions = 4000, .runs = body, .run_count = 2},
		{.ticks = 500, .executions = 100, .runs = store, .run_count = 1},
		{.ticks = 500, .executions = 100, .runs = bare, .run_count = 1},
		{.ticks = 99999, .executions = 1, .runs = NULL, .run_count = 0}, /* no instruction: nothing */
	};
	struct hesper_hot_line *lines = NULL;
	size_t n = 0;

	ck_assert_int_eq(hesper_hot_lines(blocks, 5, &lines, &n), 0);
	ck_assert_uint_eq(n, 4);
	/* the body's 8000 ticks: 3/4 to line 10, 1/4 to line 9 */
	const struct hesper_hot_line *l10 = find(lines, n, "k.comp", 10), *l9 = find(lines, n, "k.comp", 9);
	ck_assert_ptr_nonnull(l10);
	ck_assert_ptr_nonnull(l9);
	ck_assert_double_eq_tol(l10->ticks, 6000, 1e-9);
	ck_assert_double_eq_tol(l9->ticks, 1000 + 2000, 1e-9);
	ck_assert_double_eq_tol(l10->share, 0.6, 1e-12);
	ck_assert_double_eq_tol(l9->share, 0.3, 1e-12);
	/* a line's executions: the most of any block it is in */
	ck_assert_uint_eq(l9->executions, 4100);
	ck_assert_uint_eq(l10->executions, 4000);
	/* largest first; ties by file ("" first), then line */
	ck_assert_ptr_eq(&lines[0], l10);
	ck_assert_ptr_eq(&lines[1], l9);
	ck_assert_str_eq(lines[2].file, "");
	ck_assert_uint_eq(lines[2].line, 0);
	ck_assert_uint_eq(lines[3].line, 12);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += lines[i].share;
	ck_assert_double_eq_tol(sum, 1, 1e-12);
	free(lines);
}
END_TEST

START_TEST(nothing_counted)
{
	struct hesper_hot_line *lines = (struct hesper_hot_line *)1;
	size_t n = 7;
	const struct hesper_line_run run[] = {{"k.comp", 3, 1}};
	const struct hesper_counted_block idle[] = {{.ticks = 0, .executions = 0, .runs = run, .run_count = 1}};

	ck_assert_int_eq(hesper_hot_lines(NULL, 0, &lines, &n), 0);
	ck_assert_ptr_null(lines);
	ck_assert_uint_eq(n, 0);
	/* a block that never ran: its line is there, with no share */
	ck_assert_int_eq(hesper_hot_lines(idle, 1, &lines, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_double_eq(lines[0].share, 0);
	free(lines);
}
END_TEST

START_TEST(long_file_names_cut_whole)
{
	char name[400];
	memset(name, 'a', sizeof(name));
	memcpy(name + HESPER_HOT_LINE_FILE_MAX - 2, "\xc3\xa9\xc3\xa9", 4); /* é across the cut */
	name[sizeof(name) - 1] = '\0';
	const struct hesper_line_run run[] = {{name, 1, 1}};
	const struct hesper_counted_block block[] = {{.ticks = 10, .executions = 1, .runs = run, .run_count = 1}};
	struct hesper_hot_line *lines = NULL;
	size_t n = 0;

	ck_assert_int_eq(hesper_hot_lines(block, 1, &lines, &n), 0);
	size_t len = strlen(lines[0].file);
	ck_assert_uint_lt(len, HESPER_HOT_LINE_FILE_MAX);
	ck_assert_uint_eq(len, HESPER_HOT_LINE_FILE_MAX - 2); /* the é that would be split is left out */
	free(lines);
}
END_TEST

/* Two runs of one kernel: a line's ticks and executions add up, the shares come from the sum. */
START_TEST(runs_add_up)
{
	const struct hesper_line_run a_runs[] = {{"k.comp", 10, 1}}, b_runs[] = {{"k.comp", 12, 1}};
	const struct hesper_counted_block a[] = {{.ticks = 300, .executions = 3, .runs = a_runs, .run_count = 1},
						 {.ticks = 100, .executions = 1, .runs = b_runs, .run_count = 1}};
	const struct hesper_counted_block b[] = {{.ticks = 500, .executions = 5, .runs = b_runs, .run_count = 1}};
	struct hesper_hot_line *first = NULL, *second = NULL, *all = NULL;
	size_t n1 = 0, n2 = 0, n = 0;

	ck_assert_int_eq(hesper_hot_lines(a, 2, &first, &n1), 0);
	ck_assert_int_eq(hesper_hot_lines(b, 1, &second, &n2), 0);
	ck_assert_int_eq(hesper_hot_lines_add(&all, &n, first, n1), 0);
	ck_assert_int_eq(hesper_hot_lines_add(&all, &n, second, n2), 0);
	ck_assert_uint_eq(n, 2);
	/* line 12: 100 + 500 ticks of 900, first now; line 10: 300 */
	ck_assert_uint_eq(all[0].line, 12);
	ck_assert_double_eq_tol(all[0].ticks, 600, 1e-9);
	ck_assert_uint_eq(all[0].executions, 6);
	ck_assert_double_eq_tol(all[0].share, 600.0 / 900.0, 1e-12);
	ck_assert_uint_eq(all[1].line, 10);
	ck_assert_double_eq_tol(all[1].share, 300.0 / 900.0, 1e-12);
	free(first);
	free(second);
	free(all);
}
END_TEST

/*
 * Blocks with no line but a name: one entry each (a block that never ran, none), their code
 * kept for the three hottest only; a block with a line among them stays a line; two runs
 * of one kernel add up by block name.
 */
START_TEST(named_blocks_shown_as_themselves)
{
	const struct hesper_line_run none[] = {{NULL, 0, 3}}, line[] = {{"k.comp", 7, 2}};
	const struct hesper_counted_block blocks[] = {
		{.ticks = 100, .executions = 10, .runs = none, .run_count = 1, .block = "%5: OpLoad", .code = "a"},
		{.ticks = 400, .executions = 40, .runs = none, .run_count = 1, .block = "%6: OpFMul", .code = "b"},
		{.ticks = 300, .executions = 30, .runs = none, .run_count = 1, .block = "%7: OpFAdd", .code = "c"},
		{.ticks = 200, .executions = 20, .runs = none, .run_count = 1, .block = "%8: OpStore", .code = "d"},
		{.ticks = 0, .executions = 0, .runs = none, .run_count = 1, .block = "%9: OpBranch", .code = "e"},
		{.ticks = 50, .executions = 5, .runs = line, .run_count = 1, .block = "%10: OpIAdd", .code = "f"},
	};
	struct hesper_hot_line *lines = NULL, *all = NULL;
	size_t n = 0, total = 0;

	ck_assert_int_eq(hesper_hot_lines(blocks, 6, &lines, &n), 0);
	ck_assert_uint_eq(n, 5); /* four named blocks that ran, and line 7 */
	ck_assert_str_eq(lines[0].block, "%6: OpFMul");
	ck_assert_str_eq(lines[0].code, "b");
	ck_assert_double_eq_tol(lines[0].share, 400.0 / 1050.0, 1e-12);
	ck_assert_uint_eq(lines[0].line, 0);
	ck_assert_str_eq(lines[0].file, "");
	ck_assert_str_eq(lines[1].code, "c");
	ck_assert_str_eq(lines[2].code, "d");
	ck_assert_str_eq(lines[3].block, "%5: OpLoad");
	ck_assert_str_eq(lines[3].code, ""); /* the fourth hottest: no code */
	ck_assert_uint_eq(lines[4].line, 7);
	ck_assert_str_eq(lines[4].block, "");
	ck_assert_str_eq(lines[4].code, "");
	/* the same kernel again: block %5 now the hottest, its code kept from the second run */
	ck_assert_int_eq(hesper_hot_lines_add(&all, &total, lines, n), 0);
	const struct hesper_counted_block again[] = {
		{.ticks = 900, .executions = 90, .runs = none, .run_count = 1, .block = "%5: OpLoad", .code = "a"}};
	struct hesper_hot_line *more = NULL;
	size_t m = 0;
	ck_assert_int_eq(hesper_hot_lines(again, 1, &more, &m), 0);
	ck_assert_int_eq(hesper_hot_lines_add(&all, &total, more, m), 0);
	ck_assert_uint_eq(total, 5);
	ck_assert_str_eq(all[0].block, "%5: OpLoad");
	ck_assert_double_eq_tol(all[0].ticks, 1000, 1e-9);
	ck_assert_uint_eq(all[0].executions, 100);
	ck_assert_str_eq(all[0].code, "a");
	ck_assert_str_eq(all[3].block, "%8: OpStore");
	ck_assert_str_eq(all[3].code, ""); /* pushed out of the three hottest */
	free(more);
	free(all);
	free(lines);
}
END_TEST

/* The listing numbers lines by the text's "#line" directives (glslang's preamble left out) and adds the shares. */
START_TEST(listing_numbers_lines_as_the_file)
{
	struct hesper_hot_line lines[3] = {0};
	strcpy(lines[0].file, "k.comp");
	lines[0].line = 2;
	lines[0].share = 0.75;
	strcpy(lines[1].file, "k.comp");
	lines[1].line = 3;
	lines[1].share = 0.25;
	strcpy(lines[2].file, "other.h");
	lines[2].line = 1;
	lines[2].share = 0.5;
	char source[] = "// OpModuleProcessed client vulkan100\n#line 1\nvoid main()\r\n{ x(); }\n}\n";
	struct hesper_kernel_lines k = {
		.kernel = "k", .lines = lines, .count = 3, .source_file = "k.comp", .source = source};
	struct hesper_listing li;

	ck_assert_int_eq(hesper_listing_make(&k, &li), 0);
	ck_assert_uint_eq(li.count, 3);
	ck_assert_int_eq((int)li.lines[0].len, 11); /* "void main()", its \r left out */
	ck_assert_int_eq(strncmp(li.lines[1].text, "{ x(); }", li.lines[1].len), 0);
	ck_assert_double_eq(li.lines[0].share, 0);
	ck_assert_double_eq(li.lines[1].share, 0.75);
	ck_assert_double_eq(li.lines[2].share, 0.25); /* the other file's line 1 is not this one's */
	hesper_listing_free(&li);
	/* without directives, the text's own lines; without text, no listing */
	k.source = "a\nb";
	ck_assert_int_eq(hesper_listing_make(&k, &li), 0);
	ck_assert_uint_eq(li.count, 2);
	hesper_listing_free(&li);
	/* a directive past the bound ends the listing rather than making room for it */
	k.source = "#line 1\na\n#line 99999999\nb\n";
	ck_assert_int_eq(hesper_listing_make(&k, &li), 0);
	ck_assert_uint_eq(li.count, 1);
	hesper_listing_free(&li);
	k.source = NULL;
	ck_assert_int_eq(hesper_listing_make(&k, &li), -1);
}
END_TEST

static Suite *
hot_lines_suite(void)
{
	Suite *s = suite_create("hot_lines");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, blocks_split_among_their_lines);
	tcase_add_test(tc, nothing_counted);
	tcase_add_test(tc, long_file_names_cut_whole);
	tcase_add_test(tc, runs_add_up);
	tcase_add_test(tc, named_blocks_shown_as_themselves);
	tcase_add_test(tc, listing_numbers_lines_as_the_file);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(hot_lines_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
