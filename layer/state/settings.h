/*
 * HESPER_* settings other than HESPER_REPORT (see analysis/sinks/sinks.h) and HESPER_FINDINGS
 * (analysis/model/findings_settings.h), read once per process. A bad value gets one line on the error
 * stream and its default is kept. The settings, their values and defaults: settings_list.h.
 */
#ifndef HESPER_SETTINGS_H
#define HESPER_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "settings_list.h"

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

/* HESPER_CONTROL's path; "": none. */
typedef char hesper_path[HESPER_CONTROL_PATH_MAX];

/*
 * One member per row of HESPER_SETTINGS, in its order (settings_list.h says what each
 * holds). Off: interval_ms and report_signal are 0, control_path is "", start and stop
 * are HESPER_BOUND_NONE.
 */
struct hesper_settings {
#define HESPER_SETTINGS_MEMBER(name, kind, values, type, field, def, mode, doc) HESPER_IF_FIELD_##kind(type field;)
	HESPER_SETTINGS(HESPER_SETTINGS_MEMBER)
#undef HESPER_SETTINGS_MEMBER
};

/*
 * A member whose type does not fit its row's kind does not build: settings.c writes each
 * kind's members through the type the kind implies.
 */
#define HESPER_SETTINGS_MEMBER_OF(field) (((struct hesper_settings *)0)->field)
#define HESPER_FITS_ELSEWHERE(field) 1
#define HESPER_FITS_WORD(field) (sizeof(HESPER_SETTINGS_MEMBER_OF(field)) == sizeof(unsigned)) /* an enum */
#define HESPER_FITS_SWITCH(field) _Generic(HESPER_SETTINGS_MEMBER_OF(field), bool : 1, default : 0)
#define HESPER_FITS_BOOL(field) _Generic(HESPER_SETTINGS_MEMBER_OF(field), bool : 1, default : 0)
#define HESPER_FITS_COUNT(field) _Generic(HESPER_SETTINGS_MEMBER_OF(field), uint32_t : 1, uint64_t : 1, default : 0)
#define HESPER_FITS_PATH(field) _Generic(&HESPER_SETTINGS_MEMBER_OF(field)[0], char * : 1, default : 0)
#define HESPER_FITS_PARSED(field) 1 /* its parser's own */
#define HESPER_SETTINGS_CHECK(name, kind, values, type, field, def, mode, doc) \
	_Static_assert(HESPER_FITS_##kind(field), #name ": the member's type does not fit the kind");
HESPER_SETTINGS(HESPER_SETTINGS_CHECK)
#undef HESPER_SETTINGS_CHECK

/* The defaults of settings_list.h. */
void hesper_settings_default(struct hesper_settings *s);

/*
 * Applies one setting (@name without its value, e.g. "HESPER_MODE"). Unknown names and
 * bad values get one line on @err naming the setting, the value and what is accepted.
 * Returns 0 when applied, -1 when rejected (the previous value is kept). HESPER_REPORT and
 * HESPER_FINDINGS (read elsewhere) are accepted and change nothing. White space around a
 * value is ignored; @err may be NULL (no error lines).
 */
int hesper_settings_apply(struct hesper_settings *s, const char *name, const char *value, FILE *err);

/*
 * Fills @s from the environment: defaults, then every HESPER_* variable that is set
 * (HESPER_REPORT and HESPER_FINDINGS excepted, they are read elsewhere). Unknown HESPER_*
 * names are reported too. A setting that has an effect in one HESPER_MODE only
 * (settings_list.h's MODE), given another value than its default while another mode is in
 * effect, is set back to its default with one line saying so. Returns the number of
 * rejected settings (unknown names included). Entries without '=' are skipped;
 * @environ_vars may be NULL.
 */
int hesper_settings_from_env(struct hesper_settings *s, char *const *environ_vars, FILE *err);

/* Row @i of HESPER_SETTINGS (settings_list.h), in its order; NULL past the last. */
const struct hesper_setting_row *hesper_settings_row(size_t i);

/* What @row accepts, as its error line ends ("a whole number from 1 to 1000000"), into @out. */
void hesper_settings_accepted(const struct hesper_setting_row *row, char *out, size_t size);

/* Name of @mode as used in reports ("dispatch", "submit", "clock"). */
const char *hesper_mode_name(enum hesper_mode mode);

/* The window bound @b as the user gave it ("2.5 s", "label:step#3"), into @out; "" when none. */
void hesper_capture_bound_format(const struct hesper_capture_bound *b, bool is_stop, char *out, size_t size);

#endif
