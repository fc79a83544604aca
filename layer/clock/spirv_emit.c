/*
 * The word emitter of the clock-mode rewrite (spirv_emit.h). Instructions are encoded as
 * SPIR-V has them: a first word holding the word count and the opcode, then the
 * operands; literal strings packed four bytes a word, little end first, NUL included.
 */
#include "spirv_emit.h"

#include <stdlib.h>
#include <string.h>

void hesper_spirv_put(struct hesper_spirv_out *o, uint32_t v)
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

void hesper_spirv_inst(struct hesper_spirv_out *o, uint32_t op, const uint32_t *ops, uint32_t count)
{
	hesper_spirv_put(o, ((count + 1) << 16) | op);
	for (uint32_t i = 0; i < count; i++)
		hesper_spirv_put(o, ops[i]);
}

void hesper_spirv_inst_string(struct hesper_spirv_out *o, uint32_t op, const char *s)
{
	size_t len = strlen(s) + 1, words = (len + 3) / 4;

	hesper_spirv_put(o, (uint32_t)((words + 1) << 16) | op);
	for (size_t i = 0; i < words; i++) {
		uint32_t v = 0;

		for (size_t k = 0; k < 4 && i * 4 + k < len; k++)
			v |= (uint32_t)(unsigned char)s[i * 4 + k] << (8 * k);
		hesper_spirv_put(o, v);
	}
}

int hesper_spirv_out_take(struct hesper_spirv_out *o, uint32_t **out, size_t *out_words, const char **why)
{
	if (o->failed) {
		free(o->w);
		*o = (struct hesper_spirv_out){0};
		*why = "out of memory";
		return -1;
	}
	*out = o->w;
	*out_words = o->n;
	*o = (struct hesper_spirv_out){0};
	return 0;
}
