/* The text report's regions: the debug labels as a tree (report_text_parts.h). */
#include "report_text_parts.h"

#include <inttypes.h>
#include <string.h>

#include "profile/profile.h"
#include "report.h"

#define TREE_NAME_MIN 24     /* a name in the tree keeps at least this many columns, however deep */
#define TREE_SHOWN 10        /* a label's nested labels, and its kernels, shown before the rest fold */
#define TREE_FOLD_DEPTHS 64  /* levels folded apart; deeper ones fold with this one */
#define TREE_INDENT_LEVELS 8 /* levels indented two columns each; deeper ones say "+N" */

/* What stands before a tree row's name at @depth: two spaces a level, "+N " past TREE_INDENT_LEVELS. */
static size_t
tree_indent(char *buf, size_t size, uint32_t depth)
{
	uint32_t levels = depth < TREE_INDENT_LEVELS ? depth : TREE_INDENT_LEVELS;
	size_t n = 0;

	for (uint32_t i = 0; i < levels && n + 2 < size; i++) {
		buf[n++] = ' ';
		buf[n++] = ' ';
	}
	buf[n] = '\0';
	if (depth > TREE_INDENT_LEVELS)
		snprintf(buf + n, size - n, "+%" PRIu32 " ", depth - TREE_INDENT_LEVELS);
	return strlen(buf);
}

enum { TREE_COLS = 7 };
static const enum column tree_cols[TREE_COLS] = {COL_TOTAL, COL_INSTANCES, COL_AVG, COL_MED, COL_P95, COL_MIN, COL_MAX};

/* A tree row's cells: a label's every column; a kernel's Total, Instances and Avg, the rest blank. */
static void
tree_cells(const struct hesper_kernel *k, bool kernel, char cells[COL_COUNT][CELL])
{
	hesper_text_row_cells(k, 0, cells);
	if (kernel)
		for (int c = COL_MED; c < COL_COUNT; c++)
			cells[c][0] = '\0';
}

/* A tree line: @cells in @width, then the indent of @depth, @mark, and @name cut to fit. */
static void
tree_line(FILE *out, char cells[COL_COUNT][CELL], const char *mark, const char *name, uint32_t depth,
	  const size_t *width, size_t name_room)
{
	char indent[32];
	size_t used = tree_indent(indent, sizeof(indent), depth) + hesper_text_width(mark);

	for (size_t c = 0; c < TREE_COLS; c++) {
		hesper_text_pad(out, 1 + (c > 0) + width[c] - hesper_text_width(cells[tree_cols[c]]));
		fputs(cells[tree_cols[c]], out);
	}
	fputs("  ", out);
	fputs(indent, out);
	fputs(mark, out);
	hesper_text_put_name_cut(out, name, name_room > used + TREE_NAME_MIN ? name_room - used : TREE_NAME_MIN);
	fputc('\n', out);
}

/* One tree row: its cells, then "* " for a kernel, and the name. */
static void
tree_row(FILE *out, const struct hesper_kernel *k, const char *name, bool kernel, uint32_t depth, const size_t *width,
	 size_t name_room)
{
	char cells[COL_COUNT][CELL];

	tree_cells(k, kernel, cells);
	tree_line(out, cells, kernel ? "* " : "", name, depth, width, name_room);
}

/* Rows of a tree folded into one line: how many, their instances and their total. */
struct tree_fold {
	size_t rows;
	uint64_t instances, total_ns;
	bool estimated;
};

static void
fold_in(struct tree_fold *f, const struct hesper_kernel *k)
{
	struct hesper_row r = hesper_row_numbers(k, 0);

	f->rows++;
	f->instances += k->count;
	f->total_ns += r.total_ns;
	f->estimated |= r.estimated;
}

/* The line of @f at @depth ("… N more regions", their Total and Instances), and @f emptied; nothing when empty. */
static void
put_fold(FILE *out, struct tree_fold *f, const char *what, uint32_t depth, const size_t *width, size_t name_room)
{
	char cells[COL_COUNT][CELL] = {{0}}, name[64];

	if (!f->rows)
		return;
	cells[COL_TOTAL][0] = '~';
	hesper_text_duration_cell(cells[COL_TOTAL] + f->estimated, (double)f->total_ns);
	snprintf(cells[COL_INSTANCES], CELL, "%" PRIu64, f->instances);
	snprintf(name, sizeof(name), "%s %zu more %s", ELLIPSIS, f->rows, what);
	tree_line(out, cells, "", name, depth, width, name_room);
	*f = (struct tree_fold){0};
}

