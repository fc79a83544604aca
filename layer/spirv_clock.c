/*
 * Instrumenting a compute module for HESPER_MODE=clock (see spirv_clock.h).
 *
 * What is added, in the places SPIR-V's logical layout demands:
 *  - capabilities ShaderClockKHR, Int64, Int64Atomics, GroupNonUniform and the extension
 *    SPV_KHR_shader_clock, each only when missing;
 *  - the decorations and types of `struct { uint64 w[2 * lanes + 2]; }` as a Block in the
 *    StorageBuffer class at (set, binding), and the WorkgroupId and NumWorkgroups
 *    built-ins (the module's own when it has them as uvec3); existing non-aggregate
 *    types (uint32, uint64, bool, uvec3, the pointers to uint64 and uvec3) and uint32
 *    constants are reused, because a duplicate non-aggregate type makes a module invalid;
 *  - in the entry function's first block (after its OpVariables), `start = clock()`;
 *  - at every OpReturn of the entry function: one elected invocation per subgroup reads
 *    `end = clock()` and does atomicMax(w[2k], ~start) and atomicMax(w[2k + 1], end), k the
 *    work group's x index modulo the lane count; in work group (0, 0, 0) also atomicMax of
 *    NumWorkgroups (x | y << 32, z) into the last two words (HESPER_CLOCK_GROUPS_WORD).
 *    One per subgroup and not one per work group: a work group's last invocation could
 *    only be found with shared memory and a barrier, which a return inside divergent
 *    control flow cannot reach; one per invocation would put every invocation's two
 *    atomics on one address.
 * The WorkgroupId and NumWorkgroups variables join the entry point's interface, the
 * buffer's too when the module is SPIR-V 1.4 or later. Modules older than 1.3 are raised
 * to 1.3 (OpGroupNonUniformElect, and the StorageBuffer class without an extension); 1.0
 * to 1.2 modules mean the same in 1.3.
 */
#include "spirv_clock.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0x07230203u
#define HEADER_WORDS 5u

/* clang-format off */
enum {
	OP_SOURCE_CONTINUED = 2, OP_SOURCE = 3, OP_SOURCE_EXTENSION = 4, OP_NAME = 5, OP_MEMBER_NAME = 6,
	OP_STRING = 7, OP_LINE = 8, OP_EXTENSION = 10, OP_EXT_INST_IMPORT = 11, OP_EXT_INST = 12,
	OP_MEMORY_MODEL = 14, OP_ENTRY_POINT = 15, OP_EXECUTION_MODE = 16, OP_CAPABILITY = 17,
	OP_TYPE_BOOL = 20, OP_TYPE_INT = 21, OP_TYPE_VECTOR = 23, OP_TYPE_ARRAY = 28, OP_TYPE_STRUCT = 30,
	OP_TYPE_POINTER = 32, OP_CONSTANT = 43, OP_LOAD = 61, OP_COMPOSITE_EXTRACT = 81, OP_U_CONVERT = 113,
	OP_I_EQUAL = 170,
	OP_SHIFT_LEFT_LOGICAL = 196, OP_BITWISE_OR = 197, OP_BITWISE_AND = 199,
	OP_FUNCTION = 54, OP_FUNCTION_END = 56, OP_VARIABLE = 59, OP_ACCESS_CHAIN = 65,
	OP_DECORATE = 71, OP_MEMBER_DECORATE = 72, OP_DECORATION_GROUP = 73, OP_GROUP_DECORATE = 74,
	OP_GROUP_MEMBER_DECORATE = 75, OP_NOT = 200, OP_ATOMIC_UMAX = 239, OP_SELECTION_MERGE = 247,
	OP_LABEL = 248, OP_BRANCH = 249, OP_BRANCH_CONDITIONAL = 250, OP_RETURN = 253, OP_NO_LINE = 317,
	OP_MODULE_PROCESSED = 330, OP_EXECUTION_MODE_ID = 331, OP_DECORATE_ID = 332,
	OP_GROUP_NON_UNIFORM_ELECT = 333, OP_READ_CLOCK_KHR = 5056, OP_DECORATE_STRING = 5632,
	OP_MEMBER_DECORATE_STRING = 5633,
};

