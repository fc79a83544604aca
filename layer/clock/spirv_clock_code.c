/*
 * What the clock-mode rewrite adds to a module (spirv_clock_parts.h): the ids it reuses
 * or declares, the decorations and globals, and the code at each return of the entry
 * function. Fresh ids start at the module's bound; spirv_clock.c writes the new bound
 * once everything is emitted.
 */
#include "spirv_clock_parts.h"

#include <string.h>

static uint32_t fresh(struct hesper_clock_ids *d)
{
	return d->next++;
}

/* A uint32 constant of value @v: the module's own, or a fresh id to declare. */
static uint32_t constant(const struct hesper_clock_scan *s, struct hesper_clock_ids *d, uint32_t v, bool *is_new)
{
	/* a value past the scanned ones (the rows' offsets) is always declared */
	if (!d->new_u32 && v < sizeof s->c / sizeof s->c[0] && s->c[v])
		return s->c[v];
	*is_new = true;
	return fresh(d);
}

void hesper_clock_plan_ids(const struct hesper_clock_scan *s, const struct hesper_clock_target *t,
			   struct hesper_clock_ids *d)
{
	memset(d, 0, sizeof *d);
	d->group_counts = t->group_counts;
	d->narrow_clock = t->narrow_clock;
	d->lane_mask_value = (t->narrow_clock ? HESPER_CLOCK_LANES / 2 : HESPER_CLOCK_LANES) - 1;
	d->next = s->bound;
	d->new_u32 = !s->u32;
	d->u32 = s->u32 ? s->u32 : fresh(d);
	d->new_u64 = !s->u64;
	d->u64 = s->u64 ? s->u64 : fresh(d);
	d->new_bool = !s->boolean;
	d->boolean = s->boolean ? s->boolean : fresh(d);
	d->new_ptr_u64 = !s->ptr_u64;
	d->ptr_u64 = s->ptr_u64 ? s->ptr_u64 : fresh(d);
	d->new_v3u32 = !s->v3u32 || d->new_u32;
	d->v3u32 = d->new_v3u32 ? fresh(d) : s->v3u32;
	d->new_ptr_v3u32 = !s->ptr_v3u32 || d->new_v3u32;
	d->ptr_v3u32 = d->new_ptr_v3u32 ? fresh(d) : s->ptr_v3u32;
	/* the program's own WorkgroupId, when it is a uvec3 as Hesper reads it */
	d->new_workgroup_id = !s->workgroup_id || s->workgroup_id_type != d->ptr_v3u32;
	d->workgroup_id = d->new_workgroup_id ? fresh(d) : s->workgroup_id;
	d->new_num_workgroups = t->group_counts && (!s->num_workgroups || s->num_workgroups_type != d->ptr_v3u32);
	d->num_workgroups = d->new_num_workgroups ? fresh(d) : t->group_counts ? s->num_workgroups : 0;
	d->array = fresh(d);
	d->strukt = fresh(d);
	d->ptr_struct = fresh(d);
	d->var = fresh(d);
	d->c0 = constant(s, d, 0, &d->new_c0);
	d->c1 = constant(s, d, 1, &d->new_c1);
	d->lane_mask = constant(s, d, d->lane_mask_value, &d->new_mask);
	/* the counts' row: the one after the lanes' */
	d->groups_word = HESPER_CLOCK_LANES * t->row_words;
	d->groups_xy = constant(s, d, d->groups_word, &d->new_groups_xy);
	d->groups_z = constant(s, d, d->groups_word + 1, &d->new_groups_z);
	d->c32 = constant(s, d, 32, &d->new_c32);
	d->scope_clock = d->c1; /* Device */
	d->row_words_value = t->row_words;
	d->row_words = constant(s, d, t->row_words, &d->new_row_words);
	d->scope_subgroup = constant(s, d, SCOPE_SUBGROUP, &d->new_c3);
	if (t->narrow_clock) {
		d->half_lanes = constant(s, d, HESPER_CLOCK_LANES / 2 * t->row_words, &d->new_half_lanes);
		d->flip = fresh(d); /* no u64 constant of the module's is looked for */
	}
	/* Device scope under the Vulkan memory model needs vulkanMemoryModelDeviceScope */
	if (s->vulkan_memory_model)
		d->scope_atomic = constant(s, d, SCOPE_QUEUE_FAMILY, &d->new_c5);
	else
		d->scope_atomic = d->c1;
	d->start = fresh(d);
}

