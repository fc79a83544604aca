/*
 * Unit tests for layer/record/spirv.c, spirv_words.c and spirv_name.c: modules are built here
 * word by word (no glslc at test time), then read back whole, cut, byte-swapped,
 * misaligned and broken.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spirv.h"

#define MAGIC 0x07230203u
#define OP_SOURCE 3u
#define OP_NAME 5u
#define OP_STRING 7u
#define OP_ENTRY_POINT 15u
#define OP_MEMORY_MODEL 14u
#define OP_EXECUTION_MODE 16u
#define OP_TYPE_VOID 19u
#define OP_FUNCTION 54u
#define OP_FUNCTION_END 56u

#define GLCOMPUTE 5u
#define VERTEX 0u
#define LANG_GLSL 2u
#define LANG_HLSL 5u

/* A module under construction. */
struct mod {
	uint32_t w[4096];
	size_t n;
	size_t bounds[512]; /* word index where each instruction ends */
	size_t nbounds;
};

static void
mod_header(struct mod *m)
{
	memset(m, 0, sizeof *m);
	m->w[0] = MAGIC;
	m->w[1] = 0x00010300u; /* version 1.3 */
	m->w[2] = 0x00080001u; /* generator */
	m->w[3] = 64;          /* bound */
	m->w[4] = 0;
	m->n = 5;
}

/* Packs @s with its NUL into words at m->w[m->n...]; returns the number of words. */
static size_t
put_string(struct mod *m, const char *s)
{
	size_t len = strlen(s) + 1;
	size_t words = (len + 3) / 4;

	memset(&m->w[m->n], 0, words * 4);
	for (size_t k = 0; k < len; k++)
		m->w[m->n + k / 4] |= (uint32_t)(unsigned char)s[k] << (8 * (k % 4));
	m->n += words;
	return words;
}

/* Emits @op with @npre operand words, then optionally a string, then @npost words. */
static void
emit(struct mod *m, uint32_t op, const uint32_t *pre, size_t npre, const char *str, const uint32_t *post, size_t npost)
{
	size_t start = m->n++;

	for (size_t i = 0; i < npre; i++)
		m->w[m->n++] = pre[i];
	if (str)
		put_string(m, str);
	for (size_t i = 0; i < npost; i++)
		m->w[m->n++] = post[i];
	m->w[start] = (uint32_t)((m->n - start) << 16) | op;
	m->bounds[m->nbounds++] = m->n;
}

static void
entry_point(struct mod *m, uint32_t model, uint32_t id, const char *name)
{
	uint32_t pre[] = {model, id};
	uint32_t interface[] = {7, 8};

	emit(m, OP_ENTRY_POINT, pre, 2, name, interface, 2);
}

static void
op_name(struct mod *m, uint32_t id, const char *name)
{
	emit(m, OP_NAME, &id, 1, name, NULL, 0);
}

static void
op_string(struct mod *m, uint32_t id, const char *s)
{
	emit(m, OP_STRING, &id, 1, s, NULL, 0);
}

static void
op_source(struct mod *m, uint32_t lang, uint32_t file, const char *text)
{
	uint32_t pre[] = {lang, 450, file};

	emit(m, OP_SOURCE, pre, file ? 3 : 2, text, NULL, 0);
}

static void
op_function(struct mod *m, uint32_t id)
{
	uint32_t pre[] = {2, id, 0, 3};

	emit(m, OP_FUNCTION, pre, 4, NULL, NULL, 0);
	emit(m, OP_FUNCTION_END, NULL, 0, NULL, NULL, 0);
}

static void
op_plain(struct mod *m, uint32_t op, uint32_t a, uint32_t b)
{
	uint32_t pre[] = {a, b};

	emit(m, op, pre, 2, NULL, NULL, 0);
}

/* What glslc -g makes of a kernel in @path: entry "main", OpName "main". */
static void
glsl_module(struct mod *m, const char *path)
{
	mod_header(m);
	op_plain(m, OP_MEMORY_MODEL, 0, 1);
	entry_point(m, GLCOMPUTE, 4, "main");
	op_plain(m, OP_EXECUTION_MODE, 4, 17);
	op_string(m, 1, path);
	op_source(m, LANG_GLSL, 1, "#version 450\nvoid main() {}\n");
	op_name(m, 4, "main");
	op_name(m, 9, "Data");
	op_plain(m, OP_TYPE_VOID, 2, 0);
	op_function(m, 4);
}

static size_t
mod_bytes(const struct mod *m)
{
	return m->n * 4;
}

