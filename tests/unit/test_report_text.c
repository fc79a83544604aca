/* Unit tests for analysis/write/report_text.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#include "report_fixtures.h"

static char *
render(const struct hesper_profile *p)
{
	return render_with(hesper_report_text, p, NULL);
}

/* How many times @needle occurs in @s. */
static size_t
count_of(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *at = strstr(s, needle); at; at = strstr(at + 1, needle))
		n++;
	return n;
}

/* Asserts that no line of @s is wider than 120 characters, and returns how many lines it has. */
static size_t
assert_lines_fit(const char *s)
{
	size_t lines = 0;

	for (const char *line = s; *line; lines++) {
		const char *end = strchr(line, '\n');
		size_t width = 0;

		if (!end)
			end = line + strlen(line);
		for (const char *c = line; c < end; c++)
			width += ((unsigned char)*c & 0xc0) != 0x80;
		ck_assert_msg(width <= 120, "a line of %zu characters: %.*s", width, (int)(end - line), line);
		line = *end ? end + 1 : end;
	}
	return lines;
}

static const char expected_text[] =
	"Hesper GPU kernel summary\n"
	"  program      app (pid 123, host h)\n"
	"  device 0     Test GPU, driver 1.2.3, timestampPeriod 1 ns\n"
	"  wall time    2.000 s\n"
	"  GPU busy     1.000 ms (0.1% of wall time)\n"
	"  kernels      2\n"
	"  dispatches   5: 5 timed, 0 dropped, 0 clamped\n"
	"  mode         dispatch\n"
	"  Hesper cost  10 timestamps written, 1.500 \u00b5s host time in hooks\n"
	"\n"
	" Time (%)     Total  Instances       Avg       Med       P95       Min       Max    StdDev  Name\n"
	" --------  --------  ---------  --------  --------  --------  --------  --------  --------  -------\n"
	"     75.0  6.000 \u00b5s          3  2.000 \u00b5s  2.008 \u00b5s  3.000 \u00b5s  1.000 \u00b5s  3.000 \u00b5s  1.000 \u00b5s  matmul\n"
	"     25.0  2.000 \u00b5s          2  1.000 \u00b5s  1.000 \u00b5s  1.000 \u00b5s  1.000 \u00b5s  1.000 \u00b5s      0 ns  softmax\n"
	"\n"
	"Regions (debug labels)\n"
	"    Total  Instances       Avg  Name\n"
	" --------  ---------  --------  -----\n"
	" 8.000 \u00b5s          1  8.000 \u00b5s  frame\n";

START_TEST(known_profile)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	char *s = render(&p);
	ck_assert_str_eq(s, expected_text);
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* The lines of @s's Dropped paragraph after its first line, NUL-terminated in a copy the caller frees. */
static char *
dropped_lines(const char *s)
{
	const char *at = strstr(s, "\nDropped: ");
	ck_assert_ptr_nonnull(at);
	at = strchr(at + 1, '\n') + 1;
	const char *end = strstr(at, "\n\n");
	return strndup(at, end ? (size_t)(end - at + 1) : strlen(at));
}

