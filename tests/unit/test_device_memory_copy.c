/* Unit tests for layer/state/device_memory_copy.c: what is taken is copied whole and left zero. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device_memory_copy.h"

/* Takes @bytes at offset @at of a 16-byte aligned buffer into a copy at @to_at; checks both sides. */
static void
take_and_check(size_t at, size_t bytes, size_t to_at)
{
	enum { SIZE = 1024 };
	_Alignas(64) unsigned char from[SIZE];
	unsigned char to[SIZE + 16], want[SIZE];

	for (size_t i = 0; i < SIZE; i++)
		from[i] = (unsigned char)(i * 7 + 3);
	memcpy(want, from, SIZE);
	memset(to, 0xee, sizeof to);
	hesper_device_memory_take(to + to_at, from + at, bytes);
	ck_assert_mem_eq(to + to_at, want + at, bytes);
	/* nothing written past the copy */
	if (to_at + bytes < sizeof to)
		ck_assert_uint_eq(to[to_at + bytes], 0xee);
	for (size_t i = 0; i < SIZE; i++)
		ck_assert_uint_eq(from[i], i >= at && i < at + bytes ? 0 : want[i]);
}

START_TEST(takes_whole_lines_and_tails)
{
	/* whole 64-byte lines, a 16-byte tail, a lone 16 bytes, nothing */
	take_and_check(0, 512, 0);
	take_and_check(64, 64 * 3 + 16 * 2, 8);
	take_and_check(16, 16, 0);
	take_and_check(0, 0, 0);
}
END_TEST

START_TEST(unaligned_takes_the_plain_way)
{
	take_and_check(8, 40, 0);
	take_and_check(3, 101, 5);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("device_memory_copy");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, takes_whole_lines_and_tails);
	tcase_add_test(tc, unaligned_takes_the_plain_way);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