void hesper_clock_emit_decorations(struct hesper_spirv_out *o, const struct hesper_clock_target *t,
				   const struct hesper_clock_ids *d)
{
	INST(o, OP_DECORATE, d->array, DEC_ARRAY_STRIDE, 8);
	INST(o, OP_DECORATE, d->strukt, DEC_BLOCK);
	INST(o, OP_MEMBER_DECORATE, d->strukt, 0, DEC_OFFSET, 0);
	if (d->new_workgroup_id)
		INST(o, OP_DECORATE, d->workgroup_id, DEC_BUILTIN, BUILTIN_WORKGROUP_ID);
	if (d->new_num_workgroups)
		INST(o, OP_DECORATE, d->num_workgroups, DEC_BUILTIN, BUILTIN_NUM_WORKGROUPS);
	INST(o, OP_DECORATE, d->var, DEC_DESCRIPTOR_SET, t->set);
	INST(o, OP_DECORATE, d->var, DEC_BINDING, t->binding);
}

/* Types, constants and the variable, declared before the first function. */
void hesper_clock_emit_globals(struct hesper_spirv_out *o, const struct hesper_clock_ids *d)
{
	if (d->new_u32)
		INST(o, OP_TYPE_INT, d->u32, 32, 0);
	if (d->new_u64)
		INST(o, OP_TYPE_INT, d->u64, 64, 0);
	if (d->new_bool)
		INST(o, OP_TYPE_BOOL, d->boolean);
	if (d->new_ptr_u64)
		INST(o, OP_TYPE_POINTER, d->ptr_u64, SC_STORAGE_BUFFER, d->u64);
	if (d->new_v3u32)
		INST(o, OP_TYPE_VECTOR, d->v3u32, d->u32, 3);
	if (d->new_ptr_v3u32)
		INST(o, OP_TYPE_POINTER, d->ptr_v3u32, SC_INPUT, d->v3u32);
	if (d->new_workgroup_id)
		INST(o, OP_VARIABLE, d->ptr_v3u32, d->workgroup_id, SC_INPUT);
	if (d->new_num_workgroups)
		INST(o, OP_VARIABLE, d->ptr_v3u32, d->num_workgroups, SC_INPUT);
	/* runtime-sized: the rows reach past the slot the offset selects */
	INST(o, OP_TYPE_RUNTIME_ARRAY, d->array, d->u64);
	INST(o, OP_TYPE_STRUCT, d->strukt, d->array);
	INST(o, OP_TYPE_POINTER, d->ptr_struct, SC_STORAGE_BUFFER, d->strukt);
	INST(o, OP_VARIABLE, d->ptr_struct, d->var, SC_STORAGE_BUFFER);
	if (d->new_c0)
		INST(o, OP_CONSTANT, d->u32, d->c0, 0);
	if (d->new_c1)
		INST(o, OP_CONSTANT, d->u32, d->c1, 1);
	if (d->new_c3)
		INST(o, OP_CONSTANT, d->u32, d->scope_subgroup, SCOPE_SUBGROUP);
	if (d->new_c5)
		INST(o, OP_CONSTANT, d->u32, d->scope_atomic, SCOPE_QUEUE_FAMILY);
	if (d->new_mask)
		INST(o, OP_CONSTANT, d->u32, d->lane_mask, d->lane_mask_value);
	if (d->new_groups_xy)
		INST(o, OP_CONSTANT, d->u32, d->groups_xy, d->groups_word);
	if (d->new_groups_z)
		INST(o, OP_CONSTANT, d->u32, d->groups_z, d->groups_word + 1);
	if (d->new_c32)
		INST(o, OP_CONSTANT, d->u32, d->c32, 32);
	if (d->new_row_words)
		INST(o, OP_CONSTANT, d->u32, d->row_words, d->row_words_value);
	if (d->new_half_lanes)
		INST(o, OP_CONSTANT, d->u32, d->half_lanes, HESPER_CLOCK_LANES / 2 * d->row_words_value);
	if (d->narrow_clock)
		INST(o, OP_CONSTANT, d->u64, d->flip, 1u << 31, 0); /* low word, then high */
}

