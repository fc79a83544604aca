/*
 * Unit tests for layer/clock/spirv_clock*.c, spirv_blocks.c and spirv_emit.c: every test shader (compiled by
 * glslc at build, given as arguments after the path of spirv-val) is instrumented and
 * the result must pass spirv-val (Vulkan 1.1 rules, 1.2 for SPIR-V 1.4-1.5); a broken
 * rewrite must fail it; refusals give reasons.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spirv_blocks.h"
#include "spirv_clock.h"
#include "spirv_lines.h"

static const char *spirv_val;
static char **shaders;
static int shader_count;

/* Reads a whole file; NULL when it cannot. */
static uint32_t *
read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint32_t *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0)
		goto out;
	buf = malloc((size_t)len);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	*size = (size_t)len;
out:
	fclose(f);
	return buf;
}

/* Runs spirv-val on @words under the oldest Vulkan that takes its SPIR-V version; returns its exit status. */
static int
validate(const uint32_t *words, size_t count)
{
	char path[] = "/tmp/hesper_clock_XXXXXX";
	char cmd[512];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, words, count * 4), (ssize_t)(count * 4));
	close(fd);
	const char *env = words[1] <= 0x00010300u ? "vulkan1.1" : words[1] <= 0x00010500u ? "vulkan1.2" : "vulkan1.3";
	snprintf(cmd, sizeof cmd, "'%s' --target-env %s '%s'", spirv_val, env, path);
	int status = system(cmd);
	unlink(path);
	return status;
}

/*
 * Instruments @path's module at (@set, 0) for entry "main", with group counts when @counts,
 * for a 32-bit device clock when @narrow; asserts success.
 */
static uint32_t *
instrument_narrow(const char *path, uint32_t set, bool counts, bool narrow, size_t *count)
{
	size_t size = 0;
	uint32_t *code = read_file(path, &size);
	struct hesper_clock_target t = {.entry = "main",
					.set = set,
					.binding = 0,
					.group_counts = counts,
					.row_words = 2064,
					.narrow_clock = narrow};
	uint32_t *out = NULL;
	const char *why = NULL;

	ck_assert_msg(code != NULL, "cannot read %s", path);
	ck_assert_msg(hesper_spirv_clock_instrument(code, size, &t, &out, count, &why) == 0, "%s: %s", path,
		      why ? why : "?");
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_gt(*count, size / 4);
	free(code);
	return out;
}

/* instrument_narrow for a 64-bit device clock. */
static uint32_t *
instrument_file(const char *path, uint32_t set, bool counts, size_t *count)
{
	return instrument_narrow(path, set, counts, false, count);
}

/* Counts OpDecorate ... BuiltIn @builtin (26 WorkgroupId, 24 NumWorkgroups). */
static int
count_builtin(const uint32_t *w, size_t count, uint32_t builtin)
{
	int found = 0;

	for (size_t i = 5; i < count && (w[i] >> 16) != 0; i += w[i] >> 16)
		found += (w[i] & 0xffffu) == 71 && (w[i] >> 16) == 4 && w[i + 2] == 11 && w[i + 3] == builtin;
	return found;
}

/* Counts instructions with opcode @op. */
static int
count_op(const uint32_t *w, size_t count, uint32_t op)
{
	int found = 0;

	for (size_t i = 5; i < count && (w[i] >> 16) != 0; i += w[i] >> 16)
		found += (w[i] & 0xffffu) == op;
	return found;
}

