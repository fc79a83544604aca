/*
 * The table of docs/settings.md, made from layer/state/settings_list.h:
 *
 *   settings_doc               prints it (to paste into docs/settings.md)
 *   settings_doc --check FILE  exit status 0 when FILE holds it exactly and has a section
 *                              for every setting it links to; 1, saying where, otherwise
 *
 * Defaults are read from hesper_settings_default() and "accepted" is what a bad value's
 * error line says, so the docs cannot promise other values than Hesper takes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

#define TABLE_HEAD "| variable | default | accepted | what |\n"

/* Writes @text into a table cell: '|' would end the cell. */
static void
put_cell(FILE *out, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == '|')
			fputc('\\', out);
		fputc(*p, out);
	}
}

/* The anchor of @name's section, into @out: GitHub's for a heading "`HESPER_<NAME>`". */
static void
anchor_of(const char *name, char *out, size_t size)
{
	size_t k;

	for (k = 0; name[k] && k + 1 < size; k++)
		out[k] = name[k] >= 'A' && name[k] <= 'Z' ? (char)(name[k] - 'A' + 'a') : name[k];
	out[k] = '\0';
}

/* What @row's default in @d is, as the docs say it; -1 (said on stderr) when it cannot be said. */
static int
put_default(FILE *out, const struct hesper_setting_row *row, const struct hesper_settings *d)
{
	const char *field = (const char *)d + row->offset;
	unsigned index;
	uint32_t n32;
	uint64_t n64;
	bool b;

	switch (row->kind) {
	case HESPER_SETTING_WORD:
		memcpy(&index, field, sizeof index);
		fprintf(out, "`%s`", row->words[index]);
		return 0;
	case HESPER_SETTING_SWITCH:
		memcpy(&b, field, sizeof b);
		fprintf(out, "`%s`", row->words[b ? 1 : 0]);
		return 0;
	case HESPER_SETTING_BOOL:
		memcpy(&b, field, sizeof b);
		fputs(b ? "on" : "off", out);
		return 0;
	case HESPER_SETTING_COUNT:
		if (row->size == sizeof n32) {
			memcpy(&n32, field, sizeof n32);
			n64 = n32;
		} else {
			memcpy(&n64, field, sizeof n64);
		}
		fprintf(out, "%llu", (unsigned long long)n64);
		return 0;
	case HESPER_SETTING_PATH:
		if (field[0])
			fprintf(out, "`%s`", field);
		else
			fputs("off", out);
		return 0;
	case HESPER_SETTING_PARSED:
		/* "unset" describes the all-zero default only. */
		for (size_t i = 0; i < row->size; i++) {
			if (field[i]) {
				fprintf(stderr, "settings_doc: %s: a PARSED setting's default must be all zero\n",
					row->name);
				return -1;
			}
		}
		put_cell(out, row->unset);
		return 0;
	case HESPER_SETTING_ELSEWHERE: put_cell(out, row->unset); return 0;
	}
	return -1;
}

/* The whole table into @out; -1 when a row cannot be said. */
static int
put_table(FILE *out)
{
	struct hesper_settings d;
	const struct hesper_setting_row *row;
	char accepted[512], anchor[128];

	hesper_settings_default(&d);
	fputs(TABLE_HEAD "|---|---|---|---|\n", out);
	for (size_t i = 0; (row = hesper_settings_row(i)); i++) {
		anchor_of(row->name, anchor, sizeof anchor);
		fprintf(out, "| [`%s`](#%s) | ", row->name, anchor);
		if (put_default(out, row, &d) != 0)
			return -1;
		hesper_settings_accepted(row, accepted, sizeof accepted);
		fputs(" | ", out);
		put_cell(out, accepted);
		fputs(" | ", out);
		if (row->mode >= 0)
			fprintf(out, "%s mode: ", hesper_mode_name((enum hesper_mode)row->mode));
		put_cell(out, row->doc);
		fputs(" |\n", out);
	}
	return 0;
}

