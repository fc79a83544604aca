/*
 * NVIDIA's per-SM figures for the occupancy model (occupancy.h), told apart by the one figure
 * the driver gives of an SM (VK_NV_shader_sm_builtins' shaderWarpsPerSM). The figures are
 * NVIDIA's own (the CUDA C++ Programming Guide's table of compute capabilities and its
 * occupancy calculator, cuda_occupancy.h) but for shared memory, which NVIDIA's Vulkan driver
 * gives as measured on the H200; docs/findings.md#occupancy lists them.
 */
#include "occupancy.h"

#include <stdio.h>
#include <string.h>

#define KIB 1024u

void
hesper_occupancy_model_nvidia(struct hesper_occupancy_model *m, uint32_t warps_per_sm, uint32_t sm_count,
			      uint32_t shared_per_group)
{
	memset(m, 0, sizeof(*m));
	/*
	 * 64 warp slots: Volta, A100 (sm_80) and Hopper (sm_90), 32 resident groups; 48: the other
	 * Ampere chips and Ada (sm_86, sm_87, sm_89), 16 groups (Ada has 24: a low figure there when
	 * work-group slots bind); 32: Turing (sm_75), 16 groups.
	 */
	uint32_t groups = warps_per_sm == 64 ? 32 : warps_per_sm == 48 || warps_per_sm == 32 ? 16 : 0;
	if (!groups) {
		snprintf(m->why, sizeof(m->why), "no NVIDIA chip Hesper knows has %u warps per SM", warps_per_sm);
		return;
	}
	snprintf(m->vendor, sizeof(m->vendor), "nvidia");
	m->compute_units = sm_count;
	m->warp_size = 32;
	m->warps_per_sm = warps_per_sm;
	m->groups_per_sm = groups;
	/* Every chip from Maxwell on: 64 Ki registers, 4 sub-partitions, 256 a warp, 255 a thread. */
	m->registers_per_sm = 64 * KIB;
	m->register_partitions = 4;
	m->register_unit = 256;
	m->registers_per_thread = 255;
	m->shared_per_group = shared_per_group;
	/*
	 * Shared memory per SM: NVIDIA's Vulkan driver gives compute kernels the device's
	 * maxComputeSharedMemorySize on an SM and no more, without CUDA's 1 KiB a work group.
	 * Measured on the H200 (driver 580, bench/occupancy-check: gl_SMIDNV counts while every
	 * group spins): kernels of 7, 8, 16 and 40 KiB held 6, 6, 3 and 1 work groups an SM,
	 * which only 48 KiB without a reserve gives (CUDA's figures, 228 KiB less 1 KiB a
	 * group, said 28, 25, 13 and 5). The chips' larger shared memory goes unused by it.
	 */
	m->shared_per_sm = shared_per_group;
	m->shared_reserved = 0;
	m->shared_unit = warps_per_sm == 32 ? 256 : 128;
}
