/*
 * The first pass of the clock-mode rewrite (spirv_clock_parts.h): what the module
 * already has that the rewrite must reuse (a second non-aggregate type of the same shape
 * makes a module invalid) or must not repeat (capabilities, the extension), where the
 * entry point is, and whether the module can be instrumented at all.
 */
#include "spirv_clock_parts.h"

#include <stdlib.h>
#include <string.h>

/* True when the literal string at words [@first, @end) equals @s. */
static bool string_is(const uint32_t *w, size_t first, size_t end, const char *s)
{
	size_t len = strlen(s) + 1;

	if (len > (end - first) * 4)
		return false;
	for (size_t k = 0; k < len; k++)
		if ((unsigned char)(w[first + k / 4] >> (8 * (k % 4))) != (unsigned char)s[k])
			return false;
	return true;
}

const char *hesper_clock_scan_module(const uint32_t *w, size_t count, const struct hesper_clock_target *t,
				     struct hesper_clock_scan *s)
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
			/*
			 * Logical, or PhysicalStorageBuffer64 (buffer device addresses, as llama.cpp's
			 * matmul and flash-attention kernels use): the slot Hesper adds is a
			 * StorageBuffer variable, a logical pointer under either model.
			 */
			if (n < 3 ||
			    (w[i + 1] != ADDRESSING_LOGICAL && w[i + 1] != ADDRESSING_PHYSICAL_STORAGE_BUFFER_64))
				return "neither logical nor physical-storage-buffer addressing";
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
			if (n == 4 && w[i + 2] == DEC_BUILTIN && w[i + 3] == BUILTIN_NUM_WORKGROUPS &&
			    !s->num_workgroups)
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

/* Whether OpEntryPoint at @i (@n words) lists @id among its interface ids. */
bool hesper_spirv_in_interface(const uint32_t *w, size_t i, uint32_t n, uint32_t id)
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

const char *hesper_spirv_words_copy(const void *code, size_t size, uint32_t **w)
{
	*w = NULL;
	if (!code || size % 4 != 0 || size / 4 < HEADER_WORDS)
		return "not SPIR-V";
	*w = malloc(size);
	if (!*w)
		return "out of memory";
	memcpy(*w, code, size); /* aligned, and the caller's words untouched */
	if ((*w)[0] != MAGIC)
		return (*w)[0] == 0x03022307u ? "byte-swapped SPIR-V" : "not SPIR-V";
	return NULL;
}

void hesper_clock_emit_header(struct hesper_spirv_out *o, const uint32_t *w, const struct hesper_clock_scan *s)
{
	hesper_spirv_put(o, MAGIC);
	hesper_spirv_put(o, s->version < VERSION_1_3 ? VERSION_1_3 : s->version);
	hesper_spirv_put(o, w[2]);
	hesper_spirv_put(o, 0); /* bound, filled in at the end */
	hesper_spirv_put(o, w[4]);
	if (!s->cap_clock)
		INST(o, OP_CAPABILITY, CAP_SHADER_CLOCK);
	if (!s->cap_int64)
		INST(o, OP_CAPABILITY, CAP_INT64);
	if (!s->cap_int64_atomics)
		INST(o, OP_CAPABILITY, CAP_INT64_ATOMICS);
	if (!s->cap_non_uniform)
		INST(o, OP_CAPABILITY, CAP_GROUP_NON_UNIFORM);
}

/* Instructions of the sections before types (capabilities ... annotations). */
static bool is_preamble(uint32_t op)
{
	switch (op) {
	case OP_CAPABILITY:
	case OP_EXTENSION:
	case OP_EXT_INST_IMPORT:
	case OP_MEMORY_MODEL:
	case OP_ENTRY_POINT:
	case OP_EXECUTION_MODE:
	case OP_EXECUTION_MODE_ID:
	case OP_STRING:
	case OP_SOURCE_EXTENSION:
	case OP_SOURCE:
	case OP_SOURCE_CONTINUED:
	case OP_NAME:
	case OP_MEMBER_NAME:
	case OP_MODULE_PROCESSED:
	case OP_DECORATE:
	case OP_MEMBER_DECORATE:
	case OP_DECORATION_GROUP:
	case OP_GROUP_DECORATE:
	case OP_GROUP_MEMBER_DECORATE:
	case OP_DECORATE_ID:
	case OP_DECORATE_STRING:
	case OP_MEMBER_DECORATE_STRING:
		return true;
	default:
		return false;
	}
}

bool hesper_clock_emit_sections(struct hesper_spirv_out *o, const struct hesper_clock_target *t,
				const struct hesper_clock_scan *s, const struct hesper_clock_ids *d, uint32_t op,
				struct hesper_clock_sections *done)
{
	if (!done->extensions && op != OP_CAPABILITY) {
		if (!s->ext_clock)
			hesper_spirv_inst_string(o, OP_EXTENSION, CLOCK_EXTENSION);
		done->extensions = true;
	}
	if (!done->decorations && !is_preamble(op)) {
		hesper_clock_emit_decorations(o, t, d);
		done->decorations = true;
	}
	if (done->globals || op != OP_FUNCTION)
		return false;
	hesper_clock_emit_globals(o, d);
	done->globals = true;
	return true;
}
