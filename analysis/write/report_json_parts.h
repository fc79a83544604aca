/*
 * What the JSON summary's files share (report_json.c: the summary, its kernels, shapes and
 * regions; report_json_stats.c: pipeline statistics with occupancy, host waits and findings)
 * and the writers of its values (json_values.c).
 */
#ifndef HESPER_REPORT_JSON_PARTS_H
#define HESPER_REPORT_JSON_PARTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

/* Writes the bounded string field @s (@max bytes at most: it may lack a terminator when filled carelessly). */
void hesper_json_put_field(FILE *out, const char *s, size_t max);

/* Writes @v with 17 significant digits; NaN and the infinities as 0. */
void hesper_json_put_double(FILE *out, double v);

/* Writes a member of the summary's top level up to its value: '  "KEY": ' (profile/summary_keys.h). */
void hesper_json_put_key(FILE *out, enum hesper_summary_key k);

/* Writes @v as an array of three integers. */
void hesper_json_put_triple(FILE *out, const uint32_t v[3]);

/*
 * Writes a device's occupancy model under @key: the figures of its SMs the occupancy is reckoned from,
 * or {"why"} when Hesper has none; nothing when the device had no statistics to reckon it from.
 */
void hesper_json_put_occupancy_model(FILE *out, const char *key, const struct hesper_occupancy_model *m);

/*
 * Writes "pipeline_stats": per kernel, its pipeline's compute executable and the driver's
 * statistics of it, {"name": value} in the driver's order and with the driver's names;
 * then its device, its work-group size and its occupancy reckoned from them.
 */
void hesper_json_put_pipeline_stats(FILE *out, const struct hesper_profile *p);

/*
 * Writes "lines" when some kernel's lines were counted (HESPER_LINES): per kernel, its
 * counted dispatches and its source lines, largest clock time first, each with its file,
 * line, share of the kernel's counted clock time, clock ticks and executions.
 */
void hesper_json_put_lines(FILE *out, const struct hesper_profile *p);

/* Writes "host_waits" and "findings" of a live run. Returns 0, or -1 when memory runs out. */
int hesper_json_put_findings(FILE *out, const struct hesper_profile *p);

#endif
