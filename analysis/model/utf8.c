/* UTF-8 sequences checked byte by byte (utf8.h): no overlong forms, surrogates or values above U+10FFFF. */
#include "utf8.h"

#include <stdbool.h>

size_t
hesper_utf8_length(const unsigned char *s, size_t *bad)
{
	unsigned char c = s[0];
	size_t need, skip = 1;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		lo = c == 0xe0 ? 0xa0 : lo; /* overlong */
		hi = c == 0xed ? 0x9f : hi; /* UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		lo = c == 0xf0 ? 0x90 : lo; /* overlong */
		hi = c == 0xf4 ? 0x8f : hi; /* above U+10FFFF */
	} else {
		need = 0; /* continuation byte, C0, C1, F5..FF */
	}
	for (size_t i = 1; i < need; i++) {
		unsigned char b = s[i];
		bool ok = i == 1 ? b >= lo && b <= hi : (b & 0xc0) == 0x80;

		if (!ok) {
			skip = i;
			need = 0;
			break;
		}
	}
	if (!need && bad)
		*bad = skip;
	return need;
}
