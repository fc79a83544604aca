/*
 * Unit tests for layer/state/settings.c: every accepted form of every setting, every way a
 * value is rejected, and the exact error lines.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "settings.h"

#define KNOWN                                                                                     \
	"(known: HESPER_REPORT, HESPER_MODE, HESPER_SAMPLE, HESPER_GROUP_BY, HESPER_MAX_EVENTS, " \
	"HESPER_EXIT_TIMEOUT_MS, HESPER_MAX_QUERIES, HESPER_COPY, HESPER_DISABLE, HESPER_INTERVAL, HESPER_REPORT_SIGNAL, HESPER_CONTROL, HESPER_START, HESPER_STOP, HESPER_TRACE_ALL, HESPER_PIPELINE_STATS, HESPER_INDIRECT, HESPER_CLOCK_ISOLATED, HESPER_LINES, HESPER_SOURCE_PATH, HESPER_FINDINGS)"

/* Applies one setting to defaults; returns its result and the error text in @out_err. */
static int
apply(struct hesper_settings *s, const char *name, const char *value, char *out_err, size_t err_size)
{
	struct capture c;
	int rc;

	hesper_settings_default(s);
	capture_open(&c);
	rc = hesper_settings_apply(s, name, value, c.f);
	snprintf(out_err, err_size, "%s", capture_close(&c));
	capture_free(&c);
	return rc;
}

static void
assert_defaults(const struct hesper_settings *s)
{
	ck_assert_int_eq(s->mode, HESPER_MODE_DISPATCH);
	ck_assert_uint_eq(s->sample_every, 1);
	ck_assert_uint_eq(s->max_events, 200000);
	ck_assert_uint_eq(s->exit_timeout_ms, 5000);
	ck_assert_int_eq(s->copy, HESPER_COPY_AUTO);
	ck_assert_int_eq(s->group_by, HESPER_GROUP_BY_KERNEL);
	ck_assert(!s->disabled);
}

/* The value is rejected with exactly @line on the error stream, and nothing changes. */
static void
assert_rejected(const char *name, const char *value, const char *line)
{
	struct hesper_settings s;
	char err[1024];

	ck_assert_int_eq(apply(&s, name, value, err, sizeof err), -1);
	ck_assert_str_eq(err, line);
	assert_defaults(&s);
}

static void
assert_accepted(const char *name, const char *value, struct hesper_settings *out)
{
	char err[1024];

	ck_assert_int_eq(apply(out, name, value, err, sizeof err), 0);
	ck_assert_str_eq(err, "");
}

/* ---- defaults ------------------------------------------------------------------------ */

START_TEST(default_values)
{
	struct hesper_settings s;

	memset(&s, 0xa5, sizeof s);
	hesper_settings_default(&s);
	assert_defaults(&s);
	ck_assert_str_eq(hesper_mode_name(HESPER_MODE_DISPATCH), "dispatch");
	ck_assert_str_eq(hesper_mode_name(HESPER_MODE_SUBMIT), "submit");
	ck_assert_str_eq(hesper_mode_name(HESPER_MODE_CLOCK), "clock");
	ck_assert_str_eq(hesper_mode_name((enum hesper_mode)42), "unknown");
}
END_TEST

/* ---- hesper_settings_apply: accepted forms ----------------------------------------- */

START_TEST(apply_copy_forms)
{
	struct hesper_settings s;

	assert_accepted("HESPER_COPY", "host", &s);
	ck_assert_int_eq(s.copy, HESPER_COPY_HOST);
	assert_accepted("HESPER_COPY", " WAIT ", &s);
	ck_assert_int_eq(s.copy, HESPER_COPY_WAIT);
	assert_accepted("HESPER_COPY", "Auto", &s);
	ck_assert_int_eq(s.copy, HESPER_COPY_AUTO);
	assert_rejected("HESPER_COPY", "fast", "hesper: ignoring HESPER_COPY='fast': expected auto, wait or host\n");
	assert_rejected("HESPER_COPY", "", "hesper: ignoring HESPER_COPY='': expected auto, wait or host\n");
	/* A rejected value keeps the one before. */
	hesper_settings_default(&s);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_COPY", "wait", NULL), 0);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_COPY", "hosts", NULL), -1);
	ck_assert_int_eq(s.copy, HESPER_COPY_WAIT);
}
END_TEST

