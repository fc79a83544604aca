/*
 * Findings: why the GPU is not busy, computed from the bounded aggregates a run gathers
 * (queue gaps and round trips, per-kernel durations and under-filled dispatches, host
 * waits, Hesper's own cost) and sorted by the time at stake. Pure: no Vulkan, no clock.
 * The thresholds come from HESPER_FINDINGS (hesper_findings_settings_parse).
 */
#ifndef HESPER_FINDINGS_H
#define HESPER_FINDINGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

enum hesper_finding_kind {
	HESPER_FINDING_GPU_IDLE,     /* a queue idle between its batches */
	HESPER_FINDING_LAUNCH_BOUND, /* a kernel dispatched many times, each about as short as a launch */
	HESPER_FINDING_ROUND_TRIPS,  /* submit, then wait for it, every time */
	HESPER_FINDING_UNDERFILLED,  /* dispatches with fewer work groups than compute units */
	HESPER_FINDING_HESPER_SHARE, /* Hesper's own cost is a large share of the run */
	HESPER_FINDING_SLOW_MEMORY,  /* a kind of memory operation far slower than its best in the run */
};

#define HESPER_FINDING_NUMBERS 12

struct hesper_finding_number {
	const char *key; /* a static string */
	double value;
};

struct hesper_finding {
	enum hesper_finding_kind kind;
	uint64_t time_at_stake_ns;
	char about[HESPER_NAME_MAX]; /* the kernel, or the queue ("queue 0:1:0": device, family, index) */
	struct hesper_finding_number numbers[HESPER_FINDING_NUMBERS];
	size_t number_count;
	char advice[384];
	const struct hesper_queue_info *queue; /* GPU_IDLE: the queue, for its largest gaps; else NULL */
};

struct hesper_findings {
	struct hesper_finding *items; /* largest time at stake first */
	size_t count;
};

/* The default thresholds (README.md and docs/settings.md list them). */
void hesper_findings_settings_default(struct hesper_findings_settings *s);

/*
 * Applies HESPER_FINDINGS: "off", or comma-separated key=value pairs (idle_share,
 * idle_min_us, launch_bound_min, launch_factor, round_trip_share, round_trip_min,
 * underfilled_min, hesper_share, slow_memory_share). Returns 0; or -1 with a message in @err (when not
 * NULL) and @s unchanged.
 */
int hesper_findings_settings_parse(struct hesper_findings_settings *s, const char *text, char *err, size_t err_size);

/*
 * The findings of @p that pass its thresholds, sorted by time at stake (then kind, then
 * about); for a summary read back, the findings it had. None for a profile whose
 * aggregates were not gathered (findings_ready false) or when the findings are off.
 * Returns 0, or -1 when memory runs out (@out empty).
 */
int hesper_findings_compute(const struct hesper_profile *p, struct hesper_findings *out);

/* The static name of a finding's number @key (for reading findings back), or NULL when Hesper writes none such. */
const char *hesper_finding_number_key(const char *key);

/* The kind named @name ("gpu_idle", ...), or -1. */
int hesper_finding_kind_from_name(const char *name);

/* Frees what @f holds. */
void hesper_findings_free(struct hesper_findings *f);

/* The kind as the JSON names it ("gpu_idle", "launch_bound", ...). */
const char *hesper_finding_kind_name(enum hesper_finding_kind kind);

/* The value of number @key of @f, or @fallback when it has none. */
double hesper_finding_number(const struct hesper_finding *f, const char *key, double fallback);

/* Keeps @g among @q's largest gaps (HESPER_TOP_GAPS, largest first). */
void hesper_gaps_keep(struct hesper_queue_info *q, const struct hesper_gap *g);

/* What the thread mostly did in @g: "waiting", "recording", "submitting" or "nothing Vulkan". */
const char *hesper_gap_activity(const struct hesper_gap *g);

/* How many values of @s lie below @limit_ns, from its histogram (bucket midpoints). */
uint64_t hesper_stats_count_below(const struct hesper_stats *s, uint64_t limit_ns);

/*
 * The share of @compute_units left without a work group by a dispatch of @groups (x*y*z):
 * 0 when it fills them, when the size is unknown (any 0: indirect) or the units are (0).
 */
double hesper_underfill_share(const uint32_t groups[3], uint32_t compute_units);

/* Writes the text section ("Findings", one paragraph each); nothing when @f is empty. -1 on a write error. */
int hesper_findings_write_text(FILE *out, const struct hesper_findings *f);

/* Writes the JSON array value (no key) with @indent before each element. -1 on a write error. */
int hesper_findings_write_json(FILE *out, const struct hesper_findings *f);

#endif