/* Dropped dispatches: each cause that happened with its count, no other. */
START_TEST(dropped_names_the_causes_that_happened)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	p.dropped = 12;
	p.dropped_by[HESPER_DROP_NO_QUERY] = 10;
	p.dropped_by[HESPER_DROP_UNFINISHED] = 2;
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "\nDropped: 12 dispatches ran but could not be timed:\n"));
	char *lines = dropped_lines(s);
	char want[512];
	snprintf(want, sizeof(want), "  %10d  %s\n  %10d  %s\n", 10, hesper_drop_cause_text(HESPER_DROP_NO_QUERY), 2,
		 hesper_drop_cause_text(HESPER_DROP_UNFINISHED));
	ck_assert_str_eq(lines, want);
	for (unsigned c = 0; c < HESPER_DROP_CAUSES; c++)
		if (c != HESPER_DROP_NO_QUERY && c != HESPER_DROP_UNFINISHED)
			ck_assert_msg(!strstr(s, hesper_drop_cause_text((enum hesper_drop_cause)c)), "names %s",
				      hesper_drop_cause_key((enum hesper_drop_cause)c));
	free(lines);
	free(s);

	/* A summary without causes (written before they were kept, or merged): said so, not guessed. */
	memset(p.dropped_by, 0, sizeof(p.dropped_by));
	p.dropped_by[HESPER_DROP_NO_QUERY] = 5;
	s = render(&p);
	lines = dropped_lines(s);
	snprintf(want, sizeof(want), "  %10d  %s\n  %10d  for a cause the summary does not record\n", 5,
		 hesper_drop_cause_text(HESPER_DROP_NO_QUERY), 7);
	ck_assert_str_eq(lines, want);
	free(lines);
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* The exit report of a process a signal ends says so in its header. */
START_TEST(ended_by_signal)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	p.report.signal = "SIGABRT";
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "\n  ended by     SIGABRT: the report holds what ran until then\n"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* An empty profile of process @pid of @exe on host "box": no device, no work. */
static void
bare_profile(struct hesper_profile *p, int pid, const char *exe)
{
	hesper_profile_init(p);
	p->pid = pid;
	strcpy(p->exe, exe);
	strcpy(p->host, "box");
}

