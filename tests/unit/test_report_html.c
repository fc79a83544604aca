/* Unit tests for analysis/report_html*.c: structure, escaping, the embedded data, empty profiles. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixtures.h"
#include "write/html/report_html_parts.h"

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
	/* Bar chart: one bar per timed kernel, '-' for the never timed; histograms for the timed only. */
	ck_assert_uint_eq(count(html, "<rect class=\"bar\""), 2);
	ck_assert_ptr_nonnull(strstr(html, "never_timed: not timed</title>"));
	ck_assert_uint_eq(count(html, "<div class=\"hist\">"), 2);
	ck_assert_uint_gt(count(html, "<rect class=\"hbar\""), 2);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

/*
 * Nested labels: <details> nested as the labels were, open at the top and closed below,
 * each with its instances' numbers and its kernels.
 */
START_TEST(region_tree_nested)
{
	struct hesper_profile p;
	static const uint64_t frame_ns[] = {10, 20, 30, 40, 100};

	fixture(&p);
	for (size_t i = 0; i < 5; i++) {
		hesper_kernel_record(hesper_kernel_table_get(p.label_paths, "frame"), frame_ns[i]);
		hesper_kernel_record(hesper_kernel_table_get(p.label_paths, "frame\x1f"
									    "blur"),
				     8);
		hesper_kernel_record(hesper_kernel_table_get(p.label_kernels, "frame\x1f"
									      "blur\x1e"
									      "b<h>"),
				     5);
	}
	hesper_kernel_record(hesper_kernel_table_get(p.label_paths, "load"), 5);
	char *html = render(&p);

	assert_page(html);
	const char *tree = strstr(html, "<div id=\"region-tree\" class=\"rtree\">");
	ck_assert_ptr_nonnull(tree);
	ck_assert_uint_eq(count(tree, "<details open>"), 2);
	ck_assert_uint_eq(count(tree, "<details>"), 1);
	ck_assert_uint_eq(count(tree, "</details>"), 3);
	/* frame: 5 instances, mean 40 ns, median 30, P95 100, min 10, max 100 (exact below 128). */
	ck_assert_ptr_nonnull(strstr(tree,
				     "<summary><span class=\"rname\">frame</span> <span class=\"rnum\">Total 200 ns "
				     "&middot; 5 instances &middot; Avg 40 ns &middot; Med 30 ns &middot; P95 100 ns "
				     "&middot; Min 10 ns &middot; Max 100 ns</span></summary>\n"
				     "<details><summary><span class=\"rname\">blur</span>"));
	/* blur's kernel inside blur, its name escaped; blur closes before load (a sibling of frame) opens. */
	const char *kernel = strstr(tree,
				    "<li><span class=\"kname\">b&lt;h&gt;</span> <span class=\"rnum\">Total 25 ns "
				    "&middot; 5 dispatches &middot; Avg 5 ns</span></li>");
	ck_assert_ptr_nonnull(kernel);
	ck_assert_ptr_nonnull(strstr(kernel, "</ul>\n</details>\n</details>\n<details open><summary><span "
					     "class=\"rname\">load</span>"));
	/* One instance is one, not "1 instances". */
	ck_assert_ptr_nonnull(strstr(tree, "<span class=\"rname\">load</span> <span class=\"rnum\">Total 5 ns "
					   "&middot; 1 instance &middot; Avg 5 ns"));
	free(html);
	hesper_profile_free(&p);
}
END_TEST