/* The contents of @path, NUL-terminated; NULL (said on stderr) when it cannot be read. */
static char *
read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *text = NULL;
	size_t size = 0, got;

	if (!f)
		goto out;
	if (fseek(f, 0, SEEK_END) != 0 || (size = (size_t)ftell(f)) == (size_t)-1 || fseek(f, 0, SEEK_SET) != 0)
		goto out;
	buf = malloc(size + 1);
	if (!buf)
		goto out;
	got = fread(buf, 1, size, f);
	if (got != size)
		goto out;
	buf[size] = '\0';
	text = buf;
	buf = NULL;
out:
	if (!text)
		fprintf(stderr, "settings_doc: cannot read %s\n", path);
	free(buf);
	if (f)
		fclose(f);
	return text;
}

/* The table in @doc: from its head line through the last line that starts with '|'. */
static char *
doc_table(char *doc)
{
	char *t = strstr(doc, "\n" TABLE_HEAD), *end;

	if (!t)
		return NULL;
	t++;
	for (end = t; *end == '|';) {
		char *nl = strchr(end, '\n');

		if (!nl) {
			end += strlen(end);
			break;
		}
		end = nl + 1;
	}
	*end = '\0';
	return t;
}

/* The line after @line in a text; NULL after the last. */
static const char *
next_line(const char *line)
{
	const char *nl = strchr(line, '\n');

	return nl && nl[1] ? nl + 1 : NULL;
}

/* True when @doc has a heading whose GitHub anchor is @anchor. */
static bool
has_section(const char *doc, const char *anchor)
{
	for (const char *line = doc; line; line = next_line(line)) {
		const char *p = line, *a = anchor;

		if (*p != '#')
			continue;
		while (*p == '#')
			p++;
		if (*p++ != ' ')
			continue;
		/* Letters lower-cased, digits, '_' and '-' kept, spaces to '-', the rest dropped. */
		for (; *p && *p != '\n'; p++) {
			char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;

			if (c == ' ')
				c = '-';
			else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
				continue;
			if (*a != c)
				break;
			a++;
		}
		if ((!*p || *p == '\n') && !*a)
			return true;
	}
	return false;
}

/* Says which line of @have (the doc's) first differs from @want (the list's), and both. */
static void
say_difference(const char *path, const char *have, const char *want)
{
	const char *have_line = have, *want_line = want;
	int line = 1;

	while (*have && *have == *want) {
		if (*have == '\n') {
			line++;
			have_line = have + 1;
			want_line = want + 1;
		}
		have++;
		want++;
	}
	fprintf(stderr,
		"settings_doc: the settings table of %s differs from layer/state/settings_list.h at its line %d:\n"
		"  doc:  %.*s\n  list: %.*s\n",
		path, line, (int)strcspn(have_line, "\n"), have_line, (int)strcspn(want_line, "\n"), want_line);
}

static int
check(const char *path)
{
	char *doc = read_text(path), *want = NULL, *table;
	size_t want_size = 0;
	FILE *mem = NULL;
	int rc = 1;

	if (!doc)
		goto out;
	mem = open_memstream(&want, &want_size);
	if (!mem || put_table(mem) != 0)
		goto out;
	fclose(mem);
	mem = NULL;
	for (size_t i = 0; hesper_settings_row(i); i++) {
		const char *name = hesper_settings_row(i)->name;
		char anchor[128];

		anchor_of(name, anchor, sizeof anchor);
		if (!has_section(doc, anchor)) {
			fprintf(stderr, "settings_doc: %s has no section for %s (a heading \"`%s`\")\n", path, name,
				name);
			goto out;
		}
	}
	table = doc_table(doc);
	if (!table) {
		fprintf(stderr, "settings_doc: %s has no line \"%.*s\"\n", path, (int)strlen(TABLE_HEAD) - 1,
			TABLE_HEAD);
		goto out;
	}
	if (strcmp(table, want) != 0) {
		say_difference(path, table, want);
		fprintf(stderr, "the table from the list (build/tests/unit/settings_doc prints it):\n%s", want);
		goto out;
	}
	rc = 0;
out:
	if (mem)
		fclose(mem);
	free(want);
	free(doc);
	return rc;
}

int
main(int argc, char **argv)
{
	if (argc == 1)
		return put_table(stdout) == 0 ? 0 : 1;
	if (argc == 3 && strcmp(argv[1], "--check") == 0)
		return check(argv[2]);
	fprintf(stderr, "usage: settings_doc [--check FILE]\n");
	return 2;
}
