/* Unit tests for analysis/write/report_json.c. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixtures.h"
#include "read/read.h"
#include <hesper/profiling.h>
#include <unistd.h>

/* fixture_known_profile() with the collector's numbers too (only the JSON has them). */
static void
fixture(struct hesper_profile *p)
{
	fixture_known_profile(p);
	p->collector_ns = 700;
	p->submit_hook_ns = 400;
	p->collected = 9;
}

static char *
render(const struct hesper_profile *p)
{
	return render_with(hesper_report_json, p, NULL);
}

/* hesper_json_write_string(@in) as a string the caller frees. */
static char *
escape(const char *in)
{
	struct capture c;

	capture_open(&c);
	hesper_json_write_string(c.f, in);
	capture_close(&c);
	return c.buf;
}

static void
assert_escape(const char *in, const char *want)
{
	char *got = escape(in);

	ck_assert_msg(strcmp(got, want) == 0, "got %s, want %s", got, want);
	free(got);
}

static const char expected_json[] =
	"{\n"
	"  \"schema\": \"hesper-summary/1\",\n"
	"  \"process\": {\"pid\": 123, \"exe\": \"app\", \"host\": \"h\"},\n"
	"  \"devices\": [\n"
	"    {\"name\": \"Test GPU\", \"driver\": \"1.2.3\", \"timestamp_period_ns\": 1}\n"
	"  ],\n"
	"  \"wall_ns\": 2000000000,\n"
	"  \"gpu_busy_ns\": 1000000,\n"
	"  \"kernels\": [\n"
	"    {\"name\": \"matmul\", \"count\": 3, \"total_ns\": 6000, \"mean_ns\": 2000, \"median_ns\": 2008, \"min_ns\": 1000, \"max_ns\": 3000, \"stddev_ns\": 1000, \"p95_ns\": 3000, \"p99_ns\": 3000, \"timed\": 3, \"span_total_ns\": 6000},\n"
	"    {\"name\": \"softmax\", \"count\": 2, \"total_ns\": 2000, \"mean_ns\": 1000, \"median_ns\": 1000, \"min_ns\": 1000, \"max_ns\": 1000, \"stddev_ns\": 0, \"p95_ns\": 1000, \"p99_ns\": 1000, \"timed\": 2, \"span_total_ns\": 2000}\n"
	"  ],\n"
	"  \"regions\": [\n"
	"    {\"name\": \"frame\", \"count\": 1, \"total_ns\": 8000, \"mean_ns\": 8000, \"timed\": 1, "
	"\"median_ns\": 8000, \"min_ns\": 8000, \"max_ns\": 8000, \"stddev_ns\": 0, \"p95_ns\": 8000, \"p99_ns\": 8000}\n"
	"  ],\n"
	"  \"submits\": {\"count\": 2, \"total_ns\": 9000},\n"
	"  \"dropped\": 0,\n"
	"  \"dropped_causes\": {},\n"
	"  \"queues\": [\n"
	"    {\"device\": 0, \"family\": 0, \"index\": 0, \"timestamp_bits\": 64, \"submits\": 2, \"busy_ns\": 1000000}\n"
	"  ],\n"
	"  \"clamped\": 0,\n"
	"  \"mode\": \"dispatch\",\n"
	"  \"sample_every\": 1,\n"
	"  \"group_by\": \"kernel\",\n"
	"  \"hesper\": {\"timestamps_written\": 10, \"hook_ns\": 1500, \"submit_hook_ns\": 400, \"collector_ns\": 700, \"collected\": 9, "
	"\"trace_events\": 0, \"trace_left_out\": 0, \"copies_ahead\": 0},\n"
	"  \"kernels_by_label\": [\n"
	"    {\"name\": \"frame/matmul\", \"count\": 1, \"total_ns\": 6000, \"mean_ns\": 6000, \"median_ns\": 6000, \"min_ns\": 6000, \"max_ns\": 6000, \"stddev_ns\": 0, \"p95_ns\": 6000, \"p99_ns\": 6000, \"timed\": 1, \"span_total_ns\": 6000}\n"
	"  ]\n"
	"}\n";

