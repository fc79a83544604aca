/*
 * What the parts of the clock-mode rewrite (spirv_clock.h) share: the SPIR-V numbers
 * they use, what the first pass learns about a module (spirv_clock_scan.c) and the ids
 * of what the rewrite adds (spirv_clock_code.c). spirv_clock.c calls both and the word
 * emitter (spirv_emit.h); neither calls spirv_clock.c, nor each other. Pure C.
 */
#ifndef HESPER_SPIRV_CLOCK_PARTS_H
#define HESPER_SPIRV_CLOCK_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spirv_clock.h"
#include "spirv_emit.h"

#define MAGIC 0x07230203u
#define HEADER_WORDS 5u

enum {
	OP_SOURCE_CONTINUED = 2,
	OP_SOURCE = 3,
	OP_SOURCE_EXTENSION = 4,
	OP_NAME = 5,
	OP_MEMBER_NAME = 6,
	OP_STRING = 7,
	OP_LINE = 8,
	OP_EXTENSION = 10,
	OP_EXT_INST_IMPORT = 11,
	OP_EXT_INST = 12,
	OP_MEMORY_MODEL = 14,
	OP_ENTRY_POINT = 15,
	OP_EXECUTION_MODE = 16,
	OP_CAPABILITY = 17,
	OP_TYPE_BOOL = 20,
	OP_TYPE_INT = 21,
	OP_TYPE_VECTOR = 23,
	OP_TYPE_ARRAY = 28,
	OP_TYPE_RUNTIME_ARRAY = 29,
	OP_TYPE_STRUCT = 30,
	OP_TYPE_POINTER = 32,
	OP_CONSTANT = 43,
	OP_LOAD = 61,
	OP_COMPOSITE_EXTRACT = 81,
	OP_U_CONVERT = 113,
	OP_I_ADD = 128,
	OP_I_MUL = 132,
	OP_I_EQUAL = 170,
	OP_SHIFT_LEFT_LOGICAL = 196,
	OP_BITWISE_OR = 197,
	OP_BITWISE_XOR = 198,
	OP_BITWISE_AND = 199,
	OP_FUNCTION = 54,
	OP_FUNCTION_END = 56,
	OP_VARIABLE = 59,
	OP_ACCESS_CHAIN = 65,
	OP_DECORATE = 71,
	OP_MEMBER_DECORATE = 72,
	OP_DECORATION_GROUP = 73,
	OP_GROUP_DECORATE = 74,
	OP_GROUP_MEMBER_DECORATE = 75,
	OP_NOT = 200,
	OP_ATOMIC_UMAX = 239,
	OP_SELECTION_MERGE = 247,
	OP_LABEL = 248,
	OP_BRANCH = 249,
	OP_BRANCH_CONDITIONAL = 250,
	OP_RETURN = 253,
	OP_NO_LINE = 317,
	OP_MODULE_PROCESSED = 330,
	OP_EXECUTION_MODE_ID = 331,
	OP_DECORATE_ID = 332,
	OP_GROUP_NON_UNIFORM_ELECT = 333,
	OP_READ_CLOCK_KHR = 5056,
	OP_DECORATE_STRING = 5632,
	OP_MEMBER_DECORATE_STRING = 5633,
};

enum {
	CAP_INT64 = 11,
	CAP_INT64_ATOMICS = 12,
	CAP_GROUP_NON_UNIFORM = 61,
	CAP_SHADER_CLOCK = 5055,
	DEC_BLOCK = 2,
	DEC_ARRAY_STRIDE = 6,
	DEC_BUILTIN = 11,
	DEC_BINDING = 33,
	DEC_DESCRIPTOR_SET = 34,
	DEC_OFFSET = 35,
	BUILTIN_NUM_WORKGROUPS = 24,
	BUILTIN_WORKGROUP_ID = 26,
	SC_INPUT = 1,
	SC_STORAGE_BUFFER = 12,
	MODEL_GLCOMPUTE = 5,
	ADDRESSING_LOGICAL = 0,
	ADDRESSING_PHYSICAL_STORAGE_BUFFER_64 = 5348,
	MEMORY_MODEL_VULKAN = 3,
	SCOPE_DEVICE = 1,
	SCOPE_SUBGROUP = 3,
	SCOPE_QUEUE_FAMILY = 5,
};

#define VERSION_1_3 0x00010300u
#define VERSION_1_4 0x00010400u
#define CLOCK_EXTENSION "SPV_KHR_shader_clock"

