/*
 * Reading kernel names out of SPIR-V (see spirv.h): the entry points, their names and
 * work-group sizes. The words are read by spirv_words.c, the kernel name is made from
 * what is read here by spirv_name.c.
 *
 * Rules:
 *  - Every read is checked against the number of whole words given; nothing is
 *    allocated, and nothing is indexed by an id taken from the module (ids and the
 *    header's bound are untrusted and may be huge).
 *  - Only the part of the module before the first OpFunction is read: entry points,
 *    debug names and OpSource all precede it in a valid module.
 *  - The first malformed instruction (word count 0, running past the end, a literal
 *    string without its NUL) ends parsing; what came before it is kept.
 *  - Two passes over that part: the first collects the entry points and OpSource's
 *    file id, the second the OpName of each entry function and the file's OpString.
 *    No order between the debug instructions is assumed.
 */
#include "spirv.h"

#include <stdbool.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "spirv_words.h"

#define SPIRV_MAGIC 0x07230203u
#define SPIRV_HEADER_WORDS 5u

/* SPIR-V's numbers, by spirv-headers' names */
#define OP_SOURCE SpvOpSource
#define OP_NAME SpvOpName
#define OP_STRING SpvOpString
#define OP_ENTRY_POINT SpvOpEntryPoint
#define OP_FUNCTION SpvOpFunction
#define OP_EXECUTION_MODE SpvOpExecutionMode
#define OP_EXECUTION_MODE_ID SpvOpExecutionModeId
#define OP_DECORATE SpvOpDecorate
#define OP_CONSTANT SpvOpConstant
#define OP_CONSTANT_COMPOSITE SpvOpConstantComposite
#define OP_SPEC_CONSTANT SpvOpSpecConstant
#define OP_SPEC_CONSTANT_COMPOSITE SpvOpSpecConstantComposite

#define MODE_LOCAL_SIZE SpvExecutionModeLocalSize
#define MODE_LOCAL_SIZE_ID SpvExecutionModeLocalSizeId
#define DECORATION_SPEC_ID SpvDecorationSpecId
#define DECORATION_BUILTIN SpvDecorationBuiltIn
#define BUILTIN_WORKGROUP_SIZE SpvBuiltInWorkgroupSize

#define EXECUTION_MODEL_GLCOMPUTE SpvExecutionModelGLCompute

static bool entry_is_compute(const struct hesper_spirv_entry *e)
{
	return e->execution_model == EXECUTION_MODEL_GLCOMPUTE;
}

/*
 * Slot for a new entry point: the next free one, or, once all are taken, the first
 * non-compute one when the new entry is a compute kernel (Hesper only names kernels).
 */
static struct hesper_spirv_entry *entry_slot(struct hesper_spirv_info *out, uint32_t model)
{
	if (out->entry_count < HESPER_SPIRV_MAX_ENTRIES)
		return &out->entries[out->entry_count++];
	if (model != EXECUTION_MODEL_GLCOMPUTE)
		return NULL;
	for (uint32_t i = 0; i < out->entry_count; i++) {
		if (!entry_is_compute(&out->entries[i]))
			return &out->entries[i];
	}
	return NULL;
}

/*
 * Walks the instructions up to the first OpFunction. Pass 1 collects entry points and
 * the first OpSource file id; pass 2 (@file_id known) resolves names. Returns false when
 * a malformed instruction stopped the walk.
 */
