/*
 * The text report: a few header lines, then a table shaped like `nsys stats`'
 * cuda_gpu_kern_sum (with a P95 column added), then label regions. Durations use hesper_format_duration().
 *
 * Column widths come from the content, measured in characters rather than bytes
 * ("µs" is two bytes, one column). Name is the last column so a long name never pushes
 * another column out of line. Control characters in names become '?' so a hostile
 * or broken name cannot drive the terminal.
 */
#include "report.h"

#include "findings.h"
#include "kernel_occupancy.h"
#include "region_tree.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES 120 /* longer names are cut, ending in "…" */
#define ELLIPSIS "\u2026"
#define CELL 48
#define LINE_COLUMNS 120     /* the header's, the region tree's and the findings' lines fit this many columns */
#define FINDING_INDENT 5     /* a finding's lines under its number */
#define HEADER_INDENT 15     /* where the header's values start: "  device 0     " */
#define TABLE_NAME_MIN 24    /* a table's Name column keeps at least this many columns */
#define TREE_NAME_MIN 24     /* a name in the tree keeps at least this many columns, however deep */
#define TREE_SHOWN 10        /* a label's nested labels, and its kernels, shown before the rest fold */
#define TREE_FOLD_DEPTHS 64  /* levels folded apart; deeper ones fold with this one */
#define TREE_INDENT_LEVELS 8 /* levels indented two columns each; deeper ones say "+N" */

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

static const char *const column_titles[COL_COUNT] = {
	"Time (%)", "Total", "Instances", "Avg", "Med", "P95", "Min", "Max", "StdDev",
};

/* Characters in @s: every byte but UTF-8 continuation bytes starts one. */
static size_t
text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Bytes of @name printed: all of it, or a prefix ending on a character boundary. */
static size_t
name_bytes(const char *name, bool *cut)
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

static void
put_clean(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
	}
}

static void
put_name(FILE *out, const char *name)
{
	bool cut;
	size_t len = name_bytes(name, &cut);

	put_clean(out, name, len);
	if (cut)
		fputs(ELLIPSIS, out);
}

static size_t
name_width(const char *name)
{
	bool cut;
	size_t len = name_bytes(name, &cut), width = 0;

	for (size_t i = 0; i < len; i++)
		width += ((unsigned char)name[i] & 0xc0) != 0x80;
	return width + cut;
}

static void
pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

/*
 * Writes @sep and the @len bytes of @item at column *@col, or ends the line (after @sep's
 * comma, if it has one) and writes @item on the next, indented @indent columns, when it
 * would pass LINE_COLUMNS and the line holds more than its indent already.
 */
static void
put_item(FILE *out, size_t *col, size_t indent, const char *sep, const char *item, size_t len)
{
	size_t width = 0;

	for (size_t i = 0; i < len; i++)
		width += ((unsigned char)item[i] & 0xc0) != 0x80;
	/* with a comma between items, room is kept for the one a later break ends this line with */
	if (*col > indent && *col + strlen(sep) + width + (sep[0] == ',') > LINE_COLUMNS) {
		fputs(sep[0] == ',' ? ",\n" : "\n", out);
		pad(out, indent);
		*col = indent;
	} else {
		fputs(sep, out);
		*col += strlen(sep);
	}
	put_clean(out, item, len);
	*col += width;
}

/*
 * Writes @text's words from column @col on, a line broken between two words where the next
 * would pass column @width, each further line indented @indent.
 */
static void
put_wrapped(FILE *out, const char *text, size_t col, size_t width, size_t indent)
{
	for (bool first = true; *text; first = false) {
		const char *end = strchr(text, ' ');
		size_t len = end ? (size_t)(end - text) : strlen(text);
		char word[256];

		snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) - 1 ? len : sizeof(word) - 1), text);
		if (!first && col + 1 + text_width(word) > width) {
			fputc('\n', out);
			pad(out, indent);
			col = indent;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		put_clean(out, word, strlen(word));
		col += text_width(word);
		text += len;
		while (*text == ' ')
			text++;
	}
}

static void
duration_cell(char *buf, double ns)
{
	hesper_format_duration(buf, CELL, ns);
}

