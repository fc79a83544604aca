/* The text report's text, cells and tables (report_text_parts.h). */
#include "report_text_parts.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define TABLE_NAME_MIN 24 /* a table's Name column keeps at least this many columns */

const char *const hesper_text_column_titles[COL_COUNT] = {
	"Time (%)", "Total", "Instances", "Avg", "Med", "P95", "Min", "Max", "StdDev",
};

/* Characters in the @len bytes of @s: every byte but UTF-8 continuation bytes starts one. */
static size_t
width_of(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

size_t
hesper_text_width(const char *s)
{
	return width_of(s, strlen(s));
}

/* Bytes of @name printed: all of it, or a prefix ending on a character boundary. */
static size_t
hesper_text_name_bytes(const char *name, bool *cut)
{
	size_t len = strlen(name);

	*cut = len > NAME_MAX_BYTES;
	if (!*cut)
		return len;
	len = NAME_MAX_BYTES - (sizeof(ELLIPSIS) - 1);
	while (len > 0 && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	return len;
}

void
hesper_text_put_clean(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
	}
}

void
hesper_text_put_name(FILE *out, const char *name)
{
	bool cut;
	size_t len = hesper_text_name_bytes(name, &cut);

	hesper_text_put_clean(out, name, len);
	if (cut)
		fputs(ELLIPSIS, out);
}

size_t
hesper_text_name_width(const char *name)
{
	bool cut;
	size_t len = hesper_text_name_bytes(name, &cut);

	return width_of(name, len) + cut;
}

void
hesper_text_pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

void
hesper_text_put_right(FILE *out, const char *cell, size_t width)
{
	size_t w = hesper_text_width(cell);

	hesper_text_pad(out, width > w ? width - w : 0);
	fputs(cell, out);
}

/*
 * Writes @sep and the @len bytes of @item at column *@col, or ends the line (after @sep's
 * comma, if it has one) and writes @item on the next, indented @indent columns, when it
 * would pass LINE_COLUMNS and the line holds more than its indent already.
 */
void
hesper_text_put_item(FILE *out, size_t *col, size_t indent, const char *sep, const char *item, size_t len)
{
	size_t width = 0;

	for (size_t i = 0; i < len; i++)
		width += ((unsigned char)item[i] & 0xc0) != 0x80;
	/* with a comma between items, room is kept for the one a later break ends this line with */
	if (*col > indent && *col + strlen(sep) + width + (sep[0] == ',') > LINE_COLUMNS) {
		fputs(sep[0] == ',' ? ",\n" : "\n", out);
		hesper_text_pad(out, indent);
		*col = indent;
	} else {
		fputs(sep, out);
		*col += strlen(sep);
	}
	hesper_text_put_clean(out, item, len);
	*col += width;
}

/*
 * Writes @text's words from column @col on, a line broken between two words where the next
 * would pass column @width, each further line indented @indent.
 */
void
hesper_text_put_wrapped(FILE *out, const char *text, size_t col, size_t width, size_t indent)
{
	for (bool first = true; *text; first = false) {
		const char *end = strchr(text, ' ');
		size_t len = end ? (size_t)(end - text) : strlen(text);
		char word[256];

		snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) - 1 ? len : sizeof(word) - 1), text);
		if (!first && col + 1 + hesper_text_width(word) > width) {
			fputc('\n', out);
			hesper_text_pad(out, indent);
			col = indent;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		hesper_text_put_clean(out, word, strlen(word));
		col += hesper_text_width(word);
		text += len;
		while (*text == ' ')
			text++;
	}
}

void
hesper_text_duration_cell(char *buf, double ns)
{
	hesper_format_duration(buf, CELL, ns);
}

/* Every cell of row @k; @sum is the total of all rows, for Time (%). */
void
hesper_text_row_cells(const struct hesper_kernel *k, uint64_t sum, char cells[COL_COUNT][CELL])
{
	struct hesper_row r = hesper_row_numbers(k, sum);

	snprintf(cells[COL_PERCENT], CELL, "%.1f", r.percent);
	snprintf(cells[COL_INSTANCES], CELL, "%" PRIu64, k->count);
	if (!r.timed) {
		/* Counted but never timed: no duration to show, nor a share of the total (not 0.0). */
		for (int c = COL_PERCENT; c < COL_COUNT; c++)
			if (c != COL_INSTANCES)
				strcpy(cells[c], "-");
		return;
	}
	cells[COL_TOTAL][0] = '~';
	hesper_text_duration_cell(cells[COL_TOTAL] + r.estimated, (double)r.total_ns);
	hesper_text_duration_cell(cells[COL_AVG], r.mean_ns);
	hesper_text_duration_cell(cells[COL_MED], r.median_ns);
	/* Median and p95 are the steady state: first-run shader compilation lands in Max and Avg. */
	hesper_text_duration_cell(cells[COL_P95], r.p95_ns);
	hesper_text_duration_cell(cells[COL_MIN], r.min_ns);
	hesper_text_duration_cell(cells[COL_MAX], r.max_ns);
	hesper_text_duration_cell(cells[COL_STDDEV], r.stddev_ns);
}

