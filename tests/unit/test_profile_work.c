/* Unit tests for analysis/profile/profile_work.c: each kind of finished work, counted where it belongs. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

/* A timed dispatch of "k" under label "lab": 4 groups on 8 compute units, local size 64 1 1. */
static struct hesper_work
dispatch(struct hesper_work_rows *rows)
{
	return (struct hesper_work){
		.kind = HESPER_WORK_DISPATCH,
		.count = 1,
		.timed = true,
		.ns = 1000,
		.name = "k",
		.label = "lab",
		.rows = rows,
		.groups = {4, 1, 1},
		.local_size = {64, 1, 1},
		.compute_units = 8,
	};
}

START_TEST(dispatch_rows)
{
	struct hesper_profile p;
	struct hesper_work_rows rows = {0};

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_work w = dispatch(&rows);
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	struct hesper_kernel *k = hesper_kernel_table_find(p.kernels, "k");
	struct hesper_kernel *l = hesper_kernel_table_find(p.labelled, "lab/k");
	struct hesper_kernel *u = hesper_kernel_table_find(p.underfilled, "k");
	ck_assert_ptr_eq(rows.kernel, k);
	ck_assert_ptr_eq(rows.labelled, l);
	ck_assert_ptr_eq(rows.underfilled, u);
	ck_assert_uint_eq(k->count, 1);
	ck_assert_uint_eq(k->timed.total_ns, 1000);
	ck_assert_uint_eq(l->timed.total_ns, 1000);
	ck_assert_uint_eq(u->timed.total_ns, 500); /* half the units idle */
	ck_assert_uint_eq(k->shapes.known, 1);
	ck_assert_uint_eq(k->shapes.local_size[0], 64);
	ck_assert_uint_eq(p.collected, 1);

	/* Not timed, meant to be: counted everywhere, and dropped. */
	w.timed = false;
	w.count = 5;
	w.dropped = true;
	w.why = HESPER_DROP_TWO_QUEUES;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	/* counted for its cause, and for none other */
	for (unsigned c = 0; c < HESPER_DROP_CAUSES; c++)
		ck_assert_uint_eq(p.dropped_by[c], c == HESPER_DROP_TWO_QUEUES ? 5 : 0);
	ck_assert_uint_eq(k->count, 6);
	ck_assert_uint_eq(k->timed.count, 1);
	ck_assert_uint_eq(l->count, 6);
	ck_assert_uint_eq(u->count, 6);
	ck_assert_uint_eq(k->shapes.known, 6);
	ck_assert_uint_eq(p.dropped, 5);
	ck_assert_uint_eq(p.collected, 1);
	hesper_profile_free(&p);
}
END_TEST

/* A dispatch that ran at once with others: its share in the totals, its span in the statistics. */
START_TEST(dispatch_share)
{
	struct hesper_profile p;
	struct hesper_work_rows rows = {0};

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_work w = dispatch(&rows);
	w.has_share = true;
	w.share_ns = 400;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	struct hesper_kernel *k = hesper_kernel_table_find(p.kernels, "k");
	struct hesper_kernel *l = hesper_kernel_table_find(p.labelled, "lab/k");
	struct hesper_kernel *u = hesper_kernel_table_find(p.underfilled, "k");
	ck_assert_uint_eq(k->timed.total_ns, 1000);
	ck_assert_uint_eq(k->timed.mean_ns, 1000);
	ck_assert_uint_eq(hesper_kernel_total_ns(k), 400);
	ck_assert_uint_eq(hesper_kernel_span_total_ns(k), 1000);
	ck_assert_uint_eq(hesper_kernel_total_ns(l), 400);
	ck_assert_uint_eq(u->timed.total_ns, 500); /* half the units idle, of the span */
	ck_assert_uint_eq(u->share_ns, 200);       /* and of the share */
	ck_assert_uint_eq(hesper_profile_summary(&p).total_ns, 400);

	/* Without has_share the share is the time itself, whatever share_ns holds. */
	w.has_share = false;
	w.share_ns = 1;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	ck_assert_uint_eq(hesper_kernel_total_ns(k), 1400);
	ck_assert_uint_eq(hesper_kernel_span_total_ns(k), 2000);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(dispatch_shapes)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_work w = dispatch(NULL);
	w.label = NULL;
	w.compute_units = 0; /* unknown: nothing is under-filled */
	memset(w.groups, 0, sizeof(w.groups));
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.groups_read_back = true; /* read back: known, even as 0 0 0 */
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.local_size_varies = true;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	struct hesper_kernel *k = hesper_kernel_table_find(p.kernels, "k");
	ck_assert_uint_eq(k->shapes.unknown, 1);
	ck_assert_uint_eq(k->shapes.known, 2);
	ck_assert(k->shapes.local_size_varies);
	ck_assert_uint_eq(hesper_kernel_table_size(p.labelled), 0);
	ck_assert_uint_eq(hesper_kernel_table_size(p.underfilled), 0);
	hesper_profile_free(&p);
}
END_TEST

