/* Unit tests for analysis/findings/findings.c: thresholds, each finding with and without its defect, the order, the writers. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#include "fixtures.h"
#include "write/write.h"

/* A live profile: one device (cost @cost_ns, @units compute units), one queue, wall 1 s. */
static void
live_profile(struct hesper_profile *p, uint64_t cost_ns, uint32_t units)
{
	struct hesper_device_info d = {.timestamp_period_ns = 1,
				       .dispatch_cost_ns = cost_ns,
				       .timestamp_cost_ns = 100,
				       .compute_units = units};

	ck_assert_int_eq(hesper_profile_init(p), 0);
	strcpy(d.name, "Test GPU");
	ck_assert_int_eq(hesper_profile_add_device(p, &d), 0);
	ck_assert_ptr_nonnull(hesper_profile_queue(p, 0, 0, 0));
	p->wall_ns = 1000000000;
	p->findings_ready = true;
}

static struct hesper_findings
compute(const struct hesper_profile *p)
{
	struct hesper_findings f;

	ck_assert_int_eq(hesper_findings_compute(p, &f), 0);
	return f;
}

static const struct hesper_finding *
find_kind(const struct hesper_findings *f, enum hesper_finding_kind kind)
{
	for (size_t i = 0; i < f->count; i++)
		if (f->items[i].kind == kind)
			return &f->items[i];
	return NULL;
}

START_TEST(settings_defaults_and_parse)
{
	struct hesper_findings_settings s;
	char err[512];

	hesper_findings_settings_default(&s);
	ck_assert(!s.off);
	ck_assert(fabs(s.idle_share - 0.2) < 1e-12);
	ck_assert_uint_eq(s.idle_min_ns, 1000000);
	ck_assert_uint_eq(s.launch_bound_min, 100);
	ck_assert_uint_eq(s.underfilled_min, 100);
	ck_assert_int_eq(hesper_findings_settings_parse(&s,
							"idle_share=0.5, launch_bound_min=7,idle_min_us=20,"
							"launch_factor=3,round_trip_share=0.25,round_trip_min=4,"
							"underfilled_min=9,hesper_share=0.01,slow_memory_share=0.5",
							err, sizeof(err)),
			 0);
	ck_assert(fabs(s.idle_share - 0.5) < 1e-12);
	ck_assert_uint_eq(s.launch_bound_min, 7);
	ck_assert_uint_eq(s.idle_min_ns, 20000);
	ck_assert(fabs(s.launch_factor - 3) < 1e-12);
	ck_assert(fabs(s.round_trip_share - 0.25) < 1e-12);
	ck_assert_uint_eq(s.round_trip_min, 4);
	ck_assert_uint_eq(s.underfilled_min, 9);
	ck_assert(fabs(s.hesper_share - 0.01) < 1e-12);
	ck_assert(fabs(s.slow_memory_share - 0.5) < 1e-12);
	ck_assert_int_eq(hesper_findings_settings_parse(&s, "off", err, sizeof(err)), 0);
	ck_assert(s.off);
}
END_TEST

START_TEST(settings_bad_values_keep_everything)
{
	static const char *const bad[] = {
		"idle_share=2",
		"idle_share=-0.1",
		"idle_share=",
		"nope=1",
		"launch_bound_min=1.5",
		"idle_share=0.3,launch_bound_min=x",
		"launch_factor=nan",
		"idle_share",
		"on",
	};
	char err[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hesper_findings_settings s, before;

		hesper_findings_settings_default(&s);
		before = s;
		ck_assert_msg(hesper_findings_settings_parse(&s, bad[i], err, sizeof(err)) == -1, "%s accepted",
			      bad[i]);
		ck_assert_msg(memcmp(&s, &before, sizeof(s)) == 0, "%s changed the settings", bad[i]);
		ck_assert_msg(strstr(err, "HESPER_FINDINGS") && !strchr(err, '\n'), "message for %s: %s", bad[i], err);
	}
}
END_TEST