START_TEST(every_shader_validates)
{
	ck_assert_int_gt(shader_count, 0);
	for (int k = 0; k < shader_count; k++) {
		size_t size = 0;
		uint32_t *orig = read_file(shaders[k], &size);

		ck_assert_ptr_nonnull(orig);
		/* the original is valid: a failure below is the rewrite's */
		ck_assert_msg(validate(orig, size / 4) == 0, "original %s invalid", shaders[k]);
		int returns = count_op(orig, size / 4, 253 /* OpReturn */);
		for (uint32_t variant = 0; variant < 8; variant++) {
			uint32_t set = variant & 1 ? 7 : 1;
			bool counts = variant & 2, narrow = variant & 4;
			size_t count = 0;
			uint32_t *out = instrument_narrow(shaders[k], set, counts, narrow, &count);

			ck_assert_msg(validate(out, count) == 0,
				      "instrumented %s (set %u, counts %d, narrow %d) fails spirv-val", shaders[k], set,
				      counts, narrow);
			ck_assert_int_eq(count_op(out, count, 5056 /* OpReadClockKHR */), 1 + returns);
			/*
			 * per return: ~start and end (twice on a narrow clock, the second pair
			 * flipped by OpBitwiseXor), and with the counts x | y << 32 and z
			 */
			ck_assert_int_eq(count_op(out, count, 239 /* OpAtomicUMax */) - count_op(orig, size / 4, 239),
					 ((narrow ? 4 : 2) + (counts ? 2 : 0)) * returns);
			ck_assert_int_eq(count_op(out, count, 198 /* OpBitwiseXor */) - count_op(orig, size / 4, 198),
					 narrow ? 2 * returns : 0);
			ck_assert_int_ge(out[1], 0x00010300u);
			/* the module's own WorkgroupId (workgroup_spv15.spv has one) is reused, not doubled */
			ck_assert_int_eq(count_builtin(out, count, 26), 1);
			/* NumWorkgroups only with the counts (costly to every dispatch), reused where declared */
			int own = count_builtin(orig, size / 4, 24);
			ck_assert_int_eq(count_builtin(out, count, 24), counts ? (own ? own : 1) : own);
			free(out);
		}
		free(orig);
	}
}
END_TEST

START_TEST(broken_rewrite_fails_validation)
{
	size_t count = 0;
	uint32_t *out = instrument_file(shaders[0], 1, true, &count);

	/* Drop the Int64Atomics capability: the 64-bit atomics become invalid. */
	for (size_t i = 5; i < count; i += out[i] >> 16) {
		if ((out[i] & 0xffffu) == 17 && out[i + 1] == 12) {
			out[i + 1] = 1; /* Shader: harmless duplicate */
			break;
		}
	}
	ck_assert_int_ne(validate(out, count), 0);
	free(out);
}
END_TEST

START_TEST(instrumenting_twice_reuses_types)
{
	/* The second pass finds the first pass's uint64, bool and pointer and must reuse them. */
	size_t count = 0;
	uint32_t *once = instrument_file(shaders[0], 1, true, &count);
	struct hesper_clock_target t = {
		.entry = "main", .set = 2, .binding = 0, .group_counts = true, .row_words = 2064};
	uint32_t *twice = NULL;
	size_t twice_count = 0;
	const char *why = NULL;

	ck_assert_int_eq(hesper_spirv_clock_instrument(once, count * 4, &t, &twice, &twice_count, &why), 0);
	ck_assert_int_eq(validate(twice, twice_count), 0);
	ck_assert_int_eq(count_op(twice, twice_count, 21 /* OpTypeInt */), count_op(once, count, 21));
	free(once);
	free(twice);
}
END_TEST

START_TEST(refusals_have_reasons)
{
	size_t size = 0;
	uint32_t *code = read_file(shaders[0], &size);
	struct hesper_clock_target t = {.entry = "no_such_entry", .set = 1, .binding = 0};
	uint32_t *out = NULL;
	size_t count = 0;
	const char *why = NULL;

	ck_assert_ptr_nonnull(code);
	ck_assert_int_eq(hesper_spirv_clock_instrument(code, size, &t, &out, &count, &why), -1);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(why, "no compute entry point of that name");

	t.entry = "main";
	ck_assert_int_eq(hesper_spirv_clock_instrument(code, 12, &t, &out, &count, &why), -1);
	ck_assert_str_eq(why, "not SPIR-V");
	ck_assert_int_eq(hesper_spirv_clock_instrument(code, size - 2, &t, &out, &count, &why), -1);

	/* an instruction of zero words */
	uint32_t saved = code[5];
	code[5] = 0; /* the first instruction's word count */
	ck_assert_int_eq(hesper_spirv_clock_instrument(code, size, &t, &out, &count, &why), -1);
	ck_assert_str_eq(why, "malformed SPIR-V");
	code[5] = saved;

	/* byte-swapped */
	code[0] = 0x03022307u;
	ck_assert_int_eq(hesper_spirv_clock_instrument(code, size, &t, &out, &count, &why), -1);
	ck_assert_str_eq(why, "byte-swapped SPIR-V");
	free(code);
}
END_TEST

START_TEST(program_set_is_refused)
{
	/* Test shaders with buffers use set 0, binding 0. */
	for (int k = 0; k < shader_count; k++) {
		size_t size = 0;
		uint32_t *code = read_file(shaders[k], &size);
		struct hesper_clock_target t = {.entry = "main", .set = 0, .binding = 0, .row_words = 2064};
		uint32_t *out = NULL;
		size_t count = 0;
		const char *why = NULL;

		ck_assert_ptr_nonnull(code);
		if (strstr(shaders[k], "empty") == NULL) {
			ck_assert_int_eq(hesper_spirv_clock_instrument(code, size, &t, &out, &count, &why), -1);
			ck_assert_str_eq(why, "the module already uses Hesper's descriptor binding");
		}
		free(out);
		free(code);
	}
}
END_TEST

