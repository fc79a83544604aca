/* A profile's kernels and their theoretical occupancy (kernel_occupancy.h). */
#include "kernel_occupancy.h"
#include "model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/*
 * The statistics a vendor's driver names the figures by: NVIDIA's driver (580, H200) gives
 * "Register Count" (per invocation) and "Shared Memory Size" (bytes per work group).
 */
struct vendor_names {
	const char *vendor;
	const char *registers;
	const char *shared;
};

static const struct vendor_names names[] = {
	{"nvidia", "Register Count", "Shared Memory Size"},
};

/* The value of @s's statistic @name when it is a number >= 0 into *@out; false when there is none such. */
static bool
statistic(const struct hesper_pipeline_stats *s, const char *name, uint64_t *out)
{
	for (size_t i = 0; name && i < s->count; i++) {
		const struct hesper_pipeline_stat *st = &s->stats[i];

		if (strncmp(st->name, name, sizeof(st->name)) != 0)
			continue;
		switch (st->format) {
		case HESPER_STAT_UINT: *out = st->value.u; return true;
		case HESPER_STAT_INT: *out = (uint64_t)st->value.i; return st->value.i >= 0;
		case HESPER_STAT_FLOAT:
			*out = (uint64_t)st->value.f;
			return st->value.f >= 0 && st->value.f < 1e18 && st->value.f == (double)*out;
		case HESPER_STAT_BOOL: return false;
		}
	}
	return false;
}

const struct hesper_occupancy_model *
hesper_stats_model(const struct hesper_profile *p, const struct hesper_pipeline_stats *s)
{
	return s->device < p->device_count ? &p->devices[s->device].occupancy : NULL;
}

struct hesper_occupancy
hesper_stats_occupancy(const struct hesper_profile *p, const struct hesper_pipeline_stats *s)
{
	const struct hesper_occupancy_model *m = hesper_stats_model(p, s);
	const struct vendor_names *v = NULL;
	struct hesper_occupancy_kernel k = {.subgroup_size = s->subgroup_size};
	uint64_t registers = 0;

	if (!m)
		return (struct hesper_occupancy){.why = "the statistics name no device of the report"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !v; i++)
		if (strcmp(m->vendor, names[i].vendor) == 0)
			v = &names[i];
	if (v) {
		k.registers_known = statistic(s, v->registers, &registers) && registers <= UINT32_MAX;
		k.registers = (uint32_t)registers;
		k.shared_known = statistic(s, v->shared, &k.shared);
	}
	k.invocations = (uint64_t)s->local_size[0] * s->local_size[1] * s->local_size[2];
	return hesper_occupancy_compute(m, &k);
}

uint64_t
hesper_occupancy_device_groups(const struct hesper_profile *p, const struct hesper_pipeline_stats *s,
			       const struct hesper_occupancy *o)
{
	const struct hesper_occupancy_model *m = hesper_stats_model(p, s);

	if (!m || o->limit == HESPER_LIMIT_UNKNOWN)
		return 0;
	return (uint64_t)o->groups_per_sm * m->compute_units;
}

double
hesper_occupancy_fill(uint64_t groups, uint64_t device_groups)
{
	if (!groups || !device_groups)
		return -1;
	return groups >= device_groups ? 1.0 : (double)groups / (double)device_groups;
}

const struct hesper_pipeline_stats *
hesper_row_stats(const struct hesper_profile *p, const char *row)
{
	const struct hesper_pipeline_stats *best = NULL;

	/*
	 * The longest kernel name that fits, so that "k/x" under no label is "k/x", not "x"; of
	 * that kernel's sets (pipelines with different figures), the one the row's dispatches
	 * all ran on where it is known, else the one most of the kernel's dispatches ran on,
	 * the first on a tie.
	 */
	const struct hesper_kernel *r = p->kernels ? hesper_kernel_table_find(p->kernels, row) : NULL;
	uint32_t set = r && r->stats_set != HESPER_STATS_SETS_SEVERAL ? r->stats_set : 0;
	for (size_t i = 0; i < p->pipeline_stats_count; i++) {
		const struct hesper_pipeline_stats *s = &p->pipeline_stats[i];

		if (!s->kernel || !hesper_row_is_of(row, s->kernel))
			continue;
		size_t len = strlen(s->kernel), best_len = best ? strlen(best->kernel) : 0;
		bool own = set && s->variant + 1 == set, best_own = best && set && best->variant + 1 == set;
		if (!best || len > best_len ||
		    (len == best_len && (own > best_own || (own == best_own && s->dispatches > best->dispatches))))
			best = s;
	}
	return best;
}