enum {
	CAP_INT64 = 11, CAP_INT64_ATOMICS = 12, CAP_GROUP_NON_UNIFORM = 61, CAP_SHADER_CLOCK = 5055,
	DEC_BLOCK = 2, DEC_ARRAY_STRIDE = 6, DEC_BUILTIN = 11, DEC_BINDING = 33, DEC_DESCRIPTOR_SET = 34,
	DEC_OFFSET = 35, BUILTIN_NUM_WORKGROUPS = 24, BUILTIN_WORKGROUP_ID = 26, SC_INPUT = 1, SC_STORAGE_BUFFER = 12, MODEL_GLCOMPUTE = 5, MEMORY_MODEL_VULKAN = 3,
	SCOPE_DEVICE = 1, SCOPE_SUBGROUP = 3, SCOPE_QUEUE_FAMILY = 5,
};
/* clang-format on */

#define VERSION_1_3 0x00010300u
#define VERSION_1_4 0x00010400u
#define CLOCK_EXTENSION "SPV_KHR_shader_clock"

/* A growing array of words. */
struct out {
	uint32_t *w;
	size_t n, cap;
	bool failed;
};

static void
put(struct out *o, uint32_t v)
{
	if (o->failed)
		return;
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 1024;
		uint32_t *w = realloc(o->w, cap * sizeof *w);

		if (!w) {
			o->failed = true;
			return;
		}
		o->w = w;
		o->cap = cap;
	}
	o->w[o->n++] = v;
}

/* Emits one instruction: @op with @count operand words from @ops. */
static void
inst(struct out *o, uint32_t op, const uint32_t *ops, uint32_t count)
{
	put(o, ((count + 1) << 16) | op);
	for (uint32_t i = 0; i < count; i++)
		put(o, ops[i]);
}

#define INST(o, op, ...)                                                                      \
	do {                                                                                  \
		const uint32_t ops_[] = {__VA_ARGS__};                                        \
		inst((o), (op), ops_, (uint32_t)(sizeof ops_ / sizeof ops_[0]));              \
	} while (0)

/* Emits a literal-string instruction (OpExtension). */
static void
inst_string(struct out *o, uint32_t op, const char *s)
{
	size_t len = strlen(s) + 1, words = (len + 3) / 4;

	put(o, (uint32_t)((words + 1) << 16) | op);
	for (size_t i = 0; i < words; i++) {
		uint32_t v = 0;

		for (size_t k = 0; k < 4 && i * 4 + k < len; k++)
			v |= (uint32_t)(unsigned char)s[i * 4 + k] << (8 * k);
		put(o, v);
	}
}

/* True when the literal string at words [@first, @end) equals @s. */
static bool
string_is(const uint32_t *w, size_t first, size_t end, const char *s)
{
	size_t len = strlen(s) + 1;

	if (len > (end - first) * 4)
		return false;
	for (size_t k = 0; k < len; k++)
		if ((unsigned char)(w[first + k / 4] >> (8 * (k % 4))) != (unsigned char)s[k])
			return false;
	return true;
}

/* Instructions of the sections before types (capabilities ... annotations). */
static bool
is_preamble(uint32_t op)
{
	switch (op) {
	/* clang-format off */
	case OP_CAPABILITY: case OP_EXTENSION: case OP_EXT_INST_IMPORT: case OP_MEMORY_MODEL:
	case OP_ENTRY_POINT: case OP_EXECUTION_MODE: case OP_EXECUTION_MODE_ID: case OP_STRING:
	case OP_SOURCE_EXTENSION: case OP_SOURCE: case OP_SOURCE_CONTINUED: case OP_NAME:
	case OP_MEMBER_NAME: case OP_MODULE_PROCESSED: case OP_DECORATE: case OP_MEMBER_DECORATE:
	case OP_DECORATION_GROUP: case OP_GROUP_DECORATE: case OP_GROUP_MEMBER_DECORATE:
	case OP_DECORATE_ID: case OP_DECORATE_STRING: case OP_MEMBER_DECORATE_STRING:
	/* clang-format on */
		return true;
	default:
		return false;
	}
}

