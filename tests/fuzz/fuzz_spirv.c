/*
 * libFuzzer target: hesper_spirv_parse and hesper_spirv_kernel_name on arbitrary bytes.
 * The input is copied into a buffer of exactly its size (and, in turn, at an odd
 * address), so AddressSanitizer sees any read past the end, and every result is
 * checked for the promises spirv.h makes.
 *
 * Built and run by scripts/fuzz; by hand, from the repository root:
 *   clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -Ilayer/record tests/fuzz/fuzz_spirv.c layer/record/spirv.c layer/record/spirv_words.c \
 *     layer/record/spirv_name.c -o fuzz_spirv
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spirv.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static void
check_terminated(const char *s, size_t size)
{
	CHECK(memchr(s, '\0', size) != NULL);
}

/* kernel_name promises NUL-terminated, printable, valid UTF-8 text. */
static void
check_name(const char *buf, size_t size)
{
	size_t len;

	check_terminated(buf, size);
	len = strlen(buf);
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)buf[i];
		size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

		CHECK(c >= 0x20 && c != 0x7f);
		CHECK(c < 0x80 || c >= 0xc2);
		CHECK(i + n <= len);
		for (size_t k = 1; k < n; k++)
			CHECK(((unsigned char)buf[i + k] & 0xc0) == 0x80);
		i += n;
	}
}

static void
names(const struct hesper_spirv_info *info, const char *entry)
{
	static const size_t sizes[] = {1, 2, 5, 9, 10, 11, 17, 64, 140, 300};
	char full[600];

	hesper_spirv_kernel_name(info, entry, full, sizeof full);
	check_name(full, sizeof full);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t size = sizes[i];
		char *buf = malloc(size);

		if (!buf)
			return;
		hesper_spirv_kernel_name(info, entry, buf, size);
		check_name(buf, size);
		/* The hash suffix is kept whole whenever it fits. */
		if (size >= 10 && strlen(full) >= 9)
			CHECK(strcmp(buf + strlen(buf) - 9, full + strlen(full) - 9) == 0);
		free(buf);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hesper_spirv_info info, again;
	unsigned char *exact = malloc(size ? size : 1);
	unsigned char *odd = malloc(size + 1);
	int rc;

	if (!exact || !odd) {
		free(exact);
		free(odd);
		return 0;
	}
	memcpy(exact, data, size);
	memcpy(odd + 1, data, size);

	rc = hesper_spirv_parse(exact, size, &info);
	CHECK(rc == 0 || rc == -1);
	CHECK(info.entry_count <= HESPER_SPIRV_MAX_ENTRIES);
	check_terminated(info.source_file, sizeof info.source_file);
	for (uint32_t i = 0; i < info.entry_count; i++) {
		check_terminated(info.entries[i].name, sizeof info.entries[i].name);
		check_terminated(info.entries[i].function_name, sizeof info.entries[i].function_name);
	}
	if (rc == -1)
		CHECK(info.entry_count == 0 && info.source_file[0] == '\0');

	/* Same bytes at an unaligned address: same result. */
	CHECK(hesper_spirv_parse(odd + 1, size, &again) == rc);
	CHECK(memcmp(&info, &again, sizeof info) == 0);

	for (uint32_t i = 0; i < info.entry_count; i++)
		names(&info, info.entries[i].name);
	names(&info, "main");
	names(&info, "");
	names(NULL, "main");

	/* An entry point name taken from the input's tail, as an application might pass. */
	size_t n = size < 200 ? size : 200;
	char *entry = malloc(n + 1);

	if (entry) {
		memcpy(entry, data + size - n, n);
		entry[n] = '\0';
		names(&info, entry);
		free(entry);
	}

	free(exact);
	free(odd);
	return 0;
}
