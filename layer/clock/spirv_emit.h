/*
 * Building a SPIR-V module word by word, for the clock-mode rewrite (spirv_clock.c): a
 * growing array of words and the encoding of instructions into it. An allocation that
 * fails marks the array failed and later words are dropped, so a writer emits a whole
 * module and checks once at the end. Pure C, no Vulkan headers.
 */
#ifndef HESPER_SPIRV_EMIT_H
#define HESPER_SPIRV_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growing array of words. */
struct hesper_spirv_out {
	uint32_t *w;
	size_t n, cap;
	bool failed;
};

/* Appends the word @v to @o (nothing once @o failed; failed set when memory runs out). */
void hesper_spirv_put(struct hesper_spirv_out *o, uint32_t v);

/* Emits one instruction: @op with @count operand words from @ops. */
void hesper_spirv_inst(struct hesper_spirv_out *o, uint32_t op, const uint32_t *ops, uint32_t count);

/* Emits the instruction @op whose one operand is the literal string @s (OpExtension). */
void hesper_spirv_inst_string(struct hesper_spirv_out *o, uint32_t op, const char *s);

/*
 * Hands the words of @o over to the caller: *@out (malloc'd) and *@out_words, and returns 0;
 * or, when @o failed, frees them and returns -1 with *@why "out of memory".
 */
int hesper_spirv_out_take(struct hesper_spirv_out *o, uint32_t **out, size_t *out_words, const char **why);

/* Emits @op with the operand words that follow, listed in place: INST(o, OP_LABEL, id). */
#define INST(o, op, ...)                                                                      \
	do {                                                                                  \
		const uint32_t ops_[] = {__VA_ARGS__};                                        \
		hesper_spirv_inst((o), (op), ops_, (uint32_t)(sizeof ops_ / sizeof ops_[0])); \
	} while (0)

#endif