/* Lane pairs of one slot as the GPU leaves them: (~start, end) at @row words apart. */
enum { FOLD_ROW = 4 };

/* Folds the readings (@starts[i], @ends[i]) of @n subgroups into @slot as the rewrite does for @narrow. */
static void
gpu_fold(uint64_t *slot, const uint64_t *starts, const uint64_t *ends, size_t n, bool narrow)
{
	memset(slot, 0, HESPER_CLOCK_LANES * FOLD_ROW * sizeof(*slot));
	for (size_t i = 0; i < n; i++) {
		uint32_t lane = (uint32_t)i % (narrow ? HESPER_CLOCK_LANES / 2 : HESPER_CLOCK_LANES);
		for (int half = 0; half < (narrow ? 2 : 1); half++) {
			uint64_t flip = half ? 1ull << 31 : 0;
			uint64_t *pair = slot + (lane + half * HESPER_CLOCK_LANES / 2) * FOLD_ROW;
			uint64_t inverted = ~(starts[i] ^ flip), end = ends[i] ^ flip;
			pair[0] = inverted > pair[0] ? inverted : pair[0];
			pair[1] = end > pair[1] ? end : pair[1];
		}
	}
}

START_TEST(narrow_clock_folds_across_its_wrap)
{
	const uint64_t mask = 0xffffffffull;
	uint64_t slot[HESPER_CLOCK_LANES * FOLD_ROW];
	uint64_t first = 0, last = 0;

	/* Where the 32-bit clock wraps: the dispatch starts 300 ticks before it, ends 700 after. */
	for (uint64_t base = 0; base < 4; base++) {
		/* the dispatch's origin, near each of the two clocks' wraps and away from both */
		uint64_t origin = (base * (1ull << 30) + mask - 299) & mask;
		uint64_t starts[40], ends[40];
		for (size_t i = 0; i < 40; i++) {
			starts[i] = (origin + 10 * i) & mask;
			ends[i] = (origin + 10 * i + 610) & mask;
		}
		gpu_fold(slot, starts, ends, 40, true);
		ck_assert(hesper_clock_fold_slot(slot, FOLD_ROW, true, mask, &first, &last));
		ck_assert_uint_eq(first, origin);
		ck_assert_uint_eq(last, (origin + 390 + 610) & mask);
		ck_assert_uint_eq((last - first) & mask, 1000);

		/* the same readings folded once per subgroup, as on a wide clock: wrong across the wrap */
		gpu_fold(slot, starts, ends, 40, false);
		ck_assert(hesper_clock_fold_slot(slot, FOLD_ROW, false, UINT64_MAX, &first, &last));
		if (base == 0)
			ck_assert_uint_ne((last - first) & mask, 1000);
	}

	/* a wide clock keeps its values whole */
	uint64_t s64[2] = {0x123456789000ull, 0x123456789100ull}, e64[2] = {0x123456789050ull, 0x123456789300ull};
	gpu_fold(slot, s64, e64, 2, false);
	ck_assert(hesper_clock_fold_slot(slot, FOLD_ROW, false, UINT64_MAX, &first, &last));
	ck_assert_uint_eq(first, 0x123456789000ull);
	ck_assert_uint_eq(last, 0x123456789300ull);

	/* nothing written: no time */
	memset(slot, 0, sizeof(slot));
	ck_assert(!hesper_clock_fold_slot(slot, FOLD_ROW, true, mask, &first, &last));
	ck_assert(!hesper_clock_fold_slot(slot, FOLD_ROW, false, UINT64_MAX, &first, &last));
}
END_TEST

/*
 * A reading of exactly 0 on either half of a narrow clock (0 itself, or 2^31 on the flipped
 * half) folds into an all-ones ~start, the results' unwritten mark: the slot was copied and
 * its times hold. Only a lane with both words all ones was not copied.
 */