START_TEST(known_profile)
{
	struct hesper_profile p;

	fixture(&p);
	char *s = render(&p);
	ck_assert_str_eq(s, expected_json);
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* Every number of a kernel row is a key of model/row_keys.h's list, in its order; a region row's are of it too. */
START_TEST(row_keys_follow_the_list)
{
	struct hesper_profile p;
	static const char *const list[] = {
#define LIST_KEY(id, key, whole) key,
		HESPER_ROW_KEYS(LIST_KEY)
#undef LIST_KEY
	};
	const size_t n = sizeof(list) / sizeof(list[0]);

	fixture(&p);
	char *s = render(&p);
	json_object *root = json_tokener_parse(s);
	ck_assert_ptr_nonnull(root);
	json_object *kernel = json_object_array_get_idx(hesper_json_member(root, "kernels"), 0);
	json_object *region = json_object_array_get_idx(hesper_json_member(root, "regions"), 0);
	ck_assert_ptr_nonnull(kernel);
	ck_assert_ptr_nonnull(region);
	size_t i = 0;
	json_object_object_foreach(kernel, key, value)
	{
		(void)value;
		if (i == 0) {
			ck_assert_str_eq(key, "name");
		} else if (strcmp(key, "groups") && strcmp(key, "local_size")) {
			ck_assert_msg(i - 1 < n && !strcmp(key, list[i - 1]),
				      "kernel key %zu is \"%s\", the list has \"%s\"", i, key,
				      i - 1 < n ? list[i - 1] : "(none)");
		} else {
			continue; /* the launch shapes, after the numbers */
		}
		i++;
	}
	ck_assert_uint_eq(i, n + 1);
	json_object_object_foreach(region, rkey, rvalue)
	{
		(void)rvalue;
		bool known = !strcmp(rkey, "name");
		for (size_t j = 0; j < n && !known; j++)
			known = !strcmp(rkey, list[j]);
		ck_assert_msg(known, "region key \"%s\" is not in the list", rkey);
	}
	json_object_put(root);
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* The summary's top level holds only keys of profile/summary_keys.h's list, in its order (a profile with most optional members). */
START_TEST(top_level_follows_the_list)
{
	struct hesper_profile p;
	static const char *const top[] = {
#define LIST_KEY(id, key, in) HESPER_SUMMARY_IS_##in ? key : NULL,
		HESPER_SUMMARY_KEYS(LIST_KEY)
#undef LIST_KEY
	};
	const size_t n = sizeof(top) / sizeof(top[0]);

	fixture(&p);
	snprintf(p.mode, sizeof(p.mode), "clock");
	p.report.live = true;
	p.report.signal = "SIGTERM";
	p.capture.set = true;
	p.findings_ready = true;
	char *s = render(&p);
	json_object *root = json_tokener_parse(s);
	ck_assert_ptr_nonnull(root);
	size_t next = 0, seen = 0;
	json_object_object_foreach(root, key, value)
	{
		(void)value;
		size_t at = next;
		while (at < n && !(top[at] && strcmp(top[at], key) == 0))
			at++;
		ck_assert_msg(at < n, "top-level key \"%s\" is not in the list after \"%s\"", key,
			      next ? top[next - 1] : "(start)");
		next = at + 1;
		seen++;
	}
	/* schema ... group_by, hesper, report, ended_by_signal, capture, host_waits, findings, kernels_by_label */
	ck_assert_uint_ge(seen, 24);
	json_object_put(root);
	free(s);
	p.report.signal = NULL;
	hesper_profile_free(&p);
}
END_TEST

START_TEST(empty_profile)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	char *s = render(&p);
	ck_assert_str_eq(
		s,
		"{\n"
		"  \"schema\": \"hesper-summary/1\",\n"
		"  \"process\": {\"pid\": 0, \"exe\": \"\", \"host\": \"\"},\n"
		"  \"devices\": [],\n"
		"  \"wall_ns\": 0,\n"
		"  \"gpu_busy_ns\": 0,\n"
		"  \"kernels\": [],\n"
		"  \"regions\": [],\n"
		"  \"submits\": {\"count\": 0, \"total_ns\": 0},\n"
		"  \"dropped\": 0,\n"
		"  \"dropped_causes\": {},\n"
		"  \"queues\": [],\n"
		"  \"clamped\": 0,\n"
		"  \"mode\": \"dispatch\",\n"
		"  \"sample_every\": 1,\n"
		"  \"group_by\": \"kernel\",\n"
		"  \"hesper\": {\"timestamps_written\": 0, \"hook_ns\": 0, \"submit_hook_ns\": 0, \"collector_ns\": 0, \"collected\": 0, "
		"\"trace_events\": 0, \"trace_left_out\": 0, \"copies_ahead\": 0},\n"
		"  \"kernels_by_label\": []\n"
		"}\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(extremes_and_non_finite)
{
	struct hesper_profile p;
	struct hesper_device_info d = {.timestamp_period_ns = NAN};

	hesper_profile_init(&p);
	strcpy(d.name, "nan");
	hesper_profile_add_device(&p, &d);
	d.timestamp_period_ns = INFINITY;
	hesper_profile_add_device(&p, &d);
	d.timestamp_period_ns = 0.1;
	hesper_profile_add_device(&p, &d);
	p.wall_ns = UINT64_MAX;
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "max"), UINT64_MAX);
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "\"timestamp_period_ns\": 0}"));
	ck_assert_ptr_nonnull(strstr(s, "\"timestamp_period_ns\": 0.10000000000000001}"));
	ck_assert_ptr_nonnull(strstr(s, "\"wall_ns\": 18446744073709551615,"));
	ck_assert_ptr_nonnull(strstr(s, "\"total_ns\": 18446744073709551615, \"mean_ns\": 1.8446744073709552e+19"));
	ck_assert_ptr_null(strstr(s, "nan,"));
	ck_assert_ptr_null(strstr(s, "inf"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* @p written as JSON to a file and read back into @back. */
static void
round_trip(const struct hesper_profile *p, struct hesper_profile *back)
{
	char path[] = "/tmp/hesper-test-json-XXXXXX", err[256] = "";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_int_eq(hesper_report_json(f, p), 0);
	fclose(f);
	ck_assert_msg(hesper_summary_load(path, back, err, sizeof(err)) == HESPER_OK, "%s", err);
	unlink(path);
}

START_TEST(overlap_totals_and_spans)
{
	struct hesper_profile p, back;

	fixture_overlap_profile(&p);
	/* an estimate too: ov_b ran 3 more times, untimed */
	hesper_kernel_count_untimed(hesper_kernel_table_find(p.kernels, "ov_b"), 3);
	char *s = render(&p);
	/* total_ns from the shares, span_total_ns and the statistics from the spans */
	ck_assert_ptr_nonnull(strstr(s, "{\"name\": \"ov_a\", \"count\": 1, \"total_ns\": 20000, \"mean_ns\": 30000,"));
	ck_assert_ptr_nonnull(strstr(s, "\"timed\": 1, \"span_total_ns\": 30000}"));
	ck_assert_ptr_nonnull(strstr(s, "{\"name\": \"ov_b\", \"count\": 4, \"total_ns\": 80000, \"mean_ns\": 30000,"));
	ck_assert_ptr_nonnull(strstr(s, "\"timed\": 1, \"span_total_ns\": 120000}"));
	ck_assert_ptr_nonnull(strstr(s, "\"timed\": 1, \"span_total_ns\": 5000}"));
	free(s);

	/* Read back (hesper diff, merge): the same totals, shares and spans. */
	round_trip(&p, &back);
	const char *names[] = {"ov_a", "ov_b", "solo"};
	for (size_t i = 0; i < 3; i++) {
		const struct hesper_kernel *a = hesper_kernel_table_find(p.kernels, names[i]);
		const struct hesper_kernel *b = hesper_kernel_table_find(back.kernels, names[i]);

		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq(hesper_kernel_total_ns(b), hesper_kernel_total_ns(a));
		ck_assert_uint_eq(hesper_kernel_span_total_ns(b), hesper_kernel_span_total_ns(a));
		ck_assert_uint_eq(b->share_ns, a->share_ns);
		ck_assert_uint_eq(b->timed.total_ns, a->timed.total_ns);
	}
	char *again = render(&back), *first = render(&p);
	ck_assert_str_eq(strstr(again, "\"kernels\""), strstr(first, "\"kernels\""));
	free(again);
	free(first);
	hesper_profile_free(&back);
	hesper_profile_free(&p);
}
END_TEST

/* The causes of dropped dispatches: only those that happened, read back as written. */
START_TEST(dropped_causes_written_and_read_back)
{
	struct hesper_profile p, back;

	fixture(&p);
	p.dropped = 7;
	p.dropped_by[HESPER_DROP_NO_QUERY] = 4;
	p.dropped_by[HESPER_DROP_DEVICE_LOST] = 3;
	char *s = render(&p);
	ck_assert_ptr_nonnull(
		strstr(s, "  \"dropped\": 7,\n  \"dropped_causes\": {\"no_query\": 4, \"device_lost\": 3},\n"));
	free(s);
	round_trip(&p, &back);
	ck_assert_uint_eq(back.dropped, 7);
	for (unsigned c = 0; c < HESPER_DROP_CAUSES; c++)
		ck_assert_msg(back.dropped_by[c] == p.dropped_by[c], "%s: %llu read back, %llu written",
			      hesper_drop_cause_key((enum hesper_drop_cause)c), (unsigned long long)back.dropped_by[c],
			      (unsigned long long)p.dropped_by[c]);
	hesper_profile_free(&back);
	hesper_profile_free(&p);
}
END_TEST

/* A summary with a cause this reader does not know, or none: read, those left unrecorded. */
START_TEST(dropped_causes_unknown_or_absent)
{
	char path[] = "/tmp/hesper-test-json-XXXXXX", err[256] = "";
	int fd = mkstemp(path);
	struct hesper_profile back;

	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs("{\"schema\": \"hesper-summary/1\", \"kernels\": [], \"dropped\": 9, "
	      "\"dropped_causes\": {\"a_cause_from_later\": 5, \"two_queues\": 4}}\n",
	      f);
	fclose(f);
	ck_assert_msg(hesper_summary_load(path, &back, err, sizeof(err)) == HESPER_OK, "%s", err);
	ck_assert_uint_eq(back.dropped, 9);
	ck_assert_uint_eq(back.dropped_by[HESPER_DROP_TWO_QUEUES], 4);
	ck_assert_uint_eq(back.dropped_by[HESPER_DROP_UNKNOWN], 0);
	hesper_profile_free(&back);

	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"schema\": \"hesper-summary/1\", \"kernels\": [], \"dropped\": 9, \"dropped_causes\": [1]}\n", f);
	fclose(f);
	ck_assert_int_ne(hesper_summary_load(path, &back, err, sizeof(err)), HESPER_OK);
	ck_assert_ptr_nonnull(strstr(err, "dropped_causes"));
	hesper_profile_free(&back);
	unlink(path);
}
END_TEST

/* Regions say whether they were timed; an untimed one (submit mode) reads back untimed, not as 0 ns. */
START_TEST(untimed_region_written_and_read_back)
{
	struct hesper_profile p, back;

	fixture(&p);
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.regions, "untimed"), 4);
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(
		s, "{\"name\": \"untimed\", \"count\": 4, \"total_ns\": 0, \"mean_ns\": 0, \"timed\": 0, "
		   "\"median_ns\": 0, \"min_ns\": 0, \"max_ns\": 0, \"stddev_ns\": 0, \"p95_ns\": 0, \"p99_ns\": 0}"));
	free(s);
	round_trip(&p, &back);
	const struct hesper_kernel *r = hesper_kernel_table_find(back.regions, "untimed");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->count, 4);
	ck_assert_uint_eq(r->timed.count, 0);
	r = hesper_kernel_table_find(back.regions, "frame");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->timed.count, 1);
	ck_assert_uint_eq(hesper_kernel_total_ns(r), 8000);
	hesper_profile_free(&back);
	hesper_profile_free(&p);
}
END_TEST