START_TEST(apply_group_by_forms)
{
	struct hesper_settings s;

	assert_accepted("HESPER_GROUP_BY", "shape", &s);
	ck_assert_int_eq(s.group_by, HESPER_GROUP_BY_SHAPE);
	assert_accepted("HESPER_GROUP_BY", " LABEL\t", &s);
	ck_assert_int_eq(s.group_by, HESPER_GROUP_BY_LABEL);
	assert_accepted("HESPER_GROUP_BY", "Kernel", &s);
	ck_assert_int_eq(s.group_by, HESPER_GROUP_BY_KERNEL);
	assert_rejected("HESPER_GROUP_BY", "shapes",
			"hesper: ignoring HESPER_GROUP_BY='shapes': expected kernel, shape or label\n");
	assert_rejected("HESPER_GROUP_BY", "",
			"hesper: ignoring HESPER_GROUP_BY='': expected kernel, shape or label\n");
	/* Every mode has shapes and labels. */
	hesper_settings_default(&s);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_MODE", "clock", NULL), 0);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_GROUP_BY", "shape", NULL), 0);
	ck_assert_int_eq(s.group_by, HESPER_GROUP_BY_SHAPE);
}
END_TEST

/* A two-word setting: @off and @on (the default) set @field, anything else is refused naming both. */
#define ASSERT_SWITCH(name, field, initially, off, on, bad, expected)                                       \
	do {                                                                                                \
		struct hesper_settings s_;                                                                  \
		hesper_settings_default(&s_);                                                               \
		ck_assert(s_.field == (initially));                                                         \
		assert_accepted(name, off, &s_);                                                            \
		ck_assert(!s_.field);                                                                       \
		assert_accepted(name, on, &s_);                                                             \
		ck_assert(s_.field);                                                                        \
		assert_rejected(name, bad, "hesper: ignoring " name "='" bad "': expected " expected "\n"); \
	} while (0)

START_TEST(apply_switch_forms)
{
	ASSERT_SWITCH("HESPER_INDIRECT", indirect_args, true, " Off", "read", "1", "read or off");
	/* span by default: the barriers' timestamps cost ggml's isolated ops about 0.8 us each */
	ASSERT_SWITCH("HESPER_CLOCK_ISOLATED", clock_isolated, false, "SPAN ", "barriers", "clock", "barriers or span");
}
END_TEST

START_TEST(apply_lines_forms)
{
#define NAMES "expected comma-separated kernel names, none empty, or *\n"
	struct hesper_settings s;

	assert_accepted("HESPER_LINES", "*", &s);
	ck_assert_str_eq(s.lines, "*");
	assert_accepted("HESPER_LINES", " blur, reduce#0a1b2c3d ", &s);
	ck_assert_str_eq(s.lines, "blur, reduce#0a1b2c3d");
	assert_rejected("HESPER_LINES", "", "hesper: ignoring HESPER_LINES='': " NAMES);
	assert_rejected("HESPER_LINES", "blur,,reduce", "hesper: ignoring HESPER_LINES='blur,,reduce': " NAMES);
	assert_rejected("HESPER_LINES", "blur,", "hesper: ignoring HESPER_LINES='blur,': " NAMES);
	assert_rejected("HESPER_LINES", " , ", "hesper: ignoring HESPER_LINES=' , ': " NAMES);
#undef NAMES
}
END_TEST

