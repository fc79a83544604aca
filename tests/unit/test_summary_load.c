/*
 * Unit tests for analysis/read/summary_load.c: a summary read back prints the text report the
 * run printed (`hesper report`), header lines, estimates and all.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"
#include "report_fixtures.h"
#include "read/read.h"
#include <hesper/profiling.h>

/* Writes @text to a new temporary file whose path goes to @path (at least 32 bytes). */
static void
write_file(char *path, const char *text)
{
	strcpy(path, "/tmp/hesper-test-load-XXXXXX");
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* @p written as JSON, read back into @back (which the caller frees). */
static void
round_trip(const struct hesper_profile *p, struct hesper_profile *back)
{
	char path[32], err[256] = "";
	char *json = render_with(hesper_report_json, p, NULL);

	write_file(path, json);
	free(json);
	ck_assert_msg(hesper_summary_load(path, back, err, sizeof(err)) == HESPER_OK, "%s", err);
	unlink(path);
}

/* Asserts that @p's text report and that of its summary read back are the same text. */
static void
assert_same_text(const struct hesper_profile *p)
{
	struct hesper_profile back;

	round_trip(p, &back);
	char *run = render_with(hesper_report_text, p, NULL), *reprint = render_with(hesper_report_text, &back, NULL);
	ck_assert_str_eq(reprint, run);
	free(run);
	free(reprint);
	hesper_profile_free(&back);
}

/* Clock mode on a clock-timed device, a kernel fallen back to timestamps, isolated dispatches. */
static void
fixture_clock(struct hesper_profile *p)
{
	fixture_known_profile(p);
	strcpy(p->mode, "clock");
	strcpy(p->devices[0].timing, "clock");
	p->devices[0].clock_error_ns = 12.5;
	p->devices[0].clock_ticks_per_us = 1000;
	p->clock_isolated = 3;
	ck_assert_int_eq(hesper_profile_add_clock_note(p, "softmax", "the pipeline is in a secondary"), 0);
}

/* A capture window that opened and closed, and kernels and a region not timed every run. */
static void
add_capture(struct hesper_profile *p)
{
	struct hesper_capture_info *c = &p->capture;

	c->set = true;
	strcpy(c->start, "label:frame");
	strcpy(c->stop, "label:frame#2");
	c->opened = c->closed = true;
	c->opened_ns = 1500000;
	c->closed_ns = 9000000;
	c->outside = 4;
	hesper_kernel_count_untimed(hesper_kernel_table_find(p->kernels, "matmul"), 4);
	hesper_kernel_count_untimed(hesper_kernel_table_find(p->regions, "frame"), 2);
}

START_TEST(clock_mode_and_capture_window)
{
	struct hesper_profile p;

	fixture_clock(&p);
	add_capture(&p);
	char *s = render_with(hesper_report_text, &p, NULL);
	/* the lines and marks that a reprint used to lose are in the run's text */
	ck_assert_ptr_nonnull(strstr(s, ", timed by clock"));
	ck_assert_ptr_nonnull(strstr(s, "3 isolated dispatches timed from barrier to barrier"));
	ck_assert_ptr_nonnull(strstr(s, "softmax: timestamps, the pipeline is in a secondary"));
	ck_assert_ptr_nonnull(strstr(s, "  capture      from label:frame (opened at 1.500 ms)"));
	ck_assert_ptr_nonnull(strstr(s, "ran more often than they were timed ("));
	ck_assert_ptr_nonnull(strstr(s, " ~24.00 µs          3"));
	free(s);
	assert_same_text(&p);
	hesper_profile_free(&p);
}
END_TEST

/* The device's calibration, the fallbacks and the isolated count read back as written. */
START_TEST(clock_fields_read_back)
{
	struct hesper_profile p, back;

	fixture_clock(&p);
	round_trip(&p, &back);
	ck_assert_str_eq(back.devices[0].timing, "clock");
	ck_assert_double_eq(back.devices[0].clock_error_ns, 12.5);
	ck_assert_double_eq(back.devices[0].clock_ticks_per_us, 1000);
	ck_assert_uint_eq(back.clock_isolated, 3);
	ck_assert_uint_eq(back.clock_note_count, 1);
	ck_assert_str_eq(back.clock_notes[0].kernel, "softmax");
	ck_assert_str_eq(back.clock_notes[0].why, "the pipeline is in a secondary");
	hesper_profile_free(&back);
	hesper_profile_free(&p);
}
END_TEST

/* HESPER_GROUP_BY: written as "group_by", read back, its header line reprinted; absent: kernel. */
START_TEST(group_by_read_back)
{
	struct hesper_profile p, back;

	fixture_known_profile(&p);
	p.group_by = HESPER_GROUP_BY_SHAPE;
	/* the two rows split one kernel */
	ck_assert_ptr_nonnull(hesper_kernel_table_get(p.row_kernels, "one \"kernel\""));
	char *json = render_with(hesper_report_json, &p, NULL), *text = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_nonnull(
		strstr(json, "\n  \"group_by\": \"shape\",\n  \"kernel_names\": [\"one \\\"kernel\\\"\"],\n"));
	ck_assert_ptr_nonnull(strstr(text,
				     "\n  kernels      1\n"
				     "  rows         2, per kernel and work-group count (HESPER_GROUP_BY=shape)\n"));
	free(json);
	free(text);
	round_trip(&p, &back);
	ck_assert_int_eq(back.group_by, HESPER_GROUP_BY_SHAPE);
	ck_assert_uint_eq(hesper_kernel_table_size(back.row_kernels), 1);
	ck_assert_ptr_nonnull(hesper_kernel_table_find(back.row_kernels, "one \"kernel\""));
	hesper_profile_free(&back);
	assert_same_text(&p);
	p.group_by = HESPER_GROUP_BY_KERNEL;
	text = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_null(strstr(text, "HESPER_GROUP_BY"));
	free(text);
	hesper_profile_free(&p);

	/* a summary of an older Hesper, without the key */
	char path[32], err[256] = "";
	write_file(path, "{\"schema\": \"hesper-summary/1\", \"kernels\": []}\n");
	ck_assert_int_eq(hesper_summary_load(path, &back, err, sizeof(err)), HESPER_OK);
	ck_assert_int_eq(back.group_by, HESPER_GROUP_BY_KERNEL);
	hesper_profile_free(&back);
	unlink(path);
}
END_TEST

/* Overlapping dispatches: the mode's second line and the estimated shares read back. */
START_TEST(overlap_line)
{
	struct hesper_profile p;

	fixture_overlap_profile(&p);
	hesper_kernel_count_untimed(hesper_kernel_table_find(p.kernels, "ov_b"), 3);
	char *s = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_nonnull(strstr(s, "overlapping dispatches (their spans add up to "));
	free(s);
	assert_same_text(&p);
	hesper_profile_free(&p);
}
END_TEST

/* A report written while the program runs, and a window that never opened. */
START_TEST(live_report_and_unopened_window)
{
	struct hesper_profile p, back;

	fixture_known_profile(&p);
	strcpy(p.mode, "dispatch");
	p.report.live = p.report.partial = true;
	p.report.number = 2;
	p.report.reason = "interval";
	p.capture.set = true;
	strcpy(p.capture.start, "2.500 s");
	p.capture.outside = 5;
	assert_same_text(&p);
	round_trip(&p, &back);
	ck_assert(back.report.live && back.report.partial);
	ck_assert_uint_eq(back.report.number, 2);
	ck_assert_str_eq(back.report.reason, "interval");
	ck_assert(back.capture.set && !back.capture.opened && !back.capture.closed);
	ck_assert_str_eq(back.capture.stop, "");
	ck_assert_uint_eq(back.capture.outside, 5);
	hesper_profile_free(&back);
	hesper_profile_free(&p);
}
END_TEST

/* The exit report of a process a signal ended, written once reports ran while it did. */
START_TEST(ended_by_signal_read_back)
{
	struct hesper_profile p, back;

	fixture_known_profile(&p);
	strcpy(p.mode, "submit");
	p.report.live = true;
	p.report.number = 4;
	p.report.signal = "SIGTERM";
	assert_same_text(&p);
	round_trip(&p, &back);
	ck_assert_str_eq(back.report.signal, "SIGTERM");
	ck_assert(back.report.live && !back.report.partial);
	ck_assert_ptr_null(back.report.reason);
	hesper_profile_free(&back);
	ck_assert_ptr_null(back.report.signal);
	hesper_profile_free(&p);
}
END_TEST

/* Regions from a summary without "timed" and "mean_ns" (an older Hesper): every run timed. */
/* A kernel with many statistics of every format, and a device that offers none. */
static void
fixture_pipeline_stats(struct hesper_profile *p)
{
	struct hesper_pipeline_stat st[24];
	struct hesper_pipeline_stats k = {.kernel = "matmul", .executable = "Compute Shader", .subgroup_size = 32};

	fixture_known_profile(p);
	strcpy(p->devices[0].pipeline_stats, "captured");
	memset(st, 0, sizeof(st));
	for (int i = 0; i < 24; i++) {
		snprintf(st[i].name, sizeof(st[i].name), "Statistic number %d", i);
		st[i].format = (enum hesper_stat_format)(i % 4);
		if (st[i].format == HESPER_STAT_BOOL)
			st[i].value.b = i % 8 == 0;
		else if (st[i].format == HESPER_STAT_INT)
			st[i].value.i = -1000 * i;
		else if (st[i].format == HESPER_STAT_UINT)
			st[i].value.u = UINT64_MAX - (uint64_t)i;
		else
			st[i].value.f = 0.25 * i;
	}
	k.stats = st;
	k.count = 24;
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(p, &k), 0);
	/* a second pipeline of the same name and figures is the same set, its dispatches added */
	k.dispatches = 7;
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(p, &k), 0);
	ck_assert_uint_eq(p->pipeline_stats_count, 1);
	ck_assert_uint_eq(p->pipeline_stats[0].count, 24);
	ck_assert_uint_eq(p->pipeline_stats[0].dispatches, 7);
}

