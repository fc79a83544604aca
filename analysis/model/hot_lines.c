/* Counted blocks attributed to source lines (see hot_lines.h). */
#include "hot_lines.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @s (NULL: "") into @out of @size bytes, cut at a character boundary when longer. */
static void
copy_cut(char *out, size_t size, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	if (len >= size) {
		len = size - 1;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--; /* not inside a UTF-8 character */
	}
	memcpy(out, s ? s : "", len);
	out[len] = '\0';
}

/*
 * The entry of @file's @line (or of block @block, when not NULL) in @lines (*@count of
 * them, room for *@cap), added when new; NULL when memory ran out.
 */
static struct hesper_hot_line *
line_entry(struct hesper_hot_line **lines, size_t *count, size_t *cap, const char *file, uint32_t line,
	   const char *block)
{
	char name[HESPER_HOT_LINE_FILE_MAX], block_name[HESPER_HOT_BLOCK_NAME_MAX];
	copy_cut(name, sizeof(name), file);
	copy_cut(block_name, sizeof(block_name), block);
	for (size_t i = 0; i < *count; i++)
		if ((*lines)[i].line == line && strcmp((*lines)[i].file, name) == 0 &&
		    strcmp((*lines)[i].block, block_name) == 0)
			return &(*lines)[i];
	if (*count == *cap) {
		size_t want = *cap ? 2 * *cap : 16;
		struct hesper_hot_line *more = realloc(*lines, want * sizeof(*more));
		if (!more)
			return NULL;
		*lines = more;
		*cap = want;
	}
	struct hesper_hot_line *e = &(*lines)[(*count)++];
	memset(e, 0, sizeof(*e));
	memcpy(e->file, name, sizeof(name));
	memcpy(e->block, block_name, sizeof(block_name));
	e->line = line;
	return e;
}

/* Largest ticks first, then by file and line, so that the order is the same from run to run. */
static int
by_ticks(const void *a, const void *b)
{
	const struct hesper_hot_line *x = a, *y = b;
	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	int c = strcmp(x->file, y->file);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->block, y->block);
}

/* Sorts @lines (@n) largest first and keeps the disassembly of the hottest named blocks only. */
static void
sort_lines(struct hesper_hot_line *lines, size_t n)
{
	size_t listed = 0;
	if (n)
		qsort(lines, n, sizeof(*lines), by_ticks);
	for (size_t i = 0; i < n; i++)
		if (lines[i].code[0] && listed++ >= HESPER_HOT_BLOCKS_LISTED)
			lines[i].code[0] = '\0';
}

/* Whether @b has a name and none of its instructions carries a line: it is shown as itself. */
static bool
named_block(const struct hesper_counted_block *b)
{
	if (!b->block)
		return false;
	for (size_t r = 0; r < b->run_count; r++)
		if (b->runs[r].line)
			return false;
	return true;
}

int
hesper_hot_lines(const struct hesper_counted_block *blocks, size_t n, struct hesper_hot_line **out, size_t *count)
{
	struct hesper_hot_line *lines = NULL;
	size_t used = 0, cap = 0;
	double all = 0;

	*out = NULL;
	*count = 0;
	for (size_t b = 0; b < n; b++) {
		uint64_t instructions = 0;
		for (size_t r = 0; r < blocks[b].run_count; r++)
			instructions += blocks[b].runs[r].instructions;
		if (!instructions)
			continue;
		all += (double)blocks[b].ticks;
		if (named_block(&blocks[b])) {
			if (!blocks[b].executions)
				continue; /* a block of no line that never ran: nothing to show */
			struct hesper_hot_line *e = line_entry(&lines, &used, &cap, NULL, 0, blocks[b].block);
			if (!e) {
				free(lines);
				return -1;
			}
			e->ticks += (double)blocks[b].ticks;
			if (blocks[b].executions > e->executions)
				e->executions = blocks[b].executions;
			if (!e->code[0])
				copy_cut(e->code, sizeof(e->code), blocks[b].code);
			continue;
		}
		for (size_t r = 0; r < blocks[b].run_count; r++) {
			const struct hesper_line_run *run = &blocks[b].runs[r];
			struct hesper_hot_line *e = line_entry(&lines, &used, &cap, run->file, run->line, NULL);
			if (!e) {
				free(lines);
				return -1;
			}
			e->ticks += (double)blocks[b].ticks * run->instructions / (double)instructions;
			if (blocks[b].executions > e->executions)
				e->executions = blocks[b].executions;
		}
	}
	for (size_t i = 0; i < used; i++)
		lines[i].share = all > 0 ? lines[i].ticks / all : 0;
	sort_lines(lines, used);
	*out = lines;
	*count = used;
	return 0;
}

int
hesper_hot_lines_add(struct hesper_hot_line **lines, size_t *count, const struct hesper_hot_line *more, size_t n)
{
	size_t used = *count, cap = *count;
	struct hesper_hot_line *all = NULL;
	double ticks = 0;

	if (used && !(all = malloc(used * sizeof(*all))))
		return -1;
	if (used)
		memcpy(all, *lines, used * sizeof(*all));
	for (size_t i = 0; i < n; i++) {
		struct hesper_hot_line *e = line_entry(&all, &used, &cap, more[i].file, more[i].line, more[i].block);
		if (!e) {
			free(all);
			return -1;
		}
		e->ticks += more[i].ticks;
		e->executions += more[i].executions;
		if (!e->code[0])
			memcpy(e->code, more[i].code, sizeof(e->code));
	}
	for (size_t i = 0; i < used; i++)
		ticks += all[i].ticks;
	for (size_t i = 0; i < used; i++)
		all[i].share = ticks > 0 ? all[i].ticks / ticks : 0;
	sort_lines(all, used);
	free(*lines);
	*lines = all;
	*count = used;
	return 0;
}

double
hesper_hot_line_runs_per_dispatch(const struct hesper_hot_line *l, uint64_t dispatches)
{
	return dispatches ? (double)l->executions / (double)dispatches : 0;
}

double
hesper_hot_line_ticks_per_run(const struct hesper_hot_line *l)
{
	return l->executions ? l->ticks / (double)l->executions : 0;
}
