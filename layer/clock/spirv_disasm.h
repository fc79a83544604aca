/*
 * A small SPIR-V disassembly, for the hot blocks of kernels whose modules carry no line
 * information: one instruction a line, ids as %N, literals and enumerants as numbers
 * (`%45 = OpFMul %12 %43 %44`). The opcodes' names and operand kinds come from
 * spirv-headers' grammar at build time (spirv_opcodes.py). Pure C: words in host order,
 * every read bounds-checked.
 */
#ifndef HESPER_SPIRV_DISASM_H
#define HESPER_SPIRV_DISASM_H

#include <stddef.h>
#include <stdint.h>

/* One opcode of the grammar: its name and operand kinds (spirv_opcodes.py says which). */
struct hesper_spirv_opcode {
	uint16_t op;
	const char *name;
	const char *operands; /* one kind a word, in order */
	const char *repeat;   /* the group the operands past @operands repeat; "" for none */
};

/* The grammar's entry for opcode @op, or NULL when the grammar has none. */
const struct hesper_spirv_opcode *hesper_spirv_opcode(uint32_t op);

/*
 * Writes into @out (@cap bytes, always terminated when @cap > 0) the instructions that
 * start in words [@first, @end) of @w (@count words), one a line, each ended by '\n'.
 * Only whole lines are written: when the rest does not fit, a last line says how many
 * instructions were left out. Returns how many instructions it read.
 */
size_t hesper_spirv_disasm(const uint32_t *w, size_t count, size_t first, size_t end, char *out, size_t cap);

/*
 * Writes into @out (@cap bytes, always terminated when @cap > 0) a block's short name:
 * its label id and the opcodes of its first @shown instructions after the label, line
 * markers left out (`%52: OpLoad OpFMul OpFAdd`). @label_word is its OpLabel's offset.
 */
void hesper_spirv_block_title(const uint32_t *w, size_t count, size_t label_word, unsigned shown, char *out,
			      size_t cap);

#endif
