/*
 * Reading the words of a SPIR-V module, bounds-checked, for spirv.c and spirv_name.c:
 * words in host order whatever the module's byte order, literal strings, and the FNV-1a
 * hash that names and module hashes are made of. Pure C, no Vulkan headers.
 */
#ifndef HESPER_SPIRV_WORDS_H
#define HESPER_SPIRV_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FNV64_OFFSET 0xcbf29ce484222325ull

/* The words of a module, in host order after an optional byte swap. */
struct hesper_spirv_words {
	const unsigned char *bytes;
	size_t count;
	bool swap;
};

/* FNV-1a 64 of the @size bytes at @data, continuing from @h (FNV64_OFFSET to start). */
uint64_t hesper_spirv_fnv1a64(uint64_t h, const void *data, size_t size);

/* @v with its bytes reversed. */
uint32_t hesper_spirv_bswap32(uint32_t v);

/* Word @i (< @w->count) of @w in host order; the bytes need not be aligned. */
uint32_t hesper_spirv_word_at(const struct hesper_spirv_words *w, size_t i);

/* Sets *@out_len to the bytes before the NUL of the literal string at words [@first, @end); false: no NUL. */
bool hesper_spirv_string_length(const struct hesper_spirv_words *w, size_t first, size_t end, size_t *out_len);

/* Copies bytes [@from, @from + @len) of the string at word @first into @dst (@size >= 1), NUL-ended, no character split. */
void hesper_spirv_copy_string(const struct hesper_spirv_words *w, size_t first, size_t from, size_t len, char *dst,
			      size_t size);

/* Copies the base name (after the last '/' or '\\') of the @len-byte string at word @first into @dst. */
void hesper_spirv_copy_base_name(const struct hesper_spirv_words *w, size_t first, size_t len, char *dst, size_t size);

#endif