uint64_t
hesper_stats_common_groups(const struct hesper_profile *p, const struct hesper_pipeline_stats *s)
{
	const struct hesper_shape_count *best = NULL;
	const struct hesper_kernel *best_row = NULL;
	struct hesper_kernel *k;
	size_t cursor = 0;

	/* The table has no order: ties go to the first name, so every report picks the same. */
	while (p->kernels && (k = hesper_kernel_table_next(p->kernels, &cursor))) {
		const struct hesper_shape_count *top = hesper_shapes_most_common(&k->shapes);

		if (!top || (best && (top->count < best->count ||
				      (top->count == best->count && strcmp(k->name, best_row->name) > 0))))
			continue;
		if (hesper_row_stats(p, k->name) == s) {
			best = top;
			best_row = k;
		}
	}
	return best ? hesper_shape_groups(best->groups) : 0;
}

bool
hesper_stats_shows_occupancy(const struct hesper_profile *p, const struct hesper_pipeline_stats *s)
{
	const struct hesper_occupancy_model *m = hesper_stats_model(p, s);

	return m && (m->vendor[0] || m->why[0]);
}

void
hesper_occupancy_percent(char *buf, size_t size, double share)
{
	snprintf(buf, size, share >= 0.1 || share == 0 ? "%.0f%%" : "%.1f%%", 100.0 * share);
}

void
hesper_occupancy_words(char *buf, size_t size, const struct hesper_profile *p, const struct hesper_pipeline_stats *s)
{
	struct hesper_occupancy o = hesper_stats_occupancy(p, s);
	uint64_t device_groups = hesper_occupancy_device_groups(p, s, &o);
	uint64_t launch = hesper_stats_common_groups(p, s);
	double fill = hesper_occupancy_fill(launch, device_groups);
	char share[16], filled[16];
	int n;

	if (o.limit == HESPER_LIMIT_UNKNOWN) {
		snprintf(buf, size, "occupancy unknown: %s", o.why ? o.why : "?");
		return;
	}
	hesper_occupancy_percent(share, sizeof(share), o.share);
	n = snprintf(buf, size, "occupancy %s%s (%s%s%s): %" PRIu32 " work groups and %" PRIu32 " warps per SM",
		     o.at_most ? "at most " : "", share, hesper_occupancy_limit_word(o.limit), o.at_most ? "; " : "",
		     o.at_most && o.why ? o.why : "", o.groups_per_sm, o.warps_per_sm);
	if (n < 0 || (size_t)n >= size || !device_groups)
		return;
	buf += n;
	size -= (size_t)n;
	n = snprintf(buf, size, "; %" PRIu64 " work groups fill the device once", device_groups);
	if (n < 0 || (size_t)n >= size || fill < 0)
		return;
	hesper_occupancy_percent(filled, sizeof(filled), fill);
	snprintf(buf + n, size - (size_t)n, ", its most common launch (%" PRIu64 ") fills %s of it", launch, filled);
}

void
hesper_stats_set_words(char *buf, size_t size, const struct hesper_profile *p, const struct hesper_pipeline_stats *s)
{
	size_t sets = hesper_profile_stats_sets(p, s->kernel);

	if (sets > 1)
		snprintf(buf, size, "pipeline %" PRIu32 " of %zu, %" PRIu64 " dispatch%s", s->variant + 1, sets,
			 s->dispatches, s->dispatches == 1 ? "" : "es");
	else if (size)
		buf[0] = '\0';
}