/* Submit mode: kernels and regions counted, never timed: '-' everywhere, no bar, no 0 ns. */
START_TEST(submit_mode_shows_untimed)
{
	struct hesper_profile p;

	fixture_profile(&p, 7, "app", "box", "drv")->busy_ns = 1000;
	strcpy(p.mode, "submit");
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.kernels, "blur"), 5);
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.regions, "frame"), 2);
	char *html = render(&p);

	assert_page(html);
	ck_assert_ptr_nonnull(strstr(html, "<tr><td data-v=\"-1\">-</td><td data-v=\"-1\">-</td>"
					   "<td data-v=\"5\">5</td>"));
	ck_assert_ptr_nonnull(strstr(html, "<tr><td data-v=\"-1\">-</td><td data-v=\"2\">2</td>"
					   "<td data-v=\"-1\">-</td><td class=\"name\">frame</td>"));
	ck_assert_uint_eq(count(html, "<rect class=\"bar\""), 0);
	/* From the kernel table to the bar chart's end: no zero time or share. */
	char *from = strstr(html, "<table id=\"kernels\""), *to = strstr(html, "aria-label=\"total time per kernel\"");
	ck_assert_ptr_nonnull(from);
	ck_assert_ptr_nonnull(to);
	to = strstr(to, "</svg>");
	ck_assert_ptr_nonnull(to);
	*to = '\0';
	ck_assert_ptr_null(strstr(from, "0 ns"));
	ck_assert_ptr_null(strstr(from, ">0.0<"));
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
	int name = json_object_get_int(json_object_array_get_idx(ev, 4));
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(d, "names"), name)), nasty);
	json_object_put(d);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

/* The kernels' pipeline statistics, escaped, and a device whose driver has none. */
START_TEST(pipeline_stats_listed)
{
	struct hesper_profile p;
	struct hesper_pipeline_stat st[2] = {{.name = "VGPRs <used>", .format = HESPER_STAT_UINT, .value.u = 64},
					     {.name = "Spills", .format = HESPER_STAT_BOOL, .value.b = false}};
	struct hesper_pipeline_stats k = {
		.kernel = "k&<1>", .executable = "Compute Shader", .subgroup_size = 32, .count = 2, .stats = st};
	struct hesper_device_info none = {.name = "other", .pipeline_stats = "not offered by the driver"};

	fixture(&p);
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(&p, &k), 0);
	ck_assert_int_ge(hesper_profile_add_device(&p, &none), 0);
	char *html = render(&p);
	assert_page(html);
	ck_assert_uint_eq(count(html, "<h2>Pipeline statistics</h2>"), 1);
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"name\">k&amp;&lt;1&gt;</td><td>32</td>"));
	ck_assert_ptr_nonnull(strstr(html, "VGPRs &lt;used&gt; <strong>64</strong>, Spills <strong>false</strong>"));
	ck_assert_ptr_nonnull(strstr(html, "its driver has no VK_KHR_pipeline_executable_properties"));
	free(html);
	hesper_profile_free(&p);

	/* without statistics or a device that says it has none: no section */
	fixture(&p);
	html = render(&p);
	ck_assert_ptr_null(strstr(html, "Pipeline statistics"));
	free(html);
	hesper_profile_free(&p);
}
END_TEST

/* Occupancy per kernel in the statistics table, and how much of the device each launch shape fills. */
START_TEST(occupancy_listed)
{
	struct hesper_profile p;

	fixture_occupancy_profile(&p);
	char *html = render(&p);
	assert_page(html);
	ck_assert_ptr_nonnull(strstr(html, "<th>Occupancy</th><th>Groups per SM</th><th>Warps per SM</th>"));
	/* names break between words, or inside one only when it fits no line: not "stats_ligh / t" */
	ck_assert_ptr_nonnull(
		strstr(html, "td.name,th.name{text-align:left;white-space:normal;overflow-wrap:break-word}"));
	ck_assert_ptr_nonnull(
		strstr(html, "<td class=\"name\">matmul</td><td>32</td><td data-v=\"0.25\">25%</td>"
			     "<td data-v=\"8\">8</td><td data-v=\"16\">16</td><td class=\"name\">registers</td>"));
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"name\">shared memory</td>"));
	ck_assert_ptr_nonnull(strstr(html, ">Fills the device</th>"));
	/* matmul's 16 groups of the 1056 that fill the device; softmax's 4 of 396 */
	ck_assert_ptr_nonnull(
		strstr(html, "<td data-v=\"0.015151515151515152\">1.5%</td><td class=\"name\">matmul</td>"));
	ck_assert_ptr_nonnull(strstr(html, ">1.0%</td><td class=\"name\">softmax</td>"));
	free(html);

	/* under 10 %, one decimal, as the text report writes it: 16 of 256 warp slots */
	p.devices[0].occupancy.warps_per_sm = 256;
	html = render(&p);
	char *text = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_nonnull(strstr(html, "<td data-v=\"0.0625\">6.2%</td>"));
	ck_assert_ptr_nonnull(strstr(text, "occupancy 6.2% "));
	free(text);
	free(html);
	p.devices[0].occupancy.warps_per_sm = 64;

	/* no model: unknown and why; an upper bound marked */
	p.devices[0].occupancy.shared_per_sm = 0;
	html = render(&p);
	ck_assert_ptr_nonnull(strstr(html, ">\u2264 100%</td>"));
	ck_assert_ptr_nonnull(strstr(html, "work groups (the device&#39;s shared memory per SM is unknown)</td>"));
	free(html);
	hesper_occupancy_model_none(&p.devices[0].occupancy, "a CPU device (no SMs to model)");
	html = render(&p);
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"name\">unknown: a CPU device (no SMs to model)</td>"));
	ck_assert_ptr_nonnull(strstr(html, "<td data-v=\"-1\">-</td><td class=\"name\">matmul</td>"));
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