/* docs/settings.md's rule holds for HESPER_FINDINGS too: words in any case, white space around values ignored. */
START_TEST(settings_follow_the_values_rule)
{
	static const char *const offs[] = {"OFF", " off ", "Off\n", "\toFF"};
	struct hesper_findings_settings s;
	char err[512];

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		hesper_findings_settings_default(&s);
		ck_assert_msg(hesper_findings_settings_parse(&s, offs[i], err, sizeof(err)) == 0, "'%s': %s", offs[i],
			      err);
		ck_assert_msg(s.off, "'%s' did not turn the findings off", offs[i]);
	}
	hesper_findings_settings_default(&s);
	ck_assert_int_eq(
		hesper_findings_settings_parse(&s, " IDLE_SHARE = 0.5 ,\tLaunch_Bound_Min=7 ", err, sizeof(err)), 0);
	ck_assert(fabs(s.idle_share - 0.5) < 1e-12);
	ck_assert_uint_eq(s.launch_bound_min, 7);
	ck_assert(!s.off);
}
END_TEST

/* Numbers are plain decimal, as for every setting: no sign, exponent, base prefix or trailing text. */
START_TEST(settings_numbers_are_plain_decimal)
{
	static const char *const bad[] = {
		"idle_share=+0.5", "idle_share=0x0.8", "idle_share=5e-1", "idle_share=0.5x", "idle_share=.5",
		"idle_share=1.",   "idle_share=0,5",   "idle_share=inf",  "idle_share=- 0",
	};
	struct hesper_findings_settings s;
	char err[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hesper_findings_settings_default(&s);
		ck_assert_msg(hesper_findings_settings_parse(&s, bad[i], err, sizeof(err)) == -1, "%s accepted",
			      bad[i]);
		ck_assert(fabs(s.idle_share - 0.2) < 1e-12);
	}
	ck_assert_int_eq(hesper_findings_settings_parse(&s, "idle_share=0.125,launch_factor=12.75", err, sizeof(err)),
			 0);
	ck_assert(s.idle_share == 0.125);
	ck_assert(s.launch_factor == 12.75);
}
END_TEST

/* The error line names every key the parser takes (those docs/settings.md lists). */
START_TEST(settings_error_names_every_key)
{
	static const char *const keys[] = {
		"idle_share",     "idle_min_us",     "launch_bound_min", "launch_factor",     "round_trip_share",
		"round_trip_min", "underfilled_min", "hesper_share",     "slow_memory_share",
	};
	struct hesper_findings_settings s;
	char err[1024], line[1024];

	hesper_findings_settings_default(&s);
	ck_assert_int_eq(hesper_findings_settings_parse(&s, "nope=1", line, sizeof(line)), -1);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char entry[64];

		snprintf(entry, sizeof(entry), "%s=1", keys[i]);
		ck_assert_msg(hesper_findings_settings_parse(&s, entry, err, sizeof(err)) == 0, "%s: %s", entry, err);
		snprintf(entry, sizeof(entry), " %s=", keys[i]);
		ck_assert_msg(strstr(line, entry) != NULL, "the error line does not name %s: %s", keys[i], line);
	}
}
END_TEST

START_TEST(gaps_keep_largest_first)
{
	struct hesper_queue_info q = {0};
	static const uint64_t lengths[] = {5, 1, 9, 3, 7, 2, 8, 6};

	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		struct hesper_gap g = {.length_ns = lengths[i], .submission = i};
		hesper_gaps_keep(&q, &g);
	}
	ck_assert_uint_eq(q.gap_count, HESPER_TOP_GAPS);
	static const uint64_t want[HESPER_TOP_GAPS] = {9, 8, 7, 6, 5};
	for (int i = 0; i < HESPER_TOP_GAPS; i++)
		ck_assert_uint_eq(q.gaps[i].length_ns, want[i]);
	ck_assert_uint_eq(q.gaps[0].submission, 2);
}
END_TEST

START_TEST(gap_activity_is_the_largest_part)
{
	struct hesper_gap g = {.length_ns = 10, .waiting_ns = 6, .other_ns = 4};

	ck_assert_str_eq(hesper_gap_activity(&g), "waiting");
	g = (struct hesper_gap){.length_ns = 10, .recording_ns = 3, .submitting_ns = 5, .other_ns = 2};
	ck_assert_str_eq(hesper_gap_activity(&g), "submitting");
	g = (struct hesper_gap){.length_ns = 10, .recording_ns = 3, .other_ns = 7};
	ck_assert_str_eq(hesper_gap_activity(&g), "nothing Vulkan");
}
END_TEST