/* What the first pass learns about the module. */
struct scan {
	uint32_t version, bound;
	bool cap_clock, cap_int64, cap_int64_atomics, cap_non_uniform, ext_clock;
	bool vulkan_memory_model, set_taken;
	uint32_t entry_function;
	size_t entry_at;               /* word index of the entry's OpEntryPoint */
	uint32_t u32, u64, boolean;    /* reusable type ids, 0 if none */
	uint32_t v3u32, ptr_v3u32;     /* uvec3 and an Input pointer to it, 0 if none */
	uint32_t ptr_u64;              /* OpTypePointer StorageBuffer %u64, 0 if none */
	uint32_t workgroup_id;         /* a variable decorated BuiltIn WorkgroupId, 0 if none */
	uint32_t workgroup_id_type;    /* its pointer type */
	uint32_t num_workgroups;       /* a variable decorated BuiltIn NumWorkgroups, 0 if none */
	uint32_t num_workgroups_type;  /* its pointer type */
	uint32_t c[33];                /* uint32 constants 0..32 (the largest used: a shift by 32), 0 if none */
	bool has_function;
};

static const char *
scan_module(const uint32_t *w, size_t count, const struct hesper_clock_target *t, struct scan *s)
{
	size_t i = HEADER_WORDS;
	uint32_t set_ids[64], n_set = 0, bind_ids[64], n_bind = 0;

	memset(s, 0, sizeof *s);
	s->version = w[1];
	s->bound = w[3];
	while (i < count) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffffu;

		if (n == 0 || n > count - i)
			return "malformed SPIR-V";
		size_t end = i + n;

		switch (op) {
		case OP_CAPABILITY:
			if (n >= 2) {
				s->cap_clock |= w[i + 1] == CAP_SHADER_CLOCK;
				s->cap_int64 |= w[i + 1] == CAP_INT64;
				s->cap_int64_atomics |= w[i + 1] == CAP_INT64_ATOMICS;
				s->cap_non_uniform |= w[i + 1] == CAP_GROUP_NON_UNIFORM;
			}
			break;
		case OP_EXTENSION:
			s->ext_clock |= string_is(w, i + 1, end, CLOCK_EXTENSION);
			break;
		case OP_MEMORY_MODEL:
			if (n < 3 || w[i + 1] != 0)
				return "not logical addressing";
			s->vulkan_memory_model = w[i + 2] == MEMORY_MODEL_VULKAN;
			break;
		case OP_ENTRY_POINT:
			if (n >= 4 && w[i + 1] == MODEL_GLCOMPUTE && !s->entry_function &&
			    string_is(w, i + 3, end, t->entry)) {
				s->entry_function = w[i + 2];
				s->entry_at = i;
			}
			break;
		case OP_DECORATE:
			if (n >= 4 && w[i + 2] == DEC_DESCRIPTOR_SET && w[i + 3] == t->set && n_set < 64)
				set_ids[n_set++] = w[i + 1];
			if (n >= 4 && w[i + 2] == DEC_BINDING && w[i + 3] == t->binding && n_bind < 64)
				bind_ids[n_bind++] = w[i + 1];
			if (n >= 4 && w[i + 2] == DEC_DESCRIPTOR_SET && w[i + 3] == t->set && n_set == 64)
				s->set_taken = true; /* too many to check: assume the worst */
			if (n == 4 && w[i + 2] == DEC_BUILTIN && w[i + 3] == BUILTIN_WORKGROUP_ID && !s->workgroup_id)
				s->workgroup_id = w[i + 1];
			if (n == 4 && w[i + 2] == DEC_BUILTIN && w[i + 3] == BUILTIN_NUM_WORKGROUPS && !s->num_workgroups)
				s->num_workgroups = w[i + 1];
			break;
		case OP_TYPE_BOOL:
			if (n == 2 && !s->boolean)
				s->boolean = w[i + 1];
			break;
		case OP_TYPE_INT:
			if (n == 4 && w[i + 3] == 0 && w[i + 2] == 32 && !s->u32)
				s->u32 = w[i + 1];
			if (n == 4 && w[i + 3] == 0 && w[i + 2] == 64 && !s->u64)
				s->u64 = w[i + 1];
			break;
		case OP_TYPE_VECTOR:
			if (n == 4 && s->u32 && w[i + 2] == s->u32 && w[i + 3] == 3 && !s->v3u32)
				s->v3u32 = w[i + 1];
			break;
		case OP_TYPE_POINTER:
			if (n == 4 && s->u64 && w[i + 2] == SC_STORAGE_BUFFER && w[i + 3] == s->u64 && !s->ptr_u64)
				s->ptr_u64 = w[i + 1];
			if (n == 4 && s->v3u32 && w[i + 2] == SC_INPUT && w[i + 3] == s->v3u32 && !s->ptr_v3u32)
				s->ptr_v3u32 = w[i + 1];
			break;
		case OP_CONSTANT:
			/* only a plain 32-bit unsigned constant (the type precedes it) */
			if (n == 4 && s->u32 && w[i + 1] == s->u32 && w[i + 3] < sizeof(s->c) / sizeof(s->c[0]) &&
			    !s->c[w[i + 3]])
				s->c[w[i + 3]] = w[i + 2];
			break;
		case OP_VARIABLE:
			if (n >= 4 && w[i + 2] == s->workgroup_id && s->workgroup_id)
				s->workgroup_id_type = w[i + 1];
			if (n >= 4 && w[i + 2] == s->num_workgroups && s->num_workgroups)
				s->num_workgroups_type = w[i + 1];
			break;
		case OP_FUNCTION:
			s->has_function = true;
			break;
		default:
			break;
		}
		i = end;
	}
	for (uint32_t a = 0; a < n_set; a++)
		for (uint32_t b = 0; b < n_bind; b++)
			s->set_taken |= set_ids[a] == bind_ids[b];
	if (!s->entry_function)
		return "no compute entry point of that name";
	if (s->set_taken)
		return "the module already uses Hesper's descriptor binding";
	if (s->bound > 0x3fffff00u)
		return "id bound too large";
	return NULL;
}