/* The work-groups rate: timed dispatches with known counts only, clamped and untimed ones left out. */
START_TEST(work_groups_per_us)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_work w = dispatch(NULL);
	w.label = NULL;
	w.groups[0] = 300; /* 300 groups in 1000 ns */
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.groups[0] = 100;
	w.groups[1] = 2; /* 200 groups in 3000 ns */
	w.ns = 3000;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.clamped = true; /* no time: not in the rate */
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.clamped = false;
	memset(w.groups, 0, sizeof(w.groups)); /* indirect, not read back: unknown */
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.groups[0] = 7;
	w.timed = false; /* untimed */
	w.count = 3;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	struct hesper_kernel *k = hesper_kernel_table_find(p.kernels, "k");
	ck_assert_uint_eq(k->shapes.timed_groups, 500);
	ck_assert_uint_eq(k->shapes.timed_groups_ns, 4000);
	ck_assert_double_eq_tol(hesper_shapes_groups_per_us(&k->shapes), 125.0, 1e-9);
	/* merged, the sums add up and saturate rather than wrap */
	struct hesper_launch_shapes big = {.timed_groups = UINT64_MAX - 1, .timed_groups_ns = 10};
	hesper_shapes_merge(&big, &k->shapes);
	ck_assert_uint_eq(big.timed_groups, UINT64_MAX);
	ck_assert_uint_eq(big.timed_groups_ns, 4010);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(memory_ops_and_regions)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_work w = {.kind = HESPER_WORK_MEMORY_OP,
				.count = 1,
				.timed = true,
				.ns = 1000,
				.memop = HESPER_MEMOP_FILL_BUFFER,
				.bytes = 4096,
				.sized = true};
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.timed = false;
	w.count = 3;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	const struct hesper_memop_row *m = &p.memops.rows[HESPER_MEMOP_FILL_BUFFER];
	ck_assert_uint_eq(m->k.count, 4);
	ck_assert_uint_eq(m->k.timed.count, 1);
	ck_assert_uint_eq(m->bytes, 4 * 4096);
	ck_assert_uint_eq(m->timed_bytes, 4096);
	w.memop = HESPER_MEMOP_KINDS;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), -1);

	w = (struct hesper_work){.kind = HESPER_WORK_REGION, .name = "frame", .count = 1, .timed = true, .ns = 7};
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.timed = false;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	struct hesper_kernel *r = hesper_kernel_table_find(p.regions, "frame");
	ck_assert_uint_eq(r->count, 2);
	ck_assert_uint_eq(r->timed.total_ns, 7);
	ck_assert_uint_eq(p.collected, 0);
	hesper_profile_free(&p);
}
END_TEST

/*
 * A clamped interval (its end before its start): the dispatch, operation or region counted,
 * its 0 ns in no statistic (min stays the measured one, the total an estimate), counted in
 * clamped, not as dropped.
 */