START_TEST(underfill_share_pure)
{
	const uint32_t four[3] = {2, 2, 1}, many[3] = {200, 1, 1}, indirect[3] = {0, 0, 0};

	ck_assert(fabs(hesper_underfill_share(four, 132) - 128.0 / 132.0) < 1e-12);
	ck_assert(hesper_underfill_share(many, 132) == 0);
	ck_assert(hesper_underfill_share(indirect, 132) == 0);
	ck_assert(hesper_underfill_share(four, 0) == 0); /* the driver does not tell: never reported */
	ck_assert(hesper_underfill_share(four, 4) == 0);
}
END_TEST

START_TEST(count_below_from_histogram)
{
	struct hesper_stats s;

	hesper_stats_init(&s);
	for (int i = 0; i < 300; i++)
		hesper_stats_add(&s, 500);
	for (int i = 0; i < 20; i++)
		hesper_stats_add(&s, 50000);
	ck_assert_uint_eq(hesper_stats_count_below(&s, 1000), 300);
	ck_assert_uint_eq(hesper_stats_count_below(&s, 100000), 320);
	ck_assert_uint_eq(hesper_stats_count_below(&s, 100), 0);
	hesper_stats_free(&s);
}
END_TEST

START_TEST(gpu_idle_fires_and_stays_silent)
{
	struct hesper_profile p;

	live_profile(&p, 0, 0);
	struct hesper_queue_info *q = &p.queues[0];
	q->timed_batches = 11;
	q->idle_ns = 400000000; /* 40% of the wall time */
	q->busy_ns = 100000000;
	struct hesper_gap g = {.length_ns = 40000000, .waiting_ns = 1000000, .other_ns = 39000000};
	hesper_gaps_keep(q, &g);
	struct hesper_findings f = compute(&p);
	const struct hesper_finding *x = find_kind(&f, HESPER_FINDING_GPU_IDLE);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->time_at_stake_ns, 400000000);
	ck_assert(fabs(hesper_finding_number(x, "idle_share", -1) - 0.4) < 1e-12);
	ck_assert(fabs(hesper_finding_number(x, "mean_gap_ns", -1) - 40000000) < 1e-6);
	ck_assert_str_eq(x->about, "queue 0:0:0");
	ck_assert_ptr_nonnull(strstr(x->advice, "nothing Vulkan"));
	hesper_findings_free(&f);

	q->idle_ns = 100000000; /* 10%: below the default 20% */
	f = compute(&p);
	ck_assert_ptr_null(find_kind(&f, HESPER_FINDING_GPU_IDLE));
	hesper_findings_free(&f);
	p.findings.idle_share = 0.05; /* the threshold is the user's */
	f = compute(&p);
	ck_assert_ptr_nonnull(find_kind(&f, HESPER_FINDING_GPU_IDLE));
	hesper_findings_free(&f);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(round_trips_fire_and_stay_silent)
{
	struct hesper_profile p;

	live_profile(&p, 0, 0);
	struct hesper_queue_info *q = &p.queues[0];
	q->submit_calls = 40;
	q->round_trips = 40;
	q->timed_batches = 40;
	q->idle_ns = 39000000;
	struct hesper_findings f = compute(&p);
	const struct hesper_finding *x = find_kind(&f, HESPER_FINDING_ROUND_TRIPS);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->time_at_stake_ns, 39000000);
	ck_assert(hesper_finding_number(x, "round_trip_share", -1) == 1.0);
	ck_assert(fabs(hesper_finding_number(x, "mean_gap_ns", -1) - 1000000) < 1e-6);
	/* Alone (no gpu_idle finding on the queue), it claims its time as its own. */
	ck_assert_ptr_null(find_kind(&f, HESPER_FINDING_GPU_IDLE));
	ck_assert_ptr_null(strstr(x->advice, "the same idle time"));
	hesper_findings_free(&f);
	q->round_trips = 10; /* a quarter: the queue mostly keeps work in flight */
	f = compute(&p);
	ck_assert_ptr_null(find_kind(&f, HESPER_FINDING_ROUND_TRIPS));
	hesper_findings_free(&f);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(launch_bound_fires_and_stays_silent)
{
	struct hesper_profile p;

	live_profile(&p, 1000, 0);
	struct hesper_kernel *tiny = hesper_kernel_table_get(p.kernels, "tiny");
	struct hesper_kernel *big = hesper_kernel_table_get(p.kernels, "big");
	for (int i = 0; i < 200; i++) {
		hesper_kernel_record(tiny, 1500); /* under 2 x 1000 */
		hesper_kernel_record(big, 50000);
	}
	struct hesper_findings f = compute(&p);
	ck_assert_uint_eq(f.count, 1);
	const struct hesper_finding *x = &f.items[0];
	ck_assert_int_eq(x->kind, HESPER_FINDING_LAUNCH_BOUND);
	ck_assert_str_eq(x->about, "tiny");
	ck_assert(hesper_finding_number(x, "launch_bound_dispatches", -1) == 200);
	ck_assert(hesper_finding_number(x, "dispatch_cost_ns", -1) == 1000);
	ck_assert_uint_eq(x->time_at_stake_ns, 200 * 1000);
	hesper_findings_free(&f);

	/* Sampled: 200 timed of 1000 run stand for 1000. */
	hesper_kernel_count_untimed(tiny, 800);
	f = compute(&p);
	ck_assert(hesper_finding_number(&f.items[0], "launch_bound_dispatches", -1) == 1000);
	hesper_findings_free(&f);

	/* Unmeasured cost: nothing to compare with. */
	p.devices[0].dispatch_cost_ns = 0;
	f = compute(&p);
	ck_assert_uint_eq(f.count, 0);
	hesper_findings_free(&f);
	hesper_profile_free(&p);
}
END_TEST