START_TEST(apply_mode_forms)
{
	struct hesper_settings s;

	assert_accepted("HESPER_MODE", "submit", &s);
	ck_assert_int_eq(s.mode, HESPER_MODE_SUBMIT);
	assert_accepted("HESPER_MODE", "SUBMIT", &s);
	ck_assert_int_eq(s.mode, HESPER_MODE_SUBMIT);
	assert_accepted("HESPER_MODE", " Submit\t", &s);
	ck_assert_int_eq(s.mode, HESPER_MODE_SUBMIT);
	assert_accepted("HESPER_MODE", "Clock", &s);
	ck_assert_int_eq(s.mode, HESPER_MODE_CLOCK);
	assert_accepted("HESPER_MODE", "dispatch", &s);
	ck_assert_int_eq(s.mode, HESPER_MODE_DISPATCH);
	assert_accepted("HESPER_MODE", "DisPatch", &s);
	ck_assert_int_eq(s.mode, HESPER_MODE_DISPATCH);

	/* Back from submit to dispatch on the same settings. */
	hesper_settings_default(&s);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_MODE", "submit", NULL), 0);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_MODE", "dispatch", NULL), 0);
	ck_assert_int_eq(s.mode, HESPER_MODE_DISPATCH);
}
END_TEST

START_TEST(apply_number_forms)
{
	struct hesper_settings s;

	assert_accepted("HESPER_SAMPLE", "1", &s);
	ck_assert_uint_eq(s.sample_every, 1);
	assert_accepted("HESPER_SAMPLE", "1000000", &s);
	ck_assert_uint_eq(s.sample_every, 1000000);
	assert_accepted("HESPER_SAMPLE", "007", &s);
	ck_assert_uint_eq(s.sample_every, 7);
	assert_accepted("HESPER_SAMPLE", "  42 \n", &s);
	ck_assert_uint_eq(s.sample_every, 42);

	assert_accepted("HESPER_MAX_EVENTS", "0", &s);
	ck_assert_uint_eq(s.max_events, 0);
	assert_accepted("HESPER_MAX_EVENTS", "1000000000", &s);
	ck_assert_uint_eq(s.max_events, 1000000000);

	assert_accepted("HESPER_EXIT_TIMEOUT_MS", "0", &s);
	ck_assert_uint_eq(s.exit_timeout_ms, 0);
	assert_accepted("HESPER_EXIT_TIMEOUT_MS", "600000", &s);
	ck_assert_uint_eq(s.exit_timeout_ms, 600000);
	assert_accepted("HESPER_EXIT_TIMEOUT_MS", "\t250", &s);
	ck_assert_uint_eq(s.exit_timeout_ms, 250);

	ck_assert_uint_eq(s.max_queries, 64u << 20);
	assert_accepted("HESPER_MAX_QUERIES", "64", &s);
	ck_assert_uint_eq(s.max_queries, 64);
	assert_accepted("HESPER_MAX_QUERIES", "0", &s);
	ck_assert_uint_eq(s.max_queries, 0);
}
END_TEST

START_TEST(apply_disable_forms)
{
	static const char *const on[] = {"1", "true", "TRUE", "yes", "Yes", "on", "ON", " 1 "};
	static const char *const off[] = {"0", "false", "False", "no", "NO", "off", "oFF", "\toff\t"};
	struct hesper_settings s;

	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
		assert_accepted("HESPER_DISABLE", on[i], &s);
		ck_assert_msg(s.disabled, "%s", on[i]);
	}
	for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
		hesper_settings_default(&s);
		s.disabled = true;
		ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_DISABLE", off[i], NULL), 0);
		ck_assert_msg(!s.disabled, "%s", off[i]);
	}
}
END_TEST

START_TEST(apply_report_is_left_to_the_sinks)
{
	struct hesper_settings s;

	assert_accepted("HESPER_REPORT", "json:/tmp/x.json", &s);
	assert_defaults(&s);
	assert_accepted("HESPER_REPORT", "", &s);
	assert_defaults(&s);
}
END_TEST

/* ---- hesper_settings_apply: rejected values ---------------------------------------- */

#define SAMPLE_RANGE "expected a whole number from 1 to 1000000\n"