/* A table's column heads (@ncols columns @cols, @width wide, then Name @name_w wide) and the dashes under them. */
void
hesper_text_print_heads(FILE *out, const enum column *cols, size_t ncols, const size_t *width, size_t name_w)
{
	for (size_t c = 0; c < ncols; c++) {
		hesper_text_pad(out, 1 + (c > 0) + width[c] - hesper_text_width(hesper_text_column_titles[cols[c]]));
		fputs(hesper_text_column_titles[cols[c]], out);
	}
	fputs("  Name\n", out);
	for (size_t c = 0; c < ncols; c++) {
		hesper_text_pad(out, 1 + (c > 0));
		for (size_t j = 0; j < width[c]; j++)
			fputc('-', out);
	}
	fputs("  ", out);
	for (size_t j = 0; j < name_w; j++)
		fputc('-', out);
	fputc('\n', out);
}

/*
 * The length of the part of row name @name a table shows: a label row "label/kernel" whose
 * label begins with the kernel's name and a space (ggml's "rms_norm_f32 (11,1,1)") shows
 * its label alone, the kernel named twice being no more; any other name whole.
 */
static size_t
hesper_text_shown_length(const char *name, bool label_rows)
{
	size_t len = strlen(name);

	for (size_t i = len; label_rows && i-- > 0;) {
		size_t k = len - i - 1;
		if (name[i] == '/' && k > 0 && k < i && strncmp(name, name + i + 1, k) == 0 && name[k] == ' ')
			return i;
	}
	return len;
}

/* The text a table shows for row name @name: shown_length's part, cut like put_name's. */
static void
hesper_text_shown_name(char *buf, size_t size, const char *name, bool label_rows)
{
	bool cut;
	size_t len = hesper_text_shown_length(name, label_rows);
	char *part = strndup(name, len);

	if (!part) {
		snprintf(buf, size, "%s", "?");
		return;
	}
	len = hesper_text_name_bytes(part, &cut);
	snprintf(buf, size, "%.*s%s", (int)len, part, cut ? ELLIPSIS : "");
	free(part);
}

/*
 * Writes the shown name @name from column @col, in lines of at most @room characters, each
 * further line indented to @col: broken after a '/' or a space where one lies in reach,
 * else after @room characters. The lines' parts put together are the name again.
 */
static void
hesper_text_put_table_name(FILE *out, const char *name, size_t col, size_t room)
{
	size_t left = strlen(name);

	while (hesper_text_width(name) > room) {
		size_t fit = 0;
		for (size_t chars = 0; chars < room; fit++)
			chars += ((unsigned char)name[fit + 1] & 0xc0) != 0x80;
		size_t at = fit;
		for (size_t i = fit; i > 1; i--)
			if (name[i - 1] == '/' || name[i - 1] == ' ') {
				at = i;
				break;
			}
		hesper_text_put_clean(out, name, at);
		fputc('\n', out);
		hesper_text_pad(out, col);
		name += at;
		left -= at;
	}
	hesper_text_put_clean(out, name, left);
}

/*
 * Prints @rows with the columns @cols (then Name): widths from a first pass over the cells;
 * a name that would pass LINE_COLUMNS goes on over further lines. @label_rows: the rows
 * are HESPER_GROUP_BY=label's (shown_length).
 */
void
hesper_text_print_table(FILE *out, struct hesper_kernel **rows, size_t n, const enum column *cols, size_t ncols,
			bool label_rows)
{
	size_t width[COL_COUNT] = {0}, name_w = strlen("Name"), name_col = 2;
	char cells[COL_COUNT][CELL], name[NAME_MAX_BYTES + sizeof(ELLIPSIS)];
	uint64_t sum = hesper_rows_total_ns(rows, n);

	for (size_t c = 0; c < ncols; c++)
		width[c] = hesper_text_width(hesper_text_column_titles[cols[c]]);
	for (size_t i = 0; i < n; i++) {
		hesper_text_row_cells(rows[i], sum, cells);
		for (size_t c = 0; c < ncols; c++) {
			size_t w = hesper_text_width(cells[cols[c]]);
			if (w > width[c])
				width[c] = w;
		}
		hesper_text_shown_name(name, sizeof(name), rows[i]->name, label_rows);
		size_t w = hesper_text_width(name);
		if (w > name_w)
			name_w = w;
	}
	for (size_t c = 0; c < ncols; c++)
		name_col += 1 + (c > 0) + width[c];
	/* a name keeps TABLE_NAME_MIN columns however wide the numbers are */
	size_t room = name_col + TABLE_NAME_MIN < LINE_COLUMNS ? LINE_COLUMNS - name_col : TABLE_NAME_MIN;
	if (name_w > room)
		name_w = room;

	hesper_text_print_heads(out, cols, ncols, width, name_w);

	for (size_t i = 0; i < n; i++) {
		hesper_text_row_cells(rows[i], sum, cells);
		for (size_t c = 0; c < ncols; c++) {
			hesper_text_pad(out, 1 + (c > 0) + width[c] - hesper_text_width(cells[cols[c]]));
			fputs(cells[cols[c]], out);
		}
		fputs("  ", out);
		hesper_text_shown_name(name, sizeof(name), rows[i]->name, label_rows);
		hesper_text_put_table_name(out, name, name_col, room);
		fputc('\n', out);
	}
}

/* Prints @name, control characters as '?', cut to @max characters ending in "…" when longer. */
void
hesper_text_put_name_cut(FILE *out, const char *name, size_t max)
{
	size_t len = strlen(name), chars = 0, i = 0;

	if (hesper_text_width(name) <= max) {
		hesper_text_put_clean(out, name, len);
		return;
	}
	for (; i < len && chars + 1 < max; i++)
		chars += ((unsigned char)name[i] & 0xc0) != 0x80;
	while (i < len && ((unsigned char)name[i] & 0xc0) == 0x80)
		i++;
	hesper_text_put_clean(out, name, i);
	fputs(ELLIPSIS, out);
}
