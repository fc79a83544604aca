/*
 * Unit tests for layer/clock/spirv_clock*.c and spirv_emit.c: every test shader (compiled by
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

#include "spirv_clock.h"

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

/* Instruments @path's module at (@set, 0) for entry "main", with group counts when @counts; asserts success. */
static uint32_t *
instrument_file(const char *path, uint32_t set, bool counts, size_t *count)
{
	size_t size = 0;
	uint32_t *code = read_file(path, &size);
	struct hesper_clock_target t = {
		.entry = "main", .set = set, .binding = 0, .group_counts = counts, .row_words = 2064};
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
		for (uint32_t variant = 0; variant < 4; variant++) {
			uint32_t set = variant & 1 ? 7 : 1;
			bool counts = variant >= 2;
			size_t count = 0;
			uint32_t *out = instrument_file(shaders[k], set, counts, &count);

			ck_assert_msg(validate(out, count) == 0, "instrumented %s (set %u, counts %d) fails spirv-val",
				      shaders[k], set, counts);
			ck_assert_int_eq(count_op(out, count, 5056 /* OpReadClockKHR */), 1 + returns);
			/* per return: ~start and end, and with the counts x | y << 32 and z */
			ck_assert_int_eq(count_op(out, count, 239 /* OpAtomicUMax */) - count_op(orig, size / 4, 239),
					 (counts ? 4 : 2) * returns);
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

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_shader_validates);
	tcase_add_test(tc, broken_rewrite_fails_validation);
	tcase_add_test(tc, instrumenting_twice_reuses_types);
	tcase_add_test(tc, refusals_have_reasons);
	tcase_add_test(tc, program_set_is_refused);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
