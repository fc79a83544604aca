/*
 * Plain-text tables for the command-line tool: cells padded by terminal columns, not bytes,
 * counted as the text report counts them (hesper_text_width, write/write.h).
 */
#ifndef HESPER_TOOL_COLUMNS_H
#define HESPER_TOOL_COLUMNS_H

#include <stddef.h>
#include <stdio.h>

#include "write/write.h"

/* Prints @s right-aligned in @width columns, after @gap spaces. */
void hesper_put_right(FILE *out, const char *s, size_t width, size_t gap);

/* Prints @s with control characters as '?' (names come from programs and drivers). */
void hesper_put_clean(FILE *out, const char *s);

/* Prints a row of @n dashes runs of widths @widths separated by two spaces, after one space. */
void hesper_put_rule(FILE *out, const size_t *widths, size_t n);

#endif