/* Ids of everything the rewrite adds or reuses. */
struct ids {
	uint32_t u32, u64, boolean, ptr_u64, array, strukt, ptr_struct, var;
	uint32_t v3u32, ptr_v3u32, workgroup_id, num_workgroups;
	uint32_t c0, c1, c32, scope_clock, scope_atomic, scope_subgroup, lane_mask, groups_xy, groups_z, words;
	uint32_t start;
	uint32_t next; /* next fresh id */
	/* which of the above must be declared (not reused) */
	bool new_u32, new_u64, new_bool, new_ptr_u64, new_c0, new_c1, new_c3, new_c5, new_mask, new_words;
	bool new_c32, new_groups_xy, new_groups_z;
	bool new_v3u32, new_ptr_v3u32, new_workgroup_id, new_num_workgroups;
	bool group_counts;             /* the target's: fold NumWorkgroups in (num_workgroups 0 when not) */
};

static uint32_t
fresh(struct ids *d)
{
	return d->next++;
}

/* A uint32 constant of value @v: the module's own, or a fresh id to declare. */
static uint32_t
constant(const struct scan *s, struct ids *d, uint32_t v, bool *is_new)
{
	if (!d->new_u32 && s->c[v])
		return s->c[v];
	*is_new = true;
	return fresh(d);
}

static void
plan_ids(const struct scan *s, const struct hesper_clock_target *t, struct ids *d)
{
	memset(d, 0, sizeof *d);
	d->group_counts = t->group_counts;
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
	d->lane_mask = constant(s, d, HESPER_CLOCK_LANES - 1, &d->new_mask);
	d->groups_xy = constant(s, d, HESPER_CLOCK_GROUPS_WORD, &d->new_groups_xy);
	d->groups_z = constant(s, d, HESPER_CLOCK_GROUPS_WORD + 1, &d->new_groups_z);
	d->words = constant(s, d, HESPER_CLOCK_SLOT_WORDS, &d->new_words);
	d->c32 = constant(s, d, 32, &d->new_c32);
	d->scope_clock = d->c1; /* Device */
	d->scope_subgroup = constant(s, d, SCOPE_SUBGROUP, &d->new_c3);
	/* Device scope under the Vulkan memory model needs vulkanMemoryModelDeviceScope */
	if (s->vulkan_memory_model)
		d->scope_atomic = constant(s, d, SCOPE_QUEUE_FAMILY, &d->new_c5);
	else
		d->scope_atomic = d->c1;
	d->start = fresh(d);
}

