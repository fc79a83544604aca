/* Unit tests for analysis/report_html*.c: structure, escaping, the embedded data, empty profiles. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixtures.h"

#define DATA_OPEN "<script type=\"application/json\" id=\"hesper-data\">"

static char *
render(const struct hesper_profile *p)
{
	size_t size;
	char *buf = render_with(hesper_report_html, p, &size);

	ck_assert_uint_eq(strlen(buf), size); /* no NUL inside */
	return buf;
}

static size_t
count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The embedded timeline data, parsed; fails when the block is missing or not JSON. */
static json_object *
data_of(const char *html)
{
	const char *start = strstr(html, DATA_OPEN);

	ck_assert_ptr_nonnull(start);
	start += strlen(DATA_OPEN);
	const char *end = strstr(start, "</script>");
	ck_assert_ptr_nonnull(end);

	char *text = strndup(start, (size_t)(end - start));
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_null(strstr(text, "<")); /* nothing that could close or open markup */
	json_object *root = json_tokener_parse(text);
	ck_assert_msg(root != NULL, "not JSON: %s", text);
	free(text);
	return root;
}

static json_object *
get(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
	return v;
}

/* The page's skeleton: doctype, one of each section, the script, nothing fetched. */
static void
assert_page(const char *html)
{
	ck_assert_msg(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0, "%.80s", html);
	ck_assert_ptr_nonnull(strstr(html, "</html>\n"));
	ck_assert_uint_eq(count(html, "<table id=\"kernels\""), 1);
	ck_assert_uint_eq(count(html, "<div id=\"timeline\">"), 1);
	ck_assert_uint_eq(count(html, DATA_OPEN), 1);
	ck_assert_uint_eq(count(html, "data-hesper-script"), 3); /* set error, test, set ok */
	ck_assert_uint_eq(count(html, "<script"), 2);
	ck_assert_uint_eq(count(html, "</script>"), 2);
	/* Self-contained: no external resources. */
	ck_assert_ptr_null(strstr(html, "src="));
	ck_assert_ptr_null(strstr(html, "href="));
	ck_assert_ptr_null(strstr(html, "http:"));
	ck_assert_ptr_null(strstr(html, "https:"));
	ck_assert_ptr_null(strstr(html, "@import"));
}

START_TEST(empty_profile)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	char *html = render(&p);
	assert_page(html);
	ck_assert_ptr_nonnull(strstr(html, "No GPU work was recorded"));
	ck_assert_ptr_nonnull(strstr(html, "No timeline events were kept"));
	ck_assert_ptr_nonnull(strstr(html, "<dt>device</dt><dd>none seen</dd>"));

	json_object *d = data_of(html);
	ck_assert_int_eq(json_object_get_int(get(d, "total")), 0);
	ck_assert_int_eq(json_object_array_length(get(d, "events")), 0);
	ck_assert_int_eq(json_object_array_length(get(d, "tracks")), 0);
	json_object_put(d);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

static void
fixture(struct hesper_profile *p)
{
	fixture_profile(p, 99, "demo", "box", "drv 1")->busy_ns = 500000;
	p->wall_ns = 1000000;
	p->timestamps_written = 42;

	struct hesper_kernel *k = hesper_kernel_table_get(p->kernels, "matmul");
	for (int i = 0; i < 100; i++)
		hesper_kernel_record(k, 1000 + (uint64_t)i * 100);
	k = hesper_kernel_table_get(p->kernels, "softmax");
	hesper_kernel_record(k, 700);
	hesper_kernel_count_untimed(k, 3);
	k = hesper_kernel_table_get(p->kernels, "never_timed");
	hesper_kernel_count_untimed(k, 2);
	hesper_kernel_record(hesper_kernel_table_get(p->regions, "frame"), 9000);
}

