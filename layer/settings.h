/*
 * HESPER_* settings other than HESPER_REPORT (see analysis/sinks.h), read once per
 * process. A bad value gets one line on the error stream and its default is kept.
 *
 *   HESPER_MODE=dispatch|submit|clock  time every dispatch (default), submissions only, or every
 *                                 dispatch from the shader clock where it can (docs/timing.md)
 *   HESPER_SAMPLE=N               time every N-th recorded dispatch of each kernel (1..1000000, default 1)
 *   HESPER_MAX_EVENTS=N           events kept for the trace (0..1000000000, default 200000)
 *   HESPER_EXIT_TIMEOUT_MS=N      how long exit waits for work in flight (0..600000, default 5000)
 *   HESPER_MAX_QUERIES=N          timestamp queries Hesper may hold per device (0..1000000000,
 *                                 default 67108864, 512 MiB of query memory); past it dispatches are dropped
 *   HESPER_COPY=auto|wait|host    how Hesper's timestamps reach it: a GPU copy after each
 *                                 submission that waits per query (wait), or a read on the host
 *                                 once the submission completed (host); auto (default) takes host
 *                                 on NVIDIA's driver, wait elsewhere
 *   HESPER_DISABLE=1              make the layer a pass-through
 *   HESPER_INTERVAL=SECONDS       rewrite every file sink this often while the program runs
 *                                 (0.1..86400, fractions to the millisecond; default off)
 *   HESPER_REPORT_SIGNAL=SIG      write the file sinks when SIG arrives (HUP, QUIT, USR1, USR2,
 *                                 WINCH, URG, PWR, RTMIN+N, RTMAX-N, with or without SIG, or a
 *                                 number; default off)
 *   HESPER_CONTROL=PATH           write the file sinks when PATH appears or its mtime changes
 *   HESPER_TRACE_ALL=1            the trace: sink holds every event, streamed through a temporary
 *                                 file (memory flat; HESPER_MAX_EVENTS still caps html:)
 *   HESPER_START=SECONDS|label:NAME         open the capture window (default: at start)
 *   HESPER_STOP=SECONDS|label:NAME[#N]      close it: SECONDS after it opened, or at the end
 *                                 of the N-th (default 1st) run of label NAME inside it
 *   HESPER_INDIRECT=read|off      read back the group counts of timed indirect dispatches
 *                                 (dispatch mode; default read) or leave them unknown
 *   HESPER_CLOCK_ISOLATED=barriers|span  clock mode: time a dispatch the program isolates with
 *                                 compute barriers from barrier to barrier (default) or by its
 *                                 work groups' span
 *   HESPER_FINDINGS=off|key=value,...  the findings' thresholds; parsed with the profile
 *                                 (analysis/findings_settings.h), accepted here like HESPER_REPORT
 */
#ifndef HESPER_SETTINGS_H
#define HESPER_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum hesper_mode {
	HESPER_MODE_DISPATCH,
	HESPER_MODE_SUBMIT,
	HESPER_MODE_CLOCK,
};

enum hesper_copy {
	HESPER_COPY_AUTO,
	HESPER_COPY_WAIT,
	HESPER_COPY_HOST,
};

#define HESPER_CONTROL_PATH_MAX 4096
#define HESPER_CAPTURE_LABEL_MAX 256

enum hesper_bound_kind {
	HESPER_BOUND_NONE,  /* the window opens at start / never closes */
	HESPER_BOUND_TIME,  /* HESPER_START: seconds after the process start; HESPER_STOP: after opening */
	HESPER_BOUND_LABEL, /* at the execution of a debug label */
};

/* One end of the capture window (HESPER_START or HESPER_STOP). */
struct hesper_capture_bound {
	enum hesper_bound_kind kind;
	uint64_t ns;                          /* TIME */
	char label[HESPER_CAPTURE_LABEL_MAX]; /* LABEL */
	uint64_t nth;                         /* LABEL in HESPER_STOP: the run that closes it, from 1 */
};

struct hesper_settings {
	enum hesper_mode mode;
	uint32_t sample_every;
	uint64_t max_events;
	uint32_t exit_timeout_ms;
	uint64_t max_queries;
	enum hesper_copy copy;
	bool disabled;
	uint32_t interval_ms;                 /* 0: no interval reports */
	int report_signal;                    /* 0: none */
	char control_path[HESPER_CONTROL_PATH_MAX]; /* "": none */
	struct hesper_capture_bound start, stop;
	bool trace_all;
	bool indirect_args;         /* HESPER_INDIRECT: read indirect dispatches' group counts back */
	bool clock_isolated;        /* HESPER_CLOCK_ISOLATED=barriers: barrier timestamps (clock_edges.h) */
};

/* The defaults listed above. */
void hesper_settings_default(struct hesper_settings *s);

/*
 * Applies one setting (@name without its value, e.g. "HESPER_MODE"). Unknown names and
 * bad values get one line on @err naming the setting, the value and what is accepted.
 * Returns 0 when applied, -1 when rejected (the previous value is kept). HESPER_REPORT
 * is accepted and changes nothing. White space around a value is ignored; @err may be
 * NULL (no error lines).
 */
int hesper_settings_apply(struct hesper_settings *s, const char *name, const char *value, FILE *err);

/*
 * Fills @s from the environment: defaults, then every HESPER_* variable that is set
 * (HESPER_REPORT excepted, it belongs to the sinks). Unknown HESPER_* names are reported
 * too. Returns the number of rejected settings (unknown names included). Entries without
 * '=' are skipped; @environ_vars may be NULL.
 */
int hesper_settings_from_env(struct hesper_settings *s, char *const *environ_vars, FILE *err);

/* Name of @mode as used in reports ("dispatch", "submit", "clock"). */
const char *hesper_mode_name(enum hesper_mode mode);

/* The window bound @b as the user gave it ("2.5 s", "label:step#3"), into @out; "" when none. */
void hesper_capture_bound_format(const struct hesper_capture_bound *b, bool is_stop, char *out, size_t size);

#endif