static void
emit_decorations(struct out *o, const struct hesper_clock_target *t, const struct ids *d)
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
static void
emit_globals(struct out *o, const struct ids *d)
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
	if (d->new_words)
		INST(o, OP_CONSTANT, d->u32, d->words, HESPER_CLOCK_SLOT_WORDS);
	INST(o, OP_TYPE_ARRAY, d->array, d->u64, d->words);
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
		INST(o, OP_CONSTANT, d->u32, d->lane_mask, HESPER_CLOCK_LANES - 1);
	if (d->new_groups_xy)
		INST(o, OP_CONSTANT, d->u32, d->groups_xy, HESPER_CLOCK_GROUPS_WORD);
	if (d->new_groups_z)
		INST(o, OP_CONSTANT, d->u32, d->groups_z, HESPER_CLOCK_GROUPS_WORD + 1);
	if (d->new_c32)
		INST(o, OP_CONSTANT, d->u32, d->c32, 32);
}

/*
 * In the elected invocations of work group (0, 0, 0) (@wid loaded, @wx its x): the
 * dispatch's work-group counts into the slot's last two words, x | y << 32 and z, with
 * atomicMax like the rest (every writer writes the same values). An indirect dispatch's
 * counts are known to the host only from here.
 */
static void
emit_group_counts(struct out *o, struct ids *d, uint32_t wid, uint32_t wx)
{
	uint32_t wy = fresh(d), wz = fresh(d), or1 = fresh(d), or2 = fresh(d), first = fresh(d);
	uint32_t then = fresh(d), merge = fresh(d), ng = fresh(d), nx = fresh(d), ny = fresh(d), nz = fresh(d);
	uint32_t nx64 = fresh(d), ny64 = fresh(d), nz64 = fresh(d), high = fresh(d), xy = fresh(d);
	uint32_t p0 = fresh(d), p1 = fresh(d), r0 = fresh(d), r1 = fresh(d);

	INST(o, OP_COMPOSITE_EXTRACT, d->u32, wy, wid, 1);
	INST(o, OP_COMPOSITE_EXTRACT, d->u32, wz, wid, 2);
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
static void
emit_return(struct out *o, struct ids *d)
{
	uint32_t end = fresh(d), elected = fresh(d), then = fresh(d), merge = fresh(d);
	uint32_t p0 = fresh(d), p1 = fresh(d), r0 = fresh(d), r1 = fresh(d), inverted = fresh(d);
	uint32_t wid = fresh(d), wx = fresh(d), lane = fresh(d), i0 = fresh(d), i1 = fresh(d);

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
	/* the work group's lane of the slot: (x & (lanes - 1)) * 2 and + 1 */
	INST(o, OP_LOAD, d->v3u32, wid, d->workgroup_id);
	INST(o, OP_COMPOSITE_EXTRACT, d->u32, wx, wid, 0);
	INST(o, OP_BITWISE_AND, d->u32, lane, wx, d->lane_mask);
	INST(o, OP_SHIFT_LEFT_LOGICAL, d->u32, i0, lane, d->c1);
	INST(o, OP_BITWISE_OR, d->u32, i1, i0, d->c1);
	INST(o, OP_ACCESS_CHAIN, d->ptr_u64, p0, d->var, d->c0, i0);
	/* ~start, so that both words fold with max and a cleared slot is all zeros */
	INST(o, OP_NOT, d->u64, inverted, d->start);
	/* Relaxed (semantics 0): only the values matter, read after the batch completed */
	INST(o, OP_ATOMIC_UMAX, d->u64, r0, p0, d->scope_atomic, d->c0, inverted);
	INST(o, OP_ACCESS_CHAIN, d->ptr_u64, p1, d->var, d->c0, i1);
	INST(o, OP_ATOMIC_UMAX, d->u64, r1, p1, d->scope_atomic, d->c0, end);
	if (d->group_counts)
		emit_group_counts(o, d, wid, wx);
	INST(o, OP_BRANCH, merge);
	INST(o, OP_LABEL, merge);
	INST(o, OP_RETURN);
}

/* Whether OpEntryPoint at @i (@n words) lists @id among its interface ids. */
static bool
in_interface(const uint32_t *w, size_t i, uint32_t n, uint32_t id)
{
	/* the interface follows the name, whose last word holds its NUL */
	uint32_t k = 3;
	while (k < n && (w[i + k] & 0xffu) && (w[i + k] & 0xff00u) && (w[i + k] & 0xff0000u) && (w[i + k] >> 24))
		k++;
	for (k++; k < n; k++)
		if (w[i + k] == id)
			return true;
	return false;
}

/* The second pass: copies @w while adding the instrumentation. */
static void
rewrite(const uint32_t *w, size_t count, const struct hesper_clock_target *t, const struct scan *s,
	struct ids *d, struct out *o)
{
	bool extensions_done = false, decorations_done = false, globals_done = false;
	bool in_entry = false, first_block = false, start_read = false;
	size_t i = HEADER_WORDS;

	put(o, MAGIC);
	put(o, s->version < VERSION_1_3 ? VERSION_1_3 : s->version);
	put(o, w[2]);
	put(o, 0); /* bound, filled in at the end */
	put(o, w[4]);
	if (!s->cap_clock)
		INST(o, OP_CAPABILITY, CAP_SHADER_CLOCK);
	if (!s->cap_int64)
		INST(o, OP_CAPABILITY, CAP_INT64);
	if (!s->cap_int64_atomics)
		INST(o, OP_CAPABILITY, CAP_INT64_ATOMICS);
	if (!s->cap_non_uniform)
		INST(o, OP_CAPABILITY, CAP_GROUP_NON_UNIFORM);
	while (i < count) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffffu;

		if (!extensions_done && op != OP_CAPABILITY) {
			if (!s->ext_clock)
				inst_string(o, OP_EXTENSION, CLOCK_EXTENSION);
			extensions_done = true;
		}
		if (!decorations_done && !is_preamble(op)) {
			emit_decorations(o, t, d);
			decorations_done = true;
		}
		if (!globals_done && op == OP_FUNCTION) {
			emit_globals(o, d);
			globals_done = true;
		}
		if (op == OP_FUNCTION && n >= 3 && w[i + 2] == s->entry_function)
			in_entry = true;
		if (in_entry && first_block && op != OP_VARIABLE && op != OP_LINE && op != OP_NO_LINE &&
		    op != OP_EXT_INST) {
			INST(o, OP_READ_CLOCK_KHR, d->u64, d->start, d->scope_clock);
			first_block = false;
		}
		if (in_entry && op == OP_RETURN) {
			emit_return(o, d);
		} else if (i == s->entry_at) {
			/* Input variables are in the interface; from 1.4 on every global the entry uses is */
			bool add_var = s->version >= VERSION_1_4;
			bool add_wid = d->new_workgroup_id || !in_interface(w, i, n, d->workgroup_id);
			bool add_nwg = d->group_counts &&
				       (d->new_num_workgroups || !in_interface(w, i, n, d->num_workgroups));
			put(o, ((n + add_var + add_wid + add_nwg) << 16) | op);
			for (uint32_t k = 1; k < n; k++)
				put(o, w[i + k]);
			if (add_var)
				put(o, d->var);
			if (add_wid)
				put(o, d->workgroup_id);
			if (add_nwg)
				put(o, d->num_workgroups);
		} else {
			for (uint32_t k = 0; k < n; k++)
				put(o, w[i + k]);
		}
		if (in_entry && op == OP_LABEL && !start_read) {
			first_block = true;
			start_read = true;
		}
		if (in_entry && op == OP_FUNCTION_END)
			in_entry = false;
		i += n;
	}
	o->w[3] = d->next;
}