static uint64_t
fnv1a64(const void *data, size_t size)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint32_t
bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static struct hesper_spirv_info
parse_ok(const struct mod *m)
{
	struct hesper_spirv_info info;

	ck_assert_int_eq(hesper_spirv_parse(m->w, mod_bytes(m), &info), 0);
	return info;
}

static void
kernel_name(const struct hesper_spirv_info *info, const char *entry, char *buf, size_t size)
{
	hesper_spirv_kernel_name(info, entry, buf, size);
}

/* "<label>#" followed by 8 lowercase hex digits; returns the label's length. */
static size_t
check_name_form(const char *name, const char *label)
{
	size_t len = strlen(name);

	ck_assert_uint_ge(len, 9);
	ck_assert_int_eq(name[len - 9], '#');
	for (size_t i = len - 8; i < len; i++)
		ck_assert_msg((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'),
			      "not lowercase hex: %s", name);
	if (label) {
		ck_assert_uint_eq(len - 9, strlen(label));
		ck_assert_msg(strncmp(name, label, len - 9) == 0, "%s does not start with %s", name, label);
	}
	return len - 9;
}

/* ---- hesper_spirv_parse: not SPIR-V ---------------------------------------------- */

START_TEST(parse_rejects_short_and_foreign)
{
	struct hesper_spirv_info info;
	struct mod m;
	uint32_t words[5] = {0x12345678u, 1, 2, 3, 4};

	ck_assert_int_eq(hesper_spirv_parse(NULL, 0, &info), -1);
	ck_assert_uint_eq(info.hash, 0xcbf29ce484222325ull); /* FNV-1a of nothing */
	ck_assert_int_eq(hesper_spirv_parse("a", 1, &info), -1);
	ck_assert_uint_eq(info.hash, 0xaf63dc4c8601ec8cull); /* FNV-1a of "a" */
	ck_assert_uint_eq(info.entry_count, 0);

	ck_assert_int_eq(hesper_spirv_parse(words, sizeof words, &info), -1);
	ck_assert_uint_eq(info.hash, fnv1a64(words, sizeof words));
	ck_assert_uint_eq(info.entry_count, 0);
	ck_assert_str_eq(info.source_file, "");

	mod_header(&m);
	/* A valid magic but fewer than the 5 header words. */
	for (size_t size = 0; size < 20; size++)
		ck_assert_int_eq(hesper_spirv_parse(m.w, size, &info), -1);
}
END_TEST

START_TEST(parse_header_only)
{
	struct mod m;
	struct hesper_spirv_info info;

	mod_header(&m);
	info = parse_ok(&m);
	ck_assert_uint_eq(info.entry_count, 0);
	ck_assert_int_eq(info.truncated, 0);
	ck_assert_str_eq(info.source_file, "");
	ck_assert_uint_eq(info.hash, fnv1a64(m.w, 20));
}
END_TEST

/* ---- hesper_spirv_parse: names --------------------------------------------------- */

START_TEST(parse_glsl_module)
{
	struct mod m;
	struct hesper_spirv_info info;

	glsl_module(&m, "/home/u/shaders/blur.comp");
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 0);
	ck_assert_uint_eq(info.entry_count, 1);
	ck_assert_uint_eq(info.entries[0].execution_model, GLCOMPUTE);
	ck_assert_uint_eq(info.entries[0].function_id, 4);
	ck_assert_str_eq(info.entries[0].name, "main");
	ck_assert_str_eq(info.entries[0].function_name, "main");
	ck_assert_str_eq(info.source_file, "blur.comp");
	ck_assert_uint_eq(info.hash, fnv1a64(m.w, mod_bytes(&m)));
}
END_TEST

START_TEST(parse_hlsl_module_with_backslashes)
{
	struct mod m;
	struct hesper_spirv_info info;

	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 3, "CSMain");
	entry_point(&m, GLCOMPUTE, 5, "Blur");
	op_string(&m, 10, "C:\\src\\fx/k.hlsl");
	op_source(&m, LANG_HLSL, 10, NULL);
	op_name(&m, 5, "Blur");
	op_name(&m, 3, "CSMain");
	op_function(&m, 3);
	info = parse_ok(&m);
	ck_assert_uint_eq(info.entry_count, 2);
	ck_assert_str_eq(info.entries[0].name, "CSMain");
	ck_assert_str_eq(info.entries[0].function_name, "CSMain");
	ck_assert_str_eq(info.entries[1].name, "Blur");
	ck_assert_str_eq(info.entries[1].function_name, "Blur");
	ck_assert_str_eq(info.source_file, "k.hlsl");
}
END_TEST

