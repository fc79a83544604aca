/*
 * A kernel's theoretical occupancy from its SM's resources (occupancy.h). The steps are those
 * of NVIDIA's occupancy calculator (cuda_occupancy.h): each resource gives the work groups
 * it could hold alone, the fewest of them is the answer.
 */
#include "occupancy.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* clang-format off */
static const char *const words[] = {
	[HESPER_LIMIT_UNKNOWN] = "unknown",
	[HESPER_LIMIT_REGISTERS] = "registers",
	[HESPER_LIMIT_SHARED] = "shared memory",
	[HESPER_LIMIT_WARPS] = "warps",
	[HESPER_LIMIT_GROUPS] = "work groups",
};
/* clang-format on */

const char *
hesper_occupancy_limit_word(enum hesper_occupancy_limit l)
{
	return (unsigned)l < sizeof(words) / sizeof(words[0]) ? words[l] : words[HESPER_LIMIT_UNKNOWN];
}

enum hesper_occupancy_limit
hesper_occupancy_limit_from_word(const char *word)
{
	for (unsigned i = 0; word && i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(word, words[i]) == 0)
			return (enum hesper_occupancy_limit)i;
	return HESPER_LIMIT_UNKNOWN;
}

void
hesper_occupancy_model_none(struct hesper_occupancy_model *m, const char *why)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->why, sizeof(m->why), "%s", why);
}

static uint64_t
round_up(uint64_t x, uint64_t unit)
{
	return unit > 1 ? (x + unit - 1) / unit * unit : x;
}

static struct hesper_occupancy
unknown(const char *why)
{
	return (struct hesper_occupancy){.limit = HESPER_LIMIT_UNKNOWN, .why = why};
}

/*
 * Work groups the register file holds. Each sub-partition has its share of the file and its
 * own warps (a warp never spans two), so a warp's registers must fit in one: 111 registers a
 * lane take 3,584 per warp, 4 warps in a 16,384-register partition, 16 an SM (not 65,536 / 3,584
 * = 18). A group whose warps, rounded up to whole partitions, need more than the whole file
 * cannot launch: the hardware checks it so (cuda_occupancy.h's "hardware check").
 */
static uint64_t
by_registers(const struct hesper_occupancy_model *m, uint32_t registers, uint32_t warp, uint64_t warps_per_group)
{
	uint64_t per_warp = round_up((uint64_t)registers * warp, m->register_unit);
	uint64_t parts = m->register_partitions ? m->register_partitions : 1;

	if (!per_warp)
		return UINT64_MAX;
	if (per_warp * round_up(warps_per_group, parts) > m->registers_per_sm)
		return 0;
	return (m->registers_per_sm / parts / per_warp) * parts / warps_per_group;
}

struct hesper_occupancy
hesper_occupancy_compute(const struct hesper_occupancy_model *m, const struct hesper_occupancy_kernel *k)
{
	struct hesper_occupancy o = {0};

	if (!m->vendor[0])
		return unknown(m->why[0] ? m->why : "Hesper has no occupancy model of the device");
	if (!m->warps_per_sm || !m->groups_per_sm || !m->registers_per_sm)
		return unknown("the device's figures are incomplete");
	if (!k->registers_known)
		return unknown("the driver gave no register count");
	if (!k->invocations)
		return unknown("the work-group size is unknown");
	uint32_t warp = k->subgroup_size ? k->subgroup_size : m->warp_size;
	if (!warp)
		return unknown("the subgroup size is unknown");
	if (m->registers_per_thread && k->registers > m->registers_per_thread)
		return unknown("the register count exceeds the device's per-invocation limit");
	uint64_t warps_per_group = (k->invocations + warp - 1) / warp;
	if (warps_per_group > m->warps_per_sm)
		return unknown("a work group has more warps than an SM holds");

	/* In the order ties go: the resource a kernel can change comes first. */
	uint64_t allows[] = {
		[HESPER_LIMIT_REGISTERS] = by_registers(m, k->registers, warp, warps_per_group),
		[HESPER_LIMIT_SHARED] = UINT64_MAX,
		[HESPER_LIMIT_GROUPS] = m->groups_per_sm,
		[HESPER_LIMIT_WARPS] = m->warps_per_sm / warps_per_group,
	};
	static const enum hesper_occupancy_limit order[] = {HESPER_LIMIT_REGISTERS, HESPER_LIMIT_SHARED,
							    HESPER_LIMIT_GROUPS, HESPER_LIMIT_WARPS};
	if (!k->shared_known) {
		o.at_most = true;
		o.why = "the driver gave no shared memory size";
	} else if (k->shared && m->shared_per_group && k->shared > m->shared_per_group) {
		allows[HESPER_LIMIT_SHARED] = 0;
	} else if (k->shared && !m->shared_per_sm) {
		o.at_most = true;
		o.why = "the device's shared memory per SM is unknown";
	} else if (k->shared) {
		/* Bytes the driver adds to each group (CUDA's 1 KiB from Ampere on; none measured in Vulkan). */
		uint64_t per_group = round_up(k->shared + m->shared_reserved, m->shared_unit);
		allows[HESPER_LIMIT_SHARED] = m->shared_per_sm / per_group;
	}
	o.limit = order[0];
	for (size_t i = 1; i < sizeof(order) / sizeof(order[0]); i++)
		if (allows[order[i]] < allows[o.limit])
			o.limit = order[i];
	uint64_t groups = allows[o.limit];
	o.groups_per_sm = (uint32_t)groups;
	o.warps_per_sm = (uint32_t)(groups * warps_per_group);
	o.share = (double)o.warps_per_sm / (double)m->warps_per_sm;
	return o;
}