START_TEST(apply_rejects_bad_numbers)
{
	assert_rejected("HESPER_SAMPLE", "abc", "hesper: ignoring HESPER_SAMPLE='abc': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "", "hesper: ignoring HESPER_SAMPLE='': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", NULL, "hesper: ignoring HESPER_SAMPLE='': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "   ", "hesper: ignoring HESPER_SAMPLE='   ': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "0", "hesper: ignoring HESPER_SAMPLE='0': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "1000001", "hesper: ignoring HESPER_SAMPLE='1000001': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "-1", "hesper: ignoring HESPER_SAMPLE='-1': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "+5", "hesper: ignoring HESPER_SAMPLE='+5': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "5x", "hesper: ignoring HESPER_SAMPLE='5x': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "1 2", "hesper: ignoring HESPER_SAMPLE='1 2': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "0x10", "hesper: ignoring HESPER_SAMPLE='0x10': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "1e3", "hesper: ignoring HESPER_SAMPLE='1e3': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "2.5", "hesper: ignoring HESPER_SAMPLE='2.5': " SAMPLE_RANGE);
	/* Would wrap a 32-bit or a 64-bit number. */
	assert_rejected("HESPER_SAMPLE", "4294967297", "hesper: ignoring HESPER_SAMPLE='4294967297': " SAMPLE_RANGE);
	assert_rejected("HESPER_SAMPLE", "18446744073709551617",
			"hesper: ignoring HESPER_SAMPLE='18446744073709551617': " SAMPLE_RANGE);
	assert_rejected("HESPER_MAX_EVENTS", "18446744073709551616",
			"hesper: ignoring HESPER_MAX_EVENTS='18446744073709551616': "
			"expected a whole number from 0 to 1000000000\n");
	assert_rejected("HESPER_MAX_EVENTS", "99999999999999999999999999",
			"hesper: ignoring HESPER_MAX_EVENTS='99999999999999999999999999': "
			"expected a whole number from 0 to 1000000000\n");
	assert_rejected("HESPER_MAX_EVENTS", "1000000001",
			"hesper: ignoring HESPER_MAX_EVENTS='1000000001': "
			"expected a whole number from 0 to 1000000000\n");
	assert_rejected("HESPER_EXIT_TIMEOUT_MS", "600001",
			"hesper: ignoring HESPER_EXIT_TIMEOUT_MS='600001': "
			"expected a whole number from 0 to 600000\n");
	assert_rejected("HESPER_EXIT_TIMEOUT_MS", "5s",
			"hesper: ignoring HESPER_EXIT_TIMEOUT_MS='5s': expected a whole number from 0 to 600000\n");
}
END_TEST

START_TEST(apply_rejects_bad_words)
{
	assert_rejected("HESPER_MODE", "kernel",
			"hesper: ignoring HESPER_MODE='kernel': expected dispatch, submit or clock\n");
	assert_rejected("HESPER_MODE", "", "hesper: ignoring HESPER_MODE='': expected dispatch, submit or clock\n");
	assert_rejected("HESPER_MODE", "submits",
			"hesper: ignoring HESPER_MODE='submits': expected dispatch, submit or clock\n");
	assert_rejected("HESPER_MODE", "sub mit",
			"hesper: ignoring HESPER_MODE='sub mit': expected dispatch, submit or clock\n");
	assert_rejected("HESPER_DISABLE", "2",
			"hesper: ignoring HESPER_DISABLE='2': expected 1, 0, true, false, yes, no, on or off\n");
	assert_rejected("HESPER_DISABLE", "",
			"hesper: ignoring HESPER_DISABLE='': expected 1, 0, true, false, yes, no, on or off\n");
	assert_rejected("HESPER_DISABLE", "y",
			"hesper: ignoring HESPER_DISABLE='y': expected 1, 0, true, false, yes, no, on or off\n");
	assert_rejected("HESPER_DISABLE", "enable",
			"hesper: ignoring HESPER_DISABLE='enable': expected 1, 0, true, false, yes, no, on or off\n");
}
END_TEST

START_TEST(apply_quotes_values_safely)
{
	char value[200], line[512];

	/* Unprintable bytes, quotes and backslashes as \xHH. */
	assert_rejected(
		"HESPER_MODE", "a\nb\x01'\\\xff",
		"hesper: ignoring HESPER_MODE='a\\x0Ab\\x01\\x27\\x5C\\xFF': expected dispatch, submit or clock\n");

	/* 64 bytes are shown whole; more are cut with "...". */
	memset(value, 'v', 64);
	value[64] = '\0';
	snprintf(line, sizeof line, "hesper: ignoring HESPER_MODE='%s': expected dispatch, submit or clock\n", value);
	assert_rejected("HESPER_MODE", value, line);
	memset(value, 'v', 150);
	value[150] = '\0';
	value[64] = '\0';
	snprintf(line, sizeof line, "hesper: ignoring HESPER_MODE='%s...': expected dispatch, submit or clock\n",
		 value);
	value[64] = 'v';
	assert_rejected("HESPER_MODE", value, line);

	/* Every byte escaped still fits on one line. */
	memset(value, 0x7f, 150);
	value[150] = '\0';
	{
		struct hesper_settings s;
		char err[1024];

		ck_assert_int_eq(apply(&s, "HESPER_SAMPLE", value, err, sizeof err), -1);
		ck_assert_uint_eq(strlen(err), strlen("hesper: ignoring HESPER_SAMPLE='...': " SAMPLE_RANGE) + 64 * 4);
		ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
	}
}
END_TEST

START_TEST(apply_rejects_unknown_names)
{
	char name[200], line[640];

	assert_rejected("HESPER_FOO", "1", "hesper: unknown setting HESPER_FOO " KNOWN "\n");
	assert_rejected("hesper_mode", "submit", "hesper: unknown setting hesper_mode " KNOWN "\n");
	assert_rejected("HESPER_MODE ", "submit", "hesper: unknown setting HESPER_MODE  " KNOWN "\n");
	assert_rejected("", "1", "hesper: unknown setting  " KNOWN "\n");
	assert_rejected(NULL, "1", "hesper: unknown setting  " KNOWN "\n");
	assert_rejected("HESPER_\x1b[31m", "1", "hesper: unknown setting HESPER_\\x1B[31m " KNOWN "\n");

	memset(name, 'N', 150);
	name[150] = '\0';
	name[64] = '\0';
	snprintf(line, sizeof line, "hesper: unknown setting %s... " KNOWN "\n", name);
	name[64] = 'N';
	assert_rejected(name, "1", line);
}
END_TEST

START_TEST(apply_without_error_stream)
{
	struct hesper_settings s;

	hesper_settings_default(&s);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_SAMPLE", "x", NULL), -1);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_NOPE", "x", NULL), -1);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_SAMPLE", "3", NULL), 0);
	ck_assert_uint_eq(s.sample_every, 3);
}
END_TEST

