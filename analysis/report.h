/* Report writers: text table, JSON summary (hesper-summary/1), CSV, trace, HTML. Each prints to a FILE *. */
#ifndef HESPER_REPORT_H
#define HESPER_REPORT_H

#include <stdio.h>

#include "profile.h"

/* Text report: header lines then an nsys-style kernel table. Returns 0, or -1 on a write error. */
int hesper_report_text(FILE *out, const struct hesper_profile *p);

/* JSON summary in the hesper-summary/1 schema. Returns 0, or -1 on a write error. */
int hesper_report_json(FILE *out, const struct hesper_profile *p);

/* CSV, one row per kernel, RFC 4180 quoting. Returns 0, or -1 on a write error. */
int hesper_report_csv(FILE *out, const struct hesper_profile *p);

/* Chrome trace-event JSON of the timeline (hesper-trace/1; report_trace.c). Returns 0, or -1 on a write error. */
int hesper_report_trace(FILE *out, const struct hesper_profile *p);

/* One self-contained HTML page: facts, kernel table, charts, timeline. Returns 0, or -1 on a write error. */
int hesper_report_html(FILE *out, const struct hesper_profile *p);

/* Writes @s as a JSON string literal (quotes included), escaping as needed; invalid UTF-8 becomes U+FFFD. */
void hesper_json_write_string(FILE *out, const char *s);

/* Formats @ns into @buf with a unit chosen for readability (ns, µs, ms, s). Returns @buf. */
const char *hesper_format_duration(char *buf, size_t size, double ns);

#endif
