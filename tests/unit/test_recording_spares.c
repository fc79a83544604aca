/* Unit tests for layer/record/recording_spares.c: a recording's arrays kept for the next one. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "recording_spares.h"

/* A set of four arrays of @bytes_each bytes, each of @bytes_each / 8 elements of 8 bytes. */
static struct hesper_recording_arrays
make_set(size_t bytes_each)
{
	size_t n = bytes_each / 8;
	return (struct hesper_recording_arrays){
		.work = malloc(bytes_each),
		.work_capacity = n,
		.regions = malloc(bytes_each),
		.region_capacity = n,
		.blocks = malloc(bytes_each),
		.block_capacity = n,
		.secondaries = malloc(bytes_each),
		.secondary_capacity = n,
		.bytes = 4 * bytes_each,
	};
}

static void
free_set(const struct hesper_recording_arrays *a)
{
	free(a->work);
	free(a->regions);
	free(a->blocks);
	free(a->secondaries);
}

START_TEST(a_recording_gets_the_arrays_of_one_gone)
{
	struct hesper_recording_arrays none, kept = make_set(4096), back;
	hesper_recording_spares_take(&none);
	ck_assert_ptr_null(none.work);
	ck_assert_uint_eq(none.work_capacity, 0);
	ck_assert(hesper_recording_spares_keep(&kept));
	hesper_recording_spares_take(&back);
	ck_assert_ptr_eq(back.work, kept.work);
	ck_assert_ptr_eq(back.regions, kept.regions);
	ck_assert_ptr_eq(back.blocks, kept.blocks);
	ck_assert_ptr_eq(back.secondaries, kept.secondaries);
	ck_assert_uint_eq(back.work_capacity, 512);
	ck_assert_uint_eq(back.secondary_capacity, 512);
	/* taken once: the next recording starts from nothing */
	hesper_recording_spares_take(&none);
	ck_assert_ptr_null(none.work);
	free_set(&back);
}
END_TEST

START_TEST(spares_are_bounded)
{
	struct hesper_recording_arrays sets[HESPER_RECORDING_SPARES + 1], back;
	for (unsigned i = 0; i < HESPER_RECORDING_SPARES; i++) {
		sets[i] = make_set(64);
		ck_assert(hesper_recording_spares_keep(&sets[i]));
	}
	/* one set more than the count: the caller frees it */
	sets[HESPER_RECORDING_SPARES] = make_set(64);
	ck_assert(!hesper_recording_spares_keep(&sets[HESPER_RECORDING_SPARES]));
	free_set(&sets[HESPER_RECORDING_SPARES]);
	for (unsigned i = 0; i < HESPER_RECORDING_SPARES; i++) {
		hesper_recording_spares_take(&back);
		ck_assert_ptr_nonnull(back.work);
		free_set(&back);
	}
	/* a set over the bytes' bound is not kept, nor one of no arrays */
	struct hesper_recording_arrays large = make_set(HESPER_RECORDING_SPARE_BYTES / 2), empty = {0};
	ck_assert(!hesper_recording_spares_keep(&large));
	ck_assert(!hesper_recording_spares_keep(&empty));
	free_set(&large);
	hesper_recording_spares_take(&back);
	ck_assert_ptr_null(back.work);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("recording_spares");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_recording_gets_the_arrays_of_one_gone);
	tcase_add_test(tc, spares_are_bounded);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
