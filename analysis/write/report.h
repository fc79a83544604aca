/* Report writers: text table, JSON summary (hesper-summary/1), CSV, trace, HTML. Each prints to a FILE *. */
#ifndef HESPER_REPORT_H
#define HESPER_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "profile/profile.h"

struct hesper_findings;

/* Text report: header lines then an nsys-style kernel table. Returns 0, or -1 on a write error. */
int hesper_report_text(FILE *out, const struct hesper_profile *p);

/* JSON summary in the hesper-summary/1 schema. Returns 0, or -1 on a write error. */
int hesper_report_json(FILE *out, const struct hesper_profile *p);

/* The findings as the text report's section ("Findings", one paragraph each); nothing when @f is empty. -1 on a write error. */
int hesper_findings_write_text(FILE *out, const struct hesper_findings *f);

/* The findings as the JSON summary's array value (no key), one element a line. -1 on a write error. */
int hesper_findings_write_json(FILE *out, const struct hesper_findings *f);

/* CSV, one row per kernel, RFC 4180 quoting. Returns 0, or -1 on a write error. */
int hesper_report_csv(FILE *out, const struct hesper_profile *p);

/*
 * CSV of the memory-operation table, one row per kind that ran, RFC 4180 like the kernel
 * CSV. Returns 0, or -1 on a write error.
 */
int hesper_report_memops_csv(FILE *out, const struct hesper_profile *p);

/* Chrome trace-event JSON of the timeline (hesper-trace/1; report_trace.c). Returns 0, or -1 on a write error. */
int hesper_report_trace(FILE *out, const struct hesper_profile *p);

/* One self-contained HTML page: facts, kernel table, charts, timeline. Returns 0, or -1 on a write error. */
int hesper_report_html(FILE *out, const struct hesper_profile *p);

/* Characters in @s: every byte but UTF-8 continuation bytes starts one (the text writers' and the hesper command's columns). */
size_t hesper_text_width(const char *s);

/* Writes the @len bytes of @s, control characters as '?'. */
void hesper_text_put_clean(FILE *out, const char *s, size_t len);

/* Prometheus text exposition, format 0.0.4, of the profile's counters (report_prom.c). Returns 0, or -1 on a write error. */
int hesper_report_prom(FILE *out, const struct hesper_profile *p);

/*
 * The numbers of one kernel-table row (report_rows.c), as the text and HTML tables show
 * them: Total and Time (%) from the shares of the GPU time (dispatches that overlapped
 * split the time they shared), the statistics from the whole durations (spans).
 */
struct hesper_row {
	uint64_t total_ns; /* hesper_kernel_total_ns */
	double percent;    /* of the table's sum of totals; 0 when that sum is 0 */
	bool timed;        /* some execution was timed: the fields below are set (else 0) */
	bool estimated;    /* timed, but not every execution: total_ns is an estimate (Avg x Instances unless shared) */
	double mean_ns, median_ns, p95_ns, min_ns, max_ns, stddev_ns;
};

/* Sum of the totals (hesper_kernel_total_ns) of @n rows, saturating at UINT64_MAX. */
uint64_t hesper_rows_total_ns(struct hesper_kernel *const *rows, size_t n);

/* Sum of the span totals (hesper_kernel_span_total_ns) of @n rows, saturating; above hesper_rows_total_ns when some overlapped. */
uint64_t hesper_rows_span_total_ns(struct hesper_kernel *const *rows, size_t n);

/* How many of @n rows ran more often than they were timed. */
size_t hesper_rows_not_all_timed(struct hesper_kernel *const *rows, size_t n);

/* What a kernel-table row is under @p's HESPER_GROUP_BY=shape or label, for the reports' headers; NULL by kernel. */
const char *hesper_rows_words(const struct hesper_profile *p);

/* The numbers of row @k in a table whose totals sum to @sum (hesper_rows_total_ns). */
struct hesper_row hesper_row_numbers(const struct hesper_kernel *k, uint64_t sum);

/* Writes @s as a JSON string literal (quotes included), escaping as needed; invalid UTF-8 becomes U+FFFD. */
void hesper_json_write_string(FILE *out, const char *s);

#endif
