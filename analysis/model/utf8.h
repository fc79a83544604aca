/* UTF-8 as the report writers check it: every name a program gives is written as valid UTF-8. */
#ifndef HESPER_UTF8_H
#define HESPER_UTF8_H

#include <stddef.h>

/*
 * Length of the valid UTF-8 sequence at @s (1 for ASCII, up to 4), or 0 when none starts
 * there, with *@bad (when not NULL) set to the bytes that one U+FFFD replaces: the longest
 * prefix of a valid sequence, so the next one starts at the byte that broke it.
 */
size_t hesper_utf8_length(const unsigned char *s, size_t *bad);

#endif
