/*
 * Unit tests for the rows of layer/state/settings_list.h as layer/state/settings.c reads them: what the
 * compiler cannot check of a row (ranges that fit their member, defaults that the row's
 * own values accept, the text a bad value's line ends with), so that a new row is right
 * or fails here.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "settings.h"

static size_t
row_count(void)
{
	size_t n = 0;

	while (hesper_settings_row(n))
		n++;
	return n;
}

static size_t
word_count(const char *const *words)
{
	size_t n = 0;

	while (words[n])
		n++;
	return n;
}

/* The value of @row's member in @s, for the kinds held in an integer or a bool. */
static uint64_t
member_value(const struct hesper_settings *s, const struct hesper_setting_row *row)
{
	const char *field = (const char *)s + row->offset;
	uint32_t n32;
	uint64_t n64;
	unsigned index;
	bool b;

	switch (row->kind) {
	case HESPER_SETTING_WORD: memcpy(&index, field, sizeof index); return index;
	case HESPER_SETTING_SWITCH:
	case HESPER_SETTING_BOOL: memcpy(&b, field, sizeof b); return b;
	case HESPER_SETTING_COUNT:
		if (row->size == sizeof n32) {
			memcpy(&n32, field, sizeof n32);
			return n32;
		}
		memcpy(&n64, field, sizeof n64);
		return n64;
	default: ck_abort_msg("%s: not an integer kind", row->name);
	}
	return 0;
}

START_TEST(names_are_unique_settings)
{
	size_t n = row_count();

	ck_assert_uint_ge(n, 1);
	ck_assert_ptr_null(hesper_settings_row(n));
	ck_assert_ptr_null(hesper_settings_row(SIZE_MAX));
	for (size_t i = 0; i < n; i++) {
		const struct hesper_setting_row *row = hesper_settings_row(i);

		ck_assert_msg(strncmp(row->name, "HESPER_", 7) == 0 && row->name[7], "%s", row->name);
		ck_assert_msg(row->doc && row->doc[0] && !strchr(row->doc, '\n'), "%s: one line of doc", row->name);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(hesper_settings_row(j)->name, row->name);
	}
}
END_TEST

START_TEST(members_hold_their_values)
{
	struct hesper_settings d;

	hesper_settings_default(&d);
	for (size_t i = 0; i < row_count(); i++) {
		const struct hesper_setting_row *row = hesper_settings_row(i);
		const char *field = (const char *)&d + row->offset;

		switch (row->kind) {
		case HESPER_SETTING_ELSEWHERE:
			ck_assert_uint_eq(row->size, 0);
			ck_assert_ptr_nonnull(row->accepted);
			ck_assert_ptr_nonnull(row->unset);
			break;
		case HESPER_SETTING_WORD:
			ck_assert_uint_ge(word_count(row->words), 2);
			ck_assert_uint_lt(member_value(&d, row), word_count(row->words));
			break;
		case HESPER_SETTING_SWITCH: ck_assert_uint_eq(word_count(row->words), 2); break;
		case HESPER_SETTING_BOOL: break;
		case HESPER_SETTING_COUNT:
			ck_assert_msg(row->size == 8 || row->max <= UINT32_MAX, "%s: the range fits the member",
				      row->name);
			ck_assert_uint_le(row->min, row->max);
			ck_assert_uint_ge(member_value(&d, row), row->min);
			ck_assert_uint_le(member_value(&d, row), row->max);
			break;
		case HESPER_SETTING_PATH:
			ck_assert_uint_gt(row->size, 1);
			ck_assert_ptr_nonnull(memchr(field, '\0', row->size));
			break;
		case HESPER_SETTING_PARSED:
			ck_assert_ptr_nonnull(row->parse);
			ck_assert_ptr_nonnull(row->accepted);
			ck_assert_ptr_nonnull(row->unset);
			/* "unset" in the docs says what the default is: all zero. */
			for (size_t k = 0; k < row->size; k++)
				ck_assert_msg(field[k] == 0, "%s: a parsed setting starts unset", row->name);
			break;
		}
	}
}
END_TEST

