/* Helpers the report writers' unit tests share: a profile whose every number is known, rendering to a string. */
#ifndef HESPER_TEST_REPORT_FIXTURES_H
#define HESPER_TEST_REPORT_FIXTURES_H

#include <check.h>
#include <string.h>

#include "fixtures.h"
#include "write/write.h"

/* A report writer (hesper_report_text, _json, _csv, _trace, _html). */
typedef int (*report_writer)(FILE *, const struct hesper_profile *);

/* What @w writes for @p, as a string the caller frees (its length in *@out_size unless NULL); fails the test when @w fails. */
static inline char *
render_with(report_writer w, const struct hesper_profile *p, size_t *out_size)
{
	struct capture c;

	capture_open(&c);
	ck_assert_int_eq(w(c.f, p), 0);
	capture_close(&c);
	if (out_size)
		*out_size = c.size;
	return c.buf;
}

/* Asserts that @w returns -1 for @p on a stream whose every write fails (/dev/full). */
static inline void
assert_write_error_full(report_writer w, const struct hesper_profile *p)
{
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(w(f, p), -1);
	fclose(f);
}

/* Asserts that @w returns -1 for @p on an unbuffered stream that is full after @bytes bytes. */
static inline void
assert_write_error_after(report_writer w, const struct hesper_profile *p, size_t bytes)
{
	char *buf = malloc(bytes);
	FILE *f;

	ck_assert_ptr_nonnull(buf);
	f = fmemopen(buf, bytes, "w");
	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	ck_assert_int_eq(w(f, p), -1);
	fclose(f);
	free(buf);
}

/*
 * Initializes @p as process @pid of @exe on @host that saw one device, "Test GPU" with
 * driver @driver and 1 ns ticks. Returns its queue 0 (family 0, index 0).
 */
static inline struct hesper_queue_info *
fixture_profile(struct hesper_profile *p, int pid, const char *exe, const char *host, const char *driver)
{
	struct hesper_device_info d = {.timestamp_period_ns = 1};

	ck_assert_int_eq(hesper_profile_init(p), 0);
	p->pid = pid;
	strcpy(p->exe, exe);
	strcpy(p->host, host);
	strcpy(d.name, "Test GPU");
	strcpy(d.driver, driver);
	hesper_profile_add_device(p, &d);
	return hesper_profile_queue(p, 0, 0, 0);
}

/*
 * A small profile whose every number is known: one device, one queue, kernels "matmul"
 * (1000, 2000, 3000 ns) and "softmax" (1000, 1000 ns), region "frame", label row "frame/matmul".
 */
static inline void
fixture_known_profile(struct hesper_profile *p)
{
	struct hesper_queue_info *q = fixture_profile(p, 123, "app", "h", "1.2.3");
	struct hesper_kernel *k;

	p->wall_ns = 2000000000;
	q->timestamp_bits = 64;
	q->submits = 2;
	q->busy_ns = 1000000;

	/* matmul: 1000, 2000, 3000 ns: total 6000, mean 2000, stddev 1000 */
	k = hesper_kernel_table_get(p->kernels, "matmul");
	hesper_kernel_record(k, 1000);
	hesper_kernel_record(k, 2000);
	hesper_kernel_record(k, 3000);
	/* softmax: 1000, 1000: total 2000 */
	k = hesper_kernel_table_get(p->kernels, "softmax");
	hesper_kernel_record(k, 1000);
	hesper_kernel_record(k, 1000);

	k = hesper_kernel_table_get(p->regions, "frame");
	hesper_kernel_record(k, 8000);
	k = hesper_kernel_table_get(p->labelled, "frame/matmul");
	hesper_kernel_record(k, 6000);

	hesper_stats_add(&p->submits, 4000);
	hesper_stats_add(&p->submits, 5000);
	p->timestamps_written = 10;
	p->hook_ns = 1500;
}

/* A statistic @name of @value (UINT64) in *@st. */
static inline void
fixture_stat(struct hesper_pipeline_stat *st, const char *name, uint64_t value)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", name);
	st->format = HESPER_STAT_UINT;
	st->value.u = value;
}

/*
 * fixture_known_profile on an H200 (132 SMs of the NVIDIA model) whose statistics are the
 * driver's: "matmul" 111 registers, no shared memory (occupancy 25%, registers: 8 groups per SM,
 * 1056 fill the device), launched 3 times with 16 work groups; "softmax" 16 registers and 16 KiB
 * (13 groups, 26 warps: shared memory), launched twice with 4×1×1; both 64 invocations a group.
 */
static inline void
fixture_occupancy_profile(struct hesper_profile *p)
{
	struct hesper_pipeline_stat st[3];
	struct hesper_pipeline_stats k = {.executable = "Compute Shader", .subgroup_size = 32, .stats = st, .count = 3};
	static const uint32_t local[3] = {64, 1, 1}, sixteen[3] = {16, 1, 1}, four[3] = {4, 1, 1};

	fixture_known_profile(p);
	strcpy(p->devices[0].name, "NVIDIA H200");
	strcpy(p->devices[0].pipeline_stats, "captured");
	hesper_occupancy_model_nvidia(&p->devices[0].occupancy, 64, 132, 49152);
	memcpy(k.local_size, local, sizeof(local));
	fixture_stat(&st[0], "Register Count", 111);
	fixture_stat(&st[1], "Local Memory Size", 68719476736ull);
	fixture_stat(&st[2], "Shared Memory Size", 0);
	k.kernel = "matmul";
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(p, &k), 0);
	fixture_stat(&st[0], "Register Count", 16);
	fixture_stat(&st[2], "Shared Memory Size", 16384);
	k.kernel = "softmax";
	ck_assert_int_eq(hesper_profile_add_pipeline_stats(p, &k), 0);
	struct hesper_kernel *row = hesper_kernel_table_find(p->kernels, "matmul");
	hesper_shapes_add(&row->shapes, sixteen, 3);
	hesper_shapes_set_local_size(&row->shapes, local, false);
	row = hesper_kernel_table_find(p->kernels, "softmax");
	hesper_shapes_add(&row->shapes, four, 2);
	hesper_shapes_set_local_size(&row->shapes, local, false);
}

/*
 * Clock mode with overlap: "ov_a" ran [0, 30000) ns and "ov_b" [10000, 40000) on one queue,
 * sharing 20,000 ns (shares 20,000 each, spans 30,000 each); "solo" ran 5,000 ns alone.
 * Busy 45,000 ns; the spans add up to 65,000.
 */
static inline void
fixture_overlap_profile(struct hesper_profile *p)
{
	struct hesper_queue_info *q = fixture_profile(p, 321, "ov", "h", "9");

	strcpy(p->mode, "clock");
	p->wall_ns = 1000000;
	q->timestamp_bits = 64;
	q->submits = 1;
	q->busy_ns = 45000;
	hesper_kernel_record_share(hesper_kernel_table_get(p->kernels, "ov_a"), 30000, 20000);
	hesper_kernel_record_share(hesper_kernel_table_get(p->kernels, "ov_b"), 30000, 20000);
	hesper_kernel_record(hesper_kernel_table_get(p->kernels, "solo"), 5000);
}

#endif