int
hesper_spirv_clock_instrument(const void *code, size_t size, const struct hesper_clock_target *target,
			      uint32_t **out, size_t *out_words, const char **why)
{
	struct scan s;
	struct ids d;
	struct out o = {0};
	uint32_t *w = NULL;
	size_t count = size / 4;
	int ret = -1;

	*out = NULL;
	*out_words = 0;
	*why = NULL;
	if (!code || size % 4 != 0 || count < HEADER_WORDS) {
		*why = "not SPIR-V";
		goto out;
	}
	w = malloc(size);
	if (!w) {
		*why = "out of memory";
		goto out;
	}
	memcpy(w, code, size); /* aligned, and the caller's words untouched */
	if (w[0] != MAGIC) {
		*why = w[0] == 0x03022307u ? "byte-swapped SPIR-V" : "not SPIR-V";
		goto out;
	}
	*why = scan_module(w, count, target, &s);
	if (*why)
		goto out;
	if (!s.has_function) {
		*why = "no function bodies";
		goto out;
	}
	plan_ids(&s, target, &d);
	rewrite(w, count, target, &s, &d, &o);
	if (o.failed) {
		*why = "out of memory";
		goto out;
	}
	*out = o.w;
	*out_words = o.n;
	o.w = NULL;
	ret = 0;
out:
	free(o.w);
	free(w);
	return ret;
}
