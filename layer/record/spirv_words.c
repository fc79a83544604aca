/*
 * The word reader under spirv.c and spirv_name.c (spirv_words.h). Every read is checked
 * by its caller against the number of whole words given, and nothing here allocates:
 * the module is untrusted input, read in place.
 */
#include "spirv_words.h"

#include <string.h>

#define FNV64_PRIME 0x100000001b3ull

uint64_t hesper_spirv_fnv1a64(uint64_t h, const void *data, size_t size)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < size; i++) {
		h ^= p[i];
		h *= FNV64_PRIME;
	}
	return h;
}

uint32_t hesper_spirv_bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

uint32_t hesper_spirv_word_at(const struct hesper_spirv_words *w, size_t i)
{
	uint32_t v;

	memcpy(&v, w->bytes + i * 4, sizeof v); /* the buffer need not be aligned */
	return w->swap ? hesper_spirv_bswap32(v) : v;
}

/* Byte @k of a literal string that starts at word @first (SPIR-V packs octets little-endian). */
static unsigned char string_byte(const struct hesper_spirv_words *w, size_t first, size_t k)
{
	return (unsigned char)(hesper_spirv_word_at(w, first + k / 4) >> (8 * (k % 4)));
}

/*
 * Measures the literal string at words [first, end): its length in bytes without the
 * NUL. Returns false when no NUL comes before @end.
 */
bool hesper_spirv_string_length(const struct hesper_spirv_words *w, size_t first, size_t end, size_t *out_len)
{
	for (size_t i = first; i < end; i++) {
		uint32_t v = hesper_spirv_word_at(w, i);

		for (unsigned b = 0; b < 4; b++) {
			if (((v >> (8 * b)) & 0xffu) == 0) {
				*out_len = (i - first) * 4 + b;
				return true;
			}
		}
	}
	return false;
}

/*
 * Copies bytes [@from, @from + @len) of the literal string at word @first into @dst
 * (@size bytes, at least 1), cut so that a UTF-8 sequence is never split, always
 * NUL-terminated.
 */
void hesper_spirv_copy_string(const struct hesper_spirv_words *w, size_t first, size_t from, size_t len, char *dst,
			      size_t size)
{
	size_t n = len < size - 1 ? len : size - 1;

	if (n < len) {
		/* Back off over continuation bytes to the start of the cut sequence. */
		size_t cut = n;

		for (unsigned back = 0; back < 4 && cut > 0; back++) {
			if ((string_byte(w, first, from + cut) & 0xc0u) != 0x80u)
				break;
			cut--;
		}
		if ((string_byte(w, first, from + cut) & 0xc0u) != 0x80u)
			n = cut;
	}
	for (size_t k = 0; k < n; k++)
		dst[k] = (char)string_byte(w, first, from + k);
	dst[n] = '\0';
}

/* Copies the part of a path after its last '/' or '\\'. */
void hesper_spirv_copy_base_name(const struct hesper_spirv_words *w, size_t first, size_t len, char *dst, size_t size)
{
	size_t start = 0;

	for (size_t k = 0; k < len; k++) {
		unsigned char c = string_byte(w, first, k);

		if (c == '/' || c == '\\')
			start = k + 1;
	}
	hesper_spirv_copy_string(w, first, start, len - start, dst, size);
}