START_TEST(parse_source_file_forms)
{
	struct mod m;
	struct hesper_spirv_info info;

	/* OpSource naming no OpString: no file. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "main");
	op_string(&m, 1, "a.comp");
	op_source(&m, LANG_GLSL, 2, NULL);
	info = parse_ok(&m);
	ck_assert_str_eq(info.source_file, "");

	/* OpSource without a file operand, and one without any operand past the version. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "main");
	op_string(&m, 1, "a.comp");
	op_source(&m, LANG_GLSL, 0, NULL);
	info = parse_ok(&m);
	ck_assert_str_eq(info.source_file, "");
	ck_assert_int_eq(info.truncated, 0);

	/* OpSource ahead of its OpString (invalid order): still found. */
	mod_header(&m);
	op_source(&m, LANG_GLSL, 1, NULL);
	op_string(&m, 1, "late.comp");
	info = parse_ok(&m);
	ck_assert_str_eq(info.source_file, "late.comp");

	/* A file name without directories, a path ending in a separator, the first OpSource. */
	mod_header(&m);
	op_string(&m, 1, "plain.comp");
	op_string(&m, 2, "dir/");
	op_source(&m, LANG_GLSL, 1, "text");
	op_source(&m, LANG_GLSL, 2, NULL);
	info = parse_ok(&m);
	ck_assert_str_eq(info.source_file, "plain.comp");

	mod_header(&m);
	op_string(&m, 2, "dir/");
	op_source(&m, LANG_GLSL, 2, NULL);
	info = parse_ok(&m);
	ck_assert_str_eq(info.source_file, "");

	/* Every separator offset within a word. */
	for (int pad = 0; pad < 8; pad++) {
		char path[32];

		snprintf(path, sizeof path, "%.*s/k.comp", pad + 1, "abcdefghij");
		mod_header(&m);
		op_string(&m, 1, path);
		op_source(&m, LANG_GLSL, 1, NULL);
		info = parse_ok(&m);
		ck_assert_str_eq(info.source_file, "k.comp");
	}
}
END_TEST

START_TEST(parse_function_names)
{
	struct mod m;
	struct hesper_spirv_info info;

	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "main");
	entry_point(&m, GLCOMPUTE, 6, "second");
	op_name(&m, 4, "blur_h");
	op_name(&m, 4, "ignored"); /* the first OpName of a function wins */
	op_name(&m, 5, "not_an_entry");
	op_function(&m, 4);
	op_name(&m, 6, "after_function"); /* past the first OpFunction: not read */
	info = parse_ok(&m);
	ck_assert_uint_eq(info.entry_count, 2);
	ck_assert_str_eq(info.entries[0].function_name, "blur_h");
	ck_assert_str_eq(info.entries[1].function_name, "");
	ck_assert_int_eq(info.truncated, 0);

	/* Huge ids are only compared, never used as indexes. */
	mod_header(&m);
	m.w[3] = 0xffffffffu;
	entry_point(&m, GLCOMPUTE, 0xfffffffeu, "main");
	op_name(&m, 0xfffffffeu, "big");
	info = parse_ok(&m);
	ck_assert_str_eq(info.entries[0].function_name, "big");
}
END_TEST

START_TEST(parse_long_names_are_cut)
{
	struct mod m;
	struct hesper_spirv_info info;
	char name[400];

	memset(name, 'x', 300);
	name[300] = '\0';
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, name);
	op_name(&m, 4, name);
	op_string(&m, 1, name);
	op_source(&m, LANG_GLSL, 1, NULL);
	info = parse_ok(&m);
	ck_assert_uint_eq(strlen(info.entries[0].name), HESPER_SPIRV_NAME_MAX - 1);
	ck_assert_uint_eq(strlen(info.entries[0].function_name), HESPER_SPIRV_NAME_MAX - 1);
	ck_assert_uint_eq(strlen(info.source_file), HESPER_SPIRV_NAME_MAX - 1);

	/* A two-byte character across the cut is left out whole. */
	memset(name, 'x', 300);
	name[126] = (char)0xc3;
	name[127] = (char)0xa9;
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, name);
	info = parse_ok(&m);
	ck_assert_uint_eq(strlen(info.entries[0].name), 126);

	/* A four-byte character ending right at the cut stays. */
	memset(name, 'x', 300);
	memcpy(name + 123, "\xf0\x9f\x98\x80", 4);
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, name);
	info = parse_ok(&m);
	ck_assert_uint_eq(strlen(info.entries[0].name), 127);
	ck_assert_int_eq(memcmp(info.entries[0].name + 123, "\xf0\x9f\x98\x80", 4), 0);
}
END_TEST

