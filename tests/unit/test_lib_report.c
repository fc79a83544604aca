/* Unit tests of hesper_print_report and hesper_write_report (analysis/write/report_events.c), through the shared library. */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hesper/profiling.h>

#include "fixtures.h"

/* matmul 1000, 2000, 3000 ns and softmax 1000, 1000 ns, back to back from 0 to 8000 ns. */
static const struct hesper_event known[] = {
	{"softmax", 6000, 7000}, {"matmul", 0, 1000},     {"matmul", 1000, 3000},
	{"matmul", 3000, 6000},  {"softmax", 7000, 8000},
};
#define KNOWN_N (sizeof(known) / sizeof(known[0]))

static const char known_table[] =
	"\n"
	" Time (%)     Total  Instances       Avg       Med       P95       Min       Max    StdDev  Name\n"
	" --------  --------  ---------  --------  --------  --------  --------  --------  --------  -------\n"
	"     75.0  6.000 \u00b5s          3  2.000 \u00b5s  2.008 \u00b5s  3.000 \u00b5s  1.000 \u00b5s  3.000 \u00b5s  1.000 \u00b5s  matmul\n"
	"     25.0  2.000 \u00b5s          2  1.000 \u00b5s  1.000 \u00b5s  1.000 \u00b5s  1.000 \u00b5s  1.000 \u00b5s      0 ns  softmax\n";

/* What hesper_write_report writes for @events in @format, as a string the caller frees. */
static char *
render(enum hesper_report_format format, const struct hesper_event *events, size_t n,
       const struct hesper_report_info *info)
{
	struct capture c;

	capture_open(&c);
	ck_assert_int_eq(hesper_write_report(c.f, format, events, n, info), HESPER_OK);
	capture_close(&c);
	return c.buf;
}

static void
host_name(char *buf, size_t size)
{
	if (gethostname(buf, size) != 0)
		buf[0] = '\0';
	buf[size - 1] = '\0';
}

START_TEST(text_report)
{
	struct hesper_report_info info = {"app", "Test GPU", 1};
	char host[256], expected[2048];
	char *s = render(HESPER_REPORT_TEXT, known, KNOWN_N, &info);

	host_name(host, sizeof(host));
	snprintf(expected, sizeof(expected),
		 "Hesper GPU kernel summary\n"
		 "  program      app (pid %d, host %s)\n"
		 "  device 0     Test GPU, timestampPeriod 1 ns\n"
		 "  wall time    8.000 \u00b5s\n"
		 "  GPU busy     8.000 \u00b5s (100.0%% of wall time)\n"
		 "  kernels      2\n"
		 "  dispatches   5: 5 timed, 0 dropped, 0 clamped\n"
		 "%s",
		 (int)getpid(), host, known_table);
	ck_assert_str_eq(s, expected);
	free(s);
}
END_TEST

/*
 * A caller that took a decimal-comma locale (de_DE, made here with localedef: package
 * locales) still gets decimal points, in the text table and in JSON that parses.
 */
START_TEST(decimal_point_in_a_comma_locale)
{
	char dir[] = "/tmp/hesper-locale-XXXXXX", command[256], probe[16];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(command, sizeof(command), "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
	int made = system(command);
	ck_assert_int_eq(setenv("LOCPATH", dir, 1), 0);
	/* the process's locale, as a program's setlocale() sets it (Check runs each test in a child) */
	ck_assert_msg(setlocale(LC_ALL, "de_DE.UTF-8") != NULL,
		      "no de_DE.UTF-8 from localedef (status %d; package locales)", made);
	snprintf(probe, sizeof(probe), "%.1f", 1.5);
	ck_assert_str_eq(probe, "1,5"); /* the caller's own numbers do take the comma */
	char *text = render(HESPER_REPORT_TEXT, known, KNOWN_N, NULL);
	char *json = render(HESPER_REPORT_JSON, known, KNOWN_N, NULL);
	setlocale(LC_ALL, "C");
	unsetenv("LOCPATH");
	ck_assert_ptr_nonnull(strstr(text, known_table));
	json_object *root = json_tokener_parse(json);
	ck_assert_msg(root != NULL, "the JSON does not parse: %.300s", json);
	json_object_put(root);
	free(text);
	free(json);
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(command), 0);
}
END_TEST

/* hesper_print_report: this process's name, no device line, the same table. */
START_TEST(print_report)
{
	struct capture c;
	char head[512];

	capture_open(&c);
	ck_assert_int_eq(hesper_print_report(c.f, known, KNOWN_N), HESPER_OK);
	capture_close(&c);
	snprintf(head, sizeof(head), "Hesper GPU kernel summary\n  program      %s (pid %d, host ",
		 program_invocation_short_name, (int)getpid());
	ck_assert_int_eq(strncmp(c.buf, head, strlen(head)), 0);
	ck_assert_ptr_null(strstr(c.buf, "device 0"));
	ck_assert_ptr_null(strstr(c.buf, "Hesper cost"));
	ck_assert_str_eq(strstr(c.buf, "\n\n Time (%)") + 1, known_table);
	capture_free(&c);
}
END_TEST