START_TEST(apply_keeps_previous_value)
{
	struct hesper_settings s;

	hesper_settings_default(&s);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_SAMPLE", "8", NULL), 0);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_SAMPLE", "0", NULL), -1);
	ck_assert_uint_eq(s.sample_every, 8);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_MODE", "submit", NULL), 0);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_MODE", "both", NULL), -1);
	ck_assert_int_eq(s.mode, HESPER_MODE_SUBMIT);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_DISABLE", "on", NULL), 0);
	ck_assert_int_eq(hesper_settings_apply(&s, "HESPER_DISABLE", "maybe", NULL), -1);
	ck_assert(s.disabled);
}
END_TEST

/* ---- hesper_settings_from_env ------------------------------------------------------ */

START_TEST(env_reads_every_setting)
{
	char *env[] = {
		"PATH=/usr/bin",
		"HESPER_REPORT=json:out.json",
		"HESPER_MODE=submit",
		"HESPER_COPY=host",
		"HESPER_GROUP_BY=label",
		"HESPER_MAX_EVENTS=123",
		"HESPER_EXIT_TIMEOUT_MS=0",
		"HESPER_DISABLE=yes",
		"HOME=/root",
		"HESPER_LLAMA_FILES=/x", /* the scripts' own, no setting: not a line either */
		"HESPER_NPM_CACHE=/y",
		NULL,
	};
	struct hesper_settings s;
	struct capture c;

	memset(&s, 0x5a, sizeof s);
	capture_open(&c);
	ck_assert_int_eq(hesper_settings_from_env(&s, env, c.f), 0);
	ck_assert_str_eq(capture_close(&c), "");
	capture_free(&c);
	ck_assert_int_eq(s.mode, HESPER_MODE_SUBMIT);
	ck_assert_int_eq(s.copy, HESPER_COPY_HOST);
	ck_assert_int_eq(s.group_by, HESPER_GROUP_BY_LABEL);
	ck_assert_uint_eq(s.max_events, 123);
	ck_assert_uint_eq(s.exit_timeout_ms, 0);
	ck_assert(s.disabled);
}
END_TEST