/* What the first pass learns about the module. */
struct hesper_clock_scan {
	uint32_t version, bound;
	bool cap_clock, cap_int64, cap_int64_atomics, cap_non_uniform, ext_clock;
	bool vulkan_memory_model, set_taken;
	uint32_t entry_function;
	size_t entry_at;              /* word index of the entry's OpEntryPoint */
	uint32_t u32, u64, boolean;   /* reusable type ids, 0 if none */
	uint32_t v3u32, ptr_v3u32;    /* uvec3 and an Input pointer to it, 0 if none */
	uint32_t ptr_u64;             /* OpTypePointer StorageBuffer %u64, 0 if none */
	uint32_t workgroup_id;        /* a variable decorated BuiltIn WorkgroupId, 0 if none */
	uint32_t workgroup_id_type;   /* its pointer type */
	uint32_t num_workgroups;      /* a variable decorated BuiltIn NumWorkgroups, 0 if none */
	uint32_t num_workgroups_type; /* its pointer type */
	uint32_t c[33];               /* uint32 constants 0..32 (the largest used: a shift by 32), 0 if none */
	bool has_function;
};

/* Ids of everything the rewrite adds or reuses. */
struct hesper_clock_ids {
	uint32_t u32, u64, boolean, ptr_u64, array, strukt, ptr_struct, var;
	uint32_t v3u32, ptr_v3u32, workgroup_id, num_workgroups;
	uint32_t c0, c1, c32, scope_clock, scope_atomic, scope_subgroup, lane_mask, groups_xy, groups_z;
	uint32_t groups_word;     /* the value of groups_xy: the counts' row */
	uint32_t row_words_value; /* the target's, the value of row_words */
	uint32_t start, row_words;
	uint32_t half_lanes; /* narrow clock: the u32 offset of the second half's lanes, in words */
	uint32_t flip;       /* narrow clock: the u64 constant 1 << 31 */
	uint32_t next;       /* next fresh id */
	/* which of the above must be declared (not reused) */
	bool new_u32, new_u64, new_bool, new_ptr_u64, new_c0, new_c1, new_c3, new_c5, new_mask;
	bool new_c32, new_groups_xy, new_groups_z, new_row_words, new_half_lanes;
	bool new_v3u32, new_ptr_v3u32, new_workgroup_id, new_num_workgroups;
	bool group_counts; /* the target's: fold NumWorkgroups in (num_workgroups 0 when not) */
	bool narrow_clock; /* the target's: each subgroup folds into two lanes (spirv_clock.h) */
	uint32_t lane_mask_value;
};

/* spirv_clock_scan.c ------------------------------------------------------------------ */

/*
 * The first pass: reads the @count words @w (native order, header checked) into @s for
 * target @t. Returns NULL, or why the module cannot be instrumented.
 */
const char *hesper_clock_scan_module(const uint32_t *w, size_t count, const struct hesper_clock_target *t,
				     struct hesper_clock_scan *s);

/*
 * Copies the @size bytes at @code into *@w (malloc'd, aligned; the caller frees it, also on
 * failure). NULL, or why they are no module in native byte order (or memory ran out).
 */
const char *hesper_spirv_words_copy(const void *code, size_t size, uint32_t **w);

/*
 * Emits the header of the rewrite of @w (@s its first pass): the version raised to 1.3 at
 * least, the bound left 0 for the end, and the capabilities both rewrites need that it lacks.
 */
void hesper_clock_emit_header(struct hesper_spirv_out *o, const uint32_t *w, const struct hesper_clock_scan *s);

/* Which of the module's sections the rewrite has added its part to so far. */
struct hesper_clock_sections {
	bool extensions, decorations, globals;
};

/*
 * Before the module's instruction @op is copied: the extension after the capabilities,
 * the decorations after the preamble and the globals before the first function, each once
 * (@done). True when it emitted the globals just now, where a rewrite adds its own.
 */
bool hesper_clock_emit_sections(struct hesper_spirv_out *o, const struct hesper_clock_target *t,
				const struct hesper_clock_scan *s, const struct hesper_clock_ids *d, uint32_t op,
				struct hesper_clock_sections *done);

/* Whether OpEntryPoint at word @i (@n words) of @w lists @id among its interface ids. */
bool hesper_spirv_in_interface(const uint32_t *w, size_t i, uint32_t n, uint32_t id);

/* spirv_clock_code.c ------------------------------------------------------------------ */

/* Picks into @d the ids the rewrite of the module @s for @t reuses and those it declares, fresh from its bound. */
void hesper_clock_plan_ids(const struct hesper_clock_scan *s, const struct hesper_clock_target *t,
			   struct hesper_clock_ids *d);

/* Emits the decorations of the slot buffer (at @t's set and binding) and of the built-ins the rewrite declares. */
void hesper_clock_emit_decorations(struct hesper_spirv_out *o, const struct hesper_clock_target *t,
				   const struct hesper_clock_ids *d);

/* Emits the types, constants and variables the rewrite declares, before the first function. */
void hesper_clock_emit_globals(struct hesper_spirv_out *o, const struct hesper_clock_ids *d);

/* Emits what replaces an OpReturn of the entry function: the elected end reading and atomics, then the return. */
void hesper_clock_emit_return(struct hesper_spirv_out *o, struct hesper_clock_ids *d);

#endif
