/*
 * What the text report's files (report_text.c: header, notes and sections;
 * report_text_cells.c: text, cells and tables; report_text_tree.c: the regions) share:
 * widths in characters, not bytes ("µs" is two bytes, one column), names cleaned of
 * control characters, and the kernel table's columns.
 */
#ifndef HESPER_REPORT_TEXT_PARTS_H
#define HESPER_REPORT_TEXT_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

#define NAME_MAX_BYTES 120 /* longer names are cut, ending in "…" */
#define ELLIPSIS "\u2026"
#define CELL 48
#define LINE_COLUMNS 120 /* every line of the report fits this many columns */

enum column {
	COL_PERCENT,
	COL_TOTAL,
	COL_INSTANCES,
	COL_AVG,
	COL_MED,
	COL_P95,
	COL_MIN,
	COL_MAX,
	COL_STDDEV,
	COL_COUNT,
};

/* The columns' heads, in enum column's order. */
extern const char *const hesper_text_column_titles[COL_COUNT];

/* Writes @name cleaned, cut at NAME_MAX_BYTES on a character boundary and ending in "…" when longer. */
void hesper_text_put_name(FILE *out, const char *name);

/* The characters hesper_text_put_name writes of @name. */
size_t hesper_text_name_width(const char *name);

/* Writes @n spaces. */
void hesper_text_pad(FILE *out, size_t n);

/* Writes @cell right-aligned in @width columns, counted in characters ("µs" is one column, two bytes). */
void hesper_text_put_right(FILE *out, const char *cell, size_t width);

/*
 * Writes @sep and the @len bytes of @item at column *@col, or ends the line (after @sep's
 * comma, if it has one) and writes @item on the next, indented @indent columns, when it
 * would pass LINE_COLUMNS and the line holds more than its indent already.
 */
void hesper_text_put_item(FILE *out, size_t *col, size_t indent, const char *sep, const char *item, size_t len);

/*
 * Writes @text's words from column @col on, a line broken between two words where the next
 * would pass column @width, each further line indented @indent.
 */
void hesper_text_put_wrapped(FILE *out, const char *text, size_t col, size_t width, size_t indent);

/* Writes @name cleaned, cut to @max characters ending in "…" when longer. */
void hesper_text_put_name_cut(FILE *out, const char *name, size_t max);

/* A duration @ns as a cell (CELL bytes at @buf). */
void hesper_text_duration_cell(char *buf, double ns);

/* Every cell of row @k; @sum is the total of all rows, for Time (%). */
void hesper_text_row_cells(const struct hesper_kernel *k, uint64_t sum, char cells[COL_COUNT][CELL]);

/* A table's column heads (@ncols columns @cols, @width wide, then Name @name_w wide) and the dashes under them. */
void hesper_text_print_heads(FILE *out, const enum column *cols, size_t ncols, const size_t *width, size_t name_w);

/*
 * Prints @rows with the columns @cols (then Name): widths from a first pass over the cells;
 * a name that would pass LINE_COLUMNS goes on over further lines. @label_rows: the rows
 * are HESPER_GROUP_BY=label's (a label beginning with its kernel's name shows alone).
 */
void hesper_text_print_table(FILE *out, struct hesper_kernel **rows, size_t n, const enum column *cols, size_t ncols,
			     bool label_rows);

/*
 * The regions: as a tree when the profile has label paths (report_text_tree.c); else (a
 * summary written before paths were kept) one row per label name. 0, or -1 out of memory.
 */
int hesper_text_print_regions(FILE *out, const struct hesper_profile *p, struct hesper_kernel **regions,
			      size_t nregions);

/*
 * "Hot lines" (report_text_lines.c): per kernel whose lines were counted (HESPER_LINES), its
 * source lines with the largest share of its counted clock time first; nothing when none was.
 */
void hesper_text_print_lines(FILE *out, const struct hesper_profile *p);

#endif
