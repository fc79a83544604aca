/*
 * Unit tests for layer/clock/source_path.c: a source file a module names is found in
 * HESPER_SOURCE_PATH's directories by its path, then by its last component; what is not
 * there, too large or not text is not found.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source_path.h"

static char dir[64], sub[96];

/* Writes @text to @path. */
static void
write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void
setup(void)
{
	char path[160];
	snprintf(dir, sizeof(dir), "/tmp/hesper-source-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/shaders", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(path, sizeof(path), "%s/k.comp", sub);
	write_file(path, "void main() {}\n", 15);
	snprintf(path, sizeof(path), "%s/bin.comp", dir);
	write_file(path, "a\0b", 3);
}

static void
teardown(void)
{
	char command[200];
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(command), 0);
}

START_TEST(found_by_path_then_last_component)
{
	char dirs[256], *found = NULL, *text;

	/* relative, under a later directory */
	snprintf(dirs, sizeof(dirs), "/no/such/dir::%s", dir);
	text = hesper_source_find(dirs, NULL, "shaders/k.comp", &found);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "void main() {}\n");
	ck_assert_ptr_nonnull(strstr(found, "/shaders/k.comp"));
	free(text);
	free(found);
	/* absolute elsewhere, and a relative path of other folders: by the last component */
	snprintf(dirs, sizeof(dirs), "%s", sub);
	text = hesper_source_find(dirs, NULL, "/home/someone/project/k.comp", &found);
	ck_assert_ptr_nonnull(text);
	free(text);
	free(found);
	text = hesper_source_find(dirs, NULL, "../src/k.comp", &found);
	ck_assert_ptr_nonnull(text);
	free(text);
	free(found);
	/* a relative directory under the base given (where the program started), not the working one */
	text = hesper_source_find("shaders", dir, "k.comp", &found);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(found + strlen(dir), "/shaders/k.comp");
	free(text);
	free(found);
	/* an absolute one as it is */
	snprintf(dirs, sizeof(dirs), "%s", sub);
	text = hesper_source_find(dirs, "/elsewhere", "k.comp", &found);
	ck_assert_ptr_nonnull(text);
	free(text);
	free(found);
}
END_TEST

START_TEST(not_found)
{
	char *found = (char *)1;

	ck_assert_ptr_null(hesper_source_find(dir, NULL, "missing.comp", &found));
	ck_assert_ptr_null(found);
	ck_assert_ptr_null(hesper_source_find("", NULL, "k.comp", &found));
	ck_assert_ptr_null(hesper_source_find(NULL, NULL, "k.comp", &found));
	ck_assert_ptr_null(hesper_source_find(dir, NULL, "", &found));
	/* a zero byte: not text */
	ck_assert_ptr_null(hesper_source_find(dir, NULL, "bin.comp", &found));
	/* a directory is no file */
	ck_assert_ptr_null(hesper_source_find(dir, NULL, "shaders", &found));
}
END_TEST

static Suite *
source_path_suite(void)
{
	Suite *s = suite_create("source_path");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, found_by_path_then_last_component);
	tcase_add_test(tc, not_found);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(source_path_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
