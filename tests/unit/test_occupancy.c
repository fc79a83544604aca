/*
 * Unit tests for analysis/model/occupancy.c and occupancy_nvidia.c: NVIDIA's figures per chip and
 * worked examples of theoretical occupancy, each figure reckoned by hand in its comment.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* An H200 as the driver describes it: 132 SMs of 64 warp slots, 48 KiB a work group. */
static struct hesper_occupancy_model
h200(void)
{
	struct hesper_occupancy_model m;

	hesper_occupancy_model_nvidia(&m, 64, 132, 49152);
	return m;
}

static struct hesper_occupancy_kernel
kernel(uint32_t registers, uint64_t shared, uint64_t invocations)
{
	return (struct hesper_occupancy_kernel){.registers_known = true,
						.registers = registers,
						.shared_known = true,
						.shared = shared,
						.invocations = invocations,
						.subgroup_size = 32};
}

START_TEST(nvidia_figures_by_chip)
{
	struct hesper_occupancy_model m = h200();

	ck_assert_str_eq(m.vendor, "nvidia");
	ck_assert_uint_eq(m.compute_units, 132);
	ck_assert_uint_eq(m.warp_size, 32);
	ck_assert_uint_eq(m.warps_per_sm, 64);
	ck_assert_uint_eq(m.groups_per_sm, 32);
	ck_assert_uint_eq(m.registers_per_sm, 65536);
	ck_assert_uint_eq(m.register_partitions, 4);
	ck_assert_uint_eq(m.register_unit, 256);
	ck_assert_uint_eq(m.registers_per_thread, 255);
	/* NVIDIA's Vulkan driver: the work group's limit is the SM's, no reserve (measured, H200) */
	ck_assert_uint_eq(m.shared_per_sm, 49152);
	ck_assert_uint_eq(m.shared_per_group, 49152);
	ck_assert_uint_eq(m.shared_reserved, 0);
	ck_assert_uint_eq(m.shared_unit, 128);

	hesper_occupancy_model_nvidia(&m, 64, 108, 49152);
	ck_assert_uint_eq(m.shared_per_sm, 49152);
	ck_assert_uint_eq(m.shared_reserved, 0);
	/* a V100 (64 warp slots): the same */
	hesper_occupancy_model_nvidia(&m, 64, 80, 49152);
	ck_assert_str_eq(m.vendor, "nvidia");
	ck_assert_uint_eq(m.shared_per_sm, 49152);
	ck_assert_uint_eq(m.groups_per_sm, 32);
	/* Ampere's smaller chips and Ada: 48 warps, 16 groups */
	hesper_occupancy_model_nvidia(&m, 48, 84, 49152);
	ck_assert_uint_eq(m.groups_per_sm, 16);
	ck_assert_uint_eq(m.shared_per_sm, 49152);
	/* Turing: 32 warps, 16 groups, 256-byte units */
	hesper_occupancy_model_nvidia(&m, 32, 40, 49152);
	ck_assert_uint_eq(m.groups_per_sm, 16);
	ck_assert_uint_eq(m.shared_per_sm, 49152);
	ck_assert_uint_eq(m.shared_unit, 256);
	ck_assert_uint_eq(m.shared_reserved, 0);
	/* a warp count no chip Hesper knows has: no model, and why */
	hesper_occupancy_model_nvidia(&m, 40, 10, 49152);
	ck_assert_str_eq(m.vendor, "");
	ck_assert_str_eq(m.why, "no NVIDIA chip Hesper knows has 40 warps per SM");
	hesper_occupancy_model_nvidia(&m, 64, 132, 0);
	ck_assert_uint_eq(m.shared_per_sm, 0);
}
END_TEST

START_TEST(limit_words)
{
	ck_assert_str_eq(hesper_occupancy_limit_word(HESPER_LIMIT_REGISTERS), "registers");
	ck_assert_str_eq(hesper_occupancy_limit_word(HESPER_LIMIT_SHARED), "shared memory");
	ck_assert_str_eq(hesper_occupancy_limit_word(HESPER_LIMIT_WARPS), "warps");
	ck_assert_str_eq(hesper_occupancy_limit_word(HESPER_LIMIT_GROUPS), "work groups");
	ck_assert_str_eq(hesper_occupancy_limit_word(HESPER_LIMIT_UNKNOWN), "unknown");
	ck_assert_str_eq(hesper_occupancy_limit_word((enum hesper_occupancy_limit)99), "unknown");
	for (int l = HESPER_LIMIT_UNKNOWN; l <= HESPER_LIMIT_GROUPS; l++)
		ck_assert_int_eq(
			hesper_occupancy_limit_from_word(hesper_occupancy_limit_word((enum hesper_occupancy_limit)l)),
			l);
	ck_assert_int_eq(hesper_occupancy_limit_from_word("Registers"), HESPER_LIMIT_UNKNOWN);
	ck_assert_int_eq(hesper_occupancy_limit_from_word(NULL), HESPER_LIMIT_UNKNOWN);
}
END_TEST