START_TEST(empty_profile)
{
	struct hesper_profile p;

	bare_profile(&p, 7, "idle");
	char *s = render(&p);
	ck_assert_str_eq(s, "Hesper GPU kernel summary\n"
			    "  program      idle (pid 7, host box)\n"
			    "hesper: no GPU work was recorded (no compute dispatches ran on a timed queue)\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* A capture window that never opened recorded nothing by design: said so, not "no GPU work". */
START_TEST(window_never_opened)
{
	struct hesper_profile p;

	bare_profile(&p, 7, "app");
	p.capture.set = true;
	strcpy(p.capture.start, "label:nope");
	p.capture.outside = 288;
	p.capture.submissions_outside = 36;
	char *s = render(&p);
	ck_assert_str_eq(s,
			 "Hesper GPU kernel summary\n"
			 "  program      app (pid 7, host box)\n"
			 "  capture      from label:nope (not opened) to the end\n"
			 "  outside      the window: 288 dispatches, 36 submissions, 0 memory operations, counted, not "
			 "timed, in no table\n"
			 "hesper: the capture window (from label:nope) never opened: nothing was recorded; 288 "
			 "dispatches ran outside it\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* The capture line adds up: a stop that never came, and GPU work that ran on past the close, are said. */
START_TEST(window_line_says_where_it_ends)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	p.wall_ns = 400000000;
	p.capture = (struct hesper_capture_info){.set = true,
						 .opened = true,
						 .closed = true,
						 .opened_ns = 14230000,
						 .closed_ns = 35310000,
						 .end_ns = 46260000};
	strcpy(p.capture.start, "label:blur");
	strcpy(p.capture.stop, "label:analyze#3");
	char *s = render(&p);
	ck_assert_msg(strstr(s, "  capture      from label:blur (opened at 14.23 ms) to label:analyze#3 (closed at "
				"35.31 ms): 32.03 ms,\n               to the end of the GPU work submitted inside it, "
				"at 46.26 ms\n") != NULL,
		      "%s", s);
	free(s);
	/* A label stop that never came: open to the end of the run, said so. */
	p.capture.closed = false;
	p.capture.end_ns = 0;
	s = render(&p);
	ck_assert_msg(strstr(s, "to label:analyze#3 (it never came: open to the end): 385.8 ms\n") != NULL, "%s", s);
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(merged_profile_names_no_pid)
{
	struct hesper_profile p;

	/* A merge's profile (pid 0) is no one process: its exe names the programs and pids. */
	bare_profile(&p, 0, "app (pids 11, 12)");
	char *s = render(&p);
	ck_assert_str_eq(s, "Hesper GPU kernel summary\n"
			    "  program      app (pids 11, 12), host box\n"
			    "hesper: no GPU work was recorded (no compute dispatches ran on a timed queue)\n");
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(sampling_marks_estimates)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	strcpy(p.mode, "dispatch");
	p.sample_every = 4;
	struct hesper_kernel *k = hesper_kernel_table_get(p.kernels, "sampled");
	hesper_kernel_record(k, 2000);
	hesper_kernel_count_untimed(k, 3);
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.kernels, "never"), 2);
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "  mode         dispatch, sample every 4\n"));
	ck_assert_ptr_nonnull(strstr(s, "    100.0  ~8.000 \u00b5s          4  2.000 \u00b5s  2.000 \u00b5s"));
	ck_assert_ptr_nonnull(strstr(
		s,
		"        -          -          2         -         -         -         -         -       -  never\n"));
	ck_assert_ptr_nonnull(strstr(s, "Note: 2 of 2 kernels ran more often than they were timed"));
	ck_assert_ptr_nonnull(strstr(s, "  dispatches   6: 1 timed, 0 dropped, 0 clamped\n"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* Submit mode: no kernel is timed, so no number shows as a zero time or share. */
START_TEST(submit_mode_shows_untimed)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	strcpy(p.mode, "submit");
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.kernels, "blur"), 3);
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.regions, "frame"), 1);
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "        -      -          3    -    -    -    -    -       -  blur\n"));
	ck_assert_ptr_nonnull(strstr(s, "     -          1    -  frame\n"));
	ck_assert_ptr_null(strstr(s, "0.0"));
	ck_assert_ptr_nonnull(strstr(s, "ran more often than they were timed (submit mode);"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/*
 * Submit mode: each queue's batches and their GPU time, since the kernel table has counts
 * only; other modes leave the section out (their kernels hold the times).
 */
START_TEST(submit_mode_shows_queues)
{
	struct hesper_profile p;
	struct hesper_queue_info *q = fixture_profile(&p, 7, "app", "h", "1");

	strcpy(p.mode, "submit");
	p.wall_ns = 100000000;
	q->submits = 8;
	q->busy_ns = 30000000;
	q = hesper_profile_queue(&p, 0, 2, 1);
	q->submits = 3;
	q->busy_ns = 1500;
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.kernels, "blur"), 3);
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "\nQueues (submit mode times each batch"));
	ck_assert_ptr_nonnull(
		strstr(s, "          8    30.00 ms        3.750 ms      30.0  device 0, family 0, queue 0\n"));
	ck_assert_ptr_nonnull(
		strstr(s, "          3    1.500 \u00b5s          500 ns       0.0  device 0, family 2, queue 1\n"));
	free(s);
	strcpy(p.mode, "dispatch");
	s = render(&p);
	ck_assert_ptr_null(strstr(s, "\nQueues"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* A clamped interval: its dispatch counted, its 0 ns in no statistic, the count in the note. */
START_TEST(clamped_left_out_and_noted)
{
	struct hesper_profile p;
	struct hesper_work w = {.kind = HESPER_WORK_DISPATCH, .name = "blur", .timed = true, .ns = 1400000};

	hesper_profile_init(&p);
	strcpy(p.mode, "clock");
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.ns = 0;
	w.clamped = true;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "  dispatches   2: 1 timed, 0 dropped, 1 clamped\n"));
	/* Min is the measured one, not 0 ns; the total an estimate over both. */
	ck_assert_ptr_nonnull(strstr(
		s,
		"    100.0  ~2.800 ms          2  1.400 ms  1.400 ms  1.400 ms  1.400 ms  1.400 ms    0 ns  blur\n"));
	ck_assert_ptr_nonnull(strstr(s, "ran more often than they were timed (1 clamped intervals left out);"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(no_estimate_note_when_all_timed)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	char *s = render(&p);
	ck_assert_ptr_null(strstr(s, "Note:"));
	ck_assert_ptr_null(strstr(s, "~"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(overlap_splits_totals)
{
	struct hesper_profile p;

	fixture_overlap_profile(&p);
	char *s = render(&p);
	/* Total and Time (%) from the shares, the statistics from the spans, and the mode line says so. */
	ck_assert_ptr_nonnull(
		strstr(s, "  mode         clock\n"
			  "               overlapping dispatches (their spans add up to 65.00 \u00b5s): Total "
			  "and Time (%) split the time they shared;\n"
			  "               Avg to StdDev are whole spans\n"));
	assert_lines_fit(s);
	/* and under the table, which columns are shares and which whole spans */
	ck_assert_ptr_nonnull(
		strstr(s, "\nNote: dispatches overlapped on the GPU. Total and Time (%) give each dispatch its "
			  "share of the time it ran in, so the\n"));
	ck_assert_ptr_nonnull(strstr(s, "which add up to 65.00 \u00b5s.\n"));
	ck_assert_ptr_nonnull(strstr(s, "     44.4  20.00 \u00b5s          1  30.00 \u00b5s  30.00 \u00b5s"));
	ck_assert_ptr_nonnull(strstr(s, "     11.1  5.000 \u00b5s          1  5.000 \u00b5s"));
	free(s);
	hesper_profile_free(&p);

	/* Nothing overlapped: no such line. */
	fixture_known_profile(&p);
	strcpy(p.mode, "clock");
	s = render(&p);
	ck_assert_ptr_null(strstr(s, "overlapping"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(overlap_estimates_from_shares)
{
	struct hesper_profile p;

	fixture_overlap_profile(&p);
	/* ov_a ran twice more, untimed: 3 x the mean share (20 us) = 60 us, noted as such. */
	hesper_kernel_count_untimed(hesper_kernel_table_find(p.kernels, "ov_a"), 2);
	char *s = render(&p);
	ck_assert_ptr_nonnull(strstr(s, "~60.00 \u00b5s          3  30.00 \u00b5s"));
	ck_assert_ptr_nonnull(strstr(s, "totals marked ~ are estimates (the mean share x Instances)"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* Characters (not bytes) before @needle in @line. */
static size_t
column_of(const char *line, const char *needle)
{
	const char *at = strstr(line, needle);
	size_t n = 0;

	ck_assert_ptr_nonnull(at);
	for (const char *c = line; c < at; c++)
		n += ((unsigned char)*c & 0xc0) != 0x80;
	return n;
}

START_TEST(percent_sums_and_columns_align)
{
	struct hesper_profile p;
	static const uint64_t totals[] = {1, 333, 333, 334, 98765, 5, 123456789, 77};
	char name[32];

	hesper_profile_init(&p);
	for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++) {
		snprintf(name, sizeof(name), "kern%zu", i);
		hesper_kernel_record(hesper_kernel_table_get(p.kernels, name), totals[i]);
	}
	char *s = render(&p);
	char *table = strstr(s, " Time (%)");
	ck_assert_ptr_nonnull(table);

	size_t name_col = column_of(table, "Name"), rows = 0;
	double sum = 0;
	char *line = strchr(table, '\n') + 1; /* the dashes */
	line = strchr(line, '\n') + 1;
	while (*line && *line != '\n') {
		char *end = strchr(line, '\n');
		*end = '\0';
		sum += strtod(line, NULL);
		ck_assert_uint_eq(column_of(line, "kern"), name_col);
		rows++;
		line = end + 1;
	}
	ck_assert_uint_eq(rows, 8);
	ck_assert_double_le(sum, 100.0 + 8 * 0.05);
	ck_assert_double_ge(sum, 100.0 - 8 * 0.05);
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/*
 * The name in the row of @table (the kernel table, from its column titles on) whose name
 * begins with @start, its parts on the row's line and the lines under it put together, into
 * @out (@size bytes).
 */
static void
table_name(const char *table, const char *start, char *out, size_t size)
{
	size_t name_col = column_of(table, "Name");
	const char *line = strstr(table, start);

	ck_assert_ptr_nonnull(line);
	while (line > table && line[-1] != '\n')
		line--;
	out[0] = '\0';
	for (bool first = true; *line; first = false) {
		const char *end = strchr(line, '\n');
		size_t skip = 0;
		ck_assert_ptr_nonnull(end);
		for (size_t col = 0; col < name_col; skip++)
			col += ((unsigned char)line[skip] & 0xc0) != 0x80;
		if (!first && strspn(line, " ") < skip)
			break; /* the next row, or the table's end */
		ck_assert_uint_lt(strlen(out) + (size_t)(end - line) - skip, size);
		strncat(out, line + skip, (size_t)(end - line) - skip);
		line = end + 1;
	}
}

/* The device line and the findings' lines break before 120 columns, losing nothing. */
START_TEST(header_and_findings_fit_120_columns)
{
	struct hesper_profile p;
	struct hesper_device_info d = {.timestamp_period_ns = 1, .dispatch_cost_ns = 32450, .compute_units = 132};

	fixture_known_profile(&p);
	strcpy(d.name, "llvmpipe (LLVM 15.0.6, 256 bits) with a name as long as a driver may make it");
	strcpy(d.driver, "llvmpipe Mesa 22.3.6 (LLVM 15.0.6) (Vulkan 1.3.230)");
	strcpy(d.copy, "wait");
	strcpy(d.timing, "timestamps: the calibration could not run");
	hesper_profile_add_device(&p, &d);
	char *s = render(&p);
	ck_assert_uint_gt(assert_lines_fit(s), 10);
	/* every part of the second device's line is there, each whole on one line */
	static const char *const parts[] = {"driver llvmpipe Mesa 22.3.6 (LLVM 15.0.6) (Vulkan 1.3.230)",
					    "timestampPeriod 1 ns",
					    "timestamps read by a GPU copy",
					    "timed by timestamps: the calibration could not run",
					    "dispatch cost 32.45 \u00b5s",
					    "132 compute units"};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		ck_assert_msg(strstr(s, parts[i]), "missing: %s", parts[i]);
	ck_assert_ptr_nonnull(strstr(s, ",\n               timestampPeriod 1 ns") ?: strstr(s, ",\n               "));
	free(s);

	struct hesper_finding f = {.kind = HESPER_FINDING_GPU_IDLE, .time_at_stake_ns = 1154000000};
	static const char *const keys[] = {"idle_ns",    "wall_ns",          "idle_share",     "busy_ns",
					   "batches",    "mean_gap_ns",      "largest_gap_ns", "hook_ns",
					   "host_share", "timestamp_cost_ns"};
	strcpy(f.about, "queue 0:1:0");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		f.numbers[f.number_count++] = (struct hesper_finding_number){keys[i], 123456789012.0 + (double)i};
	snprintf(f.advice, sizeof(f.advice), "%s",
		 "36 of 36 submissions were waited for before the next one was recorded, so the GPU sat idle "
		 "while the host worked: record the next batch while the GPU runs this one, or submit more at once");
	struct hesper_findings all = {.items = &f, .count = 1};
	struct capture c;
	capture_open(&c);
	ck_assert_int_eq(hesper_findings_write_text(c.f, &all), 0);
	capture_close(&c);
	ck_assert_uint_gt(assert_lines_fit(c.buf), 4);
	/* each number as a reader wants it, whole on one line: no key=value, no exponent */
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char item[96];
		hesper_format_finding_number(item, sizeof(item), keys[i], 123456789012.0 + (double)i);
		ck_assert_msg(strstr(c.buf, item), "missing: %s", item);
	}
	ck_assert_ptr_nonnull(strstr(c.buf, "idle 123.5 s, wall 123.5 s"));
	ck_assert_ptr_null(strstr(c.buf, "_ns="));
	ck_assert_ptr_null(strstr(c.buf, "e+"));
	ck_assert_ptr_nonnull(strstr(c.buf, "or submit more at once\n"));
	free(c.buf);
	hesper_profile_free(&p);
}
END_TEST

/*
 * Table rows whose names pass 120 columns go on over further lines under the Name column,
 * their parts together the whole name; a label row whose label begins with its kernel's
 * name shows the label alone.
 */
START_TEST(table_names_fit_120_columns)
{
	struct hesper_profile p;
	static const char *const names[] = {
		"rms_norm_mul_f32 (11,1,1)/rms_norm_mul_f32",
		"model.layers.11/attention/flash_attn_f32_f16_aligned_f32acc_cm2 (4,32,1)/flash_attn_f32_f16_aligned",
		"a_kernel_name_without_any_place_to_break_it_that_runs_on_and_on_for_more_than_fifty_characters",
	};
	static const char *const shown[] = {
		"rms_norm_mul_f32 (11,1,1)",
		names[1],
		names[2],
	};

	fixture_known_profile(&p);
	p.group_by = HESPER_GROUP_BY_LABEL;
	for (size_t i = 0; i < 3; i++)
		hesper_kernel_record(hesper_kernel_table_get(p.kernels, names[i]), 123456789 + i);
	char *s = render(&p);
	assert_lines_fit(s);
	char *table = strstr(s, " Time (%)");
	ck_assert_ptr_nonnull(table);
	ck_assert_ptr_null(strstr(s, "(11,1,1)/rms_norm_mul_f32"));
	for (size_t i = 0; i < 3; i++) {
		char joined[256];
		table_name(table, i == 0 ? "rms_norm_mul_f32" : i == 1 ? "model." : "a_kernel", joined, sizeof(joined));
		ck_assert_str_eq(joined, shown[i]);
	}
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/*
 * A label shows its ten largest nested labels and kernels; the rest fold into one line
 * each, with their count, instances and total: nested labels (and what is nested in them)
 * as "… N more regions", kernels as "… N more kernels".
 */
START_TEST(region_tree_folds_past_ten)
{
	struct hesper_profile p;
	char path[64];

	fixture_known_profile(&p);
	for (int i = 1; i <= 15; i++) {
		/* op01 .. op15: totals 15000 .. 1000 ns, two instances each */
		snprintf(path, sizeof(path), "frame\x1fop%02d", i);
		hesper_kernel_record(hesper_kernel_table_get(p.label_paths, path), (uint64_t)(16 - i) * 500);
		hesper_kernel_record(hesper_kernel_table_get(p.label_paths, path), (uint64_t)(16 - i) * 500);
		/* a label nested in every op: folded with its op */
		snprintf(path, sizeof(path), "frame\x1fop%02d\x1finner", i);
		hesper_kernel_record(hesper_kernel_table_get(p.label_paths, path), 10);
	}
	hesper_kernel_record(hesper_kernel_table_get(p.label_paths, "frame"), 200000);
	for (int k = 1; k <= 12; k++) {
		snprintf(path, sizeof(path), "frame\x1ek%02d", k);
		hesper_kernel_record(hesper_kernel_table_get(p.label_kernels, path), (uint64_t)(13 - k) * 100);
	}
	char *s = render(&p);
	assert_lines_fit(s);
	const char *tree = strstr(s, "Regions (debug labels)");
	ck_assert_ptr_nonnull(tree);
	ck_assert_ptr_nonnull(strstr(tree, "  op10\n"));
	ck_assert_ptr_null(strstr(tree, "op11"));
	/* op11 .. op15: 5 labels, 10 instances, (5 + 4 + 3 + 2 + 1) * 1000 ns */
	ck_assert_ptr_nonnull(strstr(tree, " 15.00 \u00b5s         10"));
	ck_assert_ptr_nonnull(strstr(tree, "    \u2026 5 more regions\n"));
	ck_assert_uint_eq(count_of(tree, "inner\n"), 10);
	ck_assert_ptr_nonnull(strstr(tree, "* k10\n"));
	ck_assert_ptr_null(strstr(tree, "k11"));
	/* k11, k12: 200 + 100 ns */
	ck_assert_ptr_nonnull(strstr(tree, " 300 ns          2"));
	ck_assert_ptr_nonnull(strstr(tree, "    \u2026 2 more kernels\n"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

/* Clock mode: a note says what part of the GPU busy time the kernels' total is, and what the rest is. */
START_TEST(clock_mode_says_where_busy_time_went)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	char *s = render(&p);
	ck_assert_ptr_null(strstr(s, "in clock mode"));
	free(s);
	strcpy(p.mode, "clock");
	p.devices[0].dispatch_cost_ns = 7000;
	s = render(&p);
	assert_lines_fit(s);
	/* 6 + 2 µs of kernels in 1 ms of busy time; the note's lines read as one */
	char *note = strstr(s, "\nNote: in clock mode");
	ck_assert_ptr_nonnull(note);
	for (char *c = note + 1; *c && !(c[0] == '\n' && c[1] == '\n'); c++)
		if (*c == '\n')
			*c = ' ';
	ck_assert_ptr_nonnull(
		strstr(s, "Note: in clock mode a dispatch's time runs from its first work group's start"));
	ck_assert_ptr_nonnull(strstr(s, "8.000 \u00b5s, is 0.8% of the GPU busy time, 1.000 ms."));
	ck_assert_ptr_nonnull(strstr(s, "(about 7.000 \u00b5s a dispatch measured on device 0)"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(long_names_cut_on_character)
{
	struct hesper_profile p;
	char name[400];

	hesper_profile_init(&p);
	/* 116 ASCII bytes then 'é' (2 bytes) straddling byte 117: the cut must not split it. */
	memset(name, 'a', 116);
	strcpy(name + 116, "\u00e9\u00e9\u00e9tail");
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, name), 10);
	char *s = render(&p);
	char expect[200], got[256];
	memset(expect, 'a', 116);
	strcpy(expect + 116, "\u2026");
	table_name(strstr(s, " Time (%)"), "aaaa", got, sizeof(got));
	ck_assert_str_eq(got, expect);
	free(s);

	/* A name of exactly 120 bytes is printed whole. */
	hesper_profile_free(&p);
	hesper_profile_init(&p);
	memset(name, 'b', 120);
	name[120] = '\0';
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, name), 10);
	s = render(&p);
	table_name(strstr(s, " Time (%)"), "bbbb", got, sizeof(got));
	ck_assert_str_eq(got, name);
	ck_assert_ptr_null(strstr(s, "\u2026"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(control_characters_replaced)
{
	struct hesper_profile p;

	hesper_profile_init(&p);
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "evil\033[2J\nname"), 10);
	char *s = render(&p);
	ck_assert_ptr_null(strchr(s, '\033'));
	ck_assert_ptr_nonnull(strstr(s, "  evil?[2J?name\n"));
	free(s);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_error_reported)
{
	struct hesper_profile p;

	fixture_known_profile(&p);
	assert_write_error_after(hesper_report_text, &p, 32);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
report_text_suite(void)
{
	Suite *s = suite_create("report_text");
	TCase *tc = tcase_create("hesper_report_text");

	tcase_add_test(tc, known_profile);
	tcase_add_test(tc, dropped_names_the_causes_that_happened);
	tcase_add_test(tc, ended_by_signal);
	tcase_add_test(tc, empty_profile);
	tcase_add_test(tc, window_never_opened);
	tcase_add_test(tc, window_line_says_where_it_ends);
	tcase_add_test(tc, merged_profile_names_no_pid);
	tcase_add_test(tc, sampling_marks_estimates);
	tcase_add_test(tc, submit_mode_shows_untimed);
	tcase_add_test(tc, submit_mode_shows_queues);
	tcase_add_test(tc, clamped_left_out_and_noted);
	tcase_add_test(tc, no_estimate_note_when_all_timed);
	tcase_add_test(tc, overlap_splits_totals);
	tcase_add_test(tc, overlap_estimates_from_shares);
	tcase_add_test(tc, percent_sums_and_columns_align);
	tcase_add_test(tc, header_and_findings_fit_120_columns);
	tcase_add_test(tc, table_names_fit_120_columns);
	tcase_add_test(tc, region_tree_folds_past_ten);
	tcase_add_test(tc, clock_mode_says_where_busy_time_went);
	tcase_add_test(tc, long_names_cut_on_character);
	tcase_add_test(tc, control_characters_replaced);
	tcase_add_test(tc, write_error_reported);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(report_text_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