/*
 * Two pipelines of one kernel name with different figures: two sets, numbered in the order
 * added, each counting the dispatches that ran on it; the text names each, the JSON keeps
 * both with their dispatches, read back the same.
 */
START_TEST(pipeline_stats_sets_per_pipeline)
{
	struct hesper_profile p, back;
	struct hesper_pipeline_stat light, heavy;
	struct hesper_pipeline_stats k = {.kernel = "mmv", .subgroup_size = 32, .count = 1};

	fixture_known_profile(&p);
	fixture_stat(&light, "Register Count", 32);
	fixture_stat(&heavy, "Register Count", 64);
	k.stats = &light;
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(&p, &k), 0);
	k.stats = &heavy;
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(&p, &k), 1);
	k.stats = &light;
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(&p, &k), 0);
	ck_assert_uint_eq(hesper_profile_stats_sets(&p, "mmv"), 2);
	/* 3 dispatches on the light pipeline, 5 on the heavy one, 2 whose set is unknown */
	struct hesper_work w = {.kind = HESPER_WORK_DISPATCH, .name = "mmv", .count = 3, .stats_set = 1};
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.count = 5;
	w.stats_set = 2;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.count = 2;
	w.stats_set = 0;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	ck_assert_uint_eq(p.pipeline_stats[0].dispatches, 3);
	ck_assert_uint_eq(p.pipeline_stats[1].dispatches, 5);
	/* a row's occupancy and findings go by the set its dispatches ran on: "mmv" ran on both, so the busier one */
	ck_assert_ptr_eq(hesper_row_stats(&p, "mmv"), &p.pipeline_stats[1]);
	/* a shape row whose dispatches all ran on the light pipeline carries its figures, read back too */
	struct hesper_kernel *shape = hesper_kernel_table_get(p.kernels, "mmv [4\u00d71\u00d71]");
	hesper_kernel_record(shape, 1000);
	shape->stats_set = 1;
	ck_assert_ptr_eq(hesper_row_stats(&p, "mmv [4\u00d71\u00d71]"), &p.pipeline_stats[0]);

	char *text = render_with(hesper_report_text, &p, NULL), *json = render_with(hesper_report_json, &p, NULL);
	ck_assert_ptr_nonnull(
		strstr(text, "\n  mmv (pipeline 1 of 2, 3 dispatches), subgroup 32: Register Count 32\n"));
	ck_assert_ptr_nonnull(
		strstr(text, "\n  mmv (pipeline 2 of 2, 5 dispatches), subgroup 32: Register Count 64\n"));
	ck_assert_ptr_nonnull(strstr(json, "\"variant\": 1, \"dispatches\": 5,"));
	char *html = render_with(hesper_report_html, &p, NULL);
	ck_assert_ptr_nonnull(strstr(html, ">mmv <span class=\"sub\">(pipeline 2 of 2, 5 dispatches)</span></td>"));
	free(html);
	free(text);
	free(json);
	round_trip(&p, &back);
	ck_assert_uint_eq(back.pipeline_stats_count, 2);
	ck_assert_uint_eq(back.pipeline_stats[1].variant, 1);
	ck_assert_uint_eq(back.pipeline_stats[0].dispatches, 3);
	ck_assert_uint_eq(back.pipeline_stats[1].dispatches, 5);
	ck_assert_uint_eq(back.pipeline_stats[1].stats[0].value.u, 64);
	ck_assert_ptr_eq(hesper_row_stats(&back, "mmv [4\u00d71\u00d71]"), &back.pipeline_stats[0]);
	ck_assert_ptr_eq(hesper_row_stats(&back, "mmv"), &back.pipeline_stats[1]);
	hesper_profile_free(&back);
	hesper_profile_free(&p);
}
END_TEST