START_TEST(clamped_counted_not_measured)
{
	struct hesper_profile p;
	struct hesper_work_rows rows = {0};

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_work w = dispatch(&rows);
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.ns = 0;
	w.clamped = true;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	const struct hesper_kernel *k = hesper_kernel_table_find(p.kernels, "k");
	ck_assert_uint_eq(k->count, 2);
	ck_assert_uint_eq(k->timed.count, 1);
	ck_assert_uint_eq(k->timed.min_ns, 1000);
	ck_assert_uint_eq(hesper_kernel_total_ns(k), 2000);
	k = hesper_kernel_table_find(p.labelled, "lab/k");
	ck_assert_uint_eq(k->count, 2);
	ck_assert_uint_eq(k->timed.count, 1);
	ck_assert_uint_eq(p.clamped, 1);
	ck_assert_uint_eq(p.dropped, 0);

	w = (struct hesper_work){.kind = HESPER_WORK_MEMORY_OP,
				 .timed = true,
				 .clamped = true,
				 .memop = HESPER_MEMOP_FILL_BUFFER,
				 .bytes = 16,
				 .sized = true};
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	const struct hesper_memop_row *m = &p.memops.rows[HESPER_MEMOP_FILL_BUFFER];
	ck_assert_uint_eq(m->k.count, 1);
	ck_assert_uint_eq(m->k.timed.count, 0);
	ck_assert_uint_eq(m->bytes, 16);
	ck_assert_uint_eq(m->timed_bytes, 0);

	w = (struct hesper_work){.kind = HESPER_WORK_REGION, .name = "frame", .timed = true, .clamped = true};
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	const struct hesper_kernel *r = hesper_kernel_table_find(p.regions, "frame");
	ck_assert_uint_eq(r->count, 1);
	ck_assert_uint_eq(r->timed.count, 0);
	ck_assert_uint_eq(p.clamped, 3);
	ck_assert_uint_eq(p.dropped, 0);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(batches)
{
	struct hesper_profile p;

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	struct hesper_work w = {.kind = HESPER_WORK_BATCH, .count = 1, .timed = true, .ns = 300, .queue = 0};
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), -1); /* no such queue */
	struct hesper_queue_info *q = hesper_profile_queue(&p, 0, 0, 0);
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	struct hesper_gap g = {.length_ns = 50, .other_ns = 50};
	w.gap = &g;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	ck_assert_uint_eq(q->timed_batches, 2);
	ck_assert_uint_eq(q->idle_ns, 50);
	ck_assert_uint_eq(q->gap_count, 1);
	ck_assert_uint_eq(q->gaps[0].length_ns, 50);
	ck_assert_uint_eq(p.submits.count, 2);
	ck_assert_uint_eq(p.submits.total_ns, 600);
	hesper_profile_free(&p);
}
END_TEST

/*
 * The same dispatches into a profile grouped by @g, through a rows cache per kernel as the
 * collector keeps it across shapes and labels: direct ones of two shapes, indirect ones read back and
 * not, untimed and dropped ones, of two kernels under two labels and none.
 */
static void
add_mixed(struct hesper_profile *p, enum hesper_group_by g)
{
	static const char *const labels[] = {"lab", NULL, "other"};
	static const uint32_t shapes[][3] = {{4, 1, 1}, {2, 3, 1}, {0, 0, 0}, {0, 0, 0}};
	struct hesper_work_rows rows[2] = {{0}}; /* one per kernel, as the collector keeps them */

	ck_assert_int_eq(hesper_profile_init(p), 0);
	p->group_by = g;
	for (unsigned i = 0; i < 48; i++) {
		struct hesper_work w = dispatch(&rows[i % 5 == 4]);
		w.name = i % 5 == 4 ? "k2" : "k";
		w.label = labels[i % 3];
		memcpy(w.groups, shapes[i % 4], sizeof(w.groups));
		w.groups_read_back = i % 4 == 3; /* read back as 0 0 0: known */
		w.ns = 100 + i;
		if (i % 7 == 6) {
			w.timed = false;
			w.count = 3;
			w.dropped = i % 2;
		}
		ck_assert_int_eq(hesper_profile_add_work(p, &w), 0);
	}
}

