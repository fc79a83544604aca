/*
 * What the parts of the clock-mode rewrite (spirv_clock.h) share: the SPIR-V numbers
 * they use (named here, their values from spirv-headers' spirv.h), what the first pass learns about a module (spirv_clock_scan.c) and the ids
 * of what the rewrite adds (spirv_clock_code.c). spirv_clock.c calls both and the word
 * emitter (spirv_emit.h); neither calls spirv_clock.c, nor each other. Pure C.
 */
#ifndef HESPER_SPIRV_CLOCK_PARTS_H
#define HESPER_SPIRV_CLOCK_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <spirv/unified1/spirv.h>

#include "spirv_clock.h"
#include "spirv_emit.h"

#define MAGIC 0x07230203u
#define HEADER_WORDS 5u

enum {
	OP_SOURCE_CONTINUED = SpvOpSourceContinued,
	OP_SOURCE = SpvOpSource,
	OP_SOURCE_EXTENSION = SpvOpSourceExtension,
	OP_NAME = SpvOpName,
	OP_MEMBER_NAME = SpvOpMemberName,
	OP_STRING = SpvOpString,
	OP_LINE = SpvOpLine,
	OP_EXTENSION = SpvOpExtension,
	OP_EXT_INST_IMPORT = SpvOpExtInstImport,
	OP_EXT_INST = SpvOpExtInst,
	OP_MEMORY_MODEL = SpvOpMemoryModel,
	OP_ENTRY_POINT = SpvOpEntryPoint,
	OP_EXECUTION_MODE = SpvOpExecutionMode,
	OP_CAPABILITY = SpvOpCapability,
	OP_TYPE_BOOL = SpvOpTypeBool,
	OP_TYPE_INT = SpvOpTypeInt,
	OP_TYPE_VECTOR = SpvOpTypeVector,
	OP_TYPE_ARRAY = SpvOpTypeArray,
	OP_TYPE_RUNTIME_ARRAY = SpvOpTypeRuntimeArray,
	OP_TYPE_STRUCT = SpvOpTypeStruct,
	OP_TYPE_POINTER = SpvOpTypePointer,
	OP_CONSTANT = SpvOpConstant,
	OP_LOAD = SpvOpLoad,
	OP_COMPOSITE_EXTRACT = SpvOpCompositeExtract,
	OP_U_CONVERT = SpvOpUConvert,
	OP_I_ADD = SpvOpIAdd,
	OP_I_MUL = SpvOpIMul,
	OP_I_EQUAL = SpvOpIEqual,
	OP_SHIFT_LEFT_LOGICAL = SpvOpShiftLeftLogical,
	OP_BITWISE_OR = SpvOpBitwiseOr,
	OP_BITWISE_XOR = SpvOpBitwiseXor,
	OP_BITWISE_AND = SpvOpBitwiseAnd,
	OP_FUNCTION = SpvOpFunction,
	OP_FUNCTION_END = SpvOpFunctionEnd,
	OP_VARIABLE = SpvOpVariable,
	OP_ACCESS_CHAIN = SpvOpAccessChain,
	OP_DECORATE = SpvOpDecorate,
	OP_MEMBER_DECORATE = SpvOpMemberDecorate,
	OP_DECORATION_GROUP = SpvOpDecorationGroup,
	OP_GROUP_DECORATE = SpvOpGroupDecorate,
	OP_GROUP_MEMBER_DECORATE = SpvOpGroupMemberDecorate,
	OP_NOT = SpvOpNot,
	OP_ATOMIC_UMAX = SpvOpAtomicUMax,
	OP_SELECTION_MERGE = SpvOpSelectionMerge,
	OP_LABEL = SpvOpLabel,
	OP_BRANCH = SpvOpBranch,
	OP_BRANCH_CONDITIONAL = SpvOpBranchConditional,
	OP_RETURN = SpvOpReturn,
	OP_NO_LINE = SpvOpNoLine,
	OP_MODULE_PROCESSED = SpvOpModuleProcessed,
	OP_EXECUTION_MODE_ID = SpvOpExecutionModeId,
	OP_DECORATE_ID = SpvOpDecorateId,
	OP_GROUP_NON_UNIFORM_ELECT = SpvOpGroupNonUniformElect,
	OP_READ_CLOCK_KHR = SpvOpReadClockKHR,
	OP_DECORATE_STRING = SpvOpDecorateString,
	OP_MEMBER_DECORATE_STRING = SpvOpMemberDecorateString,
};

enum {
	CAP_INT64 = SpvCapabilityInt64,
	CAP_INT64_ATOMICS = SpvCapabilityInt64Atomics,
	CAP_GROUP_NON_UNIFORM = SpvCapabilityGroupNonUniform,
	CAP_SHADER_CLOCK = SpvCapabilityShaderClockKHR,
	DEC_BLOCK = SpvDecorationBlock,
	DEC_ARRAY_STRIDE = SpvDecorationArrayStride,
	DEC_BUILTIN = SpvDecorationBuiltIn,
	DEC_BINDING = SpvDecorationBinding,
	DEC_DESCRIPTOR_SET = SpvDecorationDescriptorSet,
	DEC_OFFSET = SpvDecorationOffset,
	BUILTIN_NUM_WORKGROUPS = SpvBuiltInNumWorkgroups,
	BUILTIN_WORKGROUP_ID = SpvBuiltInWorkgroupId,
	SC_INPUT = SpvStorageClassInput,
	SC_STORAGE_BUFFER = SpvStorageClassStorageBuffer,
	MODEL_GLCOMPUTE = SpvExecutionModelGLCompute,
	ADDRESSING_LOGICAL = SpvAddressingModelLogical,
	ADDRESSING_PHYSICAL_STORAGE_BUFFER_64 = SpvAddressingModelPhysicalStorageBuffer64,
	MEMORY_MODEL_VULKAN = SpvMemoryModelVulkan,
	SCOPE_DEVICE = SpvScopeDevice,
	SCOPE_SUBGROUP = SpvScopeSubgroup,
	SCOPE_QUEUE_FAMILY = SpvScopeQueueFamily,
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