/* Pipeline statistics: the text section wrapped to 120 columns, every format in the JSON, read back whole. */
START_TEST(pipeline_stats_read_back)
{
	struct hesper_profile p, back;

	fixture_pipeline_stats(&p);
	char *s = render_with(hesper_report_text, &p, NULL);
	const char *section = strstr(s, "\nPipeline statistics");
	ck_assert_ptr_nonnull(section);
	ck_assert_ptr_nonnull(strstr(section, "\n  matmul, subgroup 32: Statistic number 0 true,"));
	ck_assert_ptr_nonnull(strstr(section, "Statistic number 1 -1000,"));
	ck_assert_ptr_nonnull(strstr(section, "Statistic number 2 18446744073709551613,"));
	ck_assert_ptr_nonnull(strstr(section, "Statistic number 3 0.75,"));
	ck_assert_ptr_nonnull(strstr(section, "Statistic number 23 5.75\n"));
	int lines = 0;
	for (const char *l = section + 1; *l && *l != '\n'; lines++) {
		const char *end = strchr(l, '\n');
		ck_assert_ptr_nonnull(end);
		ck_assert_int_le(end - l, 120);
		l = end + 1;
	}
	ck_assert_int_gt(lines, 3); /* the title, the kernel's line and its continuations */
	free(s);

	char *json = render_with(hesper_report_json, &p, NULL);
	ck_assert_ptr_nonnull(strstr(json, "\"pipeline_stats\": \"captured\""));
	ck_assert_ptr_nonnull(strstr(json,
				     "{\"kernel\": \"matmul\", \"executable\": \"Compute Shader\", "
				     "\"subgroup_size\": 32, \"stats\": {\"Statistic number 0\": true, "
				     "\"Statistic number 1\": -1000, \"Statistic number 2\": 18446744073709551613, "
				     "\"Statistic number 3\": 0.75"));
	free(json);

	round_trip(&p, &back);
	ck_assert_str_eq(back.devices[0].pipeline_stats, "captured");
	ck_assert_uint_eq(back.pipeline_stats_count, 1);
	const struct hesper_pipeline_stats *k = &back.pipeline_stats[0];
	ck_assert_str_eq(k->kernel, "matmul");
	ck_assert_uint_eq(k->subgroup_size, 32);
	ck_assert_uint_eq(k->count, 24);
	for (size_t i = 0; i < 24; i++) {
		ck_assert_str_eq(k->stats[i].name, p.pipeline_stats[0].stats[i].name);
		ck_assert_int_eq(k->stats[i].format, p.pipeline_stats[0].stats[i].format);
	}
	ck_assert_uint_eq(k->stats[2].value.u, UINT64_MAX - 2);
	ck_assert_int_eq(k->stats[1].value.i, -1000);
	hesper_profile_free(&back);
	assert_same_text(&p);

	/* A device whose driver has none: said once, no kernel listed. */
	hesper_profile_free(&p);
	fixture_known_profile(&p);
	strcpy(p.devices[0].pipeline_stats, "not offered by the driver");
	s = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_nonnull(strstr(s, "\nPipeline statistics (the driver's own names and values, per kernel)\n"
					"  device 0: its driver has no VK_KHR_pipeline_executable_properties\n"));
	free(s);
	assert_same_text(&p);
	hesper_profile_free(&p);
}
END_TEST

