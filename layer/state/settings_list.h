/*
 * Every HESPER_* setting, one row each: the one list the settings struct, its defaults,
 * the parsing, the error lines, the preloaded library's early check and docs/settings.md's
 * table are made from. Adding a setting is adding a row (and, for a kind of its own, its
 * parser in settings.c); tests/unit/settings_doc checks the docs' table against this list.
 *
 *   X(NAME, KIND, VALUES, TYPE, FIELD, DEFAULT, MODE, DOC)
 *
 *   NAME     the environment variable
 *   KIND     how its value is read (enum hesper_setting_kind without HESPER_SETTING_)
 *   VALUES   what it accepts, in its kind's shape:
 *              WORD       ONE_OF("w0", "w1", ...)   lower case, in the field's enum order
 *              SWITCH     OFF_ON("off", "on")
 *              BOOL, PATH ANY
 *              COUNT      RANGE(min, max)
 *              PARSED     PARSER(function, min, max, "accepted", "unset")
 *              ELSEWHERE  READ_BY("accepted", "unset")
 *            "accepted" ends the error line of a bad value ("expected ..."); "unset" is what
 *            the all-zero default means, for the docs
 *   TYPE     the type of its member of struct hesper_settings (ELSEWHERE: void, no member)
 *   FIELD    that member (ELSEWHERE: none)
 *   DEFAULT  its value in hesper_settings_default() (ELSEWHERE: 0, unused)
 *   MODE     ANY_MODE, or IN_MODE(DISPATCH | SUBMIT | CLOCK): the one HESPER_MODE it has an
 *            effect in. Given another value than its default under another mode, it is
 *            set back to its default with one line saying so, so that no report shows a
 *            setting as in effect that is not; the docs' table says "dispatch mode: ..."
 *   DOC      one line for the docs' table (after the mode, where the row has one)
 *
 * The rows' order is the order of struct hesper_settings's members and of the names an
 * unknown setting's error line lists.
 */
#ifndef HESPER_SETTINGS_LIST_H
#define HESPER_SETTINGS_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* clang-format off */
#define HESPER_SETTINGS(X)                                                                                              \
	X(HESPER_REPORT, ELSEWHERE, READ_BY("comma-separated sinks", "text to stderr"),                                 \
	  void, none, 0,                                                                                                \
	  ANY_MODE, "the sinks the report is written to")                                                               \
	X(HESPER_MODE, WORD, ONE_OF("dispatch", "submit", "clock"),                                                     \
	  enum hesper_mode, mode, HESPER_MODE_DISPATCH,                                                                 \
	  ANY_MODE, "time every dispatch, whole submissions only, or every dispatch from the shader clock")             \
	X(HESPER_SAMPLE, COUNT, RANGE(1, 1000000),                                                                      \
	  uint32_t, sample_every, 1,                                                                                    \
	  IN_MODE(DISPATCH), "time every N-th recorded dispatch of each kernel")                                        \
	X(HESPER_GROUP_BY, WORD, ONE_OF("kernel", "shape", "label"),                                                    \
	  enum hesper_group_by, group_by, HESPER_GROUP_BY_KERNEL,                                                       \
	  ANY_MODE, "a row per kernel, per kernel and work-group count, or per kernel and innermost debug label")       \
	/* 200,000 events: about 60 MB of trace JSON, well inside what Perfetto opens */                                \
	X(HESPER_MAX_EVENTS, COUNT, RANGE(0, 1000000000),                                                               \
	  uint64_t, max_events, 200000,                                                                                 \
	  ANY_MODE, "timeline events kept for `trace:` and `html:`")                                                    \
	X(HESPER_EXIT_TIMEOUT_MS, COUNT, RANGE(0, 600000),                                                              \
	  uint32_t, exit_timeout_ms, 5000,                                                                              \
	  ANY_MODE, "milliseconds the report at exit waits for work in flight")                                         \
	/* 512 MiB of query results at 8 bytes each */                                                                  \
	X(HESPER_MAX_QUERIES, COUNT, RANGE(0, 1000000000),                                                              \
	  uint64_t, max_queries, 64u << 20,                                                                             \
	  ANY_MODE, "timestamp queries held per device; past it dispatches are dropped")                                \
	X(HESPER_COPY, WORD, ONE_OF("auto", "wait", "host"),                                                            \
	  enum hesper_copy, copy, HESPER_COPY_AUTO,                                                                     \
	  ANY_MODE, "how timestamps come back: a GPU copy, a host read, or `host` on NVIDIA and `wait` elsewhere")      \
	X(HESPER_DISABLE, BOOL, ANY,                                                                                    \
	  bool, disabled, false,                                                                                        \
	  ANY_MODE, "the preloaded library loads nothing of Hesper's; a layer loaded anyway passes every call through") \
	X(HESPER_INTERVAL, PARSED,                                                                                      \
	  PARSER(hesper_parse_interval, 100, 86400000, /* ms */                                                         \
		 "seconds from 0.1 to 86400, at most 3 decimals (e.g. 5 or 0.5)", "off"),                               \
	  uint32_t, interval_ms, 0,                                                                                     \
	  ANY_MODE, "write every file sink this often while the program runs")                                          \
	X(HESPER_REPORT_SIGNAL, PARSED,                                                                                 \
	  PARSER(hesper_parse_signal, 0, 0,                                                                             \
		 "a signal name or number: HUP, QUIT, USR1, USR2, ALRM, WINCH, URG, PWR, PROF, VTALRM, "                \
		 "XCPU, XFSZ, IO, STKFLT, RTMIN+N or RTMAX-N", "off"),                                                  \
	  int, report_signal, 0,                                                                                        \
	  ANY_MODE, "write every file sink when this signal arrives")                                                   \
	X(HESPER_CONTROL, PATH, ANY,                                                                                    \
	  hesper_path, control_path, "",                                                                                \
	  ANY_MODE, "write every file sink when this file appears or its modification time changes")                    \
	X(HESPER_START, PARSED,                                                                                         \
	  PARSER(hesper_parse_start, 0, 1000000000000000000ull, /* ns */                                                \
		 "seconds after the start (0 to 1e9, e.g. 2.5) or label:NAME", "the start"),                            \
	  struct hesper_capture_bound, start, { .kind = HESPER_BOUND_NONE },                                            \
	  ANY_MODE, "open the capture window: seconds after the start, or at a debug label")                            \
	X(HESPER_STOP, PARSED,                                                                                          \
	  PARSER(hesper_parse_stop, 1000000, 1000000000000000000ull, /* ns */                                           \
		 "seconds after the window opened (0.001 to 1e9, e.g. 2.5), label:NAME or "                             \
		 "label:NAME#N (N from 1)", "never"),                                                                   \
	  struct hesper_capture_bound, stop, { .kind = HESPER_BOUND_NONE },                                             \
	  ANY_MODE, "close the capture window: seconds after it opened, or at the end of the N-th run of a label")      \
	X(HESPER_TRACE_ALL, BOOL, ANY,                                                                                  \
	  bool, trace_all, false,                                                                                       \
	  ANY_MODE, "stream every event of the `trace:` sink through a temporary file")                                 \
	X(HESPER_PIPELINE_STATS, SWITCH, OFF_ON("off", "on"),                                                           \
	  bool, pipeline_stats, true,                                                                                   \
	  ANY_MODE, "read each kernel's pipeline statistics from the driver (VK_KHR_pipeline_executable_properties)")   \
	X(HESPER_INDIRECT, SWITCH, OFF_ON("off", "read"),                                                               \
	  bool, indirect_args, true,                                                                                    \
	  IN_MODE(DISPATCH), "read back the group counts of timed indirect dispatches")                                 \
	X(HESPER_CLOCK_ISOLATED, SWITCH, OFF_ON("span", "barriers"),                                                    \
	  bool, clock_isolated, false,                                                                                  \
	  IN_MODE(CLOCK), "time a dispatch isolated by barriers by its span, or from barrier to barrier")               \
	X(HESPER_LINES, PARSED,                                                                                         \
	  PARSER(hesper_parse_names, 0, 0, "comma-separated kernel names, none empty, or *", "off"),                    \
	  hesper_path, lines, "",                                                                                       \
	  IN_MODE(CLOCK), "count clock time per source line in these kernels (names as the report prints them, or *)")  \
	X(HESPER_SOURCE_PATH, PATH, ANY,                                                                                \
	  hesper_path, source_path, "",                                                                                 \
	  IN_MODE(CLOCK), "directories (':' between) holding the source files HESPER_LINES lists, when not embedded")  \
	X(HESPER_FINDINGS, ELSEWHERE, READ_BY("off, or key=value,...", "on, default thresholds"),                       \
	  void, none, 0,                                                                                                \
	  ANY_MODE, "the findings' thresholds, or no findings")