START_TEST(parse_many_entry_points)
{
	struct mod m;
	struct hesper_spirv_info info;
	char name[32];

	mod_header(&m);
	for (uint32_t i = 0; i < 3 * HESPER_SPIRV_MAX_ENTRIES; i++) {
		snprintf(name, sizeof name, "k%u", i);
		entry_point(&m, GLCOMPUTE, 100 + i, name);
	}
	for (uint32_t i = 0; i < 3 * HESPER_SPIRV_MAX_ENTRIES; i++) {
		snprintf(name, sizeof name, "f%u", i);
		op_name(&m, 100 + i, name);
	}
	info = parse_ok(&m);
	ck_assert_uint_eq(info.entry_count, HESPER_SPIRV_MAX_ENTRIES);
	ck_assert_int_eq(info.truncated, 0);
	for (uint32_t i = 0; i < HESPER_SPIRV_MAX_ENTRIES; i++) {
		snprintf(name, sizeof name, "k%u", i);
		ck_assert_str_eq(info.entries[i].name, name);
		snprintf(name, sizeof name, "f%u", i);
		ck_assert_str_eq(info.entries[i].function_name, name);
	}

	/* Once full, a compute kernel takes the place of a graphics entry point. */
	mod_header(&m);
	for (uint32_t i = 0; i < HESPER_SPIRV_MAX_ENTRIES + 3; i++) {
		snprintf(name, sizeof name, "vs%u", i);
		entry_point(&m, VERTEX, 100 + i, name);
	}
	entry_point(&m, GLCOMPUTE, 99, "late_kernel");
	op_name(&m, 99, "late_fn");
	info = parse_ok(&m);
	ck_assert_uint_eq(info.entry_count, HESPER_SPIRV_MAX_ENTRIES);
	ck_assert_str_eq(info.entries[0].name, "late_kernel");
	ck_assert_uint_eq(info.entries[0].execution_model, GLCOMPUTE);
	ck_assert_str_eq(info.entries[0].function_name, "late_fn");
	ck_assert_str_eq(info.entries[1].name, "vs1");
}
END_TEST

/* ---- hesper_spirv_parse: byte order and alignment -------------------------------- */

START_TEST(parse_byte_swapped)
{
	struct mod m, swapped;
	struct hesper_spirv_info a, b;

	glsl_module(&m, "dir\\swap.comp");
	swapped = m;
	for (size_t i = 0; i < m.n; i++)
		swapped.w[i] = bswap32(m.w[i]);
	a = parse_ok(&m);
	b = parse_ok(&swapped);
	ck_assert_uint_eq(b.entry_count, 1);
	ck_assert_str_eq(b.entries[0].name, "main");
	ck_assert_str_eq(b.entries[0].function_name, "main");
	ck_assert_uint_eq(b.entries[0].function_id, 4);
	ck_assert_uint_eq(b.entries[0].execution_model, GLCOMPUTE);
	ck_assert_str_eq(b.source_file, "swap.comp");
	ck_assert_int_eq(b.truncated, 0);
	/* Other bytes, another hash. */
	ck_assert_uint_eq(b.hash, fnv1a64(swapped.w, mod_bytes(&swapped)));
	ck_assert_uint_ne(a.hash, b.hash);
}
END_TEST

START_TEST(parse_unaligned)
{
	struct mod m;
	struct hesper_spirv_info a, b;
	unsigned char *buf;

	glsl_module(&m, "u.comp");
	buf = malloc(mod_bytes(&m) + 3);
	ck_assert_ptr_nonnull(buf);
	for (size_t off = 1; off < 4; off++) {
		memcpy(buf + off, m.w, mod_bytes(&m));
		a = parse_ok(&m);
		ck_assert_int_eq(hesper_spirv_parse(buf + off, mod_bytes(&m), &b), 0);
		ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
	}
	free(buf);
}
END_TEST

/* ---- hesper_spirv_parse: malformed modules --------------------------------------- */