/* @n dispatches of kernel @name, 10 µs each, all of them under-filled for 9 µs; returns its row. */
static struct hesper_kernel *
record_underfilled(struct hesper_profile *p, const char *name, int n)
{
	struct hesper_kernel *k = hesper_kernel_table_get(p->kernels, name);
	struct hesper_kernel *u = hesper_kernel_table_get(p->underfilled, name);

	for (int i = 0; i < n; i++) {
		hesper_kernel_record(k, 10000);
		hesper_kernel_record(u, 9000);
	}
	return k;
}

START_TEST(underfilled_fires_only_with_compute_units)
{
	struct hesper_profile p;

	live_profile(&p, 0, 132);
	record_underfilled(&p, "small", 150);
	struct hesper_findings f = compute(&p);
	const struct hesper_finding *x = find_kind(&f, HESPER_FINDING_UNDERFILLED);
	ck_assert_ptr_nonnull(x);
	ck_assert(hesper_finding_number(x, "underfilled_dispatches", -1) == 150);
	ck_assert(hesper_finding_number(x, "compute_units", -1) == 132);
	ck_assert_uint_eq(x->time_at_stake_ns, 150 * 9000);
	hesper_findings_free(&f);
	p.devices[0].compute_units = 0;
	f = compute(&p);
	ck_assert_ptr_null(find_kind(&f, HESPER_FINDING_UNDERFILLED));
	hesper_findings_free(&f);
	hesper_profile_free(&p);
}
END_TEST