/* Each word sets its index, in any case; the default's word gives the default back. */
START_TEST(words_round_trip)
{
	for (size_t i = 0; i < row_count(); i++) {
		const struct hesper_setting_row *row = hesper_settings_row(i);
		struct hesper_settings d, s;

		if (row->kind != HESPER_SETTING_WORD && row->kind != HESPER_SETTING_SWITCH)
			continue;
		hesper_settings_default(&d);
		for (size_t w = 0; row->words[w]; w++) {
			char upper[64];
			size_t k;

			for (k = 0; row->words[w][k] && k + 1 < sizeof upper; k++)
				upper[k] = row->words[w][k] >= 'a' && row->words[w][k] <= 'z'
						   ? (char)(row->words[w][k] - 'a' + 'A')
						   : row->words[w][k];
			upper[k] = '\0';
			hesper_settings_default(&s);
			ck_assert_int_eq(hesper_settings_apply(&s, row->name, upper, NULL), 0);
			ck_assert_uint_eq(member_value(&s, row), w);
		}
		s = d;
		ck_assert_int_eq(hesper_settings_apply(&s, row->name, row->words[member_value(&d, row)], NULL), 0);
		ck_assert_mem_eq(&s, &d, sizeof s);
	}
}
END_TEST

/* A count's bounds are accepted, one past them refused; the default applied changes nothing. */
START_TEST(counts_round_trip)
{
	for (size_t i = 0; i < row_count(); i++) {
		const struct hesper_setting_row *row = hesper_settings_row(i);
		struct hesper_settings d, s;
		char text[32];

		if (row->kind != HESPER_SETTING_COUNT)
			continue;
		hesper_settings_default(&d);
		s = d;
		snprintf(text, sizeof text, "%llu", (unsigned long long)member_value(&d, row));
		ck_assert_int_eq(hesper_settings_apply(&s, row->name, text, NULL), 0);
		ck_assert_mem_eq(&s, &d, sizeof s);
		snprintf(text, sizeof text, "%llu", (unsigned long long)row->max);
		ck_assert_int_eq(hesper_settings_apply(&s, row->name, text, NULL), 0);
		ck_assert_uint_eq(member_value(&s, row), row->max);
		snprintf(text, sizeof text, "%llu", (unsigned long long)row->min);
		ck_assert_int_eq(hesper_settings_apply(&s, row->name, text, NULL), 0);
		ck_assert_uint_eq(member_value(&s, row), row->min);
		snprintf(text, sizeof text, "%llu", (unsigned long long)row->max + 1);
		ck_assert_int_eq(hesper_settings_apply(&s, row->name, text, NULL), -1);
		ck_assert_uint_eq(member_value(&s, row), row->min);
	}
}
END_TEST

/* Every setting with a member refuses an empty value in one line ending with its "accepted". */
START_TEST(empty_values_say_what_is_accepted)
{
	for (size_t i = 0; i < row_count(); i++) {
		const struct hesper_setting_row *row = hesper_settings_row(i);
		struct hesper_settings d, s;
		char accepted[512], line[1024];
		struct capture c;

		if (row->kind == HESPER_SETTING_ELSEWHERE)
			continue;
		hesper_settings_default(&d);
		s = d;
		hesper_settings_accepted(row, accepted, sizeof accepted);
		ck_assert_uint_lt(strlen(accepted), 255); /* settings.c's error line holds 255 */
		capture_open(&c);
		ck_assert_int_eq(hesper_settings_apply(&s, row->name, " ", c.f), -1);
		snprintf(line, sizeof line, "hesper: ignoring %s=' ': expected %s\n", row->name, accepted);
		ck_assert_str_eq(capture_close(&c), line);
		capture_free(&c);
		ck_assert_mem_eq(&s, &d, sizeof s);
	}
}
END_TEST

/* Settings read elsewhere are accepted with any value and change nothing. */
START_TEST(elsewhere_changes_nothing)
{
	for (size_t i = 0; i < row_count(); i++) {
		const struct hesper_setting_row *row = hesper_settings_row(i);
		struct hesper_settings d, s;

		if (row->kind != HESPER_SETTING_ELSEWHERE)
			continue;
		hesper_settings_default(&d);
		s = d;
		ck_assert_int_eq(hesper_settings_apply(&s, row->name, "anything at all", NULL), 0);
		ck_assert_mem_eq(&s, &d, sizeof s);
	}
}
END_TEST

START_TEST(accepted_fits_small_buffers)
{
	char small[8];

	for (size_t i = 0; i < row_count(); i++) {
		memset(small, 'x', sizeof small);
		hesper_settings_accepted(hesper_settings_row(i), small, sizeof small);
		ck_assert_uint_lt(strlen(small), sizeof small);
	}
}
END_TEST

static Suite *
settings_table_suite(void)
{
	Suite *s = suite_create("settings_table");
	TCase *tc = tcase_create("rows");

	tcase_add_test(tc, names_are_unique_settings);
	tcase_add_test(tc, members_hold_their_values);
	tcase_add_test(tc, words_round_trip);
	tcase_add_test(tc, counts_round_trip);
	tcase_add_test(tc, empty_values_say_what_is_accepted);
	tcase_add_test(tc, elsewhere_changes_nothing);
	tcase_add_test(tc, accepted_fits_small_buffers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(settings_table_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
