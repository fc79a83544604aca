/*
 * Per-line hot spots from counted blocks: each block of a kernel's code counted its clock
 * ticks and executions (summed over invocations), and knows the source lines of its
 * instructions; a line gets the ticks of every block it has instructions in, each block's
 * ticks split among its lines by their share of its instructions. Pure numbers: the layer
 * reads the blocks from the SPIR-V and the counters from the GPU.
 */
#ifndef HESPER_HOT_LINES_H
#define HESPER_HOT_LINES_H

#include <stddef.h>
#include <stdint.h>

/* Longest file name kept for a line (longer ones are cut at a character boundary). */
#define HESPER_HOT_LINE_FILE_MAX 256

/* Longest name of a block without line information, and of its disassembly. */
#define HESPER_HOT_BLOCK_NAME_MAX 64
#define HESPER_HOT_BLOCK_CODE_MAX 1024

/* Blocks without line information whose disassembly a kernel's lines keep: the hottest. */
#define HESPER_HOT_BLOCKS_LISTED 3

/* A run of one block's instructions from one source line (@file NULL, @line 0: none). */
struct hesper_line_run {
	const char *file;
	uint32_t line;
	uint32_t instructions;
};

/* One counted block: what it took and its instructions' lines. */
struct hesper_counted_block {
	uint64_t ticks;      /* clock ticks, summed over the invocations that ran it */
	uint64_t executions; /* times it ran, summed over invocations */
	const struct hesper_line_run *runs;
	size_t run_count;
	const char *block; /* its name ("%52: OpLoad OpFMul"), or NULL: used when no instruction has a line */
	const char *code;  /* its disassembly, or NULL */
};

/*
 * A source line's part of its kernel's counted time; or, for a block none of whose
 * instructions carries a line but that has a name, that block's.
 */
struct hesper_hot_line {
	char file[HESPER_HOT_LINE_FILE_MAX];   /* "" for instructions that carry no line */
	uint32_t line;                         /* 0 for those */
	char block[HESPER_HOT_BLOCK_NAME_MAX]; /* such a named block's name; "" for a line */
	char code[HESPER_HOT_BLOCK_CODE_MAX];  /* its disassembly: kept for the HESPER_HOT_BLOCKS_LISTED hottest */
	double ticks;                          /* its share of the ticks of the blocks it is in */
	uint64_t executions;                   /* the most executions of a block it is in */
	double share;                          /* @ticks of all the blocks' ticks (0 when none counted) */
};

/*
 * The lines of @n counted @blocks into *@out (malloc'd; NULL when none), largest ticks
 * first (then by file, line and block), one entry per file and line, and one per named
 * block with no line that ran, *@count of them. Blocks with no instruction count nothing.
 * Returns 0, or -1 when memory runs out (*@out NULL).
 */
int hesper_hot_lines(const struct hesper_counted_block *blocks, size_t n, struct hesper_hot_line **out, size_t *count);

/*
 * Adds the @n lines @more (another run's of the same kernel) to the *@count lines at *@lines
 * (malloc'd, may be NULL): ticks and executions of a file's line (or a block) added up,
 * shares taken again from the sum, largest first. Returns 0, or -1 when memory runs out
 * (*@lines kept).
 */
int hesper_hot_lines_add(struct hesper_hot_line **lines, size_t *count, const struct hesper_hot_line *more, size_t n);

/* @l's runs per dispatch over @dispatches counted dispatches (0 when none): what one dispatch ran of it. */
double hesper_hot_line_runs_per_dispatch(const struct hesper_hot_line *l, uint64_t dispatches);

/* @l's clock ticks per run (0 when it never ran). */
double hesper_hot_line_ticks_per_run(const struct hesper_hot_line *l);

#endif