/* Every cell of row @k; @sum is the total of all rows, for Time (%). */
static void
row_cells(const struct hesper_kernel *k, uint64_t sum, char cells[COL_COUNT][CELL])
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
	duration_cell(cells[COL_TOTAL] + r.estimated, (double)r.total_ns);
	duration_cell(cells[COL_AVG], r.mean_ns);
	duration_cell(cells[COL_MED], r.median_ns);
	/* Median and p95 are the steady state: first-run shader compilation lands in Max and Avg. */
	duration_cell(cells[COL_P95], r.p95_ns);
	duration_cell(cells[COL_MIN], r.min_ns);
	duration_cell(cells[COL_MAX], r.max_ns);
	duration_cell(cells[COL_STDDEV], r.stddev_ns);
}

/* A table's column heads (@ncols columns @cols, @width wide, then Name @name_w wide) and the dashes under them. */
static void
print_heads(FILE *out, const enum column *cols, size_t ncols, const size_t *width, size_t name_w)
{
	for (size_t c = 0; c < ncols; c++) {
		pad(out, 1 + (c > 0) + width[c] - text_width(column_titles[cols[c]]));
		fputs(column_titles[cols[c]], out);
	}
	fputs("  Name\n", out);
	for (size_t c = 0; c < ncols; c++) {
		pad(out, 1 + (c > 0));
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
shown_length(const char *name, bool label_rows)
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
shown_name(char *buf, size_t size, const char *name, bool label_rows)
{
	bool cut;
	size_t len = shown_length(name, label_rows);
	char *part = strndup(name, len);

	if (!part) {
		snprintf(buf, size, "%s", "?");
		return;
	}
	len = name_bytes(part, &cut);
	snprintf(buf, size, "%.*s%s", (int)len, part, cut ? ELLIPSIS : "");
	free(part);
}

/*
 * Writes the shown name @name from column @col, in lines of at most @room characters, each
 * further line indented to @col: broken after a '/' or a space where one lies in reach,
 * else after @room characters. The lines' parts put together are the name again.
 */
static void
put_table_name(FILE *out, const char *name, size_t col, size_t room)
{
	size_t left = strlen(name);

	while (text_width(name) > room) {
		size_t fit = 0;
		for (size_t chars = 0; chars < room; fit++)
			chars += ((unsigned char)name[fit + 1] & 0xc0) != 0x80;
		size_t at = fit;
		for (size_t i = fit; i > 1; i--)
			if (name[i - 1] == '/' || name[i - 1] == ' ') {
				at = i;
				break;
			}
		put_clean(out, name, at);
		fputc('\n', out);
		pad(out, col);
		name += at;
		left -= at;
	}
	put_clean(out, name, left);
}

/*
 * Prints @rows with the columns @cols (then Name): widths from a first pass over the cells;
 * a name that would pass LINE_COLUMNS goes on over further lines. @label_rows: the rows
 * are HESPER_GROUP_BY=label's (shown_length).
 */
static void
print_table(FILE *out, struct hesper_kernel **rows, size_t n, const enum column *cols, size_t ncols, bool label_rows)
{
	size_t width[COL_COUNT] = {0}, name_w = strlen("Name"), name_col = 2;
	char cells[COL_COUNT][CELL], name[NAME_MAX_BYTES + sizeof(ELLIPSIS)];
	uint64_t sum = hesper_rows_total_ns(rows, n);

	for (size_t c = 0; c < ncols; c++)
		width[c] = text_width(column_titles[cols[c]]);
	for (size_t i = 0; i < n; i++) {
		row_cells(rows[i], sum, cells);
		for (size_t c = 0; c < ncols; c++) {
			size_t w = text_width(cells[cols[c]]);
			if (w > width[c])
				width[c] = w;
		}
		shown_name(name, sizeof(name), rows[i]->name, label_rows);
		size_t w = text_width(name);
		if (w > name_w)
			name_w = w;
	}
	for (size_t c = 0; c < ncols; c++)
		name_col += 1 + (c > 0) + width[c];
	/* a name keeps TABLE_NAME_MIN columns however wide the numbers are */
	size_t room = name_col + TABLE_NAME_MIN < LINE_COLUMNS ? LINE_COLUMNS - name_col : TABLE_NAME_MIN;
	if (name_w > room)
		name_w = room;

	print_heads(out, cols, ncols, width, name_w);

	for (size_t i = 0; i < n; i++) {
		row_cells(rows[i], sum, cells);
		for (size_t c = 0; c < ncols; c++) {
			pad(out, 1 + (c > 0) + width[c] - text_width(cells[cols[c]]));
			fputs(cells[cols[c]], out);
		}
		fputs("  ", out);
		shown_name(name, sizeof(name), rows[i]->name, label_rows);
		put_table_name(out, name, name_col, room);
		fputc('\n', out);
	}
}

static void
print_header(FILE *out, const struct hesper_profile *p)
{
	fputs("Hesper GPU kernel summary\n", out);
	fputs("  program      ", out);
	put_clean(out, p->exe[0] ? p->exe : "?", strnlen(p->exe[0] ? p->exe : "?", HESPER_NAME_MAX));
	/* pid 0: no one process (a merge, whose exe names its programs and their pids). */
	if (p->pid > 0)
		fprintf(out, " (pid %d, host ", p->pid);
	else
		fputs(", host ", out);
	put_clean(out, p->host[0] ? p->host : "?", strnlen(p->host[0] ? p->host : "?", HESPER_NAME_MAX));
	fputs(p->pid > 0 ? ")\n" : "\n", out);
	for (size_t i = 0; i < p->device_count; i++) {
		const struct hesper_device_info *d = &p->devices[i];
		char item[HESPER_NAME_MAX + 32], cost[CELL];
		size_t col = HEADER_INDENT;

		fprintf(out, "  device %-5zu ", i);
		put_item(out, &col, HEADER_INDENT, "", d->name, strnlen(d->name, HESPER_NAME_MAX));
		if (d->driver[0]) {
			snprintf(item, sizeof(item), "driver %.*s", (int)strnlen(d->driver, HESPER_NAME_MAX),
				 d->driver);
			put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		snprintf(item, sizeof(item), "timestampPeriod %g ns", d->timestamp_period_ns);
		put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		if (d->copy[0]) {
			snprintf(item, sizeof(item), "timestamps read by %s",
				 strcmp(d->copy, "host") ? "a GPU copy" : "the host");
			put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		if (d->timing[0]) {
			snprintf(item, sizeof(item), "timed by %.*s", (int)strnlen(d->timing, sizeof(d->timing)),
				 d->timing);
			put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		if (d->dispatch_cost_ns) {
			snprintf(item, sizeof(item), "dispatch cost %s",
				 hesper_format_duration(cost, sizeof(cost), (double)d->dispatch_cost_ns));
			put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		if (d->compute_units) {
			snprintf(item, sizeof(item), "%" PRIu32 " compute units", d->compute_units);
			put_item(out, &col, HEADER_INDENT, ", ", item, strlen(item));
		}
		fputc('\n', out);
	}
}

/*
 * The memory-operation table: one line per kind that ran. Total is estimated (~) like a
 * kernel's when not every operation was timed; GB/s is the timed bytes over the timed
 * time; Share is the total's part of the GPU busy time.
 */
static void
print_memops(FILE *out, const struct hesper_profile *p)
{
	uint64_t busy = hesper_profile_gpu_busy_ns(p);
	char total[CELL], mean[CELL], gbps[CELL], share[CELL];

	if (!hesper_memops_count(&p->memops))
		return;
	fputs("\nMemory operations\n", out);
	fprintf(out, " %10s  %10s  %10s  %14s  %9s  %7s  %s\n", "Count", "Total", "Mean", "Bytes", "GB/s", "Share",
		"Operation");
	fprintf(out, " %10s  %10s  %10s  %14s  %9s  %7s  %s\n", "----------", "----------", "----------",
		"--------------", "---------", "-------", "--------------------");
	for (int i = 0; i < HESPER_MEMOP_KINDS; i++) {
		const struct hesper_memop_row *row = &p->memops.rows[i];
		struct hesper_row r = hesper_row_numbers(&row->k, 0);

		if (!row->k.count)
			continue;
		strcpy(total, "-");
		strcpy(mean, "-");
		strcpy(gbps, "-");
		strcpy(share, "-");
		if (r.timed) {
			total[0] = '~';
			hesper_format_duration(total + r.estimated, CELL - 1, (double)r.total_ns);
			hesper_format_duration(mean, CELL, r.mean_ns);
			if (row->timed_bytes && row->k.timed.total_ns)
				snprintf(gbps, CELL, "%.3f", hesper_memop_mean_gbps(row));
			if (busy)
				snprintf(share, CELL, "%.1f%%", 100.0 * (double)r.total_ns / (double)busy);
		}
		/* Column widths are fixed here: durations and numbers fit them; "µs" is one column, two bytes. */
		fprintf(out, " %10" PRIu64 "  %*s  %*s  %14" PRIu64 "  %9s  %7s  %s", row->k.count,
			(int)(10 + strlen(total) - text_width(total)), total,
			(int)(10 + strlen(mean) - text_width(mean)), mean, row->bytes, gbps, share, row->k.name);
		if (row->unsized)
			fprintf(out, " (%" PRIu64 " of unknown size)", row->unsized);
		fputc('\n', out);
	}
}

/* The lines on a report written while the program runs, and on the capture window. */
static void
put_live(FILE *out, const struct hesper_profile *p)
{
	char a[32], b[32];
	const struct hesper_capture_info *c = &p->capture;

	if (p->report.partial)
		fprintf(out, "  report       #%" PRIu64 " (%s), written while the program runs\n", p->report.number,
			p->report.reason ? p->report.reason : "?");
	if (p->report.signal) {
		fputs("  ended by     ", out);
		put_clean(out, p->report.signal, strnlen(p->report.signal, 32));
		fputs(": the report holds what ran until then\n", out);
	}
	if (!c->set)
		return;
	fprintf(out, "  capture      from %s", c->start[0] ? c->start : "the start");
	if (c->opened)
		fprintf(out, " (opened at %s)", hesper_format_duration(a, sizeof(a), (double)c->opened_ns));
	else
		fputs(" (not opened)", out);
	/* A time stop counts from the opening: "for 0.100 s", not "to 0.100 s" (before it opened). */
	if (!c->stop[0])
		fputs(" to the end", out);
	else
		fprintf(out, " %s %s", strncmp(c->stop, "label:", 6) == 0 ? "to" : "for", c->stop);
	/* Why the window's wall time may end elsewhere than its stop: said, so that the line adds up. */
	uint64_t until = c->closed ? c->closed_ns : p->wall_ns;
	bool ran_on = c->opened && c->end_ns > until;
	if (c->closed)
		fprintf(out, " (closed at %s)", hesper_format_duration(b, sizeof(b), (double)c->closed_ns));
	else if (c->opened && c->stop[0])
		fprintf(out, " (%s never came: open to the end)",
			strncmp(c->stop, "label:", 6) == 0 ? "it" : "that time");
	if (c->opened)
		fprintf(out, ": %s",
			hesper_format_duration(a, sizeof(a), (double)hesper_capture_wall_ns(c, p->wall_ns)));
	if (ran_on)
		fprintf(out, ",\n               to the end of the GPU work submitted inside it, at %s",
			hesper_format_duration(b, sizeof(b), (double)c->end_ns));
	fprintf(out,
		"\n  outside      the window: %" PRIu64 " dispatches, %" PRIu64 " submissions, %" PRIu64
		" memory operations, counted, not timed, in no table\n",
		c->outside, c->submissions_outside, c->memops_outside);
}

/*
 * The dropped dispatches: how many, then each cause that happened with its count (the rest,
 * in a summary that does not keep causes, as not recorded).
 */
static void
print_dropped(FILE *out, const struct hesper_profile *p)
{
	uint64_t told = 0;

	if (!p->dropped)
		return;
	fprintf(out, "\nDropped: %" PRIu64 " dispatches ran but could not be timed:\n", p->dropped);
	for (unsigned c = 0; c < HESPER_DROP_CAUSES; c++) {
		if (!p->dropped_by[c])
			continue;
		fprintf(out, "  %10" PRIu64 "  %s\n", p->dropped_by[c],
			hesper_drop_cause_text((enum hesper_drop_cause)c));
		told += p->dropped_by[c];
	}
	if (told < p->dropped)
		fprintf(out, "  %10" PRIu64 "  for a cause the summary does not record\n", p->dropped - told);
}

/* Appends @part to the "; "-separated list in @buf (of @size bytes). */
static void
append_reason(char *buf, size_t size, const char *part)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", len ? "; " : "", part);
}

/*
 * Why kernels ran more often than they were timed, into @buf: a choice (mode, sampling,
 * the capture window), a loss (dropped dispatches, clamped intervals), or both.
 */
static const char *
untimed_reasons(char *buf, size_t size, const struct hesper_profile *p)
{
	/* a choice (submit mode, sampling) or a loss (dropped, clamped); several can hold */
	bool chosen = strcmp(p->mode, "submit") == 0 || p->sample_every > 1;
	char clamped[64];

	buf[0] = '\0';
	if (chosen)
		append_reason(buf, size, p->sample_every > 1 ? "sampling" : "submit mode");
	if (p->dropped)
		append_reason(buf, size, "dropped dispatches, see below");
	if (p->clamped) {
		/* An end before its start is no time: the dispatch is counted, its 0 ns left out. */
		snprintf(clamped, sizeof(clamped), "%" PRIu64 " clamped intervals left out", p->clamped);
		append_reason(buf, size, clamped);
	}
	if (!buf[0])
		append_reason(buf, size, "not every run could be timed");
	return buf;
}

/* The host-wait table: one line per thread and call. */
static void
print_host_waits(FILE *out, const struct hesper_profile *p)
{
	char total[CELL], mean[CELL], max[CELL];

	if (!p->host_wait_count)
		return;
	fputs("\nHost waits (the program's threads blocked in Vulkan)\n", out);
	fprintf(out, "  %-10s %-22s %10s %12s %12s %12s\n", "thread", "call", "count", "total", "mean", "max");
	for (size_t i = 0; i < p->host_wait_count; i++) {
		const struct hesper_host_wait *w = &p->host_waits[i];

		hesper_format_duration(total, sizeof(total), (double)w->total_ns);
		hesper_format_duration(mean, sizeof(mean), w->count ? (double)w->total_ns / (double)w->count : 0);
		hesper_format_duration(max, sizeof(max), (double)w->max_ns);
		fprintf(out, "  %-10" PRIu32 " %-22s %10" PRIu64 " %s", w->thread, hesper_wait_call_name(w->call),
			w->count, "");
		/* The durations hold "µs" (two bytes, one column): pad by characters. */
		const char *cells[3] = {total, mean, max};
		for (size_t c = 0; c < 3; c++) {
			pad(out, 12 > text_width(cells[c]) ? 12 - text_width(cells[c]) : 0);
			fputs(cells[c], out);
			fputc(c < 2 ? ' ' : '\n', out);
		}
	}
}

/* Prints @name, control characters as '?', cut to @max characters ending in "…" when longer. */
static void
put_name_cut(FILE *out, const char *name, size_t max)
{
	size_t len = strlen(name), chars = 0, i = 0;

	if (text_width(name) <= max) {
		put_clean(out, name, len);
		return;
	}
	for (; i < len && chars + 1 < max; i++)
		chars += ((unsigned char)name[i] & 0xc0) != 0x80;
	while (i < len && ((unsigned char)name[i] & 0xc0) == 0x80)
		i++;
	put_clean(out, name, i);
	fputs(ELLIPSIS, out);
}

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
	row_cells(k, 0, cells);
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
	size_t used = tree_indent(indent, sizeof(indent), depth) + text_width(mark);

	for (size_t c = 0; c < TREE_COLS; c++) {
		pad(out, 1 + (c > 0) + width[c] - text_width(cells[tree_cols[c]]));
		fputs(cells[tree_cols[c]], out);
	}
	fputs("  ", out);
	fputs(indent, out);
	fputs(mark, out);
	put_name_cut(out, name, name_room > used + TREE_NAME_MIN ? name_room - used : TREE_NAME_MIN);
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
	duration_cell(cells[COL_TOTAL] + f->estimated, (double)f->total_ns);
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
		width[c] = text_width(column_titles[tree_cols[c]]);
	for (size_t i = 0; i < t->count; i++) {
		const struct hesper_region_node *node = &t->nodes[i];

		for (size_t k = 0; k <= node->kernel_count; k++) {
			tree_cells(k ? node->kernels[k - 1] : node->row, k > 0, cells);
			for (size_t c = 0; c < TREE_COLS; c++)
				if (text_width(cells[tree_cols[c]]) > width[c])
					width[c] = text_width(cells[tree_cols[c]]);
			size_t w = tree_indent(indent, sizeof(indent), node->depth + (k > 0)) + 2 * (k > 0) +
				   text_width(k ? hesper_label_kernel_name(node->kernels[k - 1]) : node->name);
			name_w = w > name_w ? w : name_w;
		}
	}
	for (size_t c = 0; c < TREE_COLS; c++)
		line += 1 + (c > 0) + width[c];
	size_t name_room = line + 2 + TREE_NAME_MIN < LINE_COLUMNS ? LINE_COLUMNS - line - 2 : TREE_NAME_MIN;
	name_w = name_w < name_room ? name_w : name_room;

	fputs("\nRegions (debug labels)\n", out);
	print_heads(out, tree_cols, TREE_COLS, width, name_w);
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
static int
print_regions(FILE *out, const struct hesper_profile *p, struct hesper_kernel **regions, size_t nregions)
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
		print_table(out, regions, nregions, region_cols, sizeof(region_cols) / sizeof(region_cols[0]), false);
	}
	return 0;
}

/*
 * Clock mode: where the GPU busy time the kernels' total @kernels_ns leaves out of @busy_ns
 * went, since a clock-timed dispatch's time is its work groups' span alone.
 */
static void
print_clock_share(FILE *out, const struct hesper_profile *p, uint64_t kernels_ns, uint64_t busy_ns)
{
	char note[768], k[CELL], b[CELL], cost[128] = "";

	if (p->from_events || strcmp(p->mode, "clock") != 0 || !busy_ns || kernels_ns >= busy_ns)
		return;
	for (size_t i = 0; i < p->device_count && !cost[0]; i++)
		if (p->devices[i].dispatch_cost_ns)
			snprintf(cost, sizeof(cost), " (about %s a dispatch measured on device %zu)",
				 hesper_format_duration(b, sizeof(b), (double)p->devices[i].dispatch_cost_ns), i);
	snprintf(note, sizeof(note),
		 "Note: in clock mode a dispatch's time runs from its first work group's start to its last one's "
		 "end; the kernels' total, %s, is %.1f%% of the GPU busy time, %s. The rest is launches, drains and "
		 "barriers between dispatches%s, memory operations (counted, not timed in clock mode) and Hesper's "
		 "copies. Time (%%) is each kernel's share of the kernels' total.",
		 hesper_format_duration(k, sizeof(k), (double)kernels_ns), 100.0 * (double)kernels_ns / (double)busy_ns,
		 hesper_format_duration(b, sizeof(b), (double)busy_ns), cost);
	fputc('\n', out);
	put_wrapped(out, note, 0, LINE_COLUMNS, 0);
	fputc('\n', out);
}

int
hesper_findings_write_text(FILE *out, const struct hesper_findings *f)
{
	if (!f->count)
		return 0;
	fputs("\nFindings (largest time at stake first):\n", out);
	for (size_t i = 0; i < f->count; i++) {
		const struct hesper_finding *x = &f->items[i];
		char at[32], head[512], item[96];
		size_t col = FINDING_INDENT;

		hesper_format_duration(at, sizeof(at), (double)x->time_at_stake_ns);
		snprintf(head, sizeof(head), "%zu. %s, %s: %s at stake", i + 1, hesper_finding_kind_name(x->kind),
			 x->about, at);
		fputs("  ", out);
		put_wrapped(out, head, 2, LINE_COLUMNS, FINDING_INDENT);
		fputc('\n', out);
		pad(out, FINDING_INDENT);
		for (size_t k = 0; k < x->number_count; k++) {
			double v = x->numbers[k].value;

			if (v == floor(v) && fabs(v) < 9e15)
				snprintf(item, sizeof(item), "%s=%.0f", x->numbers[k].key, v);
			else
				snprintf(item, sizeof(item), "%s=%.3g", x->numbers[k].key, v);
			put_item(out, &col, FINDING_INDENT, k ? " " : "", item, strlen(item));
		}
		fputc('\n', out);
		for (uint32_t g = 0; x->queue && g < x->queue->gap_count; g++) {
			const struct hesper_gap *gap = &x->queue->gaps[g];
			char len[32];

			hesper_format_duration(len, sizeof(len), (double)gap->length_ns);
			fprintf(out,
				"     gap %" PRIu32 ": %s before submission %" PRIu64 " (thread %" PRIu32 "): %s\n",
				g + 1, len, gap->submission, gap->thread, hesper_gap_activity(gap));
		}
		pad(out, FINDING_INDENT);
		put_wrapped(out, x->advice, FINDING_INDENT, LINE_COLUMNS, FINDING_INDENT);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

/*
 * "Pipeline statistics": per kernel first bound, its compute executable's statistics with
 * the driver's names, wrapped to the report's width, and its occupancy where its device has a
 * model (or says why not); a device whose driver has none says so.
 */
static void
print_pipeline_stats(FILE *out, const struct hesper_profile *p)
{
	enum { WIDTH = 120, INDENT = 4 };

	if (!hesper_profile_shows_stats(p))
		return;
	fputs("\nPipeline statistics (the driver's own names and values, per kernel)\n", out);
	for (size_t i = 0; i < p->device_count; i++)
		if (hesper_device_lacks_stats(&p->devices[i]))
			fprintf(out, "  device %zu: its driver has no VK_KHR_pipeline_executable_properties\n", i);
	for (size_t i = 0; i < p->pipeline_stats_count; i++) {
		const struct hesper_pipeline_stats *k = &p->pipeline_stats[i];
		size_t col = 2 + name_width(k->kernel);

		fputs("  ", out);
		put_name(out, k->kernel);
		char which[96] = "", subgroup[32] = "";
		hesper_stats_set_words(which, sizeof(which), p, k);
		if (which[0])
			fprintf(out, " (%s)", which);
		if (k->subgroup_size)
			snprintf(subgroup, sizeof(subgroup), ", subgroup %" PRIu32, k->subgroup_size);
		fprintf(out, "%s:", subgroup);
		col += (which[0] ? strlen(which) + 3 : 0) + strlen(subgroup) + 1;
		if (!k->count)
			fputs(" none reported", out);
		for (size_t j = 0; j < k->count; j++) {
			char v[32];
			size_t len = strnlen(k->stats[j].name, sizeof(k->stats[j].name));

			hesper_pipeline_stat_value(&k->stats[j], v, sizeof(v));
			/* "name value" and the comma after it, on a new line when it would pass the width */
			size_t need = 1 + len + 1 + strlen(v) + (j + 1 < k->count);
			if (col + need > WIDTH && col > INDENT) {
				fputc('\n', out);
				pad(out, INDENT - 1);
				col = INDENT - 1;
			}
			fputc(' ', out);
			put_clean(out, k->stats[j].name, len);
			fprintf(out, " %s%s", v, j + 1 < k->count ? "," : "");
			col += need;
		}
		fputc('\n', out);
		if (hesper_stats_shows_occupancy(p, k)) {
			char words[512];

			hesper_occupancy_words(words, sizeof(words), p, k);
			pad(out, INDENT);
			put_wrapped(out, words, INDENT, WIDTH, INDENT + 2);
			fputc('\n', out);
		}
	}
}

int
hesper_report_text(FILE *out, const struct hesper_profile *p)
{
	static const enum column kernel_cols[] = {
		COL_PERCENT, COL_TOTAL, COL_INSTANCES, COL_AVG, COL_MED, COL_P95, COL_MIN, COL_MAX, COL_STDDEV,
	};
	struct hesper_kernel **rows = NULL, **regions = NULL;
	size_t n = 0, nregions = 0, n_estimated;
	char a[CELL], b[CELL];
	int ret = -1;

	print_header(out, p);
	if (!p->kernels || hesper_kernel_table_size(p->kernels) == 0) {
		if (p->dropped)
			fprintf(out, "  dropped      %" PRIu64 " dispatches ran but could not be timed\n", p->dropped);
		put_live(out, p);
		/* A window that never opened recorded nothing by design: that, not "no GPU work", is what happened. */
		if (p->capture.set && !p->capture.opened)
			fprintf(out,
				"hesper: the capture window (from %s) never opened: nothing was recorded; %" PRIu64
				" dispatches ran outside it\n",
				p->capture.start, p->capture.outside);
		else
			fputs("hesper: no GPU work was recorded (no compute dispatches ran on a timed queue)\n", out);
		print_dropped(out, p);
		goto done;
	}

	if (hesper_kernel_table_rows(p->kernels, &rows, &n) != 0 ||
	    hesper_kernel_table_rows(p->regions, &regions, &nregions) != 0)
		goto out;

	struct hesper_profile_summary sum = hesper_profile_summary(p);
	uint64_t busy = hesper_profile_gpu_busy_ns(p);
	uint64_t busy_wall = hesper_profile_busy_wall_ns(p);
	uint64_t spans = hesper_rows_span_total_ns(rows, n);
	bool overlapped = spans > hesper_rows_total_ns(rows, n);

	fprintf(out, "  wall time    %s\n", hesper_format_duration(a, sizeof(a), (double)p->wall_ns));
	fprintf(out, "  GPU busy     %s", hesper_format_duration(a, sizeof(a), (double)busy));
	if (busy_wall)
		fprintf(out, " (%.1f%% of %s)", 100.0 * (double)busy / (double)busy_wall,
			p->capture.set ? "the capture window's wall time" : "wall time");
	fprintf(out, "\n  kernels      %zu\n", hesper_profile_kernel_count(p, n));
	if (hesper_profile_rows_words(p))
		fprintf(out, "  rows         %zu, %s\n", n, hesper_profile_rows_words(p));
	fprintf(out, "  dispatches   %" PRIu64 ": %" PRIu64 " timed, %" PRIu64 " dropped, %" PRIu64 " clamped\n",
		sum.dispatches, sum.events, p->dropped, p->clamped);
	if (!p->from_events) {
		fprintf(out, "  mode         %s", p->mode[0] ? p->mode : "?");
		if (p->sample_every > 1)
			fprintf(out, ", sample every %" PRIu32, p->sample_every);
		if (p->clock_isolated)
			fprintf(out, ", %" PRIu64 " isolated dispatches timed from barrier to barrier",
				p->clock_isolated);
		char line[HESPER_NAME_MAX + 256];
		if (overlapped) {
			/* Totals no longer add up the spans: say so where the columns are read. */
			snprintf(
				line, sizeof(line),
				"overlapping dispatches (their spans add up to %s): Total and Time (%%) split the time "
				"they shared; Avg to StdDev are whole spans",
				hesper_format_duration(b, sizeof(b), (double)spans));
			fputc('\n', out);
			pad(out, HEADER_INDENT);
			put_wrapped(out, line, HEADER_INDENT, LINE_COLUMNS, HEADER_INDENT);
		}
		for (size_t i = 0; i < p->clock_note_count; i++) {
			/* clock mode: kernels timed with timestamps instead */
			snprintf(line, sizeof(line), "%.*s: timestamps, %.*s",
				 (int)strnlen(p->clock_notes[i].kernel, HESPER_NAME_MAX), p->clock_notes[i].kernel,
				 (int)strnlen(p->clock_notes[i].why, sizeof(p->clock_notes[i].why)),
				 p->clock_notes[i].why);
			fputc('\n', out);
			pad(out, HEADER_INDENT);
			put_wrapped(out, line, HEADER_INDENT, LINE_COLUMNS, HEADER_INDENT);
		}
		fprintf(out, "\n  Hesper cost  %" PRIu64 " timestamps written, %s host time in hooks\n",
			p->timestamps_written, hesper_format_duration(b, sizeof(b), (double)p->hook_ns));
	}
	put_live(out, p);
	fputc('\n', out);

	print_table(out, rows, n, kernel_cols, sizeof(kernel_cols) / sizeof(kernel_cols[0]),
		    p->group_by == HESPER_GROUP_BY_LABEL);
	n_estimated = hesper_rows_not_all_timed(rows, n);
	if (n_estimated) {
		char why[256];

		fprintf(out,
			"\nNote: %zu of %zu kernels ran more often than they were timed (%s);\n"
			"totals marked ~ are estimates (%s x Instances), and '-' means never timed.\n",
			n_estimated, n, untimed_reasons(why, sizeof(why), p), overlapped ? "the mean share" : "Avg");
	}
	if (overlapped) {
		/* Under the columns too: which of them are shares and which whole spans. */
		char note[512], t[CELL];
		snprintf(note, sizeof(note),
			 "Note: dispatches overlapped on the GPU. Total and Time (%%) give each dispatch its share of "
			 "the time it ran in, so the kernels' totals add up to the time the GPU ran them (%s); Avg, "
			 "Med, P95, Min, Max and StdDev are whole spans, which add up to %s.",
			 hesper_format_duration(t, sizeof(t), (double)hesper_rows_total_ns(rows, n)),
			 hesper_format_duration(b, sizeof(b), (double)spans));
		fputc('\n', out);
		put_wrapped(out, note, 0, LINE_COLUMNS, 0);
		fputc('\n', out);
	}
	print_clock_share(out, p, hesper_rows_total_ns(rows, n), busy);
	print_dropped(out, p);

	if (print_regions(out, p, regions, nregions) != 0)
		goto out;

done:
	print_pipeline_stats(out, p);
	print_memops(out, p);
	print_host_waits(out, p);
	struct hesper_findings findings;
	if (hesper_findings_compute(p, &findings) == 0) {
		hesper_findings_write_text(out, &findings);
		hesper_findings_free(&findings);
	}
	ret = 0;
out:
	free(rows);
	free(regions);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}