START_TEST(env_reports_bad_and_unknown)
{
	char *env[] = {
		"HESPER_SAMPLE=abc",   "HESPER_FOO=1",         "HESPER_MODE=submit", "HESPER_DISABLE=",
		"HESPER_MAX_EVENTS=5", "HESPER_MAX_EVENTS=-5", /* the earlier value stays */
		"HESPER_NOVALUE",                              /* not NAME=VALUE: skipped */
		"HESPER_=x",           "XHESPER_SAMPLE=0",     "hesper_sample=0",    NULL,
	};
	struct hesper_settings s;
	struct capture c;

	capture_open(&c);
	ck_assert_int_eq(hesper_settings_from_env(&s, env, c.f), 5);
	ck_assert_str_eq(capture_close(&c),
			 "hesper: ignoring HESPER_SAMPLE='abc': " SAMPLE_RANGE
			 "hesper: unknown setting HESPER_FOO " KNOWN "\n"
			 "hesper: ignoring HESPER_DISABLE='': expected 1, 0, true, false, yes, no, on or off\n"
			 "hesper: ignoring HESPER_MAX_EVENTS='-5': expected a whole number from 0 to 1000000000\n"
			 "hesper: unknown setting HESPER_ " KNOWN "\n");
	capture_free(&c);
	ck_assert_uint_eq(s.sample_every, 1);
	ck_assert_int_eq(s.mode, HESPER_MODE_SUBMIT);
	ck_assert(!s.disabled);
	ck_assert_uint_eq(s.max_events, 5);
}
END_TEST

/* Reads @env (NULL-terminated) into @s; returns what was said on the error stream (the caller frees it). */
static char *
from_env(struct hesper_settings *s, char **env)
{
	struct capture c;
	char *said;

	capture_open(&c);
	ck_assert_int_eq(hesper_settings_from_env(s, env, c.f), 0);
	said = strdup(capture_close(&c));
	capture_free(&c);
	return said;
}

/* A setting of one mode, given under another: one line, and its default (the report must not show it). */
START_TEST(env_drops_settings_of_another_mode)
{
	char *clock_sample[] = {"HESPER_SAMPLE= 4", "HESPER_MODE=clock", NULL}; /* in either order */
	char *dispatch_barriers[] = {"HESPER_CLOCK_ISOLATED=barriers", NULL};
	char *submit_indirect[] = {"HESPER_MODE=submit", "HESPER_INDIRECT=off", "HESPER_SAMPLE=2", NULL};
	char *in_their_modes[] = {"HESPER_MODE=clock", "HESPER_CLOCK_ISOLATED=barriers", NULL};
	char *sampled[] = {"HESPER_SAMPLE=4", "HESPER_INDIRECT=off", NULL};
	char *asking_nothing[] = {"HESPER_MODE=clock", "HESPER_SAMPLE=1", "HESPER_INDIRECT=read", NULL};
	char *dispatch_span[] = {"HESPER_CLOCK_ISOLATED=span", NULL}; /* the default: nothing to say */
	struct hesper_settings s;
	char *said;

	said = from_env(&s, clock_sample);
	ck_assert_str_eq(said, "hesper: ignoring HESPER_SAMPLE='4': it has an effect in dispatch mode only, and "
			       "HESPER_MODE is clock\n");
	ck_assert_int_eq(s.mode, HESPER_MODE_CLOCK);
	ck_assert_uint_eq(s.sample_every, 1);
	free(said);

	said = from_env(&s, dispatch_barriers);
	ck_assert_str_eq(said,
			 "hesper: ignoring HESPER_CLOCK_ISOLATED='barriers': it has an effect in clock mode only, "
			 "and HESPER_MODE is dispatch\n");
	ck_assert(!s.clock_isolated);
	free(said);

	said = from_env(&s, submit_indirect);
	ck_assert_str_eq(said, "hesper: ignoring HESPER_SAMPLE='2': it has an effect in dispatch mode only, and "
			       "HESPER_MODE is submit\n"
			       "hesper: ignoring HESPER_INDIRECT='off': it has an effect in dispatch mode only, and "
			       "HESPER_MODE is submit\n");
	ck_assert(s.indirect_args);
	ck_assert_uint_eq(s.sample_every, 1);
	free(said);

	said = from_env(&s, in_their_modes);
	ck_assert_str_eq(said, "");
	ck_assert(s.clock_isolated);
	free(said);

	said = from_env(&s, sampled);
	ck_assert_str_eq(said, "");
	ck_assert_uint_eq(s.sample_every, 4);
	ck_assert(!s.indirect_args);
	free(said);

	/* Their defaults ask for nothing another mode ignores: nothing to say. */
	said = from_env(&s, asking_nothing);
	ck_assert_str_eq(said, "");
	free(said);
	said = from_env(&s, dispatch_span);
	ck_assert_str_eq(said, "");
	free(said);
}
END_TEST

