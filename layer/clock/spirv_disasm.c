/* A small SPIR-V disassembly (see spirv_disasm.h). */
#include "spirv_disasm.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "spirv_opcodes.h"

/* The grammar is sorted by opcode. */
static int by_op(const void *key, const void *entry)
{
	uint32_t op = *(const uint32_t *)key;
	const struct hesper_spirv_opcode *e = entry;
	return op < e->op ? -1 : op > e->op;
}

const struct hesper_spirv_opcode *hesper_spirv_opcode(uint32_t op)
{
	return bsearch(&op, hesper_spirv_opcodes, sizeof(hesper_spirv_opcodes) / sizeof(hesper_spirv_opcodes[0]),
		       sizeof(hesper_spirv_opcodes[0]), by_op);
}

/* Text being built in a fixed buffer: @len stays below @cap once anything went past it. */
struct text {
	char *s;
	size_t cap, len;
	bool full;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	if (t->full)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= t->cap - t->len)
		t->full = true;
	else
		t->len += (size_t)n;
}

/* The kind of operand @k (0 = the first word after the opcode) of @e. */
static char kind_of(const struct hesper_spirv_opcode *e, size_t k)
{
	size_t fixed = strlen(e->operands), group = strlen(e->repeat);
	if (k < fixed)
		return e->operands[k];
	return group ? e->repeat[(k - fixed) % group] : 'n';
}

/* Writes instruction @i (@n words, opcode @op) of @w as one line into @t. */
static void put_instruction(struct text *t, const uint32_t *w, size_t i, uint32_t n, uint32_t op)
{
	const struct hesper_spirv_opcode *e = hesper_spirv_opcode(op);
	size_t result = 0;
	if (e)
		for (size_t k = 0; k + 1 < n && !result; k++)
			if (kind_of(e, k) == 'R')
				result = k + 1;
	if (result)
		put(t, "%%%u = ", (unsigned)w[i + result]);
	if (e)
		put(t, "%s", e->name);
	else
		put(t, "Op%u", (unsigned)op);
	for (size_t k = 0; k + 1 < n; k++) {
		char kind = e ? kind_of(e, k) : 'n';
		uint32_t v = w[i + 1 + k];
		if (k + 1 == result)
			continue;
		if (kind == 's') { /* a literal string: its words up to the one holding its terminator */
			put(t, " \"");
			for (; k + 1 < n; k++) {
				uint32_t word = w[i + 1 + k];
				bool ended = false;
				for (int b = 0; b < 4 && !ended; b++) {
					char c = (char)(word >> (8 * b) & 0xffu);
					ended = c == '\0';
					if (!ended)
						put(t, "%c", c >= 0x20 && c < 0x7f && c != '"' ? c : '?');
				}
				if (ended)
					break;
			}
			put(t, "\"");
		} else if (kind == 'T' || kind == 'i') {
			put(t, " %%%u", (unsigned)v);
		} else {
			put(t, " %u", (unsigned)v);
		}
	}
	put(t, "\n");
}

size_t hesper_spirv_disasm(const uint32_t *w, size_t count, size_t first, size_t end, char *out, size_t cap)
{
	struct text t = {out, cap, 0, cap == 0};
	size_t read = 0, written = 0, kept = 0;
	if (cap)
		out[0] = '\0';
	for (size_t i = first; i < end && i < count;) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffffu;
		if (n == 0 || n > count - i)
			break;
		read++;
		if (!t.full) {
			put_instruction(&t, w, i, n, op);
			if (!t.full) {
				kept = t.len;
				written++;
			}
		}
		i += n;
	}
	if (t.full && cap) {
		/* whole lines only, and room kept for the line that says what was left out */
		char tail[64];
		int len = snprintf(tail, sizeof(tail), "... %zu more instructions\n", read - written);
		while (written && kept + (size_t)len >= cap) {
			kept--;
			while (kept && out[kept - 1] != '\n')
				kept--;
			written--;
			len = snprintf(tail, sizeof(tail), "... %zu more instructions\n", read - written);
		}
		if (kept + (size_t)len < cap)
			memcpy(out + kept, tail, (size_t)len + 1);
		else
			out[kept] = '\0';
	}
	return read;
}

void hesper_spirv_block_title(const uint32_t *w, size_t count, size_t label_word, unsigned shown, char *out, size_t cap)
{
	struct text t = {out, cap, 0, cap == 0};
	if (cap)
		out[0] = '\0';
	if (label_word + 1 >= count || (w[label_word] & 0xffffu) != SpvOpLabel)
		return;
	put(&t, "%%%u:", (unsigned)w[label_word + 1]);
	size_t i = label_word + (w[label_word] >> 16);
	for (unsigned listed = 0; listed < shown && i < count;) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffffu;
		if (n == 0 || n > count - i || op == SpvOpLabel)
			break;
		if (op != SpvOpLine && op != SpvOpNoLine) {
			const struct hesper_spirv_opcode *e = hesper_spirv_opcode(op);
			size_t before = t.len;
			if (e)
				put(&t, " %s", e->name);
			else
				put(&t, " Op%u", (unsigned)op);
			if (t.full) { /* a name cut short says nothing: end at the last whole one */
				out[before] = '\0';
				return;
			}
			listed++;
		}
		i += n;
	}
}