/* A module cut at every byte: never read past the cut, keep what came before. */
START_TEST(parse_cut_at_every_length)
{
	struct mod m;
	struct hesper_spirv_info full, info;

	glsl_module(&m, "/p/cut.comp");
	full = parse_ok(&m);
	for (size_t size = 0; size <= mod_bytes(&m); size++) {
		/* An exactly-sized copy, so that a sanitizer sees any read past it. */
		unsigned char *copy = malloc(size ? size : 1);
		bool boundary = size == 20;

		ck_assert_ptr_nonnull(copy);
		memcpy(copy, m.w, size);
		for (size_t k = 0; k < m.nbounds; k++)
			boundary = boundary || size == m.bounds[k] * 4;
		if (size < 20) {
			ck_assert_int_eq(hesper_spirv_parse(copy, size, &info), -1);
		} else {
			ck_assert_int_eq(hesper_spirv_parse(copy, size, &info), 0);
			ck_assert_msg(info.truncated == !boundary, "size %zu: truncated %d", size, info.truncated);
			ck_assert_uint_le(info.entry_count, full.entry_count);
		}
		ck_assert_uint_eq(info.hash, fnv1a64(copy, size));
		free(copy);
	}
	/* Whole instructions up to the entry point: it is there. */
	ck_assert_int_eq(hesper_spirv_parse(m.w, m.bounds[1] * 4, &info), 0);
	ck_assert_uint_eq(info.entry_count, 1);
	ck_assert_str_eq(info.entries[0].name, "main");
	ck_assert_str_eq(info.entries[0].function_name, "");
	ck_assert_int_eq(info.truncated, 0);
}
END_TEST

START_TEST(parse_word_count_zero)
{
	struct mod m;
	struct hesper_spirv_info info;

	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "kept");
	m.w[m.n++] = OP_NAME; /* word count 0 */
	op_name(&m, 4, "never_read");
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_uint_eq(info.entry_count, 1);
	ck_assert_str_eq(info.entries[0].name, "kept");
	ck_assert_str_eq(info.entries[0].function_name, "");
}
END_TEST

START_TEST(parse_past_end)
{
	struct mod m;
	struct hesper_spirv_info info;

	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "kept");
	op_name(&m, 4, "named");
	m.w[m.n++] = (0xffffu << 16) | OP_NAME;
	m.w[m.n++] = 4;
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_str_eq(info.entries[0].function_name, "named");

	/* One word too many, on the last instruction. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "main");
	m.w[5] += 1u << 16;
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_uint_eq(info.entry_count, 0);

	/* A trailing partial word. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "main");
	ck_assert_int_eq(hesper_spirv_parse(m.w, mod_bytes(&m) + 2, &info), 0);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_uint_eq(info.entry_count, 1);
}
END_TEST

/* Replaces the NUL-holding last word of the last instruction with 4 letters. */
static void
drop_nul(struct mod *m)
{
	m->w[m->n - 1] = 0x7a7a7a7au;
}

START_TEST(parse_strings_without_nul)
{
	struct mod m;
	struct hesper_spirv_info info;

	/* OpEntryPoint without interface ids whose name fills its words exactly. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "first");
	{
		uint32_t pre[] = {GLCOMPUTE, 5};

		emit(&m, OP_ENTRY_POINT, pre, 2, "abcd", NULL, 0);
	}
	drop_nul(&m);
	op_name(&m, 4, "never_read");
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_uint_eq(info.entry_count, 1);
	ck_assert_str_eq(info.entries[0].name, "first");

	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "main");
	op_name(&m, 4, "abc");
	drop_nul(&m);
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_str_eq(info.entries[0].function_name, "");

	mod_header(&m);
	op_source(&m, LANG_GLSL, 1, NULL);
	op_string(&m, 1, "abc");
	drop_nul(&m);
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_str_eq(info.source_file, "");

	mod_header(&m);
	op_string(&m, 1, "f.comp");
	op_source(&m, LANG_GLSL, 1, "abc");
	drop_nul(&m);
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);

	/* Instructions too short to hold their operands. */
	mod_header(&m);
	{
		uint32_t pre[] = {GLCOMPUTE, 4};

		emit(&m, OP_ENTRY_POINT, pre, 2, NULL, NULL, 0);
	}
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);
	ck_assert_uint_eq(info.entry_count, 0);

	mod_header(&m);
	{
		uint32_t pre[] = {LANG_GLSL};

		emit(&m, OP_SOURCE, pre, 1, NULL, NULL, 0);
	}
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);

	mod_header(&m);
	{
		uint32_t id = 1;

		emit(&m, OP_NAME, &id, 1, NULL, NULL, 0);
	}
	info = parse_ok(&m);
	ck_assert_int_eq(info.truncated, 1);
}
END_TEST

/* ---- hesper_spirv_kernel_name ---------------------------------------------------- */

