/*
 * Unit tests for the settings of reports while the program runs and of the capture
 * window (layer/state/settings.c): HESPER_INTERVAL, HESPER_REPORT_SIGNAL, HESPER_CONTROL,
 * HESPER_START, HESPER_STOP; accepted forms, rejected ones with their one line.
 */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "settings.h"

/* Applies @value to defaults; returns the result, the error text in @err. */
static int
apply(struct hesper_settings *s, const char *name, const char *value, char *err, size_t size)
{
	struct capture c;
	int rc;

	hesper_settings_default(s);
	capture_open(&c);
	rc = hesper_settings_apply(s, name, value, c.f);
	snprintf(err, size, "%s", capture_close(&c));
	capture_free(&c);
	return rc;
}

static struct hesper_settings
accepted(const char *name, const char *value)
{
	struct hesper_settings s;
	char err[1024];

	ck_assert_msg(apply(&s, name, value, err, sizeof err) == 0, "%s=%s rejected: %s", name, value, err);
	ck_assert_str_eq(err, "");
	return s;
}

/* Rejected with exactly one line naming the setting, and the default kept. */
static void
rejected(const char *name, const char *value)
{
	struct hesper_settings s, d;
	char err[1024];

	ck_assert_msg(apply(&s, name, value, err, sizeof err) == -1, "%s='%s' accepted", name, value);
	ck_assert_msg(strncmp(err, "hesper: ignoring ", 17) == 0 && strstr(err, name), "line: %s", err);
	ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
	hesper_settings_default(&d);
	ck_assert_uint_eq(s.interval_ms, d.interval_ms);
	ck_assert_int_eq(s.report_signal, 0);
	ck_assert_str_eq(s.control_path, "");
	ck_assert_int_eq(s.start.kind, HESPER_BOUND_NONE);
	ck_assert_int_eq(s.stop.kind, HESPER_BOUND_NONE);
}

START_TEST(defaults_are_off)
{
	struct hesper_settings s;

	hesper_settings_default(&s);
	ck_assert_uint_eq(s.interval_ms, 0);
	ck_assert_int_eq(s.report_signal, 0);
	ck_assert_str_eq(s.control_path, "");
	ck_assert_int_eq(s.start.kind, HESPER_BOUND_NONE);
	ck_assert_int_eq(s.stop.kind, HESPER_BOUND_NONE);
}
END_TEST

START_TEST(interval_forms)
{
	ck_assert_uint_eq(accepted("HESPER_INTERVAL", "5").interval_ms, 5000);
	ck_assert_uint_eq(accepted("HESPER_INTERVAL", " 0.5 ").interval_ms, 500);
	ck_assert_uint_eq(accepted("HESPER_INTERVAL", "0.1").interval_ms, 100);
	ck_assert_uint_eq(accepted("HESPER_INTERVAL", "1.250").interval_ms, 1250);
	ck_assert_uint_eq(accepted("HESPER_INTERVAL", "86400").interval_ms, 86400000);
	rejected("HESPER_INTERVAL", "");
	rejected("HESPER_INTERVAL", "0");
	rejected("HESPER_INTERVAL", "0.05");
	rejected("HESPER_INTERVAL", "0.0001"); /* finer than a millisecond */
	rejected("HESPER_INTERVAL", "86401");
	rejected("HESPER_INTERVAL", "-1");
	rejected("HESPER_INTERVAL", "1.");
	rejected("HESPER_INTERVAL", ".5");
	rejected("HESPER_INTERVAL", "5s");
	rejected("HESPER_INTERVAL", "1e3");
	rejected("HESPER_INTERVAL", "99999999999999999999999");
}
END_TEST

START_TEST(signal_forms)
{
	ck_assert_int_eq(accepted("HESPER_REPORT_SIGNAL", "USR1").report_signal, SIGUSR1);
	ck_assert_int_eq(accepted("HESPER_REPORT_SIGNAL", "sigusr2").report_signal, SIGUSR2);
	ck_assert_int_eq(accepted("HESPER_REPORT_SIGNAL", "SIGHUP").report_signal, SIGHUP);
	ck_assert_int_eq(accepted("HESPER_REPORT_SIGNAL", "10").report_signal, 10);
	ck_assert_int_eq(accepted("HESPER_REPORT_SIGNAL", "RTMIN").report_signal, SIGRTMIN);
	ck_assert_int_eq(accepted("HESPER_REPORT_SIGNAL", "rtmin+3").report_signal, SIGRTMIN + 3);
	ck_assert_int_eq(accepted("HESPER_REPORT_SIGNAL", "SIGRTMAX-1").report_signal, SIGRTMAX - 1);
	rejected("HESPER_REPORT_SIGNAL", "");
	rejected("HESPER_REPORT_SIGNAL", "KILL");
	rejected("HESPER_REPORT_SIGNAL", "9");
	rejected("HESPER_REPORT_SIGNAL", "SEGV");
	rejected("HESPER_REPORT_SIGNAL", "11");
	rejected("HESPER_REPORT_SIGNAL", "INT");
	rejected("HESPER_REPORT_SIGNAL", "TERM");
	rejected("HESPER_REPORT_SIGNAL", "0");
	rejected("HESPER_REPORT_SIGNAL", "65");
	rejected("HESPER_REPORT_SIGNAL", "RTMIN-1");
	rejected("HESPER_REPORT_SIGNAL", "RTMIN+99");
	rejected("HESPER_REPORT_SIGNAL", "USR3");
}
END_TEST