/* The sum of @p's rows of @kernel: count, timed, total; returns the number of rows. */
static size_t
sum_rows(const struct hesper_profile *p, const char *kernel, uint64_t *count, uint64_t *timed, uint64_t *total)
{
	size_t cursor = 0, n = 0;
	struct hesper_kernel *k;

	*count = *timed = *total = 0;
	while ((k = hesper_kernel_table_next(p->kernels, &cursor))) {
		const char *slash = strrchr(k->name, '/'), *base = slash ? slash + 1 : k->name;
		size_t len = strcspn(base, " ");
		if (strlen(kernel) != len || strncmp(base, kernel, len) != 0)
			continue;
		*count += k->count;
		*timed += k->timed.count;
		*total += k->timed.total_ns;
		n++;
	}
	return n;
}

START_TEST(grouped_rows_add_up)
{
	struct hesper_profile by_kernel, grouped;

	add_mixed(&by_kernel, HESPER_GROUP_BY_KERNEL);
	add_mixed(&grouped, (enum hesper_group_by)_i);
	for (unsigned i = 0; i < 2; i++) {
		const char *name = i ? "k2" : "k";
		const struct hesper_kernel *k = hesper_kernel_table_find(by_kernel.kernels, name);
		uint64_t count, timed, total;
		size_t n = sum_rows(&grouped, name, &count, &timed, &total);
		ck_assert_ptr_nonnull(k);
		ck_assert_uint_eq(count, k->count);
		ck_assert_uint_eq(timed, k->timed.count);
		ck_assert_uint_eq(total, k->timed.total_ns);
		ck_assert_uint_gt(n, 1);
	}
	ck_assert_uint_eq(grouped.dropped, by_kernel.dropped);
	if (_i == HESPER_GROUP_BY_SHAPE) {
		/* 4x1x1, 2x3x1, [?] and the read-back 0x0x0 of each kernel */
		ck_assert_uint_eq(hesper_kernel_table_size(grouped.kernels), 8);
		ck_assert_ptr_nonnull(hesper_kernel_table_find(grouped.kernels, "k [?]"));
		ck_assert_ptr_nonnull(hesper_kernel_table_find(grouped.kernels, "k [0\u00d70\u00d70]"));
		ck_assert_ptr_nonnull(hesper_kernel_table_find(grouped.kernels, "k2 [2\u00d73\u00d71]"));
		/* a shape row has the one shape */
		const struct hesper_kernel *r = hesper_kernel_table_find(grouped.kernels, "k [4\u00d71\u00d71]");
		ck_assert_uint_eq(r->shapes.known, r->count);
		ck_assert_uint_eq(r->shapes.min[0], 4);
		ck_assert_uint_eq(r->shapes.max[0], 4);
		/* the under-filled rows are the kernel rows' (the finding reads them side by side) */
		ck_assert_ptr_nonnull(hesper_kernel_table_find(grouped.underfilled, "k [4\u00d71\u00d71]"));
		ck_assert_ptr_null(hesper_kernel_table_find(grouped.underfilled, "k"));
	} else {
		ck_assert_uint_eq(hesper_kernel_table_size(grouped.kernels), 6);
		ck_assert_ptr_nonnull(hesper_kernel_table_find(grouped.kernels, "k"));
		ck_assert_ptr_nonnull(hesper_kernel_table_find(grouped.kernels, "other/k2"));
		/* kernels_by_label is the same either way */
		ck_assert_uint_eq(hesper_kernel_table_size(grouped.labelled),
				  hesper_kernel_table_size(by_kernel.labelled));
	}
	hesper_profile_free(&by_kernel);
	hesper_profile_free(&grouped);
}
END_TEST

START_TEST(dispatch_row_per_grouping)
{
	struct hesper_profile p;
	struct hesper_work w = dispatch(NULL);

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	ck_assert_str_eq(hesper_profile_dispatch_row(&p, &w)->name, "k");
	p.group_by = HESPER_GROUP_BY_SHAPE;
	ck_assert_str_eq(hesper_profile_dispatch_row(&p, &w)->name, "k [4\u00d71\u00d71]");
	p.group_by = HESPER_GROUP_BY_LABEL;
	ck_assert_str_eq(hesper_profile_dispatch_row(&p, &w)->name, "lab/k");
	w.name = NULL;
	ck_assert_ptr_null(hesper_profile_dispatch_row(&p, &w));
	hesper_profile_free(&p);
}
END_TEST

