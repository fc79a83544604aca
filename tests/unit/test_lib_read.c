/* Unit tests of hesper_read_trace and hesper_read_summary (analysis/api/read_trace.c, read_summary.c), through the shared library. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hesper/profiling.h>

static const struct hesper_event events[] = {
	{"softmax", 106000, 107000}, {"matmul", 100000, 101000},      {"matmul", 101000, 103000},
	{"matmul", 103000, 106000},  {"soft\"max\n", 107000, 108000}, {"backwards", 200500, 200000},
};
#define N_EVENTS (sizeof(events) / sizeof(events[0]))

static char dir[64];

static void
make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hesper-lib-read-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The path of @name in the test's directory (static storage, one at a time). */
static const char *
path_of(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static const char *
write_text(const char *name, const char *text)
{
	const char *path = path_of(name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static const char *
write_report(const char *name, enum hesper_report_format format)
{
	const char *path = path_of(name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(hesper_write_report(f, format, events, N_EVENTS, NULL), HESPER_OK);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

/* Events written as a trace come back the same, ordered by start, names owned by the array. */
START_TEST(trace_round_trip)
{
	struct hesper_event sorted[N_EVENTS], *back = NULL;
	size_t n = 0;
	char err[256] = "";

	memcpy(sorted, events, sizeof(events));
	qsort(sorted, N_EVENTS, sizeof(sorted[0]), hesper_event_compare);
	ck_assert_int_eq(hesper_read_trace(write_report("t.json", HESPER_REPORT_TRACE), &back, &n, err, sizeof(err)),
			 HESPER_OK);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(n, N_EVENTS);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(back[i].name, sorted[i].name);
		ck_assert_ptr_ne(back[i].name, sorted[i].name);
		ck_assert_uint_eq(back[i].start_ns, sorted[i].start_ns);
		/* A trace draws an interval whose end came first as zero-length. */
		ck_assert_uint_eq(hesper_event_duration_ns(&back[i]), hesper_event_duration_ns(&sorted[i]));
	}
	hesper_events_free(back);
}
END_TEST

START_TEST(trace_times_and_kinds)
{
	struct hesper_event *ev = NULL;
	size_t n = 0;

	/* Only "X" events of category "dispatch"; exponent notation is read too; no origin: 0. */
	const char *path = write_text(
		"k.json", "{\"traceEvents\": ["
			  "{\"ph\": \"X\", \"cat\": \"dispatch\", \"name\": \"late\", \"ts\": 2.5e3, \"dur\": 1},"
			  "{\"ph\": \"X\", \"cat\": \"region\", \"name\": \"label\", \"ts\": 0, \"dur\": 9},"
			  "{\"ph\": \"M\", \"name\": \"thread_name\", \"args\": {\"name\": \"x\"}},"
			  "{\"ph\": \"X\", \"cat\": \"dispatch\", \"name\": \"early\", \"ts\": 12.3456, \"dur\": 0.5}"
			  "], \"metadata\": {\"schema\": \"hesper-trace/1\"}}\n");
	ck_assert_int_eq(hesper_read_trace(path, &ev, &n, NULL, 0), HESPER_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(ev[0].name, "early");
	ck_assert_uint_eq(ev[0].start_ns, 12346); /* more than three decimals: rounded */
	ck_assert_uint_eq(ev[0].end_ns, 12846);
	ck_assert_str_eq(ev[1].name, "late");
	ck_assert_uint_eq(ev[1].start_ns, 2500000);
	ck_assert_uint_eq(ev[1].end_ns, 2501000);
	hesper_events_free(ev);

	path = write_text("none.json",
			  "{\"traceEvents\": [], \"metadata\": {\"schema\": \"hesper-trace/1\", \"origin_ns\": 5}}");
	ev = (struct hesper_event *)path;
	ck_assert_int_eq(hesper_read_trace(path, &ev, &n, NULL, 0), HESPER_OK);
	ck_assert_ptr_null(ev);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* A summary written from events comes back as the groups hesper_group_by_kernel makes. */
START_TEST(summary_round_trip)
{
	struct hesper_kernel_group *read = NULL, *made = NULL;
	size_t n_read = 0, n_made = hesper_group_by_kernel(events, N_EVENTS, &made);
	char err[256] = "";

	ck_assert_int_eq(
		hesper_read_summary(write_report("s.json", HESPER_REPORT_JSON), &read, &n_read, err, sizeof(err)),
		HESPER_OK);
	ck_assert_uint_eq(n_read, n_made);
	for (size_t i = 0; i < n_read; i++) {
		const struct hesper_summary *a = &read[i].summary, *b = &made[i].summary;

		ck_assert_str_eq(read[i].name, made[i].name);
		ck_assert_ptr_null(read[i].events);
		ck_assert_uint_eq(read[i].n_events, 0);
		ck_assert_uint_eq(a->total_events, b->total_events);
		ck_assert_uint_eq(a->total_duration_ns, b->total_duration_ns);
		ck_assert_double_eq_tol(a->total_duration_ms, b->total_duration_ms, 1e-12);
		ck_assert_double_eq_tol(a->avg_duration_ms, b->avg_duration_ms, 1e-12);
		ck_assert_double_eq_tol(a->min_duration_ms, b->min_duration_ms, 1e-12);
		ck_assert_double_eq_tol(a->max_duration_ms, b->max_duration_ms, 1e-12);
		ck_assert_double_eq_tol(a->stddev_duration_ms, b->stddev_duration_ms, 1e-9);
		/* The file's quantiles come from Hesper's histogram: within its 1/128. */
		ck_assert_double_eq_tol(a->median_duration_ms, b->median_duration_ms,
					b->median_duration_ms / 128 + 1e-12);
		ck_assert_double_eq_tol(a->p99_duration_ms, b->p99_duration_ms, b->p99_duration_ms / 128 + 1e-12);
	}
	hesper_kernel_groups_free(read, n_read);
	hesper_kernel_groups_free(made, n_made);
}
END_TEST

/* Each failure: its status, "PATH: reason" in the caller's buffer, nothing returned. */
static void
assert_fails(int status, const char *want_status_text, const char *path, const char *reason, bool trace)
{
	struct hesper_event *ev = (struct hesper_event *)path;
	struct hesper_kernel_group *g = (struct hesper_kernel_group *)path;
	size_t n = 99;
	char err[512] = "", want[512];
	int got = trace ? hesper_read_trace(path, &ev, &n, err, sizeof(err))
			: hesper_read_summary(path, &g, &n, err, sizeof(err));

	ck_assert_int_eq(got, status);
	ck_assert_str_eq(hesper_status_string(got), want_status_text);
	snprintf(want, sizeof(want), "%s: %s", path, reason);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "error '%s' does not start with '%s'", err, want);
	ck_assert_ptr_null(trace ? (void *)ev : (void *)g);
	ck_assert_uint_eq(n, 0);
}

START_TEST(not_hesper_files)
{
	char summary[128], trace[128];

	snprintf(summary, sizeof(summary), "%s", write_report("s.json", HESPER_REPORT_JSON));
	snprintf(trace, sizeof(trace), "%s", write_report("t.json", HESPER_REPORT_TRACE));

	assert_fails(HESPER_ERROR_IO, "input/output error", path_of("missing.json"), "cannot open: No such file", true);
	assert_fails(HESPER_ERROR_IO, "input/output error", path_of("missing.json"), "cannot open: No such file",
		     false);
	assert_fails(HESPER_ERROR_IO, "input/output error", dir, "cannot read: Is a directory", false);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind", summary,
		     "not a Hesper trace (\"metadata\".\"schema\" is not \"hesper-trace/1\")", true);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind", trace,
		     "not a Hesper summary (\"schema\" is not \"hesper-summary/1\")", false);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind", write_text("e.json", ""),
		     "the file is empty", false);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind", write_text("half.json", "{\"a\": "),
		     "not JSON: the text ends early", false);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind",
		     write_text("c.csv", "time_percent,total_ns\r\n1,2\r\n"), "not JSON: ", true);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind", write_text("two.json", "{} {}"),
		     "not JSON: text after the value", true);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind", write_text("null.json", "null\n"),
		     "not a Hesper summary", false);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind",
		     write_text("bad.json",
				"{\"schema\": \"hesper-summary/1\", \"kernels\": [{\"name\": \"k\", \"count\": -3}]}"),
		     "a kernel \"k\": \"count\" is -3, a negative count", false);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind",
		     write_text("nok.json", "{\"schema\": \"hesper-summary/1\"}"), "no \"kernels\" array", false);
	assert_fails(HESPER_ERROR_FORMAT, "not a Hesper file of the expected kind",
		     write_text("nots.json",
				"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"dispatch\", \"name\": \"k\"}],"
				" \"metadata\": {\"schema\": \"hesper-trace/1\"}}"),
		     "a dispatch event has no number \"ts\"", true);
}
END_TEST

