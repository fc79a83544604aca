/*
 * libFuzzer target: hesper_spirv_clock_instrument and hesper_spirv_blocks_instrument on arbitrary bytes. The input is copied
 * into a buffer of exactly its size, so AddressSanitizer sees any read past the end; a
 * module that is instrumented must come out with the magic number, a version of at least
 * 1.3, a larger id bound and whole instructions that tile it exactly. The entry point and
 * set come from the first input byte.
 *
 * Built and run by scripts/fuzz (seeds: the same as fuzz_spirv's); by hand:
 *   clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -Ilayer/clock tests/fuzz/fuzz_spirv_clock.c layer/clock/spirv_clock.c layer/clock/spirv_clock_scan.c \
 *     layer/clock/spirv_clock_code.c layer/clock/spirv_emit.c layer/clock/spirv_blocks.c \
 *     layer/clock/spirv_lines.c -o fuzz_spirv_clock
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_blocks.h"
#include "spirv_clock.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const entries[] = {"main", "kern07", ""};
	uint8_t pick = size ? data[0] : 0;
	unsigned char *copy = malloc(size ? size : 1);
	uint32_t *out = NULL;
	size_t words = 0;
	const char *why = NULL;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	/* a module starts with 0x03: entry "main", set 1 (set 0 is the test shaders' own) */
	struct hesper_clock_target t = {
		.entry = entries[pick % 3], .set = (pick >> 2) ^ 1u, .binding = 0, .group_counts = (pick >> 3) & 1u};
	int r = hesper_spirv_clock_instrument(copy, size, &t, &out, &words, &why);
	if (r == 0) {
		CHECK(out && words > 5 && why == NULL);
		CHECK(out[0] == 0x07230203u && out[1] >= 0x00010300u);
		uint32_t in_bound;
		memcpy(&in_bound, copy + 12, 4);
		CHECK(out[3] > in_bound);
		size_t i = 5;
		while (i < words) {
			uint32_t n = out[i] >> 16;
			CHECK(n != 0 && n <= words - i);
			i += n;
		}
		CHECK(i == words);
	} else {
		CHECK(r == -1 && out == NULL && words == 0 && why != NULL);
	}
	free(out);
	/* the same input through the block-counting rewrite (spirv_blocks.h) */
	struct hesper_blocks_target bt = {.entry = t.entry, .set = t.set, .binding = 0, .subgroup_clock = pick & 1u};
	uint32_t blocks = 0;
	out = NULL;
	words = 0;
	r = hesper_spirv_blocks_instrument(copy, size, &bt, &out, &words, &blocks, &why);
	if (r == 0) {
		CHECK(out && words > 5 && why == NULL && blocks > 0 && blocks <= HESPER_BLOCKS_MAX);
		size_t i = 5;
		while (i < words) {
			uint32_t n = out[i] >> 16;
			CHECK(n != 0 && n <= words - i);
			i += n;
		}
		CHECK(i == words);
	} else {
		CHECK(r == -1 && out == NULL && words == 0 && blocks == 0 && why != NULL);
	}
	free(out);
	free(copy);
	return 0;
}