/*
 * Occupancy: each kernel's line in "Pipeline statistics", the JSON's "occupancy" and the
 * device's "occupancy_model", read back so that `hesper report` prints the same.
 */
START_TEST(occupancy_read_back)
{
	struct hesper_profile p, back;

	fixture_occupancy_profile(&p);
	char *s = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_nonnull(
		strstr(s, "\n    occupancy 25% (registers): 8 work groups and 16 warps per SM; 1056 work groups "
			  "fill the device once, its most common\n      launch (16) fills 1.5% of it\n"));
	ck_assert_ptr_nonnull(
		strstr(s, "\n    occupancy 9.4% (shared memory): 3 work groups and 6 warps per SM; 396 work groups "
			  "fill the device once, its most\n      common launch (4) fills 1.0% of it\n"));
	for (const char *l = strstr(s, "\nPipeline statistics"); l && *l;) {
		const char *end = strchr(l + 1, '\n');
		ck_assert_int_le((end ? end : l + strlen(l)) - (l + 1), 120);
		l = end;
	}
	free(s);

	char *json = render_with(hesper_report_json, &p, NULL);
	ck_assert_ptr_nonnull(
		strstr(json, "\"occupancy_model\": {\"vendor\": \"nvidia\", \"compute_units\": 132, "
			     "\"warp_size\": 32, \"warps_per_sm\": 64, \"groups_per_sm\": 32, "
			     "\"registers_per_sm\": 65536, \"register_partitions\": 4, \"register_unit\": 256, "
			     "\"registers_per_thread\": 255, \"shared_per_sm\": 49152, \"shared_per_group\": 49152, "
			     "\"shared_reserved\": 0, \"shared_unit\": 128}"));
	ck_assert_ptr_nonnull(strstr(
		json,
		"\"Shared Memory Size\": 0}, \"variant\": 0, \"dispatches\": 0, \"device\": 0, \"local_size\": [64, 1, 1], "
		"\"occupancy\": {\"share\": 0.25, \"warps_per_sm\": 16, \"groups_per_sm\": 8, "
		"\"device_groups\": 1056, \"limit\": \"registers\"}}"));
	ck_assert_ptr_nonnull(strstr(json, "\"limit\": \"shared memory\"}}"));
	free(json);

	round_trip(&p, &back);
	ck_assert_mem_eq(&back.devices[0].occupancy, &p.devices[0].occupancy, sizeof(p.devices[0].occupancy));
	ck_assert_uint_eq(back.pipeline_stats_count, 2);
	ck_assert_uint_eq(back.pipeline_stats[1].device, 0);
	ck_assert_uint_eq(back.pipeline_stats[1].local_size[0], 64);
	ck_assert_uint_eq(back.pipeline_stats[1].local_size[2], 1);
	hesper_profile_free(&back);
	assert_same_text(&p);

	/* No model, and why: said per kernel, and read back. */
	hesper_occupancy_model_none(&p.devices[0].occupancy, "a CPU device (no SMs to model)");
	s = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_nonnull(strstr(s, "\n    occupancy unknown: a CPU device (no SMs to model)\n"));
	free(s);
	json = render_with(hesper_report_json, &p, NULL);
	ck_assert_ptr_nonnull(strstr(json, "\"occupancy_model\": {\"why\": \"a CPU device (no SMs to model)\"}"));
	ck_assert_ptr_nonnull(
		strstr(json, "\"occupancy\": {\"limit\": \"unknown\", \"why\": \"a CPU device (no SMs to model)\"}"));
	free(json);
	assert_same_text(&p);

	/* A device that says nothing of occupancy (a summary from before it): no line. */
	memset(&p.devices[0].occupancy, 0, sizeof(p.devices[0].occupancy));
	s = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_null(strstr(s, "occupancy"));
	free(s);
	assert_same_text(&p);
	hesper_profile_free(&p);
}
END_TEST