START_TEST(name_labels)
{
	struct mod m;
	struct hesper_spirv_info info;
	char buf[256];

	/* GLSL: the source file alone. */
	glsl_module(&m, "/src/blur.comp");
	info = parse_ok(&m);
	kernel_name(&info, "main", buf, sizeof buf);
	check_name_form(buf, "blur.comp");

	/* No source file: the entry point. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "main");
	op_name(&m, 4, "main");
	info = parse_ok(&m);
	kernel_name(&info, "main", buf, sizeof buf);
	check_name_form(buf, "main");

	/* A named entry point, with and without a source file. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "CSMain");
	op_string(&m, 1, "x/k.hlsl");
	op_source(&m, LANG_HLSL, 1, NULL);
	info = parse_ok(&m);
	kernel_name(&info, "CSMain", buf, sizeof buf);
	check_name_form(buf, "k.hlsl:CSMain");
	info.source_file[0] = '\0';
	kernel_name(&info, "CSMain", buf, sizeof buf);
	check_name_form(buf, "CSMain");

	/* Entry "main" whose function has another name. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "main");
	op_string(&m, 1, "f.comp");
	op_source(&m, LANG_GLSL, 1, NULL);
	op_name(&m, 4, "blur_h");
	info = parse_ok(&m);
	kernel_name(&info, "main", buf, sizeof buf);
	check_name_form(buf, "f.comp:blur_h");
	info.source_file[0] = '\0';
	kernel_name(&info, "main", buf, sizeof buf);
	check_name_form(buf, "blur_h");

	/* An entry point with its own name keeps it, whatever its function is called. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "reduce");
	op_name(&m, 4, "reduce_impl");
	info = parse_ok(&m);
	kernel_name(&info, "reduce", buf, sizeof buf);
	check_name_form(buf, "reduce");

	/* An entry point that is not in the module: "<entry>#hash", no file. */
	glsl_module(&m, "blur.comp");
	info = parse_ok(&m);
	kernel_name(&info, "other", buf, sizeof buf);
	check_name_form(buf, "other");

	/* From a failed parse, or no info at all. */
	ck_assert_int_eq(hesper_spirv_parse("nope", 4, &info), -1);
	kernel_name(&info, "main", buf, sizeof buf);
	check_name_form(buf, "main");
	kernel_name(NULL, "main", buf, sizeof buf);
	check_name_form(buf, "main");
	kernel_name(NULL, NULL, buf, sizeof buf);
	check_name_form(buf, "");
}
END_TEST

START_TEST(name_hash_is_stable_and_distinct)
{
	struct mod m, m2;
	struct hesper_spirv_info a, b, c;
	char x[64], y[64];

	glsl_module(&m, "/src/blur.comp");
	a = parse_ok(&m);
	b = parse_ok(&m);
	kernel_name(&a, "main", x, sizeof x);
	kernel_name(&b, "main", y, sizeof y);
	ck_assert_str_eq(x, y);
	/* Pinned: the same kernel gets the same name in every run and every version. */
	ck_assert_uint_eq(a.hash, fnv1a64(m.w, mod_bytes(&m)));
	ck_assert_str_eq(x, "blur.comp#a53cc645"); /* module words in little-endian order */
	kernel_name(NULL, "main", x, sizeof x);
	ck_assert_str_eq(x, "main#f94d9218");

	/* Same file name and entry, other code: another hash. */
	glsl_module(&m2, "/src/blur.comp");
	m2.w[3] = 65; /* the bound */
	c = parse_ok(&m2);
	kernel_name(&a, "main", x, sizeof x);
	kernel_name(&c, "main", y, sizeof y);
	ck_assert_str_ne(x, y);
	ck_assert_int_eq(strncmp(x, y, strlen("blur.comp#")), 0);

	/* Same module, two entry points: two hashes. */
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "a");
	entry_point(&m, GLCOMPUTE, 5, "b");
	a = parse_ok(&m);
	kernel_name(&a, "a", x, sizeof x);
	kernel_name(&a, "b", y, sizeof y);
	ck_assert_str_ne(x + 2, y + 2);
}
END_TEST

START_TEST(name_small_buffers)
{
	struct mod m;
	struct hesper_spirv_info info;
	char full[256], buf[300];
	size_t len;

	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, "CSMain");
	op_string(&m, 1, "kernels.hlsl");
	op_source(&m, LANG_HLSL, 1, NULL);
	info = parse_ok(&m);
	kernel_name(&info, "CSMain", full, sizeof full);
	len = strlen(full);
	check_name_form(full, "kernels.hlsl:CSMain");

	/* Size 0: nothing is written. */
	memset(buf, 'Z', sizeof buf);
	kernel_name(&info, "CSMain", buf, 0);
	ck_assert_int_eq(buf[0], 'Z');

	for (size_t size = 1; size <= len + 3; size++) {
		memset(buf, 'Z', sizeof buf);
		kernel_name(&info, "CSMain", buf, size);
		ck_assert_uint_lt(strlen(buf), size);
		ck_assert_int_eq(buf[size], 'Z'); /* nothing past the buffer */
		if (size > len) {
			ck_assert_str_eq(buf, full);
		} else if (size >= 10) {
			/* The label is cut, the hash kept. */
			ck_assert_uint_eq(strlen(buf), size - 1);
			ck_assert_str_eq(buf + size - 10, full + len - 9);
			ck_assert_int_eq(strncmp(buf, full, size - 10), 0);
		} else {
			ck_assert_int_eq(strncmp(buf, full, size - 1), 0);
		}
	}
}
END_TEST

