/*
 * The parts of the HTML report (report_html.c) that its section writers share: escaping
 * and formatting (report_html_text.c) and the section writers themselves, one file per
 * kind of section. The page skeleton in report_html.c calls them in page order; the
 * writers call only report_html_text.c, never one another, so the parts form no circle.
 * Every writer prints to @out and leaves error checking to the page (ferror at the end).
 */
#ifndef HESPER_REPORT_HTML_PARTS_H
#define HESPER_REPORT_HTML_PARTS_H

#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"

/* Bytes of a formatted table cell or duration, NUL included. */
#define CELL 48

/* report_html_text.c: escaping and formatting -------------------------------------- */

/* Writes up to @len bytes of @s (stops at a NUL) as HTML text: markup as references, controls as U+FFFD. */
void hesper_html_text_n(FILE *out, const char *s, size_t len);

/* Writes the string @s (NULL: nothing) as HTML text, as hesper_html_text_n. */
void hesper_html_text(FILE *out, const char *s);

/* Writes @name as HTML text for a chart label: cut to 40 characters with "…" when longer. */
void hesper_html_label(FILE *out, const char *name);

/* Writes @s as a JSON string literal safe inside <script>: '<', '>' and '&' as \u escapes. */
void hesper_html_json_string(FILE *out, const char *s);

/* Formats @ns into @buf (CELL bytes) as hesper_format_duration does. Returns @buf. */
const char *hesper_html_duration(char *buf, double ns);

/* report_html_facts.c: what ran where, and what to do about it ------------------------ */

/* Writes the header facts (program, host, devices, times, counts, Hesper's cost) of @p with @nkernels kernels. */
void hesper_html_facts(FILE *out, const struct hesper_profile *p, size_t nkernels);

/* Writes the findings and the host-wait table of @p (nothing when none). Returns 0, or -1 out of memory. */
int hesper_html_findings(FILE *out, const struct hesper_profile *p);

/* report_html_tables.c: the sortable tables ------------------------------------------ */

/* Writes the kernel table (id @id) of the @n @rows, largest total first, with its notes. */
void hesper_html_kernel_table(FILE *out, const char *id, struct hesper_kernel **rows, size_t n);

struct hesper_region_tree;

/* Writes the region tree @t (region_tree.h) as nested, open <details>, under its own heading; nothing when empty. */
void hesper_html_region_tree(FILE *out, const struct hesper_region_tree *t);

/* Writes the region (debug label) table of the @n @rows, under its own heading. */
void hesper_html_region_table(FILE *out, struct hesper_kernel **rows, size_t n);

/*
 * Writes the launch-shape table of those of the @n @rows of @p that have shapes (nothing when
 * none has), with how much of the device the most common launch fills where occupancy is known.
 */
void hesper_html_shape_table(FILE *out, const struct hesper_profile *p, struct hesper_kernel **rows, size_t n);

/* Writes the memory-operation table of @p (nothing when none ran). */
void hesper_html_memop_table(FILE *out, const struct hesper_profile *p);

/* The kernels' pipeline statistics as the driver reported them and their occupancy, or the devices that have none. */
void hesper_html_pipeline_stats(FILE *out, const struct hesper_profile *p);

/* "Hot lines" (report_html_lines.c): per kernel whose lines were counted, its lines with a heat bar each. */
void hesper_html_lines(FILE *out, const struct hesper_profile *p);

/* report_html_charts.c: SVG charts ---------------------------------------------------- */

/* Writes the bar chart of total time of the first (largest) of the @n @rows, under its heading. */
void hesper_html_bar_chart(FILE *out, struct hesper_kernel **rows, size_t n);

/* Writes the duration histograms of the first timed of the @n @rows, under their heading. */
void hesper_html_histograms(FILE *out, struct hesper_kernel **rows, size_t n);

/* report_html_timeline.c: the timeline ------------------------------------------------ */

/* Events a page holds at most (the earliest): the default HESPER_MAX_EVENTS, so by default every kept event. */
#define HESPER_HTML_TIMELINE_MAX 200000u

/* Writes the timeline's heading, its note (what is drawn, what is not and where it is) and the element the page script draws into. */
void hesper_html_timeline(FILE *out, const struct hesper_profile *p);

/* Writes the timeline's events of @p as JSON for the page script. Returns 0, or -1 out of memory. */
int hesper_html_timeline_data(FILE *out, const struct hesper_profile *p);

#endif