/* A summary without the occupancy keys (an older Hesper): no model, statistics on device 0, size unknown. */
START_TEST(occupancy_absent_in_old_summary)
{
	char path[32], err[256] = "";
	struct hesper_profile back;

	write_file(
		path,
		"{\"schema\": \"hesper-summary/1\", \"devices\": [{\"name\": \"d\", \"pipeline_stats\": \"captured\"}], "
		"\"kernels\": [], \"pipeline_stats\": [{\"kernel\": \"k\", \"stats\": {\"Register Count\": 16}}]}\n");
	ck_assert_msg(hesper_summary_load(path, &back, err, sizeof(err)) == HESPER_OK, "%s", err);
	unlink(path);
	ck_assert_str_eq(back.devices[0].occupancy.vendor, "");
	ck_assert_str_eq(back.devices[0].occupancy.why, "");
	ck_assert_uint_eq(back.pipeline_stats[0].device, 0);
	ck_assert_uint_eq(back.pipeline_stats[0].local_size[0], 0);
	hesper_profile_free(&back);

	/* a figure that is no number is an error */
	write_file(path,
		   "{\"schema\": \"hesper-summary/1\", \"devices\": [{\"name\": \"d\", "
		   "\"occupancy_model\": {\"vendor\": \"nvidia\", \"warps_per_sm\": \"many\"}}], \"kernels\": []}\n");
	ck_assert_int_ne(hesper_summary_load(path, &back, err, sizeof(err)), HESPER_OK);
	ck_assert_ptr_nonnull(strstr(err, "warps_per_sm"));
	hesper_profile_free(&back); /* freed even on failure, as summary_load.h asks */
	unlink(path);
}
END_TEST

