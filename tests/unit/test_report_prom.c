/* Unit tests for analysis/write/report_prom.c: the Prometheus text exposition (format 0.0.4). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixtures.h"

/* The line of @text that starts with @prefix, as a new string (NULL when none). */
static char *
line_starting(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, prefix, strlen(prefix)) == 0) {
			const char *end = strchr(l, '\n');
			return strndup(l, end ? (size_t)(end - l) : strlen(l));
		}
	}
	return NULL;
}

START_TEST(families_and_values)
{
	struct hesper_profile p;
	char *text;

	fixture_known_profile(&p);
	p.dropped = 3;
	p.hook_ns = 1500000001;
	p.collector_ns = 42;
	text = render_with(hesper_report_prom, &p, NULL);

	/* Every family has HELP then TYPE, and the counters end in _total. */
	ck_assert_ptr_nonnull(strstr(text, "# HELP hesper_kernel_dispatches_total "));
	ck_assert_ptr_nonnull(strstr(text, "\n# TYPE hesper_kernel_dispatches_total counter\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# TYPE hesper_kernel_gpu_seconds_total counter\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# TYPE hesper_queue_busy_seconds_total counter\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# TYPE hesper_dispatches_dropped_total counter\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# TYPE hesper_overhead_seconds_total counter\n"));

	char prefix[512];
	snprintf(prefix, sizeof(prefix), "hesper_kernel_dispatches_total{pid=\"%d\",exe=\"%s\",kernel=\"matmul\"} ",
		 p.pid, p.exe);
	char *l = line_starting(text, prefix);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l + strlen(prefix), "3");
	free(l);
	snprintf(prefix, sizeof(prefix), "hesper_kernel_gpu_seconds_total{pid=\"%d\",exe=\"%s\",kernel=\"matmul\"} ",
		 p.pid, p.exe);
	l = line_starting(text, prefix);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l + strlen(prefix), "0.000006000"); /* 1000 + 2000 + 3000 ns */
	free(l);
	snprintf(prefix, sizeof(prefix), "hesper_overhead_seconds_total{pid=\"%d\",exe=\"%s\",part=\"hooks\"} ", p.pid,
		 p.exe);
	l = line_starting(text, prefix);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l + strlen(prefix), "1.500000001");
	free(l);
	snprintf(prefix, sizeof(prefix), "hesper_dispatches_dropped_total{pid=\"%d\",exe=\"%s\"} ", p.pid, p.exe);
	l = line_starting(text, prefix);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l + strlen(prefix), "3");
	free(l);
	ck_assert(text[strlen(text) - 1] == '\n');
	free(text);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(label_escaping)
{
	struct hesper_profile p;
	char *text;

	fixture_profile(&p, 7, "a\"pp", "h", "drv");
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "say \"hi\"\\now\nnext"), 5);
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "bad\xff"
								"byte \xc3\xa9"),
			     5);
	text = render_with(hesper_report_prom, &p, NULL);

	ck_assert_ptr_nonnull(strstr(
		text,
		"hesper_kernel_dispatches_total{pid=\"7\",exe=\"a\\\"pp\",kernel=\"say \\\"hi\\\"\\\\now\\nnext\"} 1\n"));
	/* An invalid byte becomes U+FFFD; valid UTF-8 stays. */
	ck_assert_ptr_nonnull(strstr(text, "kernel=\"bad\xef\xbf\xbd"
					   "byte \xc3\xa9\"} 1\n"));
	/* No raw newline inside a sample line: every line is a comment or "name{...} value". */
	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		ck_assert(strncmp(line, "# ", 2) == 0 || strncmp(line, "hesper_", 7) == 0);
		ck_assert_ptr_nonnull(strchr(line, '\n'));
	}
	free(text);
	hesper_profile_free(&p);
}
END_TEST

/* One series and its value, parsed from a sample line. */
struct sample {
	char series[512];
	double value;
};

/* The samples of every counter family (names ending in _total) in @text; count in *@n. */
static struct sample *
counters(const char *text, size_t *n)
{
	struct sample *out = calloc(256, sizeof(*out));

	*n = 0;
	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		const char *brace = strchr(line, '{'), *end = strchr(line, '\n');
		if (line[0] == '#' || !brace || brace > end)
			continue;
		if (!(brace - line > 6 && strncmp(brace - 6, "_total", 6) == 0))
			continue;
		const char *space = end;
		while (space > line && space[-1] != ' ')
			space--;
		ck_assert_uint_lt(*n, 256);
		snprintf(out[*n].series, sizeof(out[*n].series), "%.*s", (int)(space - 1 - line), line);
		out[*n].value = strtod(space, NULL);
		(*n)++;
	}
	return out;
}

START_TEST(counters_only_grow)
{
	struct hesper_profile p;
	struct hesper_queue_info *q = fixture_profile(&p, 9, "app", "h", "drv");
	uint64_t state = 12345;
	char *before = NULL;

	strcpy(p.mode, "dispatch");
	for (int round = 0; round < 20; round++) {
		/* More of everything, as between two rewrites of one run: also kernels timed only in part. */
		for (int i = 0; i < 30; i++) {
			char name[32];
			snprintf(name, sizeof(name), "k%u", (unsigned)(xorshift64s(&state) % 6));
			struct hesper_kernel *k = hesper_kernel_table_get(p.kernels, name);
			if (xorshift64s(&state) % 4 == 0)
				hesper_kernel_count_untimed(k, 1 + xorshift64s(&state) % 3);
			else
				hesper_kernel_record(k, 1 + xorshift64s(&state) % 100000);
		}
		q->busy_ns += xorshift64s(&state) % 1000000;
		q->submits += 2;
		p.dropped += xorshift64s(&state) % 2;
		p.hook_ns += xorshift64s(&state) % 1000;
		p.collector_ns += xorshift64s(&state) % 1000;
		char *after = render_with(hesper_report_prom, &p, NULL);
		if (before) {
			size_t nb, na;
			struct sample *b = counters(before, &nb), *a = counters(after, &na);
			ck_assert_uint_ge(na, nb);
			for (size_t i = 0; i < nb; i++) {
				size_t j = 0;
				while (j < na && strcmp(a[j].series, b[i].series) != 0)
					j++;
				ck_assert_msg(j < na, "series %s vanished", b[i].series);
				ck_assert_msg(a[j].value >= b[i].value, "%s went from %.9f to %.9f", b[i].series,
					      b[i].value, a[j].value);
			}
			free(a);
			free(b);
		}
		free(before);
		before = after;
	}
	size_t n;
	struct sample *last = counters(before, &n);
	ck_assert_uint_ge(n, 6 * 3 + 5); /* three families per kernel, queue, dropped, overhead parts... */
	free(last);
	free(before);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_errors)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	assert_write_error_full(hesper_report_prom, &p);
	assert_write_error_after(hesper_report_prom, &p, 300);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
prom_suite(void)
{
	Suite *s = suite_create("report_prom");
	TCase *tc = tcase_create("hesper_report_prom");

	tcase_add_test(tc, families_and_values);
	tcase_add_test(tc, label_escaping);
	tcase_add_test(tc, counters_only_grow);
	tcase_add_test(tc, write_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(prom_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