/* What the timeline was handed: every event, copied (names are the profile's). */
static struct hesper_trace_event kept[8];
static size_t kept_count;

static void
keep(struct hesper_profile *p, const struct hesper_trace_event *e)
{
	(void)p;
	ck_assert_uint_lt(kept_count, sizeof(kept) / sizeof(kept[0]));
	kept[kept_count++] = *e;
}

START_TEST(traced_work_handed_once)
{
	struct hesper_profile p;
	struct hesper_work w = dispatch(NULL);
	struct hesper_work_place at = {
		.traced = true, .device = 0, .queue = 0, .start_ns = 5000, .command_buffer = 77, .submission = 3};

	ck_assert_int_eq(hesper_profile_init(&p), 0);
	p.group_by = HESPER_GROUP_BY_SHAPE;
	p.keep_event = keep;
	kept_count = 0;
	/* Not traced: counted only. */
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	ck_assert_uint_eq(kept_count, 0);
	/* Traced: one event, under its row's name, ending its time after its start. */
	w.at = at;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	ck_assert_uint_eq(kept_count, 1);
	ck_assert_int_eq(kept[0].kind, HESPER_TRACE_DISPATCH);
	ck_assert_str_eq(kept[0].name, "k [4\u00d71\u00d71]");
	ck_assert_uint_eq(kept[0].start_ns, 5000);
	ck_assert_uint_eq(kept[0].end_ns, 6000);
	ck_assert_uint_eq(kept[0].groups[0], 4);
	ck_assert_uint_eq(kept[0].local_size[0], 64);
	ck_assert_uint_eq(kept[0].command_buffer, 77);
	ck_assert_uint_eq(kept[0].submission, 3);
	/* Clamped or untimed: no time, no event. */
	w.clamped = true;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	w.clamped = false;
	w.timed = false;
	w.count = 2;
	ck_assert_int_eq(hesper_profile_add_work(&p, &w), 0);
	ck_assert_uint_eq(kept_count, 1);
	/* A memory operation under its kind's name with its bytes; a region under its label. */
	struct hesper_work m = {.kind = HESPER_WORK_MEMORY_OP,
				.count = 1,
				.timed = true,
				.ns = 10,
				.memop = HESPER_MEMOP_FILL_BUFFER,
				.bytes = 4096,
				.sized = true,
				.at = at};
	struct hesper_work r = {
		.kind = HESPER_WORK_REGION, .count = 1, .timed = true, .ns = 20, .name = "frame", .at = at};
	ck_assert_int_eq(hesper_profile_add_work(&p, &m), 0);
	ck_assert_int_eq(hesper_profile_add_work(&p, &r), 0);
	ck_assert_uint_eq(kept_count, 3);
	ck_assert_int_eq(kept[1].kind, HESPER_TRACE_MEMORY_OP);
	ck_assert_str_eq(kept[1].name, "fill_buffer");
	ck_assert_uint_eq(kept[1].bytes, 4096);
	ck_assert_uint_eq(kept[1].end_ns, 5010);
	ck_assert_int_eq(kept[2].kind, HESPER_TRACE_REGION);
	ck_assert_str_eq(kept[2].name, "frame");
	ck_assert_uint_eq(kept[2].end_ns, 5020);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
profile_work_suite(void)
{
	Suite *s = suite_create("profile_work");
	TCase *tc = tcase_create("hesper_profile_add_work");

	tcase_add_test(tc, dispatch_rows);
	tcase_add_test(tc, dispatch_share);
	tcase_add_test(tc, dispatch_shapes);
	tcase_add_test(tc, work_groups_per_us);
	tcase_add_test(tc, memory_ops_and_regions);
	tcase_add_test(tc, clamped_counted_not_measured);
	tcase_add_test(tc, batches);
	tcase_add_test(tc, traced_work_handed_once);
	tcase_add_loop_test(tc, grouped_rows_add_up, HESPER_GROUP_BY_SHAPE, HESPER_GROUP_BY_LABEL + 1);
	suite_add_tcase(s, tc);
	tc = tcase_create("hesper_profile_dispatch_row");
	tcase_add_test(tc, dispatch_row_per_grouping);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(profile_work_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
