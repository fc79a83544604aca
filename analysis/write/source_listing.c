/* A counted kernel's source file, line by line with shares (see source_listing.h). */
#include "source_listing.h"

#include <stdlib.h>
#include <string.h>

/* Line numbers a listing goes up to: a "#line" past them (bad text) ends it, not memory. */
#define LISTING_LINES_MAX 1000000u

/* The number N of a "#line N" directive at @line (@len bytes), or 0 when it is none. */
static unsigned long
line_directive(const char *line, size_t len)
{
	if (len < 7 || strncmp(line, "#line ", 6) != 0)
		return 0;
	unsigned long n = 0;
	for (size_t i = 6; i < len && line[i] >= '0' && line[i] <= '9' && n < 100000000; i++)
		n = n * 10 + (unsigned long)(line[i] - '0');
	return n;
}

int
hesper_listing_make(const struct hesper_kernel_lines *k, struct hesper_listing *out)
{
	memset(out, 0, sizeof(*out));
	if (!k->source || !k->source_file)
		return -1;
	/*
	 * Embedded text may number its lines by "#line N" (glslang puts its own lines before a
	 * "#line 1"): then the lines before the first directive are not the file's, and each
	 * directive gives the number of the line after it.
	 */
	const char *at = k->source, *line;
	size_t len;
	for (const char *c = k->source; hesper_next_line(&c, &line, &len);)
		if (line_directive(line, len)) {
			at = line;
			break;
		}
	size_t cap = 0, number = 1;
	while (hesper_next_line(&at, &line, &len)) {
		unsigned long directive = line_directive(line, len);
		if (directive) {
			number = directive;
		} else if (number > LISTING_LINES_MAX) {
			break;
		} else {
			if (number > cap) {
				size_t want = number > 2 * cap ? number + 64 : 2 * cap;
				struct hesper_listing_line *more = realloc(out->lines, want * sizeof(*more));
				if (!more) {
					hesper_listing_free(out);
					return -1;
				}
				memset(more + cap, 0, (want - cap) * sizeof(*more));
				out->lines = more;
				cap = want;
			}
			out->lines[number - 1] = (struct hesper_listing_line){
				line, len && line[len - 1] == '\r' ? len - 1 : len, 0};
			if (number > out->count)
				out->count = number;
			number++;
		}
	}
	for (size_t j = 0; j < k->count; j++) {
		const struct hesper_hot_line *l = &k->lines[j];
		/* the file as its lines name it: cut names compare by what was kept */
		if (l->line && l->line <= out->count && strncmp(l->file, k->source_file, sizeof(l->file) - 1) == 0)
			out->lines[l->line - 1].share += l->share;
	}
	return 0;
}

bool
hesper_next_line(const char **at, const char **line, size_t *len)
{
	if (!**at)
		return false;
	const char *end = strchr(*at, '\n');
	*line = *at;
	*len = end ? (size_t)(end - *at) : strlen(*at);
	*at += *len + (end != NULL);
	return true;
}

void
hesper_listing_free(struct hesper_listing *l)
{
	free(l->lines);
	memset(l, 0, sizeof(*l));
}