START_TEST(known_profile)
{
	struct hesper_profile p;

	fixture(&p);
	char *html = render(&p);

	assert_page(html);
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"name\">matmul</td>"));
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"name\">softmax</td>"));
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"name\">never_timed</td>"));
	ck_assert_ptr_nonnull(strstr(html, "<table id=\"regions\""));
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"name\">frame</td>"));
	/* Header facts. */
	ck_assert_ptr_nonnull(strstr(html, "<dd>demo (pid 99)</dd>"));
	ck_assert_ptr_nonnull(strstr(html, "<dd>Test GPU (drv 1)</dd>"));
	ck_assert_ptr_nonnull(strstr(html, "<dd>500.0 \u00b5s (50.0% of wall time)</dd>"));
	ck_assert_ptr_nonnull(strstr(html, "<dd>106: 101 timed</dd>"));
	ck_assert_ptr_nonnull(strstr(html, "42 timestamps"));
	/* The estimated total is marked, never-timed cells are "-". */
	ck_assert_ptr_nonnull(strstr(html, ">~2.800 \u00b5s</td>"));
	ck_assert_ptr_nonnull(strstr(html, "2 of 3 kernels ran more often than they were timed"));
	/* matmul's row sorts by its exact total (1000*100 + 100*4950 = 595000 ns). */
	ck_assert_ptr_nonnull(strstr(html, "<td data-v=\"595000\">595.0 \u00b5s</td>"));
	/* Bar chart: one bar per kernel; histograms for the two timed kernels only. */
	ck_assert_uint_eq(count(html, "<rect class=\"bar\""), 3);
	ck_assert_uint_eq(count(html, "<div class=\"hist\">"), 2);
	ck_assert_uint_gt(count(html, "<rect class=\"hbar\""), 2);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(overlap_note)
{
	struct hesper_profile p;

	fixture_overlap_profile(&p);
	char *html = render(&p);
	assert_page(html);
	/* Total from the share, Avg from the span, and a note that says so. */
	ck_assert_ptr_nonnull(strstr(html, "<td data-v=\"20000\">20.00 \u00b5s</td><td data-v=\"1\">1</td>"
					   "<td data-v=\"30000\">30.00 \u00b5s</td>"));
	ck_assert_ptr_nonnull(strstr(html, "Dispatches overlapped on the GPU: Total and Time (%) split the time they "
					   "shared; Avg to StdDev are whole spans (sum 65.00 \u00b5s)."));
	free(html);
	hesper_profile_free(&p);

	fixture_known_profile(&p);
	html = render(&p);
	ck_assert_ptr_null(strstr(html, "Dispatches overlapped"));
	free(html);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(histogram_bins_add_up)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_kernel *k = hesper_kernel_table_get(p.kernels, "k");
	/* 10 values below 64 ns (one bin), 30 at 1000 ns, 60 at 1 ms. */
	for (int i = 0; i < 10; i++)
		hesper_kernel_record(k, (uint64_t)i);
	for (int i = 0; i < 30; i++)
		hesper_kernel_record(k, 1000);
	for (int i = 0; i < 60; i++)
		hesper_kernel_record(k, 1000000);
	char *html = render(&p);

	ck_assert_ptr_nonnull(strstr(html, "<title>0 ns to 64 ns: 10</title>"));
	ck_assert_ptr_nonnull(strstr(html, ": 30</title>"));
	ck_assert_ptr_nonnull(strstr(html, ": 60</title>"));
	/* Every bin from the first to the last is drawn, empty ones too. */
	ck_assert_uint_eq(count(html, ": 0</title>") + 3, count(html, "<rect class=\"hbar\""));
	free(html);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(names_escaped)
{
	struct hesper_profile p;
	const char *nasty = "</script><script>alert(1)</script>&\"'\x01";

	fixture(&p);
	strcpy(p.exe, "<b>exe</b>");
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, nasty), 5000000);
	struct hesper_trace_event e = {.kind = HESPER_TRACE_DISPATCH, .name = nasty, .start_ns = 10, .end_ns = 20};
	hesper_trace_add(&p.trace, &e);

	char *html = render(&p);
	assert_page(html); /* still exactly two <script> elements */
	ck_assert_ptr_null(strstr(html, "<b>"));
	ck_assert_ptr_nonnull(strstr(html, "&lt;b&gt;exe&lt;/b&gt;"));
	ck_assert_ptr_nonnull(
		strstr(html, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;\xef\xbf\xbd"));

	json_object *d = data_of(html);
	json_object *ev = json_object_array_get_idx(get(d, "events"), 0);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(ev, 4)), nasty);
	json_object_put(d);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(long_names_cut_in_charts)
{
	struct hesper_profile p;
	char name[200];

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	/* 60 two-byte characters: the chart label keeps 39 and an ellipsis, the table all of it. */
	name[0] = '\0';
	for (int i = 0; i < 60; i++)
		strcat(name, "\u00e9");
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, name), 1000);
	char *html = render(&p);
	char want[200] = ">";

	for (int i = 0; i < 39; i++)
		strcat(want, "\u00e9");
	strcat(want, "\u2026</text>");
	ck_assert_ptr_nonnull(strstr(html, want));
	ck_assert_ptr_nonnull(strstr(html, name));
	free(html);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(timeline_first_events)
{
	struct hesper_profile p;
	enum { N = 3000 };

	fixture(&p);
	/* Added out of order: the timeline shows the 2000 earliest, on lanes of queue 0. */
	for (int i = 0; i < N; i++) {
		uint64_t start = 1000 + (uint64_t)((i * 7919) % N) * 100;
		struct hesper_trace_event e = {
			.kind = HESPER_TRACE_DISPATCH,
			.name = "matmul",
			.start_ns = start,
			.end_ns = start + 150,
		};
		ck_assert(hesper_trace_add(&p.trace, &e));
	}
	p.trace.origin_ns = 1000;
	char *html = render(&p);
	json_object *d = data_of(html), *events = get(d, "events");

	ck_assert_int_eq(json_object_get_int(get(d, "total")), N);
	ck_assert_int_eq(json_object_get_int(get(d, "shown")), 2000);
	ck_assert_int_eq(json_object_array_length(events), 2000);
	ck_assert_int_eq(json_object_array_length(get(d, "tracks")), 2); /* 150 ns events 100 ns apart */
	for (size_t i = 0; i < 2000; i++) {
		json_object *ev = json_object_array_get_idx(events, i);
		int64_t start = json_object_get_int64(json_object_array_get_idx(ev, 1));

		ck_assert_int_lt(start, 2000 * 100);
		ck_assert_int_eq(json_object_get_int64(json_object_array_get_idx(ev, 2)), 150);
	}
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(d, "tracks"), 1)),
			 "GPU 0 Test GPU queue family 0 index 0 dispatches lane 2");
	ck_assert_ptr_nonnull(strstr(html, "The first 2000 of 3000 events kept"));
	json_object_put(d);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_error_reported)
{
	struct hesper_profile p;

	fixture(&p);
	assert_write_error_full(hesper_report_html, &p);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
report_html_suite(void)
{
	Suite *s = suite_create("report_html");
	TCase *tc = tcase_create("hesper_report_html");

	tcase_add_test(tc, empty_profile);
	tcase_add_test(tc, known_profile);
	tcase_add_test(tc, overlap_note);
	tcase_add_test(tc, histogram_bins_add_up);
	tcase_add_test(tc, names_escaped);
	tcase_add_test(tc, long_names_cut_in_charts);
	tcase_add_test(tc, timeline_first_events);
	tcase_add_test(tc, write_error_reported);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(report_html_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
