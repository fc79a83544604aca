/*
 * Escaping and formatting for the HTML report (report_html_parts.h): names go into the
 * page as HTML text (chart labels cut to LABEL_CHARS characters) or, for the timeline's
 * data, as JSON strings that cannot end the <script> element they sit in.
 */
#include "report_html_parts.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

#define LABEL_CHARS 40 /* characters of a name shown in a chart label */

/* Writes @len bytes of @s as HTML text: markup characters as references, controls as U+FFFD. */
void
hesper_html_text_n(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fputs("\xef\xbf\xbd", out);
			else
				fputc(c, out);
		}
	}
}

void
hesper_html_text(FILE *out, const char *s)
{
	hesper_html_text_n(out, s ? s : "", SIZE_MAX);
}

/* @name cut to LABEL_CHARS characters (on a character boundary) with "…" when cut. */
void
hesper_html_label(FILE *out, const char *name)
{
	size_t bytes = 0, chars = 0;

	while (name[bytes] && chars <= LABEL_CHARS) {
		bytes++;
		while (((unsigned char)name[bytes] & 0xc0) == 0x80)
			bytes++;
		chars++;
	}
	if (!name[bytes] && chars <= LABEL_CHARS) {
		hesper_html_text(out, name);
		return;
	}
	/* Cut: keep LABEL_CHARS - 1 characters and the ellipsis. */
	bytes = 0;
	for (chars = 0; name[bytes] && chars < LABEL_CHARS - 1; chars++) {
		bytes++;
		while (((unsigned char)name[bytes] & 0xc0) == 0x80)
			bytes++;
	}
	hesper_html_text_n(out, name, bytes);
	fputs("\u2026", out);
}

/* A JSON string safe inside <script>: hesper_json_write_string's output with <, > and & escaped. */
void
hesper_html_json_string(FILE *out, const char *s)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f) {
		fputs("\"?\"", out);
		return;
	}
	hesper_json_write_string(f, s);
	if (fclose(f) != 0) {
		free(buf);
		fputs("\"?\"", out);
		return;
	}
	for (size_t i = 0; i < size; i++) {
		char c = buf[i];

		if (c == '<' || c == '>' || c == '&')
			fprintf(out, "\\u%04x", (unsigned)c);
		else
			fputc(c, out);
	}
	free(buf);
}

const char *
hesper_html_duration(char *buf, double ns)
{
	return hesper_format_duration(buf, CELL, ns);
}