START_TEST(env_empty_and_null)
{
	char *empty[] = {NULL};
	char *report_only[] = {"HESPER_REPORT=", "HESPER_REPORT=bogus:x", NULL};
	struct hesper_settings s;

	memset(&s, 0x5a, sizeof s);
	ck_assert_int_eq(hesper_settings_from_env(&s, empty, NULL), 0);
	assert_defaults(&s);
	memset(&s, 0x5a, sizeof s);
	ck_assert_int_eq(hesper_settings_from_env(&s, NULL, NULL), 0);
	assert_defaults(&s);
	/* HESPER_REPORT is the sinks' to judge. */
	ck_assert_int_eq(hesper_settings_from_env(&s, report_only, stderr), 0);
	assert_defaults(&s);
}
END_TEST

START_TEST(env_starts_from_defaults)
{
	char *env[] = {"HESPER_SAMPLE=3", NULL};
	char *none[] = {NULL};
	struct hesper_settings s;

	ck_assert_int_eq(hesper_settings_from_env(&s, env, NULL), 0);
	ck_assert_uint_eq(s.sample_every, 3);
	ck_assert_int_eq(hesper_settings_from_env(&s, none, NULL), 0);
	assert_defaults(&s);
}
END_TEST

static Suite *
settings_suite(void)
{
	Suite *s = suite_create("settings");
	TCase *tc;

	tc = tcase_create("hesper_settings_default");
	tcase_add_test(tc, default_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_settings_apply");
	tcase_add_test(tc, apply_mode_forms);
	tcase_add_test(tc, apply_copy_forms);
	tcase_add_test(tc, apply_group_by_forms);
	tcase_add_test(tc, apply_switch_forms);
	tcase_add_test(tc, apply_lines_forms);
	tcase_add_test(tc, apply_number_forms);
	tcase_add_test(tc, apply_disable_forms);
	tcase_add_test(tc, apply_report_is_left_to_the_sinks);
	tcase_add_test(tc, apply_rejects_bad_numbers);
	tcase_add_test(tc, apply_rejects_bad_words);
	tcase_add_test(tc, apply_quotes_values_safely);
	tcase_add_test(tc, apply_rejects_unknown_names);
	tcase_add_test(tc, apply_without_error_stream);
	tcase_add_test(tc, apply_keeps_previous_value);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_settings_from_env");
	tcase_add_test(tc, env_reads_every_setting);
	tcase_add_test(tc, env_reports_bad_and_unknown);
	tcase_add_test(tc, env_drops_settings_of_another_mode);
	tcase_add_test(tc, env_empty_and_null);
	tcase_add_test(tc, env_starts_from_defaults);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(settings_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