START_TEST(control_forms)
{
	ck_assert_str_eq(accepted("HESPER_CONTROL", " /tmp/hesper.ctl ").control_path, "/tmp/hesper.ctl");
	rejected("HESPER_CONTROL", "");
	rejected("HESPER_CONTROL", "   ");
}
END_TEST

START_TEST(trace_all_forms)
{
	struct hesper_settings s;

	hesper_settings_default(&s);
	ck_assert(!s.trace_all);
	ck_assert(accepted("HESPER_TRACE_ALL", "1").trace_all);
	ck_assert(accepted("HESPER_TRACE_ALL", "Yes").trace_all);
	ck_assert(!accepted("HESPER_TRACE_ALL", "off").trace_all);
	ck_assert(!accepted("HESPER_TRACE_ALL", "1").disabled);
	rejected("HESPER_TRACE_ALL", "all");
	rejected("HESPER_TRACE_ALL", "");
}
END_TEST

START_TEST(window_forms)
{
	struct hesper_settings s = accepted("HESPER_START", "2.5");
	char text[300];

	ck_assert_int_eq(s.start.kind, HESPER_BOUND_TIME);
	ck_assert_uint_eq(s.start.ns, 2500000000ull);
	ck_assert_uint_eq(accepted("HESPER_START", "0").start.ns, 0);
	s = accepted("HESPER_START", "label:step one");
	ck_assert_int_eq(s.start.kind, HESPER_BOUND_LABEL);
	ck_assert_str_eq(s.start.label, "step one");
	s = accepted("HESPER_START", "label:a#2"); /* '#' is part of a start label */
	ck_assert_str_eq(s.start.label, "a#2");
	s = accepted("HESPER_STOP", "label:step");
	ck_assert_int_eq(s.stop.kind, HESPER_BOUND_LABEL);
	ck_assert_str_eq(s.stop.label, "step");
	ck_assert_uint_eq(s.stop.nth, 1);
	s = accepted("HESPER_STOP", "LABEL:a#b#10");
	ck_assert_str_eq(s.stop.label, "a#b");
	ck_assert_uint_eq(s.stop.nth, 10);
	hesper_capture_bound_format(&s.stop, true, text, sizeof text);
	ck_assert_str_eq(text, "label:a#b#10");
	s = accepted("HESPER_STOP", "0.25");
	ck_assert_uint_eq(s.stop.ns, 250000000ull);
	hesper_capture_bound_format(&s.stop, true, text, sizeof text);
	ck_assert_str_eq(text, "0.250 s");
	rejected("HESPER_START", "");
	rejected("HESPER_START", "-1");
	rejected("HESPER_START", "soon");
	rejected("HESPER_START", "label:");
	rejected("HESPER_START", "2.5s");
	rejected("HESPER_START", "1000000001");
	rejected("HESPER_STOP", "0");
	rejected("HESPER_STOP", "label:x#0");
	rejected("HESPER_STOP", "label:x#");
	rejected("HESPER_STOP", "label:#3");
	rejected("HESPER_STOP", "label:x#-1");
	{
		char name[400];
		memset(name, 'a', sizeof name);
		memcpy(name, "label:", 6);
		name[sizeof name - 1] = '\0';
		rejected("HESPER_START", name); /* longer than a label may be */
	}
}
END_TEST

static Suite *
settings_live_suite(void)
{
	Suite *s = suite_create("settings_live");
	TCase *tc = tcase_create("live and window settings");

	tcase_add_test(tc, defaults_are_off);
	tcase_add_test(tc, interval_forms);
	tcase_add_test(tc, signal_forms);
	tcase_add_test(tc, control_forms);
	tcase_add_test(tc, window_forms);
	tcase_add_test(tc, trace_all_forms);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(settings_live_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
