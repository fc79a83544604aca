/* A module's basic blocks and the source lines of their instructions (see spirv_lines.h). */
#include "spirv_lines.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_clock_parts.h"

bool hesper_spirv_ends_block(uint32_t op)
{
	switch (op) {
	case OP_BRANCH:
	case OP_BRANCH_CONDITIONAL:
	case SpvOpSwitch:
	case SpvOpKill:
	case OP_RETURN:
	case SpvOpReturnValue:
	case SpvOpUnreachable:
	case SpvOpTerminateInvocation:
	case SpvOpIgnoreIntersectionKHR:
	case SpvOpTerminateRayKHR:
	case SpvOpEmitMeshTasksEXT:
		return true;
	default:
		return false;
	}
}

/* A string the module declares (OpString), or the text of an OpSource. */
struct text {
	uint32_t id; /* OpString: its id; OpSource: its file's id (0: none) */
	char *s;
};

/* What the reader keeps while it walks the module. */
struct reader {
	struct hesper_spirv_lines *out;
	size_t block_cap, run_cap, file_cap;
	struct text *strings, *sources;
	size_t string_count, string_cap, source_count, source_cap;
};

/* Room for one more of @size in *@items holding @count of *@cap; false when memory ran out. */
static bool grow(void **items, size_t count, size_t *cap, size_t size)
{
	if (count < *cap)
		return true;
	size_t want = *cap ? 2 * *cap : 16;
	void *more = realloc(*items, want * size);
	if (!more)
		return false;
	*items = more;
	*cap = want;
	return true;
}

/* The literal string at words [@first, @end) of @w, copied (NULL: no terminator there, or no memory). */
static char *literal(const uint32_t *w, size_t first, size_t end)
{
	size_t max = (end - first) * 4, len = 0;
	while (len < max && (w[first + len / 4] >> (8 * (len % 4)) & 0xffu))
		len++;
	if (len == max)
		return NULL;
	char *s = malloc(len + 1);
	for (size_t k = 0; s && k < len; k++)
		s[k] = (char)(w[first + k / 4] >> (8 * (k % 4)) & 0xffu);
	if (s)
		s[len] = '\0';
	return s;
}

/* @more appended to *@s (reallocated); false when memory ran out. */
static bool append(char **s, const char *more)
{
	size_t a = *s ? strlen(*s) : 0, b = strlen(more);
	char *joined = realloc(*s, a + b + 1);
	if (!joined)
		return false;
	memcpy(joined + a, more, b + 1);
	*s = joined;
	return true;
}

/* Counts one instruction of the last block from @file's @line; false when memory ran out. */
static bool count_instruction(struct reader *r, uint32_t file, uint32_t line)
{
	struct hesper_spirv_lines *l = r->out;
	struct hesper_spirv_block *b = &l->blocks[l->block_count - 1];
	b->instructions++;
	if (b->runs) {
		struct hesper_spirv_line_run *last = &l->runs[l->run_count - 1];
		if (last->file == file && last->line == line) {
			last->instructions++;
			return true;
		}
	}
	if (!grow((void **)&l->runs, l->run_count, &r->run_cap, sizeof(*l->runs)))
		return false;
	l->runs[l->run_count++] = (struct hesper_spirv_line_run){.file = file, .line = line, .instructions = 1};
	b->runs++;
	return true;
}

/* The strings that name a file (a line run's or an OpSource's), with their sources' text, into @r->out. */
static const char *keep_files(struct reader *r)
{
	struct hesper_spirv_lines *l = r->out;
	for (size_t i = 0; i < r->string_count; i++) {
		uint32_t id = r->strings[i].id;
		bool named = false;
		for (size_t k = 0; k < l->run_count && !named; k++)
			named = l->runs[k].file == id;
		for (size_t k = 0; k < r->source_count && !named; k++)
			named = r->sources[k].id == id;
		if (!named)
			continue;
		if (!grow((void **)&l->files, l->file_count, &r->file_cap, sizeof(*l->files)))
			return "out of memory";
		struct hesper_spirv_file *f = &l->files[l->file_count++];
		*f = (struct hesper_spirv_file){.id = id, .name = r->strings[i].s};
		r->strings[i].s = NULL;
		for (size_t k = 0; k < r->source_count; k++)
			if (r->sources[k].id == id && r->sources[k].s && !f->text) {
				f->text = r->sources[k].s;
				r->sources[k].s = NULL;
			}
	}
	return NULL;
}

/* Frees the reader's own strings. */
static void reader_free(struct reader *r)
{
	for (size_t i = 0; i < r->string_count; i++)
		free(r->strings[i].s);
	for (size_t i = 0; i < r->source_count; i++)
		free(r->sources[i].s);
	free(r->strings);
	free(r->sources);
}