START_TEST(gaps_overlaps_and_clamps)
{
	/* Busy time is the union: [0, 100) and [50, 150) overlap, [300, 400) after a gap; one backwards. */
	struct hesper_event ev[] = {{"a", 0, 100}, {"b", 50, 150}, {"a", 300, 400}, {"b", 500, 450}};
	char *s = render(HESPER_REPORT_TEXT, ev, 4, NULL);

	ck_assert_ptr_nonnull(strstr(s, "  wall time    450 ns\n")); /* first start to last end */
	ck_assert_ptr_nonnull(strstr(s, "  GPU busy     250 ns (55.6% of wall time)\n"));
	ck_assert_ptr_nonnull(strstr(s, "  dispatches   4: 3 timed, 0 dropped, 1 clamped\n"));
	free(s);
}
END_TEST

START_TEST(empty_report)
{
	char *s = render(HESPER_REPORT_TEXT, NULL, 0, NULL);

	ck_assert_ptr_nonnull(strstr(s, "hesper: no GPU work was recorded"));
	free(s);
	s = render(HESPER_REPORT_JSON, NULL, 0, NULL);
	json_object *root = json_tokener_parse(s);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(json_object_array_length(json_object_object_get(root, "kernels")), 0);
	json_object_put(root);
	free(s);
}
END_TEST

START_TEST(json_summary)
{
	struct hesper_report_info info = {"app", "Test GPU", 1};
	char *s = render(HESPER_REPORT_JSON, known, KNOWN_N, &info);
	json_object *root = json_tokener_parse(s), *k;

	ck_assert_ptr_nonnull(root);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(root, "schema")), "hesper-summary/1");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(root, "mode")), "events");
	k = json_object_array_get_idx(json_object_object_get(root, "kernels"), 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(k, "name")), "matmul");
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(k, "count")), 3);
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(k, "total_ns")), 6000);
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(root, "gpu_busy_ns")), 8000);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(
				 json_object_array_get_idx(json_object_object_get(root, "devices"), 0), "name")),
			 "Test GPU");
	json_object_put(root);
	free(s);
}
END_TEST

START_TEST(csv_trace_html)
{
	char *csv = render(HESPER_REPORT_CSV, known, KNOWN_N, NULL);
	char *trace = render(HESPER_REPORT_TRACE, known, KNOWN_N, NULL);
	char *html = render(HESPER_REPORT_HTML, known, KNOWN_N, NULL);
	json_object *root = json_tokener_parse(trace), *events;
	int dispatches = 0;

	ck_assert_ptr_nonnull(strstr(csv, "75.00,6000,3,2000.0,"));
	ck_assert_ptr_nonnull(root);
	events = json_object_object_get(root, "traceEvents");
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i), *cat = json_object_object_get(e, "cat");

		if (cat && strcmp(json_object_get_string(cat), "dispatch") == 0) {
			dispatches++;
			ck_assert_ptr_null(json_object_object_get(json_object_object_get(e, "args"), "groups"));
		}
	}
	ck_assert_int_eq(dispatches, 5);
	ck_assert_int_eq(strncmp(html, "<!DOCTYPE html>", 15), 0);
	ck_assert_ptr_nonnull(strstr(html, "softmax"));
	ck_assert_ptr_null(strstr(html, "Hesper's cost"));
	json_object_put(root);
	free(csv);
	free(trace);
	free(html);
}
END_TEST

START_TEST(errors_are_return_values)
{
	FILE *full = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(full);
	ck_assert_int_eq(hesper_print_report(full, known, KNOWN_N), HESPER_ERROR_IO);
	ck_assert_int_eq(hesper_write_report(full, HESPER_REPORT_JSON, known, KNOWN_N, NULL), HESPER_ERROR_IO);
	fclose(full);
	ck_assert_int_eq(hesper_print_report(NULL, known, KNOWN_N), HESPER_ERROR_ARGUMENT);
	ck_assert_int_eq(hesper_print_report(stdout, NULL, 3), HESPER_ERROR_ARGUMENT);
	ck_assert_int_eq(hesper_write_report(stdout, (enum hesper_report_format)99, known, KNOWN_N, NULL),
			 HESPER_ERROR_ARGUMENT);
}
END_TEST

static Suite *
lib_report_suite(void)
{
	Suite *s = suite_create("lib_report");
	TCase *tc = tcase_create("hesper_write_report");

	tcase_add_test(tc, text_report);
	tcase_add_test(tc, print_report);
	tcase_add_test(tc, gaps_overlaps_and_clamps);
	tcase_add_test(tc, empty_report);
	tcase_add_test(tc, json_summary);
	tcase_add_test(tc, csv_trace_html);
	tcase_add_test(tc, errors_are_return_values);
	tcase_add_test(tc, decimal_point_in_a_comma_locale);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(lib_report_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