START_TEST(reading_at_zero_is_not_a_missing_copy)
{
	const uint64_t mask = 0xffffffffull;
	uint64_t slot[HESPER_CLOCK_LANES * FOLD_ROW];
	uint64_t first = 0, last = 0;

	for (uint64_t zero = 0; zero <= 1ull << 31; zero += 1ull << 31) {
		/* one subgroup starts at the half's zero, another ends there, a third later */
		uint64_t starts[3] = {zero, (zero - 50) & mask, (zero + 10) & mask};
		uint64_t ends[3] = {(zero + 400) & mask, zero, (zero + 600) & mask};
		gpu_fold(slot, starts, ends, 3, true);
		ck_assert(hesper_clock_slot_copied(slot, FOLD_ROW));
		ck_assert(hesper_clock_fold_slot(slot, FOLD_ROW, true, mask, &first, &last));
		ck_assert_uint_eq(first, (zero - 50) & mask);
		ck_assert_uint_eq(last, (zero + 600) & mask);
		/* a dispatch of one subgroup that started at zero is timed, not dropped */
		gpu_fold(slot, starts, ends, 1, true);
		ck_assert(hesper_clock_slot_copied(slot, FOLD_ROW));
		ck_assert(hesper_clock_fold_slot(slot, FOLD_ROW, true, mask, &first, &last));
		ck_assert_uint_eq(first, zero);
		ck_assert_uint_eq(last, zero + 400);
		/* and one whose only reading ended there */
		gpu_fold(slot, starts + 1, ends + 1, 1, true);
		ck_assert(hesper_clock_fold_slot(slot, FOLD_ROW, true, mask, &first, &last));
		ck_assert_uint_eq((last - first) & mask, 50);
	}
	/* a wide clock that read 0 */
	uint64_t s0 = 0, e0 = 900;
	gpu_fold(slot, &s0, &e0, 1, false);
	ck_assert(hesper_clock_slot_copied(slot, FOLD_ROW));
	ck_assert(hesper_clock_fold_slot(slot, FOLD_ROW, false, UINT64_MAX, &first, &last));
	ck_assert_uint_eq(first, 0);
	ck_assert_uint_eq(last, 900);

	/* a lane is written by its ~start word alone: an end of 0 is a reading */
	uint64_t lane[2] = {~0ull ^ 5, 0};
	ck_assert(hesper_clock_lane_written(lane));
	lane[0] = 0;
	lane[1] = 7;
	ck_assert(!hesper_clock_lane_written(lane));

	/* the copy never came: every word still marked */
	memset(slot, 0xff, sizeof(slot));
	ck_assert(!hesper_clock_slot_copied(slot, FOLD_ROW));
	/* one lane left marked is enough to say so */
	uint64_t s1 = 1000, e1 = 2000;
	gpu_fold(slot, &s1, &e1, 1, false);
	slot[5 * FOLD_ROW] = slot[5 * FOLD_ROW + 1] = UINT64_MAX;
	ck_assert(!hesper_clock_slot_copied(slot, FOLD_ROW));
}
END_TEST

START_TEST(reading_moved_to_its_command_buffer)
{
	const double period = 4294967296.0; /* a 32-bit nanosecond clock's, in 1 ns ticks */

	/* inside, or just past the end (lavapipe writes the end before its last threads finish): as it is */
	ck_assert_double_eq(hesper_clock_nearest(1e9, 3e9, period), 1e9);
	ck_assert_double_eq(hesper_clock_nearest(3e9 + 5e5, 3e9, period), 3e9 + 5e5);
	ck_assert_double_eq(hesper_clock_nearest(-2e3, 3e9, period), -2e3);
	/* a reading of a 4 s command buffer placed a period early or late: moved into it */
	ck_assert_double_eq(hesper_clock_nearest(2.5e9 - period, 4e9, period), 2.5e9);
	ck_assert_double_eq(hesper_clock_nearest(3.5e9 - period, 4e9, period), 3.5e9);
	ck_assert_double_eq(hesper_clock_nearest(1e9 + 2 * period, 4e9, period), 1e9);
	ck_assert_double_eq(hesper_clock_nearest(1e9 + period, 1e9, period), 1e9);
	/* longer than a period, a reading inside is left as it is: the chain of anchors places those */
	ck_assert_double_eq(hesper_clock_nearest(5.5e9 - period, 6e9, period), 5.5e9 - period);
	/* no period: as it is */
	ck_assert_double_eq(hesper_clock_nearest(-5e9, 1e9, 0), -5e9);
}
END_TEST

/*
 * Per-line counting (spirv_blocks.c): every test shader instrumented with either clock
 * passes spirv-val, counts the blocks spirv_lines.c reads, reads the clock twice a block
 * and adds the sums to the buffer at each return.
 */
