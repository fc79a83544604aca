/* How every HESPER_* value is read: trimmed, words in any case, plain decimal numbers (settings_text.h). */
#include "settings_text.h"

#include <string.h>

#define FRACTION_DIGITS_MAX 18 /* 10^18 fits in 64 bits */

bool
hesper_text_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void
hesper_text_trim(const char **text, size_t *len)
{
	while (*len > 0 && hesper_text_blank((*text)[0])) {
		(*text)++;
		(*len)--;
	}
	while (*len > 0 && hesper_text_blank((*text)[*len - 1]))
		(*len)--;
}

/* ASCII only: a program's locale must not change how a setting reads. */
static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool
hesper_text_is(const char *text, size_t len, const char *word)
{
	if (strlen(word) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (lower(text[i]) != word[i])
			return false;
	return true;
}

bool
hesper_text_whole(const char *text, size_t len, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '9')
			return false;
		unsigned d = (unsigned)(text[i] - '0');
		if (n > (UINT64_MAX - d) / 10)
			return false;
		n = n * 10 + d;
	}
	if (n < min || n > max)
		return false;
	*out = n;
	return true;
}

bool
hesper_text_decimal(const char *text, size_t len, double *out)
{
	const char *dot = memchr(text, '.', len);
	size_t whole_len = dot ? (size_t)(dot - text) : len;
	size_t digits = dot ? len - whole_len - 1 : 0;
	uint64_t whole, fraction = 0, scale = 1;

	if (!hesper_text_whole(text, whole_len, 0, UINT64_MAX, &whole))
		return false;
	if (dot && (digits == 0 || digits > FRACTION_DIGITS_MAX ||
		    !hesper_text_whole(dot + 1, digits, 0, UINT64_MAX, &fraction)))
		return false;
	for (size_t i = 0; i < digits; i++)
		scale *= 10;
	/* One division of exact integers where they fit a double's 53 bits: rounded once, as strtod rounds. */
	if (whole <= ((uint64_t)1 << 53) / scale && whole * scale + fraction <= (uint64_t)1 << 53)
		*out = (double)(whole * scale + fraction) / (double)scale;
	else
		*out = (double)whole + (double)fraction / (double)scale;
	return true;
}
