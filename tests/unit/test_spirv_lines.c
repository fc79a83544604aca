/*
 * Unit tests for layer/clock/spirv_lines.c: every test shader (compiled by glslc at build)
 * reads into blocks whose line runs add up; in hot_lines.comp, built with -g, the lines
 * the source marks (found by the test in the source itself) are where the module says;
 * malformed modules are refused with a reason. And layer/clock/spirv_disasm.c: its lines
 * agree with spirv-dis (environment HESPER_SPIRV_DIS) on every function body's
 * instructions whose operands are ids.
 * Arguments: the path of tests/programs/shaders/hot_lines.comp, then every test .spv.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_disasm.h"
#include "spirv_lines.h"

static const char *source_path;
static char **shaders;
static int shader_count;

/* Reads a whole file into a buffer of words; NULL when it cannot. */
static uint32_t *
read_words(const char *path, size_t *count)
{
	FILE *f = fopen(path, "rb");
	uint32_t *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len % 4 == 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)len);
		if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
			free(buf);
			buf = NULL;
		}
		*count = (size_t)len / 4;
	}
	fclose(f);
	return buf;
}

/* The 1-based line of hot_lines.comp holding @marker, 0 when none does. */
static uint32_t
marked_line(const char *marker)
{
	FILE *f = fopen(source_path, "r");
	char text[512];
	uint32_t n = 0, found = 0;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(text, sizeof(text), f)) {
		n++;
		if (strstr(text, marker))
			found = n;
	}
	fclose(f);
	return found;
}

/* The test .spv whose path ends with @name. */
static const char *
shader(const char *name)
{
	for (int i = 0; i < shader_count; i++) {
		size_t a = strlen(shaders[i]), b = strlen(name);
		if (a >= b && strcmp(shaders[i] + a - b, name) == 0)
			return shaders[i];
	}
	ck_abort_msg("no test shader %s", name);
	return NULL;
}

/* The index of the block whose runs hold @line of file @file, or -1. */
static long
block_of(const struct hesper_spirv_lines *l, uint32_t file, uint32_t line)
{
	for (size_t b = 0; b < l->block_count; b++)
		for (size_t k = 0; k < l->blocks[b].runs; k++) {
			const struct hesper_spirv_line_run *r = &l->runs[l->blocks[b].first_run + k];
			if (r->file == file && r->line == line)
				return (long)b;
		}
	return -1;
}

START_TEST(every_shader_reads)
{
	for (int i = 0; i < shader_count; i++) {
		size_t count = 0;
		uint32_t *w = read_words(shaders[i], &count);
		struct hesper_spirv_lines l;

		ck_assert_ptr_nonnull(w);
		const char *why = hesper_spirv_lines_read(w, count, &l);
		ck_assert_msg(why == NULL, "%s: %s", shaders[i], why);
		ck_assert_msg(l.block_count >= 1, "%s: no block", shaders[i]);
		for (size_t b = 0; b < l.block_count; b++) {
			const struct hesper_spirv_block *k = &l.blocks[b];
			uint32_t sum = 0;
			ck_assert_uint_gt(k->terminator_word, k->label_word);
			ck_assert_uint_le(k->first_run + k->runs, l.run_count);
			ck_assert_uint_ge(k->runs, 1); /* a terminator at least */
			for (size_t r = 0; r < k->runs; r++)
				sum += l.runs[k->first_run + r].instructions;
			ck_assert_uint_eq(sum, k->instructions);
			ck_assert_uint_ne(k->function, 0);
		}
		hesper_spirv_lines_free(&l);
		free(w);
	}
}
END_TEST