/* One instruction @op of @n words at word @i; NULL, or why the module cannot be read. */
static const char *read_instruction(struct reader *r, const uint32_t *w, size_t i, uint32_t op, uint32_t n,
				    uint32_t *function, bool *in_block, uint32_t *file, uint32_t *line)
{
	struct hesper_spirv_lines *l = r->out;
	size_t end = i + n;
	switch (op) {
	case OP_STRING: {
		if (n < 3)
			return "malformed OpString";
		if (!grow((void **)&r->strings, r->string_count, &r->string_cap, sizeof(*r->strings)))
			return "out of memory";
		char *s = literal(w, i + 2, end);
		if (!s)
			return "malformed OpString";
		r->strings[r->string_count++] = (struct text){.id = w[i + 1], .s = s};
		return NULL;
	}
	case OP_SOURCE:
	case OP_SOURCE_CONTINUED: {
		bool first = op == OP_SOURCE;
		if (first && n < 3)
			return "malformed OpSource";
		if (first && !grow((void **)&r->sources, r->source_count, &r->source_cap, sizeof(*r->sources)))
			return "out of memory";
		if (first)
			r->sources[r->source_count++] = (struct text){.id = n >= 4 ? w[i + 3] : 0};
		size_t at = first ? i + 4 : i + 1;
		if (at >= end || r->source_count == 0)
			return NULL; /* no text, or continuing none */
		char *s = literal(w, at, end);
		bool ok = s && append(&r->sources[r->source_count - 1].s, s);
		free(s);
		return ok ? NULL : "malformed or unreadable OpSource text";
	}
	case OP_FUNCTION:
		if (n < 5 || *function)
			return "malformed OpFunction";
		*function = w[i + 2];
		return NULL;
	case OP_FUNCTION_END:
		if (!*function || *in_block)
			return "OpFunctionEnd outside a function or inside a block";
		*function = 0;
		return NULL;
	case OP_LABEL:
		if (!*function || *in_block || n < 2)
			return "OpLabel outside a function or inside a block";
		if (!grow((void **)&l->blocks, l->block_count, &r->block_cap, sizeof(*l->blocks)))
			return "out of memory";
		l->blocks[l->block_count++] = (struct hesper_spirv_block){
			.label = w[i + 1], .function = *function, .label_word = i, .first_run = l->run_count};
		*in_block = true;
		*file = *line = 0; /* a line's scope ends with its block */
		return NULL;
	case OP_LINE:
		if (n < 4)
			return "malformed OpLine";
		*file = w[i + 1];
		*line = w[i + 2];
		return NULL;
	case OP_NO_LINE:
		*file = *line = 0;
		return NULL;
	case SpvOpNop:
		return NULL;
	default:
		if (!*in_block)
			return NULL;
		if (!count_instruction(r, *file, *line))
			return "out of memory";
		if (hesper_spirv_ends_block(op)) {
			l->blocks[l->block_count - 1].terminator_word = i;
			*in_block = false;
		}
		return NULL;
	}
}

const char *hesper_spirv_lines_read(const uint32_t *w, size_t count, struct hesper_spirv_lines *out)
{
	struct reader r = {.out = out};
	uint32_t function = 0, file = 0, line = 0;
	bool in_block = false;
	const char *why = NULL;

	memset(out, 0, sizeof(*out));
	if (count < HEADER_WORDS || w[0] != MAGIC)
		why = "not a SPIR-V module in host order";
	for (size_t i = HEADER_WORDS; !why && i < count;) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffffu;
		if (n == 0 || n > count - i) {
			why = "malformed SPIR-V";
			break;
		}
		why = read_instruction(&r, w, i, op, n, &function, &in_block, &file, &line);
		i += n;
	}
	if (!why && (function || in_block))
		why = "a function or block does not end";
	if (!why)
		why = keep_files(&r);
	reader_free(&r);
	if (why)
		hesper_spirv_lines_free(out);
	return why;
}

void hesper_spirv_lines_free(struct hesper_spirv_lines *l)
{
	for (size_t i = 0; i < l->file_count; i++) {
		free(l->files[i].name);
		free(l->files[i].text);
	}
	free(l->files);
	free(l->blocks);
	free(l->runs);
	memset(l, 0, sizeof(*l));
}

const struct hesper_spirv_file *hesper_spirv_lines_file(const struct hesper_spirv_lines *l, uint32_t id)
{
	for (size_t i = 0; id && i < l->file_count; i++)
		if (l->files[i].id == id)
			return &l->files[i];
	return NULL;
}