/*
 * The regions as a tree: each label under the label it ran in, with its instances'
 * statistics (one instance's time: a frame's, a layer's), and under it, marked "* ", the
 * kernels that ran directly in it (dispatches, total, mean). Names are cut so that a line
 * fits LINE_COLUMNS. A label shows its TREE_SHOWN largest nested labels and kernels; the
 * rest of each (and what is nested in them) fold into one line, "… N more regions" with
 * their total, so that a run labelling every op stays a page (the JSON has every node).
 */
static void
print_region_tree(FILE *out, const struct hesper_region_tree *t)
{
	size_t width[TREE_COLS], line = 0, name_w = strlen("Name");
	char cells[COL_COUNT][CELL], indent[32];

	for (size_t c = 0; c < TREE_COLS; c++)
		width[c] = hesper_text_width(hesper_text_column_titles[tree_cols[c]]);
	for (size_t i = 0; i < t->count; i++) {
		const struct hesper_region_node *node = &t->nodes[i];

		for (size_t k = 0; k <= node->kernel_count; k++) {
			tree_cells(k ? node->kernels[k - 1] : node->row, k > 0, cells);
			for (size_t c = 0; c < TREE_COLS; c++)
				if (hesper_text_width(cells[tree_cols[c]]) > width[c])
					width[c] = hesper_text_width(cells[tree_cols[c]]);
			size_t w = tree_indent(indent, sizeof(indent), node->depth + (k > 0)) + 2 * (k > 0) +
				   hesper_text_width(k ? hesper_label_kernel_name(node->kernels[k - 1]) : node->name);
			name_w = w > name_w ? w : name_w;
		}
	}
	for (size_t c = 0; c < TREE_COLS; c++)
		line += 1 + (c > 0) + width[c];
	size_t name_room = line + 2 + TREE_NAME_MIN < LINE_COLUMNS ? LINE_COLUMNS - line - 2 : TREE_NAME_MIN;
	name_w = name_w < name_room ? name_w : name_room;

	fputs("\nRegions (debug labels)\n", out);
	hesper_text_print_heads(out, tree_cols, TREE_COLS, width, name_w);
	/* per depth: the labels shown under the current parent, and those folded */
	size_t shown[TREE_FOLD_DEPTHS] = {0};
	struct tree_fold folded[TREE_FOLD_DEPTHS] = {{0}};
	uint32_t skip_below = UINT32_MAX; /* inside a folded label: its nested ones are in its total */
	for (size_t i = 0; i <= t->count; i++) {
		const struct hesper_region_node *node = i < t->count ? &t->nodes[i] : NULL;
		uint32_t d = node ? (node->depth < TREE_FOLD_DEPTHS ? node->depth : TREE_FOLD_DEPTHS - 1) : 0;

		/* the parents of the levels below @d ended (all of them at the end): their folds, counts anew */
		for (uint32_t e = TREE_FOLD_DEPTHS; e-- > (node ? d + 1 : 0);) {
			put_fold(out, &folded[e], "regions", e, width, name_room);
			shown[e] = 0;
		}
		if (!node)
			break;
		if (d > skip_below)
			continue;
		skip_below = UINT32_MAX;
		if (shown[d] >= TREE_SHOWN) {
			fold_in(&folded[d], node->row);
			skip_below = d;
			continue;
		}
		shown[d]++;
		tree_row(out, node->row, node->name, false, node->depth, width, name_room);
		struct tree_fold kernels = {0};
		for (size_t k = 0; k < node->kernel_count; k++) {
			if (k < TREE_SHOWN)
				tree_row(out, node->kernels[k], hesper_label_kernel_name(node->kernels[k]), true,
					 node->depth + 1, width, name_room);
			else
				fold_in(&kernels, node->kernels[k]);
		}
		put_fold(out, &kernels, "kernels", node->depth + 1, width, name_room);
	}
}

/*
 * The regions: as a tree when the profile has label paths; else (a summary written before
 * paths were kept) one row per label name.
 */
int
hesper_text_print_regions(FILE *out, const struct hesper_profile *p, struct hesper_kernel **regions, size_t nregions)
{
	static const enum column region_cols[] = {COL_TOTAL, COL_INSTANCES, COL_AVG};
	struct hesper_region_tree tree;

	if (p->label_paths && hesper_kernel_table_size(p->label_paths)) {
		if (hesper_region_tree_build(p->label_paths, p->label_kernels, &tree) != 0)
			return -1;
		print_region_tree(out, &tree);
		hesper_region_tree_free(&tree);
		return 0;
	}
	if (nregions) {
		fputs("\nRegions (debug labels)\n", out);
		hesper_text_print_table(out, regions, nregions, region_cols,
					sizeof(region_cols) / sizeof(region_cols[0]), false);
	}
	return 0;
}