START_TEST(old_regions_all_timed)
{
	char path[32], err[256] = "";
	struct hesper_profile back;

	write_file(path, "{\"schema\": \"hesper-summary/1\", \"kernels\": [], "
			 "\"regions\": [{\"name\": \"r\", \"count\": 4, \"total_ns\": 400}]}\n");
	ck_assert_msg(hesper_summary_load(path, &back, err, sizeof(err)) == HESPER_OK, "%s", err);
	unlink(path);
	const struct hesper_kernel *r = hesper_kernel_table_find(back.regions, "r");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->timed.count, 4);
	ck_assert_double_eq(r->timed.mean_ns, 100);
	ck_assert_uint_eq(hesper_kernel_total_ns(r), 400);
	ck_assert_ptr_null(back.report.signal);
	ck_assert(!back.capture.set && !back.report.live);
	hesper_profile_free(&back);
}
END_TEST

/* The new keys of the wrong type: one line naming the key. */
START_TEST(bad_keys_refused)
{
	static const char *const docs[][2] = {
		{"\"capture\": [1]", "capture"},
		{"\"report\": 3", "report"},
		{"\"clock_fallbacks\": {}", "clock_fallbacks"},
		{"\"clock_fallbacks\": [{\"why\": \"x\"}]", "clock fallback"},
		{"\"clock_isolated\": -1", "clock_isolated"},
		{"\"group_by\": \"kernels\"", "group_by"},
		{"\"capture\": {\"dispatches_outside\": \"x\"}", "dispatches_outside"},
		/* numbers no run can hold, as `hesper diff` refuses them */
		{"\"regions\": [{\"name\": \"r\", \"count\": 2, \"timed\": 2, \"min_ns\": 5, \"max_ns\": 9, "
		 "\"median_ns\": 10}]",
		 "\"median_ns\" (10) is outside"},
		{"\"regions\": [{\"name\": \"r\", \"count\": 2, \"timed\": 2, \"min_ns\": 5, \"max_ns\": 9, "
		 "\"median_ns\": 6, \"mean_ns\": 3}]",
		 "\"mean_ns\" (3) is outside"},
		/* a queue's 32-bit facts past their range, its counts negative (profile/queue_keys.h) */
		{"\"queues\": [{\"device\": 0, \"family\": 4294967296, \"index\": 0}]", "\"family\" is 4294967296"},
		{"\"queues\": [{\"device\": 0, \"timestamp_bits\": 99999999999}]", "\"timestamp_bits\""},
		{"\"queues\": [{\"device\": 0, \"idle_ns\": -4}]", "\"idle_ns\" is negative"},
		{"\"devices\": [{\"name\": \"d\", \"compute_units\": 4294967296}]", "\"compute_units\" is 4294967296"},
		/* a pipeline's 32-bit figures past their range: refused, not cut */
		{"\"pipeline_stats\": [{\"kernel\": \"k\", \"subgroup_size\": 4294967328}]",
		 "\"subgroup_size\" is 4294967328"},
		{"\"pipeline_stats\": [{\"kernel\": \"k\", \"device\": 4294967296}]", "\"device\" is 4294967296"},
		/* a gap's thread past 2^32 - 1 (profile/gap_keys.h): refused, not cut */
		{"\"queues\": [{\"device\": 0, \"family\": 0, \"index\": 0}], \"findings\": [{\"kind\": "
		 "\"gpu_idle\", \"time_at_stake_ns\": 1, \"about\": [\"queue 0:0:0\"], \"gaps\": [{\"thread\": "
		 "4294967296}]}]",
		 "\"thread\" is 4294967296"},
		/* a host wait's thread past 2^32 - 1 (profile/wait_keys.h) */
		{"\"host_waits\": [{\"thread\": 4294967297, \"call\": \"vkWaitForFences\", \"count\": 1}]",
		 "\"thread\" is 4294967297"},
		/* a source listing without its text */
		{"\"lines\": [{\"kernel\": \"k\", \"lines\": [], \"source\": {\"file\": \"k.comp\"}}]", "\"source\""},
		/* counted lines with a share past the whole, or no kernel */
		{"\"lines\": [{\"kernel\": \"k\", \"lines\": [{\"line\": 3, \"share\": 1.5}]}]", "\"share\" (1.5)"},
		{"\"lines\": [{\"lines\": []}]", "no \"kernel\" string"},
	};

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char path[32], err[256] = "", text[512];
		struct hesper_profile back;

		snprintf(text, sizeof(text), "{\"schema\": \"hesper-summary/1\", \"kernels\": [], %s}\n", docs[i][0]);
		write_file(path, text);
		ck_assert_int_eq(hesper_summary_load(path, &back, err, sizeof(err)), HESPER_ERROR_FORMAT);
		ck_assert_msg(strstr(err, docs[i][1]) != NULL, "%s: %s", docs[i][0], err);
		ck_assert_ptr_null(strchr(err, '\n'));
		hesper_profile_free(&back);
		unlink(path);
	}
}
END_TEST