START_TEST(light_kernel_fills_every_slot)
{
	struct hesper_occupancy_model m = h200();
	/*
	 * 16 registers, 64 invocations (2 warps), no shared memory: registers allow 512 a warp,
	 * 32 warps a partition, 128 an SM, 64 groups; warp slots 64 / 2 = 32 groups; work-group
	 * slots 32. A tie at 32: the work-group slots are named. 64 warps: all of them.
	 */
	struct hesper_occupancy_kernel k = kernel(16, 0, 64);
	struct hesper_occupancy o = hesper_occupancy_compute(&m, &k);

	ck_assert_int_eq(o.limit, HESPER_LIMIT_GROUPS);
	ck_assert_uint_eq(o.groups_per_sm, 32);
	ck_assert_uint_eq(o.warps_per_sm, 64);
	ck_assert_double_eq(o.share, 1.0);
	ck_assert(!o.at_most);
	ck_assert_ptr_null(o.why);

	/* one warp a group: the 32 work-group slots hold 32 warps, half the SM */
	k = kernel(16, 0, 32);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_GROUPS);
	ck_assert_uint_eq(o.groups_per_sm, 32);
	ck_assert_uint_eq(o.warps_per_sm, 32);
	ck_assert_double_eq(o.share, 0.5);

	/* three warps a group (96 invocations): the warp slots, 64 / 3 = 21 groups, 63 warps */
	k = kernel(16, 0, 96);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_WARPS);
	ck_assert_uint_eq(o.groups_per_sm, 21);
	ck_assert_uint_eq(o.warps_per_sm, 63);
	ck_assert_double_eq_tol(o.share, 63.0 / 64.0, 1e-12);
}
END_TEST

START_TEST(register_heavy_kernel)
{
	struct hesper_occupancy_model m = h200();
	/*
	 * 111 registers (the H200's figure for kernel_stats' stats_registers): 111 × 32 = 3,552,
	 * rounded to 3,584 a warp; a partition's 16,384 hold 4 such warps, the SM 16 (not
	 * 65,536 / 3,584 = 18: a warp never spans partitions), 8 groups of 2 warps, 25%.
	 */
	struct hesper_occupancy_kernel k = kernel(111, 0, 64);
	struct hesper_occupancy o = hesper_occupancy_compute(&m, &k);

	ck_assert_int_eq(o.limit, HESPER_LIMIT_REGISTERS);
	ck_assert_uint_eq(o.groups_per_sm, 8);
	ck_assert_uint_eq(o.warps_per_sm, 16);
	ck_assert_double_eq(o.share, 0.25);

	/* 1,024 invocations of 64 registers: 2,048 a warp, 32 warps an SM, one group, 50% */
	k = kernel(64, 0, 1024);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_REGISTERS);
	ck_assert_uint_eq(o.groups_per_sm, 1);
	ck_assert_uint_eq(o.warps_per_sm, 32);
	ck_assert_double_eq(o.share, 0.5);
	/* 65 registers: 2,304 a warp × 32 warps passes the 65,536 a group may have: none fits */
	k = kernel(65, 0, 1024);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_REGISTERS);
	ck_assert_uint_eq(o.groups_per_sm, 0);
	ck_assert_double_eq(o.share, 0);
	/* no registers at all: registers are no limit */
	k = kernel(0, 0, 64);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_GROUPS);
}
END_TEST