/* An under-filled kernel whose occupancy is known: the groups that fill the device against its launch. */
START_TEST(underfilled_says_its_occupancy)
{
	struct hesper_profile p;
	struct hesper_pipeline_stat st = {.name = "Register Count", .format = HESPER_STAT_UINT, .value.u = 111};
	struct hesper_pipeline_stats stats = {.kernel = "small", .local_size = {64, 1, 1}, .count = 1, .stats = &st};
	static const uint32_t sixteen[3] = {16, 1, 1};

	live_profile(&p, 0, 132);
	hesper_occupancy_model_nvidia(&p.devices[0].occupancy, 64, 132, 49152);
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(&p, &stats), 0);
	hesper_shapes_add(&record_underfilled(&p, "small", 150)->shapes, sixteen, 150);
	struct hesper_findings f = compute(&p);
	const struct hesper_finding *x = find_kind(&f, HESPER_FINDING_UNDERFILLED);
	ck_assert_ptr_nonnull(x);
	/* no shared memory size from the driver: registers give 8 groups an SM all the same */
	ck_assert(hesper_finding_number(x, "occupancy_share", -1) == 0.25);
	ck_assert(hesper_finding_number(x, "groups_per_sm", -1) == 8);
	ck_assert(hesper_finding_number(x, "device_groups", -1) == 1056);
	ck_assert(hesper_finding_number(x, "launch_groups", -1) == 16);
	ck_assert(fabs(hesper_finding_number(x, "device_fill_share", -1) - 16.0 / 1056.0) < 1e-12);
	ck_assert_ptr_nonnull(strstr(x->advice,
				     "; at its occupancy (25%, registers) 8 work groups fit an SM, 1056 fill "
				     "the device once, and its most common launch has 16 (1.5% of that)"));
	ck_assert_str_eq(hesper_finding_number_key("occupancy_share"), "occupancy_share");
	ck_assert_str_eq(hesper_finding_number_key("device_fill_share"), "device_fill_share");
	hesper_findings_free(&f);

	/* occupancy unknown (no model): the finding as before */
	hesper_occupancy_model_none(&p.devices[0].occupancy, "no model");
	f = compute(&p);
	x = find_kind(&f, HESPER_FINDING_UNDERFILLED);
	ck_assert(hesper_finding_number(x, "groups_per_sm", -1) == -1);
	ck_assert_ptr_null(strstr(x->advice, "occupancy"));
	hesper_findings_free(&f);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(hesper_share_fires_and_stays_silent)
{
	struct hesper_profile p;

	live_profile(&p, 1000, 0);
	p.hook_ns = 200000000; /* 20% of the wall */
	struct hesper_findings f = compute(&p);
	const struct hesper_finding *x = find_kind(&f, HESPER_FINDING_HESPER_SHARE);
	ck_assert_ptr_nonnull(x);
	ck_assert(fabs(hesper_finding_number(x, "host_share", -1) - 0.2) < 1e-12);
	ck_assert_ptr_nonnull(strstr(x->advice, "HESPER_MODE=submit"));
	/* dispatch mode: the mode that times every dispatch without timestamps between them too */
	ck_assert_ptr_nonnull(strstr(x->advice, "HESPER_MODE=clock HESPER_CLOCK_ISOLATED=span"));
	hesper_findings_free(&f);
	/* HESPER_SAMPLE does nothing outside dispatch mode: never offered there */
	static const char *const other_modes[] = {"clock", "submit"};
	for (size_t i = 0; i < 2; i++) {
		strcpy(p.mode, other_modes[i]);
		f = compute(&p);
		x = find_kind(&f, HESPER_FINDING_HESPER_SHARE);
		ck_assert_ptr_nonnull(x);
		ck_assert_ptr_null(strstr(x->advice, "HESPER_SAMPLE"));
		hesper_findings_free(&f);
	}
	strcpy(p.mode, "dispatch");
	p.hook_ns = 1000000;
	f = compute(&p);
	ck_assert_ptr_null(find_kind(&f, HESPER_FINDING_HESPER_SHARE));
	hesper_findings_free(&f);
	/* GPU side: 100 ns per timed dispatch, 10^6 of them, over 0.5 s busy: 20%. */
	p.collected = 1000000;
	p.queues[0].busy_ns = 500000000;
	f = compute(&p);
	x = find_kind(&f, HESPER_FINDING_HESPER_SHARE);
	ck_assert_ptr_nonnull(x);
	ck_assert(fabs(hesper_finding_number(x, "gpu_share", -1) - 0.2) < 1e-12);
	hesper_findings_free(&f);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(sorted_by_stake_and_gated)
{
	struct hesper_profile p;

	live_profile(&p, 1000, 0);
	struct hesper_queue_info *q = &p.queues[0];
	q->submit_calls = q->round_trips = q->timed_batches = 50;
	q->idle_ns = 500000000;
	p.hook_ns = 300000000;
	struct hesper_kernel *tiny = hesper_kernel_table_get(p.kernels, "tiny");
	for (int i = 0; i < 200; i++)
		hesper_kernel_record(tiny, 1500);
	struct hesper_findings f = compute(&p);
	ck_assert_uint_eq(f.count, 4);
	for (size_t i = 1; i < f.count; i++)
		ck_assert_uint_ge(f.items[i - 1].time_at_stake_ns, f.items[i].time_at_stake_ns);
	ck_assert_int_eq(f.items[0].kind, HESPER_FINDING_GPU_IDLE); /* ties: by kind */
	ck_assert_int_eq(f.items[1].kind, HESPER_FINDING_ROUND_TRIPS);
	/* The same idle time seen twice: the second says so, so that no one adds them up. */
	ck_assert_msg(strncmp(f.items[1].advice, "the same idle time as gpu_idle's on this queue, not more: ", 58) == 0,
		      "%s", f.items[1].advice);
	ck_assert_ptr_null(strstr(f.items[0].advice, "the same idle time"));

	struct capture c;
	capture_open(&c);
	ck_assert_int_eq(hesper_findings_write_json(c.f, &f), 0);
	capture_close(&c);
	ck_assert_ptr_nonnull(
		strstr(c.buf, "{\"kind\": \"gpu_idle\", \"time_at_stake_ns\": 500000000, \"numbers\": {"));
	ck_assert_ptr_nonnull(strstr(c.buf, "\"about\": [\"tiny\"]"));
	capture_free(&c);
	capture_open(&c);
	ck_assert_int_eq(hesper_findings_write_text(c.f, &f), 0);
	capture_close(&c);
	ck_assert_ptr_nonnull(strstr(c.buf, "Findings (largest time at stake first):\n  1. gpu_idle, queue 0:0:0"));
	capture_free(&c);
	hesper_findings_free(&f);

	p.findings.off = true;
	f = compute(&p);
	ck_assert_uint_eq(f.count, 0);
	p.findings.off = false;
	p.findings_ready = false; /* a summary read back: no aggregates */
	f = compute(&p);
	ck_assert_uint_eq(f.count, 0);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(host_wait_rows_sorted_and_merged)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	ck_assert_int_eq(hesper_profile_add_host_wait(&p, 20, HESPER_WAIT_FENCES, 2, 300, 200), 0);
	ck_assert_int_eq(hesper_profile_add_host_wait(&p, 10, HESPER_WAIT_FENCE_POLL, 1, 50, 50), 0);
	ck_assert_int_eq(hesper_profile_add_host_wait(&p, 10, HESPER_WAIT_QUEUE_IDLE, 1, 70, 70), 0);
	ck_assert_int_eq(hesper_profile_add_host_wait(&p, 20, HESPER_WAIT_FENCES, 1, 400, 400), 0);
	ck_assert_uint_eq(p.host_wait_count, 3);
	ck_assert_uint_eq(p.host_waits[0].thread, 10);
	ck_assert_str_eq(hesper_wait_call_name(p.host_waits[0].call), "vkQueueWaitIdle");
	ck_assert_str_eq(hesper_wait_call_name(p.host_waits[1].call), "vkGetFenceStatus");
	ck_assert_uint_eq(p.host_waits[2].count, 3);
	ck_assert_uint_eq(p.host_waits[2].total_ns, 700);
	ck_assert_uint_eq(p.host_waits[2].max_ns, 400);
	ck_assert_str_eq(hesper_wait_call_name(99), "?");
	hesper_profile_free(&p);
}
END_TEST

static Suite *
findings_suite(void)
{
	Suite *s = suite_create("findings");
	TCase *tc = tcase_create("findings");

	tcase_add_test(tc, settings_defaults_and_parse);
	tcase_add_test(tc, settings_bad_values_keep_everything);
	tcase_add_test(tc, settings_follow_the_values_rule);
	tcase_add_test(tc, settings_numbers_are_plain_decimal);
	tcase_add_test(tc, settings_error_names_every_key);
	tcase_add_test(tc, gaps_keep_largest_first);
	tcase_add_test(tc, gap_activity_is_the_largest_part);
	tcase_add_test(tc, underfill_share_pure);
	tcase_add_test(tc, count_below_from_histogram);
	tcase_add_test(tc, gpu_idle_fires_and_stays_silent);
	tcase_add_test(tc, round_trips_fire_and_stay_silent);
	tcase_add_test(tc, launch_bound_fires_and_stays_silent);
	tcase_add_test(tc, underfilled_fires_only_with_compute_units);
	tcase_add_test(tc, underfilled_says_its_occupancy);
	tcase_add_test(tc, hesper_share_fires_and_stays_silent);
	tcase_add_test(tc, sorted_by_stake_and_gated);
	tcase_add_test(tc, host_wait_rows_sorted_and_merged);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(findings_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
