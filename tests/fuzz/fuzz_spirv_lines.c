/*
 * libFuzzer target: hesper_spirv_lines_read on arbitrary bytes taken as words. The input is
 * copied into a buffer of exactly its whole words, so AddressSanitizer sees any read past
 * the end; a module that reads must give blocks whose line runs lie in the run table and
 * add up to the block's instructions, and files the runs name.
 *
 * Built and run by scripts/fuzz (seeds: the same as fuzz_spirv's); by hand:
 *   clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -Ilayer/clock tests/fuzz/fuzz_spirv_lines.c layer/clock/spirv_lines.c -o fuzz_spirv_lines
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_lines.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t count = size / 4;
	uint32_t *w = malloc(count ? count * 4 : 1);
	struct hesper_spirv_lines l;

	if (!w)
		return 0;
	memcpy(w, data, count * 4);
	if (hesper_spirv_lines_read(w, count, &l) == NULL) {
		for (size_t b = 0; b < l.block_count; b++) {
			const struct hesper_spirv_block *k = &l.blocks[b];
			uint64_t sum = 0;
			CHECK(k->label_word < k->terminator_word && k->terminator_word < count);
			CHECK(k->first_run + k->runs <= l.run_count);
			for (size_t r = 0; r < k->runs; r++) {
				const struct hesper_spirv_line_run *run = &l.runs[k->first_run + r];
				sum += run->instructions;
				CHECK(!run->file || !hesper_spirv_lines_file(&l, run->file) ||
				      hesper_spirv_lines_file(&l, run->file)->name);
			}
			CHECK(sum == k->instructions);
		}
	} else {
		CHECK(l.block_count == 0 && l.run_count == 0 && l.file_count == 0);
	}
	hesper_spirv_lines_free(&l);
	free(w);
	return 0;
}