START_TEST(shared_memory_kernel)
{
	struct hesper_occupancy_model m = h200();
	/*
	 * 16 KiB a group (stats_shared on the H200): 48 KiB hold 3 groups, 6 warps, 9.4% (what
	 * bench/occupancy-check saw the H200 hold).
	 */
	struct hesper_occupancy_kernel k = kernel(16, 16384, 64);
	struct hesper_occupancy o = hesper_occupancy_compute(&m, &k);

	ck_assert_int_eq(o.limit, HESPER_LIMIT_SHARED);
	ck_assert_uint_eq(o.groups_per_sm, 3);
	ck_assert_uint_eq(o.warps_per_sm, 6);
	ck_assert_double_eq_tol(o.share, 6.0 / 64.0, 1e-12);

	/* with a reserve of 1 KiB a group (CUDA's): 49,152 / 17,408 = 2 groups */
	m.shared_reserved = 1024;
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_SHARED);
	ck_assert_uint_eq(o.groups_per_sm, 2);
	m = h200();
	/* 100 bytes are allocated as 128: 384 groups, not a limit */
	k = kernel(16, 100, 64);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_GROUPS);
	/* more than a work group may have: none fits */
	k = kernel(16, 49153, 64);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_SHARED);
	ck_assert_uint_eq(o.groups_per_sm, 0);
}
END_TEST

START_TEST(missing_figures)
{
	struct hesper_occupancy_model m = h200(), none;
	struct hesper_occupancy_kernel k = kernel(16, 0, 64);
	struct hesper_occupancy o;

	hesper_occupancy_model_none(&none, "lavapipe runs on the CPU: no SMs");
	o = hesper_occupancy_compute(&none, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_UNKNOWN);
	ck_assert_str_eq(o.why, "lavapipe runs on the CPU: no SMs");
	ck_assert_uint_eq(o.groups_per_sm, 0);
	ck_assert_double_eq(o.share, 0);
	/* a model without a why: a summary that did not hold one */
	memset(&none, 0, sizeof(none));
	ck_assert_str_eq(hesper_occupancy_compute(&none, &k).why, "Hesper has no occupancy model of the device");

	k.registers_known = false;
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_UNKNOWN);
	ck_assert_str_eq(o.why, "the driver gave no register count");
	k = kernel(16, 0, 0);
	ck_assert_str_eq(hesper_occupancy_compute(&m, &k).why, "the work-group size is unknown");
	k = kernel(256, 0, 64);
	ck_assert_int_eq(hesper_occupancy_compute(&m, &k).limit, HESPER_LIMIT_UNKNOWN);
	k = kernel(16, 0, 64 * 32 + 1);
	ck_assert_str_eq(hesper_occupancy_compute(&m, &k).why, "a work group has more warps than an SM holds");
	/* the kernel's subgroup size unknown: the model's warp size */
	k = kernel(111, 0, 64);
	k.subgroup_size = 0;
	ck_assert_uint_eq(hesper_occupancy_compute(&m, &k).groups_per_sm, 8);
}
END_TEST

START_TEST(shared_unknown_gives_an_upper_bound)
{
	struct hesper_occupancy_model m;
	struct hesper_occupancy_kernel k = kernel(111, 16384, 64);
	struct hesper_occupancy o;

	/* a model without the shared memory per SM (a driver that gives no limit): the other resources give at most 8 groups */
	hesper_occupancy_model_nvidia(&m, 64, 80, 0);
	ck_assert_uint_eq(m.shared_per_sm, 0);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert_int_eq(o.limit, HESPER_LIMIT_REGISTERS);
	ck_assert_uint_eq(o.groups_per_sm, 8);
	ck_assert(o.at_most);
	ck_assert_str_eq(o.why, "the device's shared memory per SM is unknown");
	/* a kernel without shared memory needs no figure for it: exact */
	k = kernel(111, 0, 64);
	o = hesper_occupancy_compute(&m, &k);
	ck_assert(!o.at_most);
	ck_assert_ptr_null(o.why);
	/* the driver gave no shared memory size */
	m = h200();
	k.shared_known = false;
	o = hesper_occupancy_compute(&m, &k);
	ck_assert(o.at_most);
	ck_assert_str_eq(o.why, "the driver gave no shared memory size");
	ck_assert_uint_eq(o.groups_per_sm, 8);
}
END_TEST

static Suite *
occupancy_suite(void)
{
	Suite *s = suite_create("occupancy");
	TCase *tc = tcase_create("hesper_occupancy_model_nvidia");

	tcase_add_test(tc, nvidia_figures_by_chip);
	suite_add_tcase(s, tc);
	tc = tcase_create("hesper_occupancy_limit_word");
	tcase_add_test(tc, limit_words);
	suite_add_tcase(s, tc);
	tc = tcase_create("hesper_occupancy_compute");
	tcase_add_test(tc, light_kernel_fills_every_slot);
	tcase_add_test(tc, register_heavy_kernel);
	tcase_add_test(tc, shared_memory_kernel);
	tcase_add_test(tc, missing_figures);
	tcase_add_test(tc, shared_unknown_gives_an_upper_bound);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(occupancy_suite());

	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