/* The exit report of a process a signal ends names the signal; others have no such key. */
START_TEST(ended_by_signal)
{
	struct hesper_profile p;

	fixture(&p);
	char *s = render(&p);
	ck_assert_ptr_null(strstr(s, "ended_by_signal"));
	free(s);
	p.report.signal = "SIGSEGV";
	s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "\n  \"ended_by_signal\": \"SIGSEGV\",\n"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(old_summary_reads_spans_as_totals)
{
	/* A summary without span_total_ns (written before it was added): shares are the spans. */
	char path[] = "/tmp/hesper-test-json-XXXXXX", err[256] = "";
	int fd = mkstemp(path);
	struct hesper_profile back;

	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs("{\"schema\": \"hesper-summary/1\", \"kernels\": [{\"name\": \"k\", \"count\": 4, \"total_ns\": 400, "
	      "\"mean_ns\": 100, \"timed\": 2}]}\n",
	      f);
	fclose(f);
	ck_assert_msg(hesper_summary_load(path, &back, err, sizeof(err)) == HESPER_OK, "%s", err);
	unlink(path);
	const struct hesper_kernel *k = hesper_kernel_table_find(back.kernels, "k");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->timed.total_ns, 200);
	ck_assert_uint_eq(k->share_ns, 200);
	ck_assert_uint_eq(hesper_kernel_total_ns(k), 400);
	ck_assert_uint_eq(hesper_kernel_span_total_ns(k), 400);
	hesper_profile_free(&back);
}
END_TEST