static bool walk(const struct hesper_spirv_words *w, struct hesper_spirv_info *out, int pass, uint32_t *file_id)
{
	size_t i = SPIRV_HEADER_WORDS;
	bool file_found = false;

	while (i < w->count) {
		uint32_t first = hesper_spirv_word_at(w, i);
		uint32_t count = first >> 16;
		uint32_t op = first & 0xffffu;
		size_t len;

		if (count == 0 || count > w->count - i)
			return false;
		if (op == OP_FUNCTION)
			return true;

		size_t end = i + count;

		switch (op) {
		case OP_ENTRY_POINT:
			/* model, function id, name, interface ids... */
			if (count < 4 || !hesper_spirv_string_length(w, i + 3, end, &len))
				return false;
			if (pass == 1) {
				uint32_t model = hesper_spirv_word_at(w, i + 1);
				struct hesper_spirv_entry *e = entry_slot(out, model);

				if (e) {
					memset(e, 0, sizeof *e);
					e->execution_model = model;
					e->function_id = hesper_spirv_word_at(w, i + 2);
					hesper_spirv_copy_string(w, i + 3, 0, len, e->name, sizeof e->name);
				}
			}
			break;
		case OP_NAME:
			/* target id, name */
			if (count < 3 || !hesper_spirv_string_length(w, i + 2, end, &len))
				return false;
			if (pass == 2) {
				uint32_t target = hesper_spirv_word_at(w, i + 1);

				for (uint32_t k = 0; k < out->entry_count; k++) {
					struct hesper_spirv_entry *e = &out->entries[k];

					/* The first OpName of a function wins. */
					if (e->function_id == target && e->function_name[0] == '\0')
						hesper_spirv_copy_string(w, i + 2, 0, len, e->function_name,
									 sizeof e->function_name);
				}
			}
			break;
		case OP_STRING:
			/* result id, string */
			if (count < 3 || !hesper_spirv_string_length(w, i + 2, end, &len))
				return false;
			if (pass == 2 && !file_found && *file_id != 0 && hesper_spirv_word_at(w, i + 1) == *file_id) {
				hesper_spirv_copy_base_name(w, i + 2, len, out->source_file, sizeof out->source_file);
				file_found = true;
			}
			break;
		case OP_EXECUTION_MODE:
		case OP_EXECUTION_MODE_ID:
			/* entry function id, mode, operands: LocalSize x y z (literals) or LocalSizeId (ids) */
			if (pass == 1 && count >= 6) {
				uint32_t mode = hesper_spirv_word_at(w, i + 2);
				bool ids = op == OP_EXECUTION_MODE_ID && mode == MODE_LOCAL_SIZE_ID;

				if (!ids && !(op == OP_EXECUTION_MODE && mode == MODE_LOCAL_SIZE))
					break;
				for (uint32_t k = 0; k < out->entry_count; k++) {
					struct hesper_spirv_entry *e = &out->entries[k];

					if (e->function_id != hesper_spirv_word_at(w, i + 1))
						continue;
					for (int c = 0; c < 3; c++) {
						if (ids)
							e->local_size_ids[c] = hesper_spirv_word_at(w, i + 3 + c);
						else
							e->local_size[c] = hesper_spirv_word_at(w, i + 3 + c);
					}
				}
			}
			break;
		case OP_DECORATE:
			/* target id, decoration, operands */
			if (pass == 1 && count >= 4 && hesper_spirv_word_at(w, i + 2) == DECORATION_BUILTIN &&
			    hesper_spirv_word_at(w, i + 3) == BUILTIN_WORKGROUP_SIZE)
				out->workgroup_size_id = hesper_spirv_word_at(w, i + 1);
			break;
		case OP_SOURCE:
			/* language, version, [file id, [source text]] */
			if (count < 3)
				return false;
			if (count >= 5 && !hesper_spirv_string_length(w, i + 4, end, &len))
				return false;
			if (pass == 1 && count >= 4 && *file_id == 0)
				*file_id = hesper_spirv_word_at(w, i + 3);
			break;
		default:
			break;
		}
		i = end;
	}
	return true;
}

/*
 * The value of 32-bit scalar constant @id (OpConstant or OpSpecConstant) and, for a
 * specialization constant, its SpecId (else HESPER_SPIRV_NO_SPEC). Returns false when
 * no such constant precedes the first OpFunction.
 */
static bool constant_value(const struct hesper_spirv_words *w, uint32_t id, uint32_t *value, uint32_t *spec_id)
{
	bool found = false;

	*spec_id = HESPER_SPIRV_NO_SPEC;
	for (size_t i = SPIRV_HEADER_WORDS; i < w->count;) {
		uint32_t first = hesper_spirv_word_at(w, i), count = first >> 16, op = first & 0xffffu;

		if (count == 0 || count > w->count - i || op == OP_FUNCTION)
			break;
		if ((op == OP_CONSTANT || op == OP_SPEC_CONSTANT) && count == 4 &&
		    hesper_spirv_word_at(w, i + 2) == id) {
			*value = hesper_spirv_word_at(w, i + 3);
			found = true;
		} else if (op == OP_DECORATE && count >= 4 && hesper_spirv_word_at(w, i + 1) == id &&
			   hesper_spirv_word_at(w, i + 2) == DECORATION_SPEC_ID) {
			*spec_id = hesper_spirv_word_at(w, i + 3);
		}
		i += count;
	}
	return found;
}

