/*
 * A bounds-checked reader of SPIR-V modules, just enough to name compute kernels:
 * entry points, the debug names of their functions, the source file name, and a
 * stable hash. It never reads outside the buffer it is given and stops at the first
 * malformed instruction; the driver, not Hesper, decides whether a module is valid.
 */
#ifndef HESPER_SPIRV_H
#define HESPER_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HESPER_SPIRV_MAX_ENTRIES 16
#define HESPER_SPIRV_NAME_MAX 128

struct hesper_spirv_entry {
	uint32_t execution_model; /* SpvExecutionModel; 5 = GLCompute */
	uint32_t function_id;
	char name[HESPER_SPIRV_NAME_MAX];          /* OpEntryPoint name, cut to fit */
	char function_name[HESPER_SPIRV_NAME_MAX]; /* OpName of the function, "" if none */
	/*
	 * The work-group size (GLCompute): each component its value (0: unknown) and, when
	 * a specialization constant sets it, that constant's SpecId (else HESPER_SPIRV_NO_SPEC)
	 * with the value above as its default. From a WorkgroupSize-decorated constant when
	 * the module has one, else OpExecutionModeId LocalSizeId, else OpExecutionMode LocalSize.
	 */
	uint32_t local_size[3];
	uint32_t local_size_spec[3];
	uint32_t local_size_ids[3]; /* LocalSizeId's constant ids while parsing (0: none) */
};

#define HESPER_SPIRV_NO_SPEC UINT32_MAX

struct hesper_spirv_info {
	uint64_t hash;                           /* FNV-1a 64 of all the bytes given */
	char source_file[HESPER_SPIRV_NAME_MAX]; /* base name of OpSource's file, "" if none */
	struct hesper_spirv_entry entries[HESPER_SPIRV_MAX_ENTRIES];
	uint32_t entry_count;
	int truncated;              /* 1 when parsing stopped at a malformed instruction */
	uint32_t workgroup_size_id; /* the WorkgroupSize-decorated constant's id, 0 if none */
};

/*
 * Reads @size bytes of SPIR-V at @code into @out. Returns 0 when the header is valid
 * (even if a later instruction is malformed: @out then holds what came before it and
 * truncated is set), -1 when @code is not SPIR-V (too short or wrong magic). The hash
 * is filled in either case. @code need not be aligned; byte-swapped modules are read too.
 * Only instructions before the first OpFunction are read. Past HESPER_SPIRV_MAX_ENTRIES
 * entry points, later GLCompute ones take the places of earlier graphics ones; the rest
 * are left out. truncated is also set when @size is not a whole number of words.
 */
int hesper_spirv_parse(const void *code, size_t size, struct hesper_spirv_info *out);

/*
 * The work-group size of entry point @entry (GLCompute) of a module read by
 * hesper_spirv_parse, with specialization applied: @spec(@ctx, spec id, &value) returns
 * true and sets value when the pipeline specializes that constant (@spec may be NULL).
 * Writes @out and returns true when all three components are known; false (and zeros)
 * when the entry point or a component is unknown.
 */
bool hesper_spirv_local_size(const struct hesper_spirv_info *info, const char *entry,
			     bool (*spec)(void *ctx, uint32_t spec_id, uint32_t *value), void *ctx, uint32_t out[3]);

/*
 * Writes into @buf the kernel name for entry point @entry of a module read by
 * hesper_spirv_parse: "<label>#<8 hex digits>", where the label is the source file's
 * base name and/or the entry point (or its function's OpName when the entry point is
 * "main"), and the digits hash the module bytes together with @entry. Identical module
 * and entry point give the same name in every run. The text is printable UTF-8 (control
 * bytes and invalid sequences become '?'); when it does not fit, the label is cut (never
 * inside a character) and the "#<8 hex digits>" kept, as long as @size is at least 10.
 * @info may be NULL (no module: "<entry>#<hash of @entry>"); nothing is written when
 * @size is 0.
 */
void hesper_spirv_kernel_name(const struct hesper_spirv_info *info, const char *entry, char *buf, size_t size);

#endif