/* The pair (~@start, @end) folded with atomicMax into the lane whose first word is word @at. */
static void emit_fold(struct hesper_spirv_out *o, struct hesper_clock_ids *d, uint32_t at, uint32_t start, uint32_t end)
{
	uint32_t at1 = fresh(d), p0 = fresh(d), p1 = fresh(d), r0 = fresh(d), r1 = fresh(d), inverted = fresh(d);

	INST(o, OP_BITWISE_OR, d->u32, at1, at, d->c1); /* row_words is even */
	INST(o, OP_ACCESS_CHAIN, d->ptr_u64, p0, d->var, d->c0, at);
	/* ~start, so that both words fold with max and a cleared slot is all zeros */
	INST(o, OP_NOT, d->u64, inverted, start);
	/* Relaxed (semantics 0): only the values matter, read after the batch completed */
	INST(o, OP_ATOMIC_UMAX, d->u64, r0, p0, d->scope_atomic, d->c0, inverted);
	INST(o, OP_ACCESS_CHAIN, d->ptr_u64, p1, d->var, d->c0, at1);
	INST(o, OP_ATOMIC_UMAX, d->u64, r1, p1, d->scope_atomic, d->c0, end);
}

/*
 * In the elected invocations of work group (0, 0, 0) (@wx, @wy, @wz its id): the
 * dispatch's work-group counts into the slot's last two words, x | y << 32 and z, with
 * atomicMax like the rest (every writer writes the same values). An indirect dispatch's
 * counts are known to the host only from here.
 */
static void emit_group_counts(struct hesper_spirv_out *o, struct hesper_clock_ids *d, uint32_t wx, uint32_t wy,
			      uint32_t wz)
{
	uint32_t or1 = fresh(d), or2 = fresh(d), first = fresh(d);
	uint32_t then = fresh(d), merge = fresh(d), ng = fresh(d), nx = fresh(d), ny = fresh(d), nz = fresh(d);
	uint32_t nx64 = fresh(d), ny64 = fresh(d), nz64 = fresh(d), high = fresh(d), xy = fresh(d);
	uint32_t p0 = fresh(d), p1 = fresh(d), r0 = fresh(d), r1 = fresh(d);

	INST(o, OP_BITWISE_OR, d->u32, or1, wx, wy);
	INST(o, OP_BITWISE_OR, d->u32, or2, or1, wz);
	INST(o, OP_I_EQUAL, d->boolean, first, or2, d->c0);
	INST(o, OP_SELECTION_MERGE, merge, 0);
	INST(o, OP_BRANCH_CONDITIONAL, first, then, merge);
	INST(o, OP_LABEL, then);
	INST(o, OP_LOAD, d->v3u32, ng, d->num_workgroups);
	INST(o, OP_COMPOSITE_EXTRACT, d->u32, nx, ng, 0);
	INST(o, OP_COMPOSITE_EXTRACT, d->u32, ny, ng, 1);
	INST(o, OP_COMPOSITE_EXTRACT, d->u32, nz, ng, 2);
	INST(o, OP_U_CONVERT, d->u64, nx64, nx);
	INST(o, OP_U_CONVERT, d->u64, ny64, ny);
	INST(o, OP_U_CONVERT, d->u64, nz64, nz);
	INST(o, OP_SHIFT_LEFT_LOGICAL, d->u64, high, ny64, d->c32);
	INST(o, OP_BITWISE_OR, d->u64, xy, nx64, high);
	INST(o, OP_ACCESS_CHAIN, d->ptr_u64, p0, d->var, d->c0, d->groups_xy);
	INST(o, OP_ATOMIC_UMAX, d->u64, r0, p0, d->scope_atomic, d->c0, xy);
	INST(o, OP_ACCESS_CHAIN, d->ptr_u64, p1, d->var, d->c0, d->groups_z);
	INST(o, OP_ATOMIC_UMAX, d->u64, r1, p1, d->scope_atomic, d->c0, nz64);
	INST(o, OP_BRANCH, merge);
	INST(o, OP_LABEL, merge);
}

