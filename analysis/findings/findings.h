/*
 * Findings: why the GPU is not busy, computed from the bounded aggregates a run gathers
 * (queue gaps and round trips, per-kernel durations and under-filled dispatches, host
 * waits, Hesper's own cost) and sorted by the time at stake. Pure: no Vulkan, no clock.
 * The thresholds come from HESPER_FINDINGS (findings_settings.h); report.h writes them.
 */
#ifndef HESPER_FINDINGS_H
#define HESPER_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

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

/* What the thread mostly did in @g: "waiting", "recording", "submitting" or "nothing Vulkan". */
const char *hesper_gap_activity(const struct hesper_gap *g);

/* findings.h is the face of analysis/findings/ too: the slow memory operations' finding. */
#include "memops_findings.h"

#endif
