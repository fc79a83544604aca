/*
 * A bounds-checked reader of SPIR-V modules, just enough to name compute kernels:
 * entry points, the debug names of their functions, the source file name, and a
 * stable hash. It never reads outside the buffer it is given and stops at the first
 * malformed instruction; the driver, not Hesper, decides whether a module is valid.
 */
#ifndef HESPER_SPIRV_H
#define HESPER_SPIRV_H

#include <stddef.h>
#include <stdint.h>

#define HESPER_SPIRV_MAX_ENTRIES 16
#define HESPER_SPIRV_NAME_MAX 128

struct hesper_spirv_entry {
	uint32_t execution_model;               /* SpvExecutionModel; 5 = GLCompute */
	uint32_t function_id;
	char name[HESPER_SPIRV_NAME_MAX];          /* OpEntryPoint name, cut to fit */
	char function_name[HESPER_SPIRV_NAME_MAX]; /* OpName of the function, "" if none */
};

struct hesper_spirv_info {
	uint64_t hash;                          /* FNV-1a 64 of all the bytes given */
	char source_file[HESPER_SPIRV_NAME_MAX];   /* base name of OpSource's file, "" if none */
	struct hesper_spirv_entry entries[HESPER_SPIRV_MAX_ENTRIES];
	uint32_t entry_count;
	int truncated;                          /* 1 when parsing stopped at a malformed instruction */
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