START_TEST(name_text_is_printable_utf8)
{
	struct mod m;
	struct hesper_spirv_info info;
	char buf[64];

	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4,
		    "a\nb\tc\x7f"
		    "d");
	info = parse_ok(&m);
	kernel_name(&info, info.entries[0].name, buf, sizeof buf);
	check_name_form(buf, "a?b?c?d");

	kernel_name(NULL, "bad\xff\xc3(\xe2\x82", buf, sizeof buf);
	check_name_form(buf, "bad?"
			     "?(??");
	kernel_name(NULL, "\xc0\xaf\xed\xa0\x80", buf, sizeof buf); /* overlong, surrogate */
	check_name_form(buf, "?????");
	kernel_name(NULL, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", buf, sizeof buf);
	check_name_form(buf, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");

	/* A character that does not fit whole is left out: "é" needs 2 bytes. */
	kernel_name(NULL, "ab\xc3\xa9", buf, 13);
	check_name_form(buf, "ab");
	kernel_name(NULL, "ab\xc3\xa9", buf, 14);
	check_name_form(buf, "ab\xc3\xa9");
}
END_TEST

START_TEST(name_long_entry_matches_cut_name)
{
	struct mod m;
	struct hesper_spirv_info info;
	char name[300], buf[512];

	memset(name, 'k', 299);
	name[299] = '\0';
	mod_header(&m);
	entry_point(&m, GLCOMPUTE, 4, name);
	op_string(&m, 1, "long.comp");
	op_source(&m, LANG_GLSL, 1, NULL);
	info = parse_ok(&m);
	kernel_name(&info, name, buf, sizeof buf);
	ck_assert_int_eq(strncmp(buf, "long.comp:kkk", 13), 0);
	ck_assert_uint_eq(check_name_form(buf, NULL), strlen("long.comp:") + 299);
}
END_TEST

/* Specialization for the local-size tests: constant 0 is 16, any other unspecialized. */
static bool
spec_16(void *ctx, uint32_t id, uint32_t *value)
{
	(void)ctx;
	if (id != 0)
		return false;
	*value = 16;
	return true;
}

/* A compute entry "main" (function 4) and, when @mode_words, one OpExecutionMode(Id). */
static void
local_size_module(struct mod *m, uint32_t op, const uint32_t *mode, size_t n)
{
	mod_header(m);
	entry_point(m, GLCOMPUTE, 4, "main");
	if (n)
		emit(m, op, mode, n, NULL, NULL, 0);
}

START_TEST(local_size_literal)
{
	struct mod m;
	uint32_t mode[] = {4, 17, 8, 4, 2}; /* LocalSize 8 4 2 */
	uint32_t out[3];

	local_size_module(&m, OP_EXECUTION_MODE, mode, 5);
	op_function(&m, 4);
	struct hesper_spirv_info info = parse_ok(&m);
	ck_assert(hesper_spirv_local_size(&info, "main", NULL, NULL, out));
	ck_assert_uint_eq(out[0], 8);
	ck_assert_uint_eq(out[1], 4);
	ck_assert_uint_eq(out[2], 2);
	/* Another entry point, or none at all: unknown. */
	ck_assert(!hesper_spirv_local_size(&info, "other", NULL, NULL, out));
	ck_assert_uint_eq(out[0], 0);
	local_size_module(&m, OP_EXECUTION_MODE, NULL, 0);
	op_function(&m, 4);
	info = parse_ok(&m);
	ck_assert(!hesper_spirv_local_size(&info, "main", NULL, NULL, out));
}
END_TEST

START_TEST(local_size_workgroup_size_spec_constant)
{
	/* glslang's local_size_x_id = 0, local_size_y = 2: LocalSize 1 2 1 and a WorkgroupSize composite. */
	struct mod m;
	uint32_t mode[] = {4, 17, 1, 2, 1};
	uint32_t out[3];

	local_size_module(&m, OP_EXECUTION_MODE, mode, 5);
	emit(&m, 71, (uint32_t[]){10, 1, 0}, 3, NULL, NULL, 0);           /* OpDecorate %10 SpecId 0 */
	emit(&m, 71, (uint32_t[]){13, 11, 25}, 3, NULL, NULL, 0);         /* OpDecorate %13 BuiltIn WorkgroupSize */
	emit(&m, 50, (uint32_t[]){9, 10, 4}, 3, NULL, NULL, 0);           /* %10 = OpSpecConstant %uint 4 */
	emit(&m, 43, (uint32_t[]){9, 11, 2}, 3, NULL, NULL, 0);           /* %11 = OpConstant %uint 2 */
	emit(&m, 43, (uint32_t[]){9, 12, 1}, 3, NULL, NULL, 0);           /* %12 = OpConstant %uint 1 */
	emit(&m, 51, (uint32_t[]){14, 13, 10, 11, 12}, 5, NULL, NULL, 0); /* %13 = OpSpecConstantComposite */
	op_function(&m, 4);
	struct hesper_spirv_info info = parse_ok(&m);
	/* The default without specialization, the specialized value with it. */
	ck_assert(hesper_spirv_local_size(&info, "main", NULL, NULL, out));
	ck_assert_uint_eq(out[0], 4);
	ck_assert_uint_eq(out[1], 2);
	ck_assert_uint_eq(out[2], 1);
	ck_assert(hesper_spirv_local_size(&info, "main", spec_16, NULL, out));
	ck_assert_uint_eq(out[0], 16);
	ck_assert_uint_eq(out[1], 2);
	ck_assert_uint_eq(out[2], 1);
}
END_TEST

START_TEST(local_size_id)
{
	struct mod m;
	uint32_t mode[] = {4, 38, 10, 11, 12}; /* OpExecutionModeId LocalSizeId %10 %11 %12 */
	uint32_t out[3];

	local_size_module(&m, 331, mode, 5);
	emit(&m, 43, (uint32_t[]){9, 10, 32}, 3, NULL, NULL, 0);
	emit(&m, 43, (uint32_t[]){9, 11, 1}, 3, NULL, NULL, 0);
	emit(&m, 43, (uint32_t[]){9, 12, 3}, 3, NULL, NULL, 0);
	op_function(&m, 4);
	struct hesper_spirv_info info = parse_ok(&m);
	ck_assert(hesper_spirv_local_size(&info, "main", spec_16, NULL, out));
	ck_assert_uint_eq(out[0], 32);
	ck_assert_uint_eq(out[1], 1);
	ck_assert_uint_eq(out[2], 3);
	/* A component whose constant is missing (here after OpFunction, unread): unknown. */
	local_size_module(&m, 331, mode, 5);
	emit(&m, 43, (uint32_t[]){9, 10, 32}, 3, NULL, NULL, 0);
	op_function(&m, 4);
	emit(&m, 43, (uint32_t[]){9, 11, 1}, 3, NULL, NULL, 0);
	info = parse_ok(&m);
	ck_assert(!hesper_spirv_local_size(&info, "main", NULL, NULL, out));
}
END_TEST

static Suite *
spirv_suite(void)
{
	Suite *s = suite_create("spirv");
	TCase *tc;

	tc = tcase_create("hesper_spirv_parse");
	tcase_add_test(tc, parse_rejects_short_and_foreign);
	tcase_add_test(tc, parse_header_only);
	tcase_add_test(tc, parse_glsl_module);
	tcase_add_test(tc, parse_hlsl_module_with_backslashes);
	tcase_add_test(tc, parse_source_file_forms);
	tcase_add_test(tc, parse_function_names);
	tcase_add_test(tc, parse_long_names_are_cut);
	tcase_add_test(tc, parse_many_entry_points);
	tcase_add_test(tc, parse_byte_swapped);
	tcase_add_test(tc, parse_unaligned);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_spirv_parse malformed");
	tcase_add_test(tc, parse_cut_at_every_length);
	tcase_add_test(tc, parse_word_count_zero);
	tcase_add_test(tc, parse_past_end);
	tcase_add_test(tc, parse_strings_without_nul);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_spirv_kernel_name");
	tcase_add_test(tc, name_labels);
	tcase_add_test(tc, name_hash_is_stable_and_distinct);
	tcase_add_test(tc, name_small_buffers);
	tcase_add_test(tc, name_text_is_printable_utf8);
	tcase_add_test(tc, name_long_entry_matches_cut_name);
	tcase_add_test(tc, local_size_literal);
	tcase_add_test(tc, local_size_workgroup_size_spec_constant);
	tcase_add_test(tc, local_size_id);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(spirv_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
