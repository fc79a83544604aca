/*
 * A counted kernel's source file as the reports list it: its text cut into lines, each
 * with the share of the kernel's counted clock time its hot line holds (the text report
 * prints the hot lines' neighbourhoods, the HTML page the whole file with a heat bar).
 */
#ifndef HESPER_SOURCE_LISTING_H
#define HESPER_SOURCE_LISTING_H

#include <stdbool.h>
#include <stddef.h>

#include "profile/profile.h"

/* One line of the listing: its text (not terminated; NULL for a number the text skips) and share. */
struct hesper_listing_line {
	const char *text;
	size_t len;
	double share; /* of the kernel's counted clock time; 0 for a line not counted */
};

struct hesper_listing {
	struct hesper_listing_line *lines; /* lines[0] is line 1 (by the text's "#line N" directives, if any) */
	size_t count;
};

/*
 * The listing of @k's source file (k->source) into @out, up to line 1,000,000; 0, or -1
 * when @k has no source or memory runs out (@out empty). Free with hesper_listing_free.
 */
int hesper_listing_make(const struct hesper_kernel_lines *k, struct hesper_listing *out);

/*
 * The line at *@at (up to its '\n', left out, or the text's end) into @line and @len, and
 * *@at past it; false at the text's end.
 */
bool hesper_next_line(const char **at, const char **line, size_t *len);

/* Frees what @l holds. */
void hesper_listing_free(struct hesper_listing *l);

#endif
