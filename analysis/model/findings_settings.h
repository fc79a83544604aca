/*
 * The thresholds of the findings: their defaults and HESPER_FINDINGS, which changes them.
 * Pure: no profile, no Vulkan.
 */
#ifndef HESPER_FINDINGS_SETTINGS_H
#define HESPER_FINDINGS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Below this fraction of the best single-operation GB/s, a kind's mean GB/s is slow (the default of HESPER_FINDINGS' slow_memory_share). */
#define HESPER_MEMOPS_SLOW_FRACTION 0.25

/* Thresholds of the findings (HESPER_FINDINGS). */
struct hesper_findings_settings {
	bool off;                  /* no findings, no dispatch-cost measurement */
	double idle_share;         /* a queue idle between batches this share of wall time or more */
	uint64_t idle_min_ns;      /* and at least this long in all */
	uint64_t launch_bound_min; /* a kernel with at least this many launch-bound dispatches */
	double launch_factor;      /* launch-bound: shorter than this many dispatch costs */
	double round_trip_share;   /* submit calls followed by a wait for them, share of all on the queue */
	uint64_t round_trip_min;   /* and at least this many */
	uint64_t underfilled_min;  /* dispatches with fewer work groups than compute units, per kernel */
	double hesper_share;       /* Hesper's own cost, share of wall (host) or GPU busy (GPU) time */
	double slow_memory_share;  /* a kind of memory operation below this share of its best single one's GB/s */
};

/* The default thresholds (README.md and docs/settings.md list them). */
void hesper_findings_settings_default(struct hesper_findings_settings *s);

/*
 * Applies HESPER_FINDINGS: "off", or comma-separated key=value pairs (idle_share,
 * idle_min_us, launch_bound_min, launch_factor, round_trip_share, round_trip_min,
 * underfilled_min, hesper_share, slow_memory_share), read as every setting is
 * (settings_text.h: trimmed, words in any case, plain decimal numbers). Returns 0; or -1
 * with a message naming every key in @err (when not NULL) and @s unchanged.
 */
int hesper_findings_settings_parse(struct hesper_findings_settings *s, const char *text, char *err, size_t err_size);

#endif