START_TEST(bad_arguments_and_small_buffers)
{
	struct hesper_event *ev;
	struct hesper_kernel_group *g;
	size_t n;
	char small[12];

	ck_assert_int_eq(hesper_read_trace(NULL, &ev, &n, NULL, 0), HESPER_ERROR_ARGUMENT);
	ck_assert_int_eq(hesper_read_trace("x", NULL, &n, NULL, 0), HESPER_ERROR_ARGUMENT);
	ck_assert_int_eq(hesper_read_summary("x", &g, NULL, small, sizeof(small)), HESPER_ERROR_ARGUMENT);
	ck_assert_int_eq(hesper_read_summary(path_of("missing.json"), &g, &n, small, sizeof(small)), HESPER_ERROR_IO);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1); /* cut, terminated */
	hesper_events_free(NULL);
}
END_TEST

static Suite *
lib_read_suite(void)
{
	Suite *s = suite_create("lib_read");
	TCase *tc = tcase_create("readers");

	tcase_add_checked_fixture(tc, make_dir, remove_dir);
	tcase_add_test(tc, trace_round_trip);
	tcase_add_test(tc, trace_times_and_kinds);
	tcase_add_test(tc, summary_round_trip);
	tcase_add_test(tc, not_hesper_files);
	tcase_add_test(tc, bad_arguments_and_small_buffers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(lib_read_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