/* The three component ids of composite constant @id, or false. */
static bool composite_ids(const struct hesper_spirv_words *w, uint32_t id, uint32_t ids[3])
{
	for (size_t i = SPIRV_HEADER_WORDS; i < w->count;) {
		uint32_t first = hesper_spirv_word_at(w, i), count = first >> 16, op = first & 0xffffu;

		if (count == 0 || count > w->count - i || op == OP_FUNCTION)
			break;
		if ((op == OP_CONSTANT_COMPOSITE || op == OP_SPEC_CONSTANT_COMPOSITE) && count == 6 &&
		    hesper_spirv_word_at(w, i + 2) == id) {
			for (int c = 0; c < 3; c++)
				ids[c] = hesper_spirv_word_at(w, i + 3 + c);
			return true;
		}
		i += count;
	}
	return false;
}

/* Sets @e's local size (and spec ids) from the constants @ids; all unknown when one is not found. */
static void local_size_from_ids(const struct hesper_spirv_words *w, struct hesper_spirv_entry *e, const uint32_t ids[3])
{
	for (int c = 0; c < 3; c++) {
		if (!constant_value(w, ids[c], &e->local_size[c], &e->local_size_spec[c])) {
			memset(e->local_size, 0, sizeof e->local_size);
			return;
		}
	}
}

/* Resolves each compute entry's local size once the walks are done (spirv.h: which source wins). */
static void resolve_local_sizes(const struct hesper_spirv_words *w, struct hesper_spirv_info *out)
{
	uint32_t wg[3];
	bool have_wg = out->workgroup_size_id && composite_ids(w, out->workgroup_size_id, wg);

	for (uint32_t k = 0; k < out->entry_count; k++) {
		struct hesper_spirv_entry *e = &out->entries[k];

		for (int c = 0; c < 3; c++)
			e->local_size_spec[c] = HESPER_SPIRV_NO_SPEC;
		if (!entry_is_compute(e))
			continue;
		if (have_wg)
			local_size_from_ids(w, e, wg);
		else if (e->local_size_ids[0])
			local_size_from_ids(w, e, e->local_size_ids);
	}
}

bool hesper_spirv_local_size(const struct hesper_spirv_info *info, const char *entry,
			     bool (*spec)(void *ctx, uint32_t spec_id, uint32_t *value), void *ctx, uint32_t out[3])
{
	memset(out, 0, 3 * sizeof(uint32_t));
	for (uint32_t k = 0; info && entry && k < info->entry_count; k++) {
		const struct hesper_spirv_entry *e = &info->entries[k];

		if (!entry_is_compute(e) || strcmp(e->name, entry) != 0)
			continue;
		for (int c = 0; c < 3; c++) {
			uint32_t v = e->local_size[c];

			if (e->local_size_spec[c] != HESPER_SPIRV_NO_SPEC && spec)
				spec(ctx, e->local_size_spec[c], &v);
			out[c] = v;
		}
		if (!out[0] || !out[1] || !out[2]) {
			memset(out, 0, 3 * sizeof(uint32_t));
			return false;
		}
		return true;
	}
	return false;
}

int hesper_spirv_parse(const void *code, size_t size, struct hesper_spirv_info *out)
{
	struct hesper_spirv_words w = {.bytes = code, .count = size / 4, .swap = false};
	uint32_t magic;
	uint32_t file_id = 0;

	memset(out, 0, sizeof *out);
	out->hash = hesper_spirv_fnv1a64(FNV64_OFFSET, code, code ? size : 0);
	if (!code || size < SPIRV_HEADER_WORDS * 4)
		return -1;

	memcpy(&magic, code, sizeof magic);
	if (magic == hesper_spirv_bswap32(SPIRV_MAGIC))
		w.swap = true;
	else if (magic != SPIRV_MAGIC)
		return -1;

	/* Bytes past the last whole word: not a module, but read what is there. */
	if (size % 4 != 0)
		out->truncated = 1;
	if (!walk(&w, out, 1, &file_id))
		out->truncated = 1;
	walk(&w, out, 2, &file_id);
	resolve_local_sizes(&w, out);
	return 0;
}
