/* The text report's "Hot lines" section (report_text_parts.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "report_text_parts.h"
#include "source_listing.h"

/* Lines shown per kernel: the rest are counted in one line under them. */
#define LINES_SHOWN 10

/* Lines of source shown on each side of a hot line in the annotated listing. */
#define LISTING_AROUND 2

/* Longest piece of a source line shown, in bytes. */
#define LISTING_WIDTH 100

/* One source line of the listing: its share (blank when not counted), number and text. */
static void
print_source_line(FILE *out, const struct hesper_listing_line *l, size_t number)
{
	if (l->share > 0)
		fprintf(out, "   %6.1f%%", 100 * l->share);
	else
		fputs("          ", out);
	fprintf(out, "  %5zu  ", number);
	for (size_t c = 0; c < l->len && c < LISTING_WIDTH; c++) {
		unsigned char ch = (unsigned char)l->text[c];
		if (ch == '\t')
			fputs("    ", out);
		else
			fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, out);
	}
	fputs(l->len > LISTING_WIDTH ? "...\n" : "\n", out);
}

/*
 * @k's source file annotated around its LINES_SHOWN hottest lines (LISTING_AROUND lines
 * each side), when the report has its text.
 */
static void
print_listing(FILE *out, const struct hesper_kernel_lines *k)
{
	struct hesper_listing li;
	if (hesper_listing_make(k, &li) != 0)
		return;
	bool *shown = calloc(li.count, sizeof(*shown));
	if (!shown) {
		hesper_listing_free(&li);
		return;
	}
	/* the hottest lines first: pick the largest share not taken, LINES_SHOWN times */
	for (size_t pick = 0; pick < LINES_SHOWN; pick++) {
		size_t best = li.count;
		for (size_t i = 0; i < li.count; i++)
			if (li.lines[i].share > 0 && !shown[i] &&
			    (best == li.count || li.lines[i].share > li.lines[best].share))
				best = i;
		if (best == li.count)
			break;
		for (size_t i = best > LISTING_AROUND ? best - LISTING_AROUND : 0;
		     i < li.count && i <= best + LISTING_AROUND; i++)
			shown[i] = true;
	}
	fputs("   ", out);
	hesper_text_put_name(out, k->source_file);
	if (k->source_read) {
		fputs(" (read from ", out);
		hesper_text_put_name(out, k->source_read);
		fputs(", HESPER_SOURCE_PATH)", out);
	}
	fputs(" around its hottest lines (share of the counted cycles, line, source):\n", out);
	bool printed = false;
	for (size_t i = 0; i < li.count; i++) {
		if (!shown[i])
			continue;
		if (printed && !shown[i - 1])
			fputs("             ...\n", out);
		print_source_line(out, &li.lines[i], i + 1);
		printed = true;
	}
	free(shown);
	hesper_listing_free(&li);
}

/* The disassembly of the hottest blocks without line information among the @shown lines of @k. */
static void
print_code(FILE *out, const struct hesper_kernel_lines *k, size_t shown)
{
	for (size_t j = 0; j < shown; j++) {
		const struct hesper_hot_line *l = &k->lines[j];
		if (!l->code[0])
			continue;
		fputs("   block ", out);
		hesper_text_put_name(out, l->block);
		fprintf(out, " (%.1f%%), its SPIR-V:\n", 100 * l->share);
		const char *at = l->code, *line;
		size_t len;
		while (hesper_next_line(&at, &line, &len))
			fprintf(out, "      %.*s\n", (int)len, line);
	}
}

void
hesper_text_print_lines(FILE *out, const struct hesper_profile *p)
{
	if (!p->kernel_lines_count)
		return;
	fputs("\nHot lines (HESPER_LINES: each counted block's clock time split among its source lines; the counted "
	      "kernels ran slower than they do alone)\n",
	      out);
	for (size_t i = 0; i < p->kernel_lines_count; i++) {
		const struct hesper_kernel_lines *k = &p->kernel_lines[i];
		fputs("  ", out);
		hesper_text_put_name(out, k->kernel);
		fprintf(out, " (%" PRIu64 " dispatches counted)\n", k->dispatches);
		fputs("     Share        Cycles  Runs/dispatch  Cycles/run  Line\n", out);
		fputs("   -------  ------------  -------------  ----------  ----------------\n", out);
		size_t shown = k->count < LINES_SHOWN ? k->count : LINES_SHOWN;
		for (size_t j = 0; j < shown; j++) {
			const struct hesper_hot_line *l = &k->lines[j];
			/* per dispatch and per run: what a reader of one dispatch of the kernel expects */
			fprintf(out, "   %6.1f%%  %12.4g  %13.4g  %10.4g  ", 100 * l->share, l->ticks,
				hesper_hot_line_runs_per_dispatch(l, k->dispatches), hesper_hot_line_ticks_per_run(l));
			if (l->line) {
				hesper_text_put_name(out, l->file[0] ? l->file : "?");
				fprintf(out, ":%" PRIu32 "\n", l->line);
			} else if (l->block[0]) {
				fputs("block ", out);
				hesper_text_put_name(out, l->block);
				fputc('\n', out);
			} else {
				fputs("(no line information)\n", out);
			}
		}
		if (k->count > shown) {
			double rest = 0;
			for (size_t j = shown; j < k->count; j++)
				rest += k->lines[j].share;
			fprintf(out, "   %6.1f%%  in %zu more lines\n", 100 * rest, k->count - shown);
		}
		print_code(out, k, shown);
		print_listing(out, k);
	}
}
