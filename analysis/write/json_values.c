/* The JSON writers' values: strings (valid UTF-8, escaped), bounded fields, doubles and triples (report.h, report_json_parts.h). */
#include "report.h"
#include "report_json_parts.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "model/model.h"

static void
put_escape(FILE *out, unsigned c)
{
	fprintf(out, "\\u%04x", c);
}

void
hesper_json_write_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	fputc('"', out);
	while (*s) {
		unsigned char c = *s;

		if (c >= 0x80) {
			size_t bad = 0, len = hesper_utf8_length(s, &bad);

			if (len) {
				fwrite(s, 1, len, out);
				s += len;
			} else {
				fputs("\\ufffd", out);
				s += bad;
			}
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (c < 0x20)
				put_escape(out, c);
			else
				fputc(c, out);
		}
		s++;
	}
	fputc('"', out);
}

void
hesper_json_put_field(FILE *out, const char *s, size_t max)
{
	char buf[HESPER_NAME_MAX + 1];
	size_t len = strnlen(s, max < HESPER_NAME_MAX ? max : HESPER_NAME_MAX);

	memcpy(buf, s, len);
	buf[len] = '\0';
	hesper_json_write_string(out, buf);
}

void
hesper_json_put_double(FILE *out, double v)
{
	if (!isfinite(v))
		v = 0;
	fprintf(out, "%.17g", v);
}

void
hesper_json_put_key(FILE *out, enum hesper_summary_key k)
{
	fprintf(out, "  \"%s\": ", hesper_summary_key(k));
}

void
hesper_json_put_triple(FILE *out, const uint32_t v[3])
{
	fprintf(out, "[%" PRIu32 ", %" PRIu32 ", %" PRIu32 "]", v[0], v[1], v[2]);
}
