/*
 * Theoretical occupancy: how many work groups of a kernel fit on one SM at once, given the
 * SM's resources as its vendor documents them (registers, shared memory, warp slots, work-group
 * slots), the kernel's registers per invocation and shared memory per work group (its pipeline
 * statistics) and its work-group size; and which resource runs out first. Plain C, no Vulkan
 * headers; the model and where each figure comes from are in docs/findings.md#occupancy.
 */
#ifndef HESPER_OCCUPANCY_H
#define HESPER_OCCUPANCY_H

#include <stdbool.h>
#include <stdint.h>

/* What runs out first on an SM; UNKNOWN when a figure the model needs is missing. */
enum hesper_occupancy_limit {
	HESPER_LIMIT_UNKNOWN,
	HESPER_LIMIT_REGISTERS,
	HESPER_LIMIT_SHARED,
	HESPER_LIMIT_WARPS,
	HESPER_LIMIT_GROUPS,
};

/* Longest device-level reason kept for there being no model. */
#define HESPER_OCCUPANCY_WHY_MAX 96

/* A device's per-SM resources as its vendor documents them; a 0 figure is unknown. */
struct hesper_occupancy_model {
	char vendor[16];                    /* "nvidia"; "" when Hesper has no model of the device (@why says why) */
	char why[HESPER_OCCUPANCY_WHY_MAX]; /* no model: why (""; a summary without the figures) */
	uint32_t compute_units;             /* SMs on the device */
	uint32_t warp_size;                 /* invocations per warp, where the kernel's subgroup size is not known */
	uint32_t warps_per_sm;              /* resident warps at most */
	uint32_t groups_per_sm;             /* resident work groups at most */
	uint32_t registers_per_sm;          /* 32-bit registers in an SM's register file */
	uint32_t register_partitions;       /* the file is split evenly between the SM's sub-partitions (1: not) */
	uint32_t register_unit;             /* a warp's registers are allocated in multiples of this many */
	uint32_t registers_per_thread;      /* most registers one invocation may have */
	uint32_t shared_per_sm;             /* bytes of shared memory on an SM; 0 unknown */
	uint32_t shared_per_group;          /* most bytes one work group may have (maxComputeSharedMemorySize) */
	uint32_t shared_reserved;           /* bytes the driver adds to each resident work group's shared memory */
	uint32_t shared_unit;               /* a work group's shared memory is allocated in multiples of this */
};

/*
 * The 32-bit figures of struct hesper_occupancy_model, in the order the JSON summary's
 * "occupancy_model" holds them (after "vendor"): the one list its writer and reader take
 * their keys from, each the member's own name. OCCUPANCY_FIGURE(member)
 */
#define HESPER_OCCUPANCY_FIGURES(OCCUPANCY_FIGURE) \
	OCCUPANCY_FIGURE(compute_units)            \
	OCCUPANCY_FIGURE(warp_size)                \
	OCCUPANCY_FIGURE(warps_per_sm)             \
	OCCUPANCY_FIGURE(groups_per_sm)            \
	OCCUPANCY_FIGURE(registers_per_sm)         \
	OCCUPANCY_FIGURE(register_partitions)      \
	OCCUPANCY_FIGURE(register_unit)            \
	OCCUPANCY_FIGURE(registers_per_thread)     \
	OCCUPANCY_FIGURE(shared_per_sm)            \
	OCCUPANCY_FIGURE(shared_per_group)         \
	OCCUPANCY_FIGURE(shared_reserved)          \
	OCCUPANCY_FIGURE(shared_unit)

/* What one work group of a kernel asks of an SM. */
struct hesper_occupancy_kernel {
	bool registers_known;
	uint32_t registers; /* per invocation */
	bool shared_known;
	uint64_t shared;        /* bytes per work group, as the driver counts them */
	uint64_t invocations;   /* per work group (local size x·y·z); 0 unknown */
	uint32_t subgroup_size; /* the executable's; 0: the model's warp size */
};

/* A kernel's theoretical occupancy of one SM. */
struct hesper_occupancy {
	enum hesper_occupancy_limit limit; /* UNKNOWN: the numbers are 0 and @why says why */
	uint32_t groups_per_sm;            /* resident work groups */
	uint32_t warps_per_sm;             /* resident warps: groups × warps per group */
	double share;                      /* warps_per_sm over the SM's warp slots, 0..1 */
	bool at_most;    /* a resource the kernel uses could not be counted (@why): the figures are an upper bound */
	const char *why; /* UNKNOWN or @at_most: why, a static string; NULL otherwise */
};

/*
 * The occupancy of @k on an SM of @m: resident work groups the fewest that each resource
 * allows, ties going to registers, then shared memory, then work-group slots, then warp slots.
 */
struct hesper_occupancy hesper_occupancy_compute(const struct hesper_occupancy_model *m,
						 const struct hesper_occupancy_kernel *k);

/* The word of @l as the reports write it: "registers", "shared memory", "warps", "work groups" or "unknown". */
const char *hesper_occupancy_limit_word(enum hesper_occupancy_limit l);

/* The limit whose word (hesper_occupancy_limit_word) is exactly @word; UNKNOWN for any other. */
enum hesper_occupancy_limit hesper_occupancy_limit_from_word(const char *word);

/*
 * NVIDIA's figures for an SM with @warps_per_sm warp slots (VK_NV_shader_sm_builtins'
 * shaderWarpsPerSM), @sm_count SMs and a work-group limit of @shared_per_group bytes (also
 * what the driver gives an SM), into *@m; no model (@m->why set) for a warp count Hesper
 * knows no chip by.
 */
void hesper_occupancy_model_nvidia(struct hesper_occupancy_model *m, uint32_t warps_per_sm, uint32_t sm_count,
				   uint32_t shared_per_group);

/* No model for a device, because of @why, into *@m. */
void hesper_occupancy_model_none(struct hesper_occupancy_model *m, const char *why);

#endif
