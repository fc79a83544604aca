/* Unit tests of the public event functions (<hesper/profiling.h>, linked as a program would: the shared library). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hesper/profiling.h>

/* The seed's equations: an event of 1000..3500 ns lasts 2500 ns, 2.5 µs, 0.0025 ms. */
START_TEST(from_timestamps_and_durations)
{
	struct hesper_event e = hesper_event_from_timestamps("matmul", 1000, 3500);

	ck_assert_str_eq(e.name, "matmul");
	ck_assert_uint_eq(e.start_ns, 1000);
	ck_assert_uint_eq(e.end_ns, 3500);
	ck_assert_uint_eq(hesper_event_duration_ns(&e), 2500);
	ck_assert_double_eq(hesper_event_duration_us(&e), 2.5);
	ck_assert_double_eq_tol(hesper_event_duration_ms(&e), 0.0025, 1e-15);
}
END_TEST

START_TEST(end_before_start_is_zero)
{
	struct hesper_event back = hesper_event_from_timestamps("k", 3500, 1000);
	struct hesper_event same = hesper_event_from_timestamps("k", 77, 77);

	ck_assert_uint_eq(hesper_event_duration_ns(&back), 0);
	ck_assert_double_eq(hesper_event_duration_us(&back), 0);
	ck_assert_double_eq(hesper_event_duration_ms(&back), 0);
	ck_assert_uint_eq(hesper_event_duration_ns(&same), 0);
}
END_TEST

START_TEST(full_range)
{
	struct hesper_event e = hesper_event_from_timestamps(NULL, 0, UINT64_MAX);

	ck_assert_ptr_null(e.name);
	ck_assert_uint_eq(hesper_event_duration_ns(&e), UINT64_MAX);
}
END_TEST

START_TEST(compare_sorts_by_start)
{
	struct hesper_event ev[] = {
		{"c", 300, 400}, {"a", 100, 900}, {"b", 200, 250}, {"a2", 100, 150}, {"top", 1ull << 63, UINT64_MAX},
	};

	qsort(ev, 5, sizeof(ev[0]), hesper_event_compare);
	ck_assert_str_eq(ev[0].name, "a2"); /* same start: the earlier end first */
	ck_assert_str_eq(ev[1].name, "a");
	ck_assert_str_eq(ev[2].name, "b");
	ck_assert_str_eq(ev[3].name, "c");
	ck_assert_str_eq(ev[4].name, "top");
	ck_assert_int_lt(hesper_event_compare(&ev[0], &ev[4]), 0);
	ck_assert_int_gt(hesper_event_compare(&ev[4], &ev[0]), 0);
	ck_assert_int_eq(hesper_event_compare(&ev[2], &ev[2]), 0);
}
END_TEST

/* A 32-bit counter that wrapped between the two timestamps, 52.08 ns per tick. */
START_TEST(ticks_wrap_at_32_bits)
{
	uint32_t start = 0xffffff00u, end = 0x100u; /* 0x200 = 512 ticks apart across the wrap */
	struct hesper_event e = hesper_event_from_ticks("k", start, end, 52.08f, 32);
	double expected = round(512.0 * (double)52.08f);

	ck_assert_uint_eq(hesper_event_duration_ns(&e), (uint64_t)expected);
	ck_assert_uint_eq(hesper_event_duration_ns(&e), 26665);
	ck_assert_uint_eq(e.start_ns, (uint64_t)llround((double)start * (double)52.08f));
	/* Bits above the valid ones are not part of the counter. */
	struct hesper_event high = hesper_event_from_ticks("k", 0xab00000000000000ull | start,
							   0xcd00000000000000ull | end, 52.08f, 32);
	ck_assert_uint_eq(hesper_event_duration_ns(&high), 26665);
	ck_assert_uint_eq(high.start_ns, e.start_ns);
}
END_TEST

