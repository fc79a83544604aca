/*
 * The rule every HESPER_* value is read by (docs/settings.md, "Bad values"): white space
 * around a value is ignored, words are matched without regard to case, numbers are plain
 * decimal (no sign, no base prefix, no exponent, no trailing text). The layer's settings
 * table (layer/state/settings.c), HESPER_REPORT (sinks_parse.c) and HESPER_FINDINGS
 * (findings_settings.c) all read their values through these, so none can drift from it.
 * Pure: no locale (a program's setlocale() changes nothing), no allocation.
 */
#ifndef HESPER_SETTINGS_TEXT_H
#define HESPER_SETTINGS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True for the white space a value may have around it: space, tab, newline, CR, VT, FF. */
bool hesper_text_blank(char c);

/* Moves *@text and *@len (@len bytes at @text) inside the white space around them. */
void hesper_text_trim(const char **text, size_t *len);

/* True when the @len bytes at @text are @word (lower-case ASCII) in any case. */
bool hesper_text_is(const char *text, size_t len, const char *word);

/* A whole number in plain decimal from @min to @max into *@out; false (*@out untouched) otherwise. */
bool hesper_text_whole(const char *text, size_t len, uint64_t min, uint64_t max, uint64_t *out);

/*
 * A number in plain decimal with an optional fraction ("2", "0.25"; a dot needs
 * digits on both sides) into *@out; false (*@out untouched) otherwise. At most 18 digits
 * after the dot.
 */
bool hesper_text_decimal(const char *text, size_t len, double *out);

#endif