START_TEST(escape_ascii)
{
	assert_escape("plain", "\"plain\"");
	assert_escape("", "\"\"");
	assert_escape(NULL, "\"\"");
	assert_escape("say \"hi\"", "\"say \\\"hi\\\"\"");
	assert_escape("C:\\path\\", "\"C:\\\\path\\\\\"");
	assert_escape("a\nb\tc\rd\be\ff", "\"a\\nb\\tc\\rd\\be\\ff\"");
	assert_escape("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"");
	assert_escape("/slash", "\"/slash\"");
}
END_TEST

START_TEST(escape_valid_utf8)
{
	assert_escape("caf\u00e9", "\"caf\u00e9\"");
	assert_escape("\u65e5\u672c", "\"\u65e5\u672c\"");
	assert_escape("\U0001F600", "\"\U0001F600\"");
	assert_escape("\u00b5s \u2026", "\"\u00b5s \u2026\"");
	assert_escape("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""); /* U+10FFFF, the last one */
	assert_escape("\xed\x9f\xbf", "\"\xed\x9f\xbf\"");         /* U+D7FF, just below the surrogates */
}
END_TEST

START_TEST(escape_invalid_utf8)
{
	assert_escape("\x80", "\"\\ufffd\""); /* lone continuation */
	assert_escape("a\xbf"
		      "b",
		      "\"a\\ufffdb\"");
	assert_escape("\xc0\x80", "\"\\ufffd\\ufffd\"");                       /* overlong NUL */
	assert_escape("\xc1\xbf", "\"\\ufffd\\ufffd\"");                       /* overlong */
	assert_escape("\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* overlong 3-byte */
	assert_escape("\xf0\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* overlong 4-byte */
	assert_escape("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* surrogate U+D800 */
	assert_escape("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above U+10FFFF */
	assert_escape("\xf5\xff\xfe", "\"\\ufffd\\ufffd\\ufffd\"");
	assert_escape("\xe6\x97", "\"\\ufffd\"");   /* truncated at the end */
	assert_escape("\xe6\x97z", "\"\\ufffdz\""); /* truncated mid-string */
	assert_escape("\xf0\x9f\x98", "\"\\ufffd\"");
	assert_escape("\xc3\"", "\"\\ufffd\\\"\""); /* the quote still escaped */
	assert_escape("ok\xc3\xa9\xff\xc3\xa9", "\"ok\u00e9\\ufffd\u00e9\"");
}
END_TEST

START_TEST(names_escaped_in_report)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	strcpy(p.exe, "my \"app\"");
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "k\\\n\xff"), 5);
	hesper_kernel_record(hesper_kernel_table_get(p.regions, "r\"1"), 5);
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "\"exe\": \"my \\\"app\\\"\""));
	ck_assert_ptr_nonnull(strstr(s, "{\"name\": \"k\\\\\\n\\ufffd\", \"count\": 1"));
	ck_assert_ptr_nonnull(strstr(
		s, "{\"name\": \"r\\\"1\", \"count\": 1, \"total_ns\": 5, \"mean_ns\": 5, \"timed\": 1, "
		   "\"median_ns\": 5, \"min_ns\": 5, \"max_ns\": 5, \"stddev_ns\": 0, \"p95_ns\": 5, \"p99_ns\": 5}"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_error_reported)
{
	struct hesper_profile p;

	fixture(&p);
	assert_write_error_after(hesper_report_json, &p, 64);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
report_json_suite(void)
{
	Suite *s = suite_create("report_json");
	TCase *tc = tcase_create("hesper_report_json");

	tcase_add_test(tc, known_profile);
	tcase_add_test(tc, row_keys_follow_the_list);
	tcase_add_test(tc, top_level_follows_the_list);
	tcase_add_test(tc, empty_profile);
	tcase_add_test(tc, extremes_and_non_finite);
	tcase_add_test(tc, overlap_totals_and_spans);
	tcase_add_test(tc, dropped_causes_written_and_read_back);
	tcase_add_test(tc, dropped_causes_unknown_or_absent);
	tcase_add_test(tc, untimed_region_written_and_read_back);
	tcase_add_test(tc, ended_by_signal);
	tcase_add_test(tc, old_summary_reads_spans_as_totals);
	tcase_add_test(tc, names_escaped_in_report);
	tcase_add_test(tc, write_error_reported);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_json_write_string");
	tcase_add_test(tc, escape_ascii);
	tcase_add_test(tc, escape_valid_utf8);
	tcase_add_test(tc, escape_invalid_utf8);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(report_json_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
