/* Column padding for the tool's tables. */
#include "columns.h"

#include <string.h>

#include "write/write.h"

void
hesper_put_right(FILE *out, const char *s, size_t width, size_t gap)
{
	for (size_t i = 0; i < gap; i++)
		fputc(' ', out);
	for (size_t w = hesper_text_width(s); w < width; w++)
		fputc(' ', out);
	fputs(s, out);
}

void
hesper_put_clean(FILE *out, const char *s)
{
	hesper_text_put_clean(out, s, strlen(s));
}

void
hesper_put_rule(FILE *out, const size_t *widths, size_t n)
{
	for (size_t c = 0; c < n; c++) {
		fputs(c ? "  " : " ", out);
		for (size_t i = 0; i < widths[c]; i++)
			fputc('-', out);
	}
	fputc('\n', out);
}