/* Every key of a queue row (profile/queue_keys.h) comes back as written; two rows of one queue add up. */
START_TEST(queues_read_back)
{
	struct hesper_profile p, back;

	fixture_known_profile(&p);
	p.findings_ready = true;
	struct hesper_queue_info *q = hesper_profile_queue(&p, 0, 2, 1);
	ck_assert_ptr_nonnull(q);
	*q = (struct hesper_queue_info){.device = 0,
					.family = 2,
					.index = 1,
					.timestamp_bits = 36,
					.submits = 7,
					.busy_ns = 123456789012ull,
					.submit_calls = 5,
					.round_trips = 3,
					.timed_batches = 6,
					.idle_ns = 4242};
	round_trip(&p, &back);
	ck_assert_uint_eq(back.queue_count, p.queue_count);
	struct hesper_queue_info *r = hesper_profile_queue(&back, 0, 2, 1);
	ck_assert_uint_eq(r->timestamp_bits, 36);
	ck_assert_uint_eq(r->submits, 7);
	ck_assert_uint_eq(r->busy_ns, 123456789012ull);
	ck_assert_uint_eq(r->submit_calls, 5);
	ck_assert_uint_eq(r->round_trips, 3);
	ck_assert_uint_eq(r->timed_batches, 6);
	ck_assert_uint_eq(r->idle_ns, 4242);
	hesper_profile_free(&back);
	hesper_profile_free(&p);

	char path[32], err[256] = "";
	write_file(path, "{\"schema\": \"hesper-summary/1\", \"kernels\": [], \"queues\": ["
			 "{\"device\": 0, \"family\": 0, \"index\": 0, \"timestamp_bits\": 64, \"submits\": 2, "
			 "\"busy_ns\": 10}, {\"device\": 0, \"family\": 0, \"index\": 0, \"timestamp_bits\": 64, "
			 "\"submits\": 3, \"busy_ns\": 5}]}\n");
	ck_assert_msg(hesper_summary_load(path, &back, err, sizeof(err)) == HESPER_OK, "%s", err);
	ck_assert_uint_eq(back.queue_count, 1);
	ck_assert_uint_eq(back.queues[0].submits, 5);
	ck_assert_uint_eq(back.queues[0].busy_ns, 15);
	ck_assert_uint_eq(back.queues[0].timestamp_bits, 64);
	hesper_profile_free(&back);
	unlink(path);
}
END_TEST

/* What Hesper cost and did (profile/cost_keys.h) comes back as written, but the trace's own counts. */
START_TEST(cost_read_back)
{
	struct hesper_profile p, back;

	fixture_known_profile(&p);
	p.timestamps_written = 11;
	p.hook_ns = 22;
	p.submit_hook_ns = 33;
	p.collector_ns = 44;
	p.collected = 55;
	p.copies_ahead = 66;
	p.trace.left_out = 77;
	round_trip(&p, &back);
	ck_assert_uint_eq(back.timestamps_written, 11);
	ck_assert_uint_eq(back.hook_ns, 22);
	ck_assert_uint_eq(back.submit_hook_ns, 33);
	ck_assert_uint_eq(back.collector_ns, 44);
	ck_assert_uint_eq(back.collected, 55);
	ck_assert_uint_eq(back.copies_ahead, 66);
	ck_assert_uint_eq(back.trace.count, 0);
	ck_assert_uint_eq(back.trace.left_out, 0);
	hesper_profile_free(&back);
	hesper_profile_free(&p);
}
END_TEST