START_TEST(marked_lines_found)
{
	size_t count = 0;
	uint32_t *w = read_words(shader("hot_lines_g.spv"), &count);
	struct hesper_spirv_lines l;
	uint32_t hot = marked_line("// HOT"), branch = marked_line("// BRANCH"), store = marked_line("// STORE");

	ck_assert_ptr_nonnull(w);
	ck_assert(hot && branch && store);
	ck_assert_ptr_null(hesper_spirv_lines_read(w, count, &l));
	ck_assert_uint_eq(l.file_count, 1);
	const struct hesper_spirv_file *f = &l.files[0];
	ck_assert_ptr_eq(hesper_spirv_lines_file(&l, f->id), f);
	ck_assert_msg(strstr(f->name, "hot_lines.comp") != NULL, "%s", f->name);
	/* glslc -g embeds the source: the marker's line is in it */
	ck_assert_ptr_nonnull(f->text);
	ck_assert_ptr_nonnull(strstr(f->text, "acc = acc * 1.0001 + 0.5; // HOT loop body"));
	/* The loop body, the branch and the store each in a block of their own. */
	long b_hot = block_of(&l, f->id, hot), b_branch = block_of(&l, f->id, branch),
	     b_store = block_of(&l, f->id, store);
	ck_assert_int_ge(b_hot, 0);
	ck_assert_int_ge(b_branch, 0);
	ck_assert_int_ge(b_store, 0);
	ck_assert_int_ne(b_hot, b_branch);
	ck_assert_int_ne(b_hot, b_store);
	ck_assert_int_ne(b_branch, b_store);
	/* No line the source does not have. */
	for (size_t r = 0; r < l.run_count; r++)
		ck_assert_uint_le(l.runs[r].line, store + 1);
	ck_assert_ptr_null(hesper_spirv_lines_file(&l, f->id + 1000));
	hesper_spirv_lines_free(&l);
	free(w);
}
END_TEST

START_TEST(no_line_information)
{
	size_t count = 0;
	uint32_t *w = read_words(shader("/fill.spv"), &count);
	struct hesper_spirv_lines l;

	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_null(hesper_spirv_lines_read(w, count, &l));
	ck_assert_uint_eq(l.file_count, 0);
	for (size_t r = 0; r < l.run_count; r++) {
		ck_assert_uint_eq(l.runs[r].file, 0);
		ck_assert_uint_eq(l.runs[r].line, 0);
	}
	hesper_spirv_lines_free(&l);
	free(w);
}
END_TEST

/* Every prefix of a real module, and a module with one word changed, read or refused without harm. */
START_TEST(malformed_refused)
{
	size_t count = 0;
	uint32_t *w = read_words(shader("hot_lines_g.spv"), &count);
	struct hesper_spirv_lines l;

	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(hesper_spirv_lines_read(w, 3, &l));
	ck_assert_uint_eq(l.block_count, 0);
	/* cut before the last OpFunctionEnd: a function that does not end */
	ck_assert_ptr_nonnull(hesper_spirv_lines_read(w, count - 1, &l));
	for (size_t n = 0; n < count; n++) {
		(void)hesper_spirv_lines_read(w, n, &l);
		hesper_spirv_lines_free(&l);
	}
	uint32_t magic = w[0];
	w[0] = 0x03022307u;
	ck_assert_ptr_nonnull(hesper_spirv_lines_read(w, count, &l));
	w[0] = magic;
	/* an instruction of length 0 */
	w[5] &= 0xffffu;
	ck_assert_ptr_nonnull(hesper_spirv_lines_read(w, count, &l));
	hesper_spirv_lines_free(&l);
	free(w);
}
END_TEST

/* Whether every operand kind opcode @op can have is an id (a type, a result, a reference). */
static bool
ids_only(uint32_t op)
{
	const struct hesper_spirv_opcode *e = hesper_spirv_opcode(op);
	return e && strspn(e->operands, "TRi") == strlen(e->operands) && strspn(e->repeat, "TRi") == strlen(e->repeat);
}

/* spirv-dis's lines for @path from its first OpFunction on, in a buffer the caller frees. */
static char *
spirv_dis_functions(const char *dis, const char *path)
{
	char command[1024], *text = NULL;
	size_t len = 0, cap = 0, got;
	snprintf(command, sizeof(command), "%s --raw-id --no-indent --no-header --no-color '%s'", dis, path);
	FILE *p = popen(command, "r");
	ck_assert_ptr_nonnull(p);
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			text = realloc(text, cap);
			ck_assert_ptr_nonnull(text);
		}
		got = fread(text + len, 1, cap - len - 1, p);
		len += got;
	} while (got);
	ck_assert_int_eq(pclose(p), 0);
	text[len] = '\0';
	char *first = strstr(text, " = OpFunction ");
	ck_assert_ptr_nonnull(first);
	while (first > text && first[-1] != '\n')
		first--;
	memmove(text, first, strlen(first) + 1);
	return text;
}

