/*
 * Parsing HESPER_REPORT into a sink list (sinks.h), and freeing the list.
 *
 * Entries are separated by commas and trimmed of white space; so are the kind and the PATH
 * after "kind:"; kinds are matched without regard to case (settings_text.h's rule). A spec that is empty or only white space means the default (text on stderr);
 * an empty entry inside a list ("a,,b", "a,") is an error, as are an unknown kind, an
 * empty PATH, a '%' other than %p/%h/%%, and a PATH over 4096 bytes once expanded. Each
 * bad entry gets one line and is skipped; the others are kept, so that one typo does not
 * cost the run every report.
 */
#include "sinks.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "sinks_parts.h"

#define PATH_LIMIT 4096 /* bytes of an expanded PATH */
#define QUOTE_LIMIT 80  /* bytes of a bad entry quoted in an error line */

static bool
is_space(char c)
{
	return hesper_text_blank(c);
}

/* One error line: the entry quoted (cut when huge, control characters as '?'), the problem, the forms. */
static void
bad_entry(FILE *err, const char *entry, size_t len, const char *problem)
{
	if (!err)
		return;
	fputs("hesper: HESPER_REPORT entry '", err);
	for (size_t i = 0; i < len && i < QUOTE_LIMIT; i++) {
		unsigned char c = (unsigned char)entry[i];

		fputc(c < 0x20 || c == 0x7f ? '?' : c, err);
	}
	if (len > QUOTE_LIMIT)
		fputs("...", err);
	fprintf(err, "' %s; accepted forms: %s\n", problem, HESPER_SINK_FORMS);
}

static bool
append(char *buf, size_t *len, const char *s, size_t n)
{
	if (n > PATH_LIMIT - *len)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	return true;
}

/*
 * Expands %p, %h and %% of @path (@len bytes) into a new string in *@out. Returns 0, 1
 * with @problem filled for a bad PATH, or -1 when memory runs out.
 */
static int
expand_path(const char *path, size_t len, int pid, const char *host, char **out, char *problem, size_t size)
{
	char *buf = malloc(PATH_LIMIT + 1);
	char pidstr[16];
	size_t n = 0;
	int ret = 1;

	*out = NULL;
	if (!buf)
		return -1;
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	for (size_t i = 0; i < len; i++) {
		bool ok;

		if (path[i] != '%') {
			ok = append(buf, &n, &path[i], 1);
		} else if (++i == len) {
			snprintf(problem, size, "ends its PATH with a lone '%%' (use %%%% for a percent sign)");
			goto out;
		} else if (path[i] == 'p') {
			ok = append(buf, &n, pidstr, strlen(pidstr));
		} else if (path[i] == 'h') {
			ok = append(buf, &n, host, strlen(host));
		} else if (path[i] == '%') {
			ok = append(buf, &n, "%", 1);
		} else {
			unsigned char c = (unsigned char)path[i];

			snprintf(problem, size, "has '%%%c' in its PATH (only %%p, %%h and %%%% are expanded)",
				 c < 0x20 || c >= 0x7f ? '?' : c);
			goto out;
		}
		if (!ok) {
			snprintf(problem, size, "gives a PATH longer than %d bytes", PATH_LIMIT);
			goto out;
		}
	}
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	return ret;
}

static int
add_sink(struct hesper_sink_list *list, enum hesper_sink_kind kind, char *path)
{
	struct hesper_sink *items = realloc(list->items, (list->count + 1) * sizeof(*items));

	if (!items)
		return -1;
	list->items = items;
	items[list->count] = (struct hesper_sink){.kind = kind, .path = path};
	list->count++;
	return 0;
}

/* Parses the entry @e (@len bytes, trimmed). Returns 0 when kept, 1 when bad, -1 out of memory. */
static int
parse_entry(const char *e, size_t len, int pid, const char *host, struct hesper_sink_list *out, FILE *err)
{
	char problem[128];
	const char *colon = memchr(e, ':', len);
	char *path = NULL;
	int ret;

	if (len == 0) {
		bad_entry(err, e, len, "is empty (two commas in a row, or a comma at an end)");
		return 1;
	}
	if (!colon) {
		if (hesper_text_is(e, len, "stdout"))
			return add_sink(out, HESPER_SINK_STDOUT, NULL);
		if (hesper_text_is(e, len, "stderr"))
			return add_sink(out, HESPER_SINK_STDERR, NULL);
		bad_entry(err, e, len, "is not a known sink");
		return 1;
	}

	enum hesper_sink_kind kind;
	const char *name = e;
	size_t name_len = (size_t)(colon - e);

	hesper_text_trim(&name, &name_len); /* "json : x" as "json:x" */
	if (!hesper_sink_kind_named(name, name_len, &kind)) {
		bad_entry(err, e, len, "is not a known sink");
		return 1;
	}

	const char *p = colon + 1, *end = e + len;
	while (p < end && is_space(*p))
		p++;
	if (p == end) {
		bad_entry(err, e, len, "has an empty PATH");
		return 1;
	}
	ret = expand_path(p, (size_t)(end - p), pid, host, &path, problem, sizeof(problem));
	if (ret == 1)
		bad_entry(err, e, len, problem);
	if (ret != 0)
		return ret;
	if (add_sink(out, kind, path) != 0) {
		free(path);
		return -1;
	}
	return 0;
}

int
hesper_sinks_parse(const char *spec, int pid, const char *host, struct hesper_sink_list *out, FILE *err)
{
	const char *s = spec ? spec : "";
	int bad = 0;

	out->items = NULL;
	out->count = 0;
	out->database = NULL;
	out->stdout_stream = NULL;
	if (!host || !*host)
		host = "unknown";

	while (is_space(*s))
		s++;
	if (!*s)
		return add_sink(out, HESPER_SINK_STDERR, NULL);

	for (;;) {
		const char *comma = strchr(s, ',');
		const char *end = comma ? comma : s + strlen(s);
		const char *b = s, *e = end;

		while (b < e && is_space(*b))
			b++;
		while (e > b && is_space(e[-1]))
			e--;
		int r = parse_entry(b, (size_t)(e - b), pid, host, out, err);
		if (r < 0) {
			hesper_sinks_free(out);
			return -1;
		}
		bad += r;
		if (!comma)
			break;
		s = comma + 1;
	}
	if (err)
		fflush(err);
	return bad;
}

void
hesper_sinks_free(struct hesper_sink_list *list)
{
	hesper_sinks_close(list);
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i].path);
	free(list->items);
	list->items = NULL;
	list->count = 0;
}