START_TEST(every_shader_counts_its_blocks)
{
	for (int k = 0; k < shader_count; k++) {
		size_t size = 0;
		uint32_t *orig = read_file(shaders[k], &size);
		struct hesper_spirv_lines lines;

		ck_assert_ptr_nonnull(orig);
		ck_assert_ptr_null(hesper_spirv_lines_read(orig, size / 4, &lines));
		int returns = count_op(orig, size / 4, 253 /* OpReturn */);
		int atomics = count_op(orig, size / 4, 234), sums = count_op(orig, size / 4, 349);
		for (int subgroup = 0; subgroup < 2; subgroup++) {
			struct hesper_blocks_target t = {
				.entry = "main", .set = 7, .binding = 0, .subgroup_clock = subgroup};
			uint32_t *out = NULL, blocks = 0;
			size_t count = 0;
			const char *why = NULL;

			ck_assert_msg(hesper_spirv_blocks_instrument(orig, size, &t, &out, &count, &blocks, &why) == 0,
				      "%s: %s", shaders[k], why ? why : "?");
			ck_assert_msg(validate(out, count) == 0,
				      "block-counting %s (subgroup clock %d) fails spirv-val", shaders[k], subgroup);
			ck_assert_uint_eq(blocks, lines.block_count);
			/* two per block, and one per return to pick the copy of the counters */
			ck_assert_int_eq(count_op(out, count, 5056 /* OpReadClockKHR */), 2 * (int)blocks + returns);
			/*
			 * per return, one loop over the bits' words (their OR over the subgroup, the
			 * first before it) and their set bits: two subgroup sums, two atomicAdds, a
			 * bit count
			 */
			ck_assert_int_eq(count_op(out, count, 360 /* OpGroupNonUniformBitwiseOr */),
					 count_op(orig, size / 4, 360) + 2 * returns);
			ck_assert_int_eq(count_op(out, count, 246 /* OpLoopMerge */),
					 count_op(orig, size / 4, 246) + returns);
			ck_assert_int_eq(count_op(out, count, 205 /* OpBitCount */),
					 count_op(orig, size / 4, 205) + returns);
			ck_assert_int_eq(count_op(out, count, 234 /* OpAtomicIAdd */), atomics + 2 * returns);
			ck_assert_int_eq(count_op(out, count, 349 /* OpGroupNonUniformIAdd */), sums + 2 * returns);
			free(out);
		}
		hesper_spirv_lines_free(&lines);
		free(orig);
	}
}
END_TEST

START_TEST(block_counting_refusals)
{
	size_t size = 0;
	uint32_t *code = read_file(shaders[0], &size), *out = NULL, blocks = 7;
	size_t count = 3;
	const char *why = NULL;
	struct hesper_blocks_target t = {.entry = "main", .set = 7};

	ck_assert_ptr_nonnull(code);
	ck_assert_int_eq(hesper_spirv_blocks_instrument(code, 12, &t, &out, &count, &blocks, &why), -1);
	ck_assert_str_eq(why, "not SPIR-V");
	ck_assert(out == NULL && count == 0 && blocks == 0);
	t.entry = "nope";
	ck_assert_int_eq(hesper_spirv_blocks_instrument(code, size, &t, &out, &count, &blocks, &why), -1);
	ck_assert_str_eq(why, "no compute entry point of that name");
	/* the program's own binding: the first shader uses set 0, binding 0 */
	t.entry = "main";
	t.set = 0;
	ck_assert_int_eq(hesper_spirv_blocks_instrument(code, size, &t, &out, &count, &blocks, &why), -1);
	ck_assert_str_eq(why, "the module already uses Hesper's descriptor binding");
	free(code);
}
END_TEST

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s SPIRV-VAL SHADER.spv...\n", argv[0]);
		return 2;
	}
	spirv_val = argv[1];
	shaders = argv + 2;
	shader_count = argc - 2;

	Suite *s = suite_create("spirv_clock");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_shader_validates);
	tcase_add_test(tc, broken_rewrite_fails_validation);
	tcase_add_test(tc, instrumenting_twice_reuses_types);
	tcase_add_test(tc, refusals_have_reasons);
	tcase_add_test(tc, program_set_is_refused);
	tcase_add_test(tc, narrow_clock_folds_across_its_wrap);
	tcase_add_test(tc, reading_at_zero_is_not_a_missing_copy);
	tcase_add_test(tc, reading_moved_to_its_command_buffer);
	tcase_add_test(tc, every_shader_counts_its_blocks);
	tcase_add_test(tc, block_counting_refusals);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