START_TEST(disassembly_agrees_with_spirv_dis)
{
	const char *dis = getenv("HESPER_SPIRV_DIS");
	size_t compared = 0, cap = 1 << 22;
	char *ours = malloc(cap);

	ck_assert_msg(dis && dis[0], "spirv-dis (Debian package spirv-tools) was not found at configure time");
	ck_assert_ptr_nonnull(ours);
	for (int i = 0; i < shader_count; i++) {
		size_t count = 0, at = 5;
		uint32_t *w = read_words(shaders[i], &count);
		ck_assert_ptr_nonnull(w);
		while (at < count && (w[at] & 0xffffu) != 54 /* OpFunction */)
			at += w[at] >> 16;
		size_t read = hesper_spirv_disasm(w, count, at, count, ours, cap);
		char *theirs = spirv_dis_functions(dis, shaders[i]);
		char *mine_line = ours, *their_line = theirs;
		for (size_t k = 0; k < read; k++) {
			char *mine_end = strchr(mine_line, '\n'), *their_end = strchr(their_line, '\n');
			ck_assert_msg(mine_end && their_end, "%s: instruction %zu: a line missing", shaders[i], k);
			*mine_end = *their_end = '\0';
			if (ids_only(w[at] & 0xffffu)) {
				ck_assert_msg(strcmp(mine_line, their_line) == 0,
					      "%s: \"%s\" against spirv-dis's \"%s\"", shaders[i], mine_line,
					      their_line);
				compared++;
			}
			mine_line = mine_end + 1;
			their_line = their_end + 1;
			at += w[at] >> 16;
		}
		ck_assert_uint_eq(at, count);
		free(theirs);
		free(w);
	}
	ck_assert_uint_gt(compared, 100);
	free(ours);
}
END_TEST

/* A block's title, and a disassembly cut to whole lines with what was left out said. */
START_TEST(titles_and_cut_disassembly)
{
	size_t count = 0;
	uint32_t *w = read_words(shader("/fill.spv"), &count);
	struct hesper_spirv_lines l;
	char title[64], small[120], whole[8192];

	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_null(hesper_spirv_lines_read(w, count, &l));
	const struct hesper_spirv_block *b = &l.blocks[0];
	hesper_spirv_block_title(w, count, b->label_word, 2, title, sizeof(title));
	char expect[32];
	snprintf(expect, sizeof(expect), "%%%u: Op", l.blocks[0].label);
	ck_assert_msg(strncmp(title, expect, strlen(expect)) == 0, "title \"%s\"", title);
	ck_assert_uint_eq(hesper_spirv_disasm(w, count, b->label_word, b->terminator_word + 1, whole, sizeof(whole)),
			  b->instructions + 1);
	size_t read = hesper_spirv_disasm(w, count, b->label_word, b->terminator_word + 1, small, sizeof(small));
	ck_assert_uint_eq(read, b->instructions + 1);
	ck_assert_uint_lt(strlen(small), sizeof(small));
	ck_assert_ptr_nonnull(strstr(small, " more instructions\n"));
	/* every line but the last is the whole disassembly's */
	char *last = small + strlen(small) - 1;
	while (last > small && last[-1] != '\n')
		last--;
	ck_assert_int_eq(strncmp(small, whole, (size_t)(last - small)), 0);
	hesper_spirv_lines_free(&l);
	free(w);
}
END_TEST

static Suite *
spirv_lines_suite(void)
{
	Suite *s = suite_create("spirv_lines");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_shader_reads);
	tcase_add_test(tc, marked_lines_found);
	tcase_add_test(tc, no_line_information);
	tcase_add_test(tc, malformed_refused);
	tcase_add_test(tc, disassembly_agrees_with_spirv_dis);
	tcase_add_test(tc, titles_and_cut_disassembly);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s HOT_LINES_COMP SPV...\n", argv[0]);
		return 2;
	}
	source_path = argv[1];
	shaders = argv + 2;
	shader_count = argc - 2;
	SRunner *sr = srunner_create(spirv_lines_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