/* Replaces one OpReturn of the entry function: elected end clock and atomics, return. */
void hesper_clock_emit_return(struct hesper_spirv_out *o, struct hesper_clock_ids *d)
{
	uint32_t end = fresh(d), elected = fresh(d), then = fresh(d), merge = fresh(d);
	uint32_t wid = fresh(d), wx = fresh(d), wy = fresh(d), wz = fresh(d), sum1 = fresh(d), sum2 = fresh(d);
	uint32_t lane = fresh(d), at = fresh(d);

	INST(o, OP_GROUP_NON_UNIFORM_ELECT, d->boolean, elected, d->scope_subgroup);
	INST(o, OP_SELECTION_MERGE, merge, 0);
	INST(o, OP_BRANCH_CONDITIONAL, elected, then, merge);
	INST(o, OP_LABEL, then);
	/*
	 * Only the elected lane reads the end: the lanes at this return are converged, so its
	 * reading stands for theirs. Read by every lane before the election, the clock changed
	 * how the NVIDIA compiler scheduled the kernel's own loop, and so its speed, far more
	 * than read here (docs/timing.md, "What the rewrite costs the kernel").
	 */
	INST(o, OP_READ_CLOCK_KHR, d->u64, end, d->scope_clock);
	/* the work group's lane: (x + y + z) & (lanes - 1), its row's entry at lane * row_words */
	INST(o, OP_LOAD, d->v3u32, wid, d->workgroup_id);
	INST(o, OP_COMPOSITE_EXTRACT, d->u32, wx, wid, 0);
	INST(o, OP_COMPOSITE_EXTRACT, d->u32, wy, wid, 1);
	INST(o, OP_COMPOSITE_EXTRACT, d->u32, wz, wid, 2);
	INST(o, OP_I_ADD, d->u32, sum1, wx, wy);
	INST(o, OP_I_ADD, d->u32, sum2, sum1, wz);
	INST(o, OP_BITWISE_AND, d->u32, lane, sum2, d->lane_mask);
	INST(o, OP_I_MUL, d->u32, at, lane, d->row_words);
	emit_fold(o, d, at, d->start, end);
	if (d->narrow_clock) {
		/* the same readings on a clock that wraps half a period later, in the second half */
		uint32_t at2 = fresh(d), start2 = fresh(d), end2 = fresh(d);
		INST(o, OP_I_ADD, d->u32, at2, at, d->half_lanes);
		INST(o, OP_BITWISE_XOR, d->u64, start2, d->start, d->flip);
		INST(o, OP_BITWISE_XOR, d->u64, end2, end, d->flip);
		emit_fold(o, d, at2, start2, end2);
	}
	if (d->group_counts)
		emit_group_counts(o, d, wx, wy, wz);
	INST(o, OP_BRANCH, merge);
	INST(o, OP_LABEL, merge);
	INST(o, OP_RETURN);
}