/* @n dispatches of 150 ns, 100 ns apart from 1000 ns, added out of order; the trace's origin at 1000 ns. */
static void
add_dispatches(struct hesper_profile *p, size_t n)
{
	hesper_trace_free(&p->trace);
	hesper_trace_init(&p->trace, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t start = 1000 + (uint64_t)((i * 7919) % n) * 100;
		struct hesper_trace_event e = {
			.kind = HESPER_TRACE_DISPATCH,
			.name = i % 2 ? "matmul" : "softmax",
			.start_ns = start,
			.end_ns = start + 150,
		};
		ck_assert(hesper_trace_add(&p->trace, &e));
	}
	p->trace.origin_ns = 1000;
}

START_TEST(timeline_holds_every_event)
{
	struct hesper_profile p;
	enum { N = 3000 };

	fixture(&p);
	add_dispatches(&p, N);
	char *html = render(&p);
	json_object *d = data_of(html), *events = get(d, "events"), *names = get(d, "names");

	ck_assert_int_eq(json_object_get_int(get(d, "total")), N);
	ck_assert_int_eq(json_object_get_int(get(d, "shown")), N);
	ck_assert_int_eq(json_object_array_length(events), N);
	ck_assert_int_eq(json_object_array_length(get(d, "tracks")), 2); /* 150 ns events 100 ns apart */
	ck_assert_int_eq(json_object_array_length(names), 2);
	/* Every event once, each with its own name through the names table. */
	char *seen = calloc(N, 1);
	ck_assert_ptr_nonnull(seen);
	for (size_t i = 0; i < N; i++) {
		json_object *ev = json_object_array_get_idx(events, i);
		int64_t at = json_object_get_int64(json_object_array_get_idx(ev, 1)) / 100;
		const char *name = json_object_get_string(
			json_object_array_get_idx(names, json_object_get_int(json_object_array_get_idx(ev, 4))));

		ck_assert_int_lt(at, N);
		ck_assert(!seen[at]);
		seen[at] = 1;
		ck_assert_int_eq(json_object_get_int64(json_object_array_get_idx(ev, 2)), 150);
		ck_assert_int_eq(json_object_get_int(json_object_array_get_idx(ev, 3)), HESPER_TRACE_DISPATCH);
		ck_assert_str_eq(name, (size_t)at * 7919 % N % 2 ? "matmul" : "softmax");
	}
	free(seen);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(d, "tracks"), 1)),
			 "GPU 0 Test GPU queue family 0 index 0 dispatches lane 2");
	/* Each kind's colour for the legend. */
	ck_assert_int_eq(json_object_array_length(get(d, "kinds")), 6);
	ck_assert_ptr_nonnull(strstr(html, "All 3000 events the run kept"));
	json_object_put(d);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(timeline_says_what_is_past_its_limit)
{
	struct hesper_profile p;
	const size_t n = HESPER_HTML_TIMELINE_MAX + 7;
	char want[256];

	fixture(&p);
	add_dispatches(&p, n);
	p.trace.left_out = 5;
	char *html = render(&p);
	json_object *d = data_of(html), *events = get(d, "events");

	/* The earliest LIMIT events are in the page, the last 7 not; the page says so and where they are. */
	ck_assert_uint_eq(json_object_get_int64(get(d, "shown")), HESPER_HTML_TIMELINE_MAX);
	ck_assert_uint_eq(json_object_array_length(events), HESPER_HTML_TIMELINE_MAX);
	for (size_t i = 0; i < HESPER_HTML_TIMELINE_MAX; i++)
		ck_assert_int_lt(
			json_object_get_int64(json_object_array_get_idx(json_object_array_get_idx(events, i), 1)),
			(int64_t)HESPER_HTML_TIMELINE_MAX * 100);
	ck_assert_int_eq(json_object_get_int64(get(d, "last_start_ns")), ((int64_t)HESPER_HTML_TIMELINE_MAX - 1) * 100);
	snprintf(want, sizeof(want), "This page holds the first %u of the %zu events the run kept",
		 HESPER_HTML_TIMELINE_MAX, n);
	ck_assert_msg(strstr(html, want) != NULL, "no '%s'", want);
	ck_assert_ptr_nonnull(strstr(html, "the other 7, later in the run, are not drawn here: the trace report"));
	ck_assert_ptr_nonnull(strstr(html, "5 more were left out by the event cap"));
	json_object_put(d);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

/* The text between @open and the next @close in @s after @from, copied to @buf; NULL when none. */
static const char *
between(const char *from, const char *open, const char *close, char *buf, size_t size)
{
	const char *a = strstr(from, open), *b;

	if (!a)
		return NULL;
	a += strlen(open);
	b = strstr(a, close);
	if (!b)
		return NULL;
	snprintf(buf, size, "%.*s", (int)(b - a), a);
	return b + strlen(close);
}

START_TEST(kernel_columns_in_the_text_reports_order)
{
	struct hesper_profile p;
	char title[64], head[512] = "";

	fixture(&p);
	char *html = render(&p), *text = render_with(hesper_report_text, &p, NULL);
	const char *at = strstr(html, "<table id=\"kernels\"");
	const char *thead_end = strstr(at, "</thead>");

	/* The HTML's column titles, in order, as the text report would print them between spaces. */
	while ((at = between(at, "data-type=\"", ">", title, sizeof(title))) && at < thead_end &&
	       between(at, "", "</th>", title, sizeof(title))) {
		strcat(head, head[0] ? " " : "");
		strcat(head, title);
	}
	/* The text report's header line, its runs of spaces made one. */
	const char *line = strstr(text, "Time (%)");
	char text_head[512];
	size_t n = 0;
	ck_assert_ptr_nonnull(line);
	for (; *line && *line != '\n' && n + 1 < sizeof(text_head); line++)
		if (*line != ' ' || (n && text_head[n - 1] != ' '))
			text_head[n++] = *line;
	text_head[n] = '\0';
	ck_assert_str_eq(head, text_head);
	free(text);
	free(html);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(findings_read_as_times_bytes_and_shares)
{
	struct hesper_profile p;

	/* A queue idle 40% of a 1 s run: the GPU-idle finding. */
	fixture(&p);
	p.wall_ns = 1000000000;
	p.findings_ready = true;
	p.queues[0].timed_batches = 11;
	p.queues[0].idle_ns = 400000000;
	char *html = render(&p);

	ck_assert_ptr_nonnull(strstr(html, "<li data-kind=\"gpu_idle\">"));
	ck_assert_ptr_nonnull(strstr(html, "data-key=\"idle_ns\" data-v=\"400000000\">idle 400.0 ms</span>"));
	ck_assert_ptr_nonnull(strstr(html, ">idle share 40.0%</span>"));
	ck_assert_ptr_nonnull(strstr(html, ">mean gap 40.00 ms</span>"));
	ck_assert_ptr_nonnull(strstr(html, ">batches 11</span>"));
	ck_assert_ptr_null(strstr(html, "idle_ns="));
	ck_assert_ptr_null(strstr(html, "e+0"));
	free(html);

	hesper_profile_free(&p);
}
END_TEST

START_TEST(host_waits_with_mean)
{
	struct hesper_profile p;

	fixture(&p);
	ck_assert_int_eq(hesper_profile_add_host_wait(&p, 10, HESPER_WAIT_FENCES, 4, 1000000, 400000), 0);
	char *html = render(&p);

	/* The text report's columns: thread, call, count, total, mean, max. */
	ck_assert_ptr_nonnull(strstr(html,
				     ">thread</th><th data-type=\"text\">call</th><th data-type=\"num\">count</th>"
				     "<th data-type=\"num\">total</th><th data-type=\"num\">mean</th>"
				     "<th data-type=\"num\">max</th>"));
	ck_assert_ptr_nonnull(strstr(html,
				     "<td data-v=\"1000000\">1.000 ms</td><td data-v=\"250000\">250.0 \u00b5s</td>"
				     "<td data-v=\"400000\">400.0 \u00b5s</td>"));
	free(html);
	hesper_profile_free(&p);
}
END_TEST

/* Counted lines (HESPER_LINES): per kernel a table of its lines, each with a heat bar its share wide. */
START_TEST(hot_lines_with_heat_bars)
{
	struct hesper_profile p;
	struct hesper_hot_line lines[2] = {
		{.file = "hot_lines.comp", .line = 12, .ticks = 683, .executions = 25606400, .share = 0.683},
		{.file = "", .line = 0, .ticks = 317, .executions = 6400, .share = 0.317},
	};

	fixture_known_profile(&p);
	char *html = render(&p);
	ck_assert_ptr_null(strstr(html, "Hot lines")); /* none counted: no section */
	free(html);
	ck_assert_int_eq(hesper_profile_set_lines(&p, "blur<h>", lines, 2, 3), 0);
	html = render(&p);
	ck_assert_ptr_nonnull(strstr(html, "<h2>Hot lines</h2>"));
	ck_assert_ptr_nonnull(strstr(html, "blur&lt;h&gt; <span class=\"sub\">(3 dispatches counted)</span>"));
	ck_assert_ptr_nonnull(
		strstr(html, "hot_lines.comp:12</td><td><span class=\"heat\" style=\"width:68px\"></span> 68.3%"));
	ck_assert_ptr_nonnull(strstr(html, "(no line information)"));
	/* runs per dispatch and cycles per run: 6400 / 3 dispatches, 317 / 6400 */
	ck_assert_ptr_nonnull(strstr(html, "<td>317</td><td>2133</td><td>0.04953</td>"));
	ck_assert_ptr_null(strstr(html, "class=\"listing\"")); /* no source text: no listing */
	free(html);
	/* with the file's text: every line listed, its tab as spaces, line 12 with its heat bar */
	char source[512] = "";
	for (int n = 1; n <= 13; n++)
		strcat(source, n == 12 ? "\tacc = acc * 2.0; <hot>\n" : "x\n");
	ck_assert_int_eq(hesper_profile_set_source(&p, "blur<h>", "hot_lines.comp", source, NULL), 0);
	html = render(&p);
	ck_assert_ptr_nonnull(strstr(html, "<table class=\"listing\">"));
	ck_assert_ptr_nonnull(strstr(html,
				     "<tr><td><span class=\"heat\" style=\"width:68px\"></span> 68.3%</td>"
				     "<td>12</td><td class=\"name\"><pre>    acc = acc * 2.0; &lt;hot&gt;</pre>"));
	ck_assert_ptr_nonnull(strstr(html, "<tr><td></td><td>13</td><td class=\"name\"><pre>x</pre>"));
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
	tcase_add_test(tc, hot_lines_with_heat_bars);
	tcase_add_test(tc, known_profile);
	tcase_add_test(tc, region_tree_nested);
	tcase_add_test(tc, submit_mode_shows_untimed);
	tcase_add_test(tc, overlap_note);
	tcase_add_test(tc, histogram_bins_add_up);
	tcase_add_test(tc, names_escaped);
	tcase_add_test(tc, long_names_cut_in_charts);
	tcase_add_test(tc, pipeline_stats_listed);
	tcase_add_test(tc, occupancy_listed);
	tcase_add_test(tc, timeline_holds_every_event);
	tcase_add_test(tc, timeline_says_what_is_past_its_limit);
	tcase_add_test(tc, kernel_columns_in_the_text_reports_order);
	tcase_add_test(tc, findings_read_as_times_bytes_and_shares);
	tcase_add_test(tc, host_waits_with_mean);
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
