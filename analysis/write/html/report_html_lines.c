/* The HTML page's "Hot lines" section (report_html_parts.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "profile/profile.h"
#include "report_html_parts.h"
#include "write/write.h"

/* Most source lines the page lists of one file. */
#define LISTING_MAX 5000

/* @k's source file, every line with its number and, where counted, a heat bar of its share. */
static void
put_listing(FILE *out, const struct hesper_kernel_lines *k)
{
	struct hesper_listing li;
	if (hesper_listing_make(k, &li) != 0)
		return;
	fputs("<p class=\"sub\">", out);
	hesper_html_text(out, k->source_file);
	if (k->source_read) {
		fputs(" (read from ", out);
		hesper_html_text(out, k->source_read);
		fputs(", HESPER_SOURCE_PATH)", out);
	}
	fputs(", each line with its share of the counted cycles</p>\n<table class=\"listing\"><tbody>\n", out);
	for (size_t i = 0; i < li.count && i < LISTING_MAX; i++) {
		const struct hesper_listing_line *l = &li.lines[i];
		fputs("<tr><td>", out);
		if (l->share > 0)
			fprintf(out, "<span class=\"heat\" style=\"width:%.0fpx\"></span> %.1f%%", 100 * l->share,
				100 * l->share);
		fprintf(out, "</td><td>%zu</td><td class=\"name\"><pre>", i + 1);
		/* a tab as four spaces (hesper_html_text_n shows controls as U+FFFD) */
		for (size_t at = 0; at < l->len;) {
			const char *tab = memchr(l->text + at, '\t', l->len - at);
			size_t run = tab ? (size_t)(tab - (l->text + at)) : l->len - at;
			hesper_html_text_n(out, l->text + at, run);
			at += run;
			if (tab) {
				fputs("    ", out);
				at++;
			}
		}
		fputs("</pre></td></tr>\n", out);
	}
	if (li.count > LISTING_MAX)
		fprintf(out, "<tr><td></td><td></td><td class=\"name\">%zu more lines</td></tr>\n",
			li.count - LISTING_MAX);
	fputs("</tbody></table>\n", out);
	hesper_listing_free(&li);
}

void
hesper_html_lines(FILE *out, const struct hesper_profile *p)
{
	if (!p->kernel_lines_count)
		return;
	fputs("<h2>Hot lines</h2>\n<p class=\"sub\">Each counted block's clock time split among its source "
	      "lines; the counted kernels ran slower than they do alone, their shares are what holds.</p>\n",
	      out);
	for (size_t i = 0; i < p->kernel_lines_count; i++) {
		const struct hesper_kernel_lines *k = &p->kernel_lines[i];
		fputs("<h3>", out);
		hesper_html_text(out, k->kernel);
		fprintf(out, " <span class=\"sub\">(%" PRIu64 " dispatches counted)</span></h3>\n", k->dispatches);
		fputs("<table class=\"lines\"><thead><tr><th class=\"name\">Line</th><th>Share</th><th>Cycles</th>"
		      "<th>Runs per dispatch</th><th>Cycles per run</th></tr></thead>\n<tbody>\n",
		      out);
		for (size_t j = 0; j < k->count; j++) {
			const struct hesper_hot_line *l = &k->lines[j];
			fputs("<tr><td class=\"name\">", out);
			if (l->line) {
				hesper_html_text(out, l->file[0] ? l->file : "?");
				fprintf(out, ":%" PRIu32, l->line);
			} else if (l->block[0]) {
				fputs("block ", out);
				hesper_html_text(out, l->block);
			} else {
				fputs("(no line information)", out);
			}
			/* the heat bar: the line's share of the kernel's counted time, as a width */
			fprintf(out,
				"</td><td><span class=\"heat\" style=\"width:%.0fpx\"></span> %.1f%%</td>"
				"<td>%.4g</td><td>%.4g</td><td>%.4g</td></tr>\n",
				100 * l->share, 100 * l->share, l->ticks,
				hesper_hot_line_runs_per_dispatch(l, k->dispatches), hesper_hot_line_ticks_per_run(l));
			if (l->code[0]) { /* a hot block without lines: its SPIR-V under it */
				fputs("<tr><td class=\"name\" colspan=\"5\"><pre class=\"code\">", out);
				const char *at = l->code, *line;
				size_t len;
				while (hesper_next_line(&at, &line, &len)) {
					hesper_html_text_n(out, line, len);
					fputc('\n', out);
				}
				fputs("</pre></td></tr>\n", out);
			}
		}
		fputs("</tbody></table>\n", out);
		put_listing(out, k);
	}
}