/* clang-format on */

/* How a setting's value is read. Words are matched without regard to case. */
enum hesper_setting_kind {
	HESPER_SETTING_ELSEWHERE, /* read by another part of Hesper: accepted here and left alone */
	HESPER_SETTING_WORD,      /* one of its words; the field (an enum) gets the word's index */
	HESPER_SETTING_SWITCH,    /* its off or on word; the field is a bool */
	HESPER_SETTING_BOOL,      /* 1, 0, true, false, yes, no, on, off; the field is a bool */
	HESPER_SETTING_COUNT,     /* a whole number from min to max; the field is uint32_t or uint64_t */
	HESPER_SETTING_PATH,      /* any text, not empty, shorter than the field (a char array) */
	HESPER_SETTING_PARSED,    /* read by the row's parser */
};

struct hesper_setting_row;

/* Reads @len bytes at @value (trimmed, not NUL-terminated) into @field; false when refused. */
typedef bool hesper_setting_parser(const char *value, size_t len, const struct hesper_setting_row *row, void *field);

/* One row of HESPER_SETTINGS as settings.c reads it. */
struct hesper_setting_row {
	const char *name;
	enum hesper_setting_kind kind;
	size_t offset, size;          /* of its member of struct hesper_settings; 0 for ELSEWHERE */
	uint64_t min, max;            /* COUNT; PARSED, in the unit its parser reads */
	const char *const *words;     /* WORD: NULL-terminated; SWITCH: off, on, NULL */
	hesper_setting_parser *parse; /* PARSED */
	const char *accepted;         /* PARSED, ELSEWHERE: the end of the error line */
	const char *unset;            /* PARSED, ELSEWHERE: what the default means */
	int mode;                     /* the enum hesper_mode it has an effect in, or -1: every mode */
	const char *doc;
};

/* Expands to its arguments for the kinds that have a member of struct hesper_settings. */
#define HESPER_IF_FIELD_ELSEWHERE(...)
#define HESPER_IF_FIELD_WORD(...) __VA_ARGS__
#define HESPER_IF_FIELD_SWITCH(...) __VA_ARGS__
#define HESPER_IF_FIELD_BOOL(...) __VA_ARGS__
#define HESPER_IF_FIELD_COUNT(...) __VA_ARGS__
#define HESPER_IF_FIELD_PATH(...) __VA_ARGS__
#define HESPER_IF_FIELD_PARSED(...) __VA_ARGS__

#endif
