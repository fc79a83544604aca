/*
 * Where a module's code comes from: the basic blocks of each of its functions, and for
 * each block the source lines its instructions carry (OpLine), with the module's file
 * names and embedded source text (OpString, OpSource). What per-line hot spots attribute a
 * block's clock time to. Pure C: words in host order, every read bounds-checked.
 */
#ifndef HESPER_SPIRV_LINES_H
#define HESPER_SPIRV_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run of one block's instructions that came from one source line (file 0, line 0: none). */
struct hesper_spirv_line_run {
	uint32_t file;         /* OpString id of the file, 0 when the instructions carry no line */
	uint32_t line;         /* 1-based source line, 0 when none */
	uint32_t instructions; /* how many of the block's instructions, in a row */
};

/* One basic block: from its OpLabel to its terminator. */
struct hesper_spirv_block {
	uint32_t label;         /* the OpLabel's result id */
	uint32_t function;      /* the OpFunction's result id it belongs to */
	size_t label_word;      /* word offset of its OpLabel */
	size_t terminator_word; /* word offset of its terminator (branch, return, ...) */
	uint32_t instructions;  /* its instructions after the label, terminator included, line markers not */
	size_t first_run, runs; /* its line runs: @runs of hesper_spirv_lines.runs from @first_run */
};

/* A file the module names (OpString used by OpLine or OpSource), with its text when embedded. */
struct hesper_spirv_file {
	uint32_t id;
	char *name;
	char *text; /* OpSource and OpSourceContinued text; NULL when not embedded */
};

struct hesper_spirv_lines {
	struct hesper_spirv_block *blocks;
	size_t block_count;
	struct hesper_spirv_line_run *runs;
	size_t run_count;
	struct hesper_spirv_file *files;
	size_t file_count;
};

/*
 * Reads module @w of @count words (host order) into @out: every function's blocks in
 * module order, their line runs, the files. NULL on success, else why (malformed, or out
 * of memory), with @out empty. Free with hesper_spirv_lines_free either way.
 */
const char *hesper_spirv_lines_read(const uint32_t *w, size_t count, struct hesper_spirv_lines *out);

/* Frees what @l holds and leaves it empty. */
void hesper_spirv_lines_free(struct hesper_spirv_lines *l);

/* Whether opcode @op ends a block (SPIR-V's block terminators: branches, returns, kills, ...). */
bool hesper_spirv_ends_block(uint32_t op);

/* The file of OpString @id in @l, or NULL when the module names none such. */
const struct hesper_spirv_file *hesper_spirv_lines_file(const struct hesper_spirv_lines *l, uint32_t id);

#endif