/* Counted lines (HESPER_LINES) come back as written, and print the same "Hot lines" section. */
START_TEST(lines_read_back)
{
	struct hesper_profile p, back;
	struct hesper_hot_line lines[12];

	fixture_known_profile(&p);
	for (size_t i = 0; i < 12; i++) {
		lines[i] = (struct hesper_hot_line){.line = (uint32_t)(40 - i), .executions = 1000 * (i + 1)};
		snprintf(lines[i].file, sizeof(lines[i].file), "%s", i == 11 ? "" : "blur.comp");
		lines[i].ticks = 1e6 / (double)(i + 1);
		lines[i].share = 0.5 / (double)(i + 1);
	}
	lines[11].line = 0; /* no line information */
	ck_assert_int_eq(hesper_profile_set_lines(&p, "matmul", lines, 12, 7), 0);
	round_trip(&p, &back);
	ck_assert_uint_eq(back.kernel_lines_count, 1);
	const struct hesper_kernel_lines *k = &back.kernel_lines[0];
	ck_assert_str_eq(k->kernel, "matmul");
	ck_assert_uint_eq(k->dispatches, 7);
	ck_assert_uint_eq(k->count, 12);
	for (size_t i = 0; i < 12; i++) {
		ck_assert_str_eq(k->lines[i].file, lines[i].file);
		ck_assert_uint_eq(k->lines[i].line, lines[i].line);
		ck_assert_uint_eq(k->lines[i].executions, lines[i].executions);
		ck_assert_double_eq_tol(k->lines[i].ticks, lines[i].ticks, 1e-6);
		ck_assert_double_eq_tol(k->lines[i].share, lines[i].share, 1e-15);
	}
	hesper_profile_free(&back);
	assert_same_text(&p);
	char *text = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_nonnull(strstr(text, "Hot lines"));
	ck_assert_ptr_nonnull(strstr(text, "matmul (7 dispatches counted)"));
	ck_assert_ptr_nonnull(strstr(text, "50.0%"));
	/* the first line: 1000 runs over 7 dispatches, 1e6 cycles over 1000 runs */
	ck_assert_ptr_nonnull(strstr(text, "50.0%         1e+06          142.9        1000  blur.comp:40"));
	ck_assert_ptr_nonnull(strstr(text, "in 2 more lines"));
	free(text);
	/* a listing read from HESPER_SOURCE_PATH says from where, in every report and read back */
	ck_assert_int_eq(hesper_profile_set_source(&p, "matmul", "blur.comp", "x\n", "/src/shaders/blur.comp"), 0);
	round_trip(&p, &back);
	ck_assert_str_eq(back.kernel_lines[0].source_file, "blur.comp");
	ck_assert_str_eq(back.kernel_lines[0].source_read, "/src/shaders/blur.comp");
	hesper_profile_free(&back);
	assert_same_text(&p);
	text = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_nonnull(strstr(text, "blur.comp (read from /src/shaders/blur.comp, HESPER_SOURCE_PATH) around"));
	free(text);
	text = render_with(hesper_report_html, &p, NULL);
	ck_assert_ptr_nonnull(strstr(text, "(read from /src/shaders/blur.comp, HESPER_SOURCE_PATH)"));
	free(text);
	/* the module's own text: no such words */
	ck_assert_int_eq(hesper_profile_set_source(&p, "matmul", "blur.comp", "x\n", NULL), 0);
	text = render_with(hesper_report_text, &p, NULL);
	ck_assert_ptr_null(strstr(text, "read from"));
	free(text);
	/* replaced, not added, when the same kernel's lines come again */
	ck_assert_int_eq(hesper_profile_set_lines(&p, "matmul", lines, 2, 9), 0);
	ck_assert_uint_eq(p.kernel_lines_count, 1);
	ck_assert_uint_eq(p.kernel_lines[0].count, 2);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
summary_load_suite(void)
{
	Suite *s = suite_create("summary_load");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, clock_mode_and_capture_window);
	tcase_add_test(tc, clock_fields_read_back);
	tcase_add_test(tc, group_by_read_back);
	tcase_add_test(tc, overlap_line);
	tcase_add_test(tc, live_report_and_unopened_window);
	tcase_add_test(tc, ended_by_signal_read_back);
	tcase_add_test(tc, old_regions_all_timed);
	tcase_add_test(tc, pipeline_stats_read_back);
	tcase_add_test(tc, pipeline_stats_sets_per_pipeline);
	tcase_add_test(tc, occupancy_read_back);
	tcase_add_test(tc, occupancy_absent_in_old_summary);
	tcase_add_test(tc, bad_keys_refused);
	tcase_add_test(tc, queues_read_back);
	tcase_add_test(tc, cost_read_back);
	tcase_add_test(tc, lines_read_back);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(summary_load_suite());

	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
