/*
 * The HTML report's region tree (report_html_parts.h): each label path a <details> element
 * nested in the one of the label it ran in, open at the top and closed below, its summary
 * line the statistics of one instance, and the kernels that ran directly in it listed
 * inside. Plain HTML: it folds without the page's script.
 */
#include "report_html_parts.h"

#include <inttypes.h>
#include <stdbool.h>

#include "profile/profile.h"
#include "write/write.h"

/* "Total X · N instances · Avg Y ..." of row @k; @all adds Med, P95, Min and Max (a label's). */
static void
put_numbers(FILE *out, const struct hesper_kernel *k, bool all, const char *one, const char *many)
{
	struct hesper_row r = hesper_row_numbers(k, 0);
	char a[CELL + 1];

	fputs("<span class=\"rnum\">", out);
	if (r.timed) {
		a[0] = '~';
		hesper_format_duration(a + r.estimated, CELL, (double)r.total_ns);
		fprintf(out, "Total %s", a);
	} else {
		fputs("Total -", out);
	}
	fprintf(out, " &middot; %" PRIu64 " %s", k->count, k->count == 1 ? one : many);
	if (!r.timed) {
		fputs(" &middot; Avg -</span>", out);
		return;
	}
	fprintf(out, " &middot; Avg %s", hesper_html_duration(a, r.mean_ns));
	if (all) {
		fprintf(out, " &middot; Med %s", hesper_html_duration(a, r.median_ns));
		fprintf(out, " &middot; P95 %s", hesper_html_duration(a, r.p95_ns));
		fprintf(out, " &middot; Min %s", hesper_html_duration(a, r.min_ns));
		fprintf(out, " &middot; Max %s", hesper_html_duration(a, r.max_ns));
	}
	fputs("</span>", out);
}

void
hesper_html_region_tree(FILE *out, const struct hesper_region_tree *t)
{
	uint32_t open = 0;

	if (!t->count)
		return;
	fputs("<h2>Region tree</h2>\n<div id=\"region-tree\" class=\"rtree\">\n", out);
	for (size_t i = 0; i < t->count; i++) {
		const struct hesper_region_node *node = &t->nodes[i];

		/* Depth first: close the labels this one is not inside. */
		for (; open > node->depth; open--)
			fputs("</details>\n", out);
		/* the top labels open, the rest closed: a run that labels every op stays a page */
		fputs(node->depth ? "<details><summary><span class=\"rname\">"
				  : "<details open><summary><span class=\"rname\">",
		      out);
		hesper_html_text(out, node->name);
		fputs("</span> ", out);
		put_numbers(out, node->row, true, "instance", "instances");
		fputs("</summary>\n", out);
		open++;
		if (!node->kernel_count)
			continue;
		fputs("<ul class=\"rkernels\">\n", out);
		for (size_t k = 0; k < node->kernel_count; k++) {
			fputs("<li><span class=\"kname\">", out);
			hesper_html_text(out, hesper_label_kernel_name(node->kernels[k]));
			fputs("</span> ", out);
			put_numbers(out, node->kernels[k], false, "dispatch", "dispatches");
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	for (; open > 0; open--)
		fputs("</details>\n", out);
	fputs("</div>\n", out);
}