START_TEST(ticks_64_bits)
{
	struct hesper_event e = hesper_event_from_ticks("k", 1000, 3500, 1.0f, 64);
	struct hesper_event wide = hesper_event_from_ticks("k", 1000, 3500, 1.0f, 99);
	/* A 48-bit counter that wrapped: still 32 ticks. */
	struct hesper_event wrapped = hesper_event_from_ticks("k", (1ull << 48) - 16, 16, 2.0f, 48);

	ck_assert_uint_eq(e.start_ns, 1000);
	ck_assert_uint_eq(e.end_ns, 3500);
	ck_assert_uint_eq(wide.end_ns, 3500);
	ck_assert_uint_eq(hesper_event_duration_ns(&wrapped), 64);
	ck_assert_uint_eq(wrapped.start_ns, ((1ull << 48) - 16) * 2);
	/* Past what 64 bits of ns hold: saturated, never wrapped around. */
	struct hesper_event huge = hesper_event_from_ticks("k", UINT64_MAX - 15, 16, 2.0f, 64);
	ck_assert_uint_eq(huge.start_ns, UINT64_MAX);
	ck_assert_uint_eq(huge.end_ns, UINT64_MAX);
}
END_TEST

START_TEST(ticks_backwards_and_invalid)
{
	/* More than half the counter's range apart: the end came first, no time at all. */
	struct hesper_event back = hesper_event_from_ticks("k", 500, 400, 1.0f, 32);
	struct hesper_event no_bits = hesper_event_from_ticks("k", 1, 5, 1.0f, 0);
	struct hesper_event no_period = hesper_event_from_ticks("k", 1, 5, 0.0f, 64);
	struct hesper_event nan_period = hesper_event_from_ticks("k", 1, 5, NAN, 64);
	struct hesper_event negative = hesper_event_from_ticks("k", 1, 5, -1.0f, 64);

	ck_assert_uint_eq(hesper_event_duration_ns(&back), 0);
	ck_assert_uint_eq(back.start_ns, 500);
	ck_assert_uint_eq(hesper_event_duration_ns(&no_bits), 0);
	ck_assert_uint_eq(hesper_event_duration_ns(&no_period), 0);
	ck_assert_uint_eq(hesper_event_duration_ns(&nan_period), 0);
	ck_assert_uint_eq(hesper_event_duration_ns(&negative), 0);
	ck_assert_str_eq(negative.name, "k");
}
END_TEST

START_TEST(format_event)
{
	struct hesper_event e = hesper_event_from_timestamps("matmul", 1000, 3500);
	struct hesper_event unnamed = {NULL, 5, 1};
	char buf[128], small[8];
	const char *full = "matmul: 2.500 \u00b5s (start 1000 ns, end 3500 ns)";

	ck_assert_int_eq(hesper_event_format(buf, sizeof(buf), &e), (int)strlen(full));
	ck_assert_str_eq(buf, full);
	/* snprintf semantics: cut to fit, terminated, the whole length returned. */
	ck_assert_int_eq(hesper_event_format(small, sizeof(small), &e), (int)strlen(full));
	ck_assert_str_eq(small, "matmul:");
	ck_assert_int_eq(hesper_event_format(NULL, 0, &e), (int)strlen(full));
	hesper_event_format(buf, sizeof(buf), &unnamed);
	ck_assert_str_eq(buf, "?: 0 ns (start 5 ns, end 1 ns)");
	hesper_event_format(buf, sizeof(buf), NULL);
	ck_assert_str_eq(buf, "(no event)");
}
END_TEST

START_TEST(version_and_status)
{
	ck_assert_ptr_nonnull(strchr(hesper_version(), '.'));
	ck_assert_str_eq(hesper_status_string(HESPER_OK), "success");
	ck_assert_str_eq(hesper_status_string(HESPER_ERROR_FORMAT), "not a Hesper file of the expected kind");
	ck_assert_str_eq(hesper_status_string(12345), "unknown status");
}
END_TEST

static Suite *
lib_event_suite(void)
{
	Suite *s = suite_create("lib_event");
	TCase *tc = tcase_create("durations");

	tcase_add_test(tc, from_timestamps_and_durations);
	tcase_add_test(tc, end_before_start_is_zero);
	tcase_add_test(tc, full_range);
	tcase_add_test(tc, compare_sorts_by_start);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_event_from_ticks");
	tcase_add_test(tc, ticks_wrap_at_32_bits);
	tcase_add_test(tc, ticks_64_bits);
	tcase_add_test(tc, ticks_backwards_and_invalid);
	suite_add_tcase(s, tc);

	tc = tcase_create("text");
	tcase_add_test(tc, format_event);
	tcase_add_test(tc, version_and_status);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(lib_event_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
