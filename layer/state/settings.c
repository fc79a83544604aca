/*
 * HESPER_* settings (see settings.h), read as the rows of settings_list.h say.
 *
 * Values are read strictly: numbers are plain decimal (no sign, no base prefix, no
 * trailing text), range-checked without overflow; words are matched without regard
 * to case. White space around a value is ignored. That rule is analysis/model/settings_text.h's,
 * which HESPER_REPORT and HESPER_FINDINGS are read by too. Anything else is rejected with
 * one line on the error stream that quotes the value (cut, with unprintable bytes as
 * \xHH) and says what is accepted.
 */
#include "settings.h"
#include "settings_signal.h"

#include <stddef.h>
#include <string.h>

#include "analysis.h"

#define PREFIX "HESPER_"
#define QUOTE_MAX 64 /* bytes of a rejected value or name shown in an error line */

const char *hesper_mode_name(enum hesper_mode mode)
{
	switch (mode) {
	case HESPER_MODE_DISPATCH:
		return "dispatch";
	case HESPER_MODE_SUBMIT:
		return "submit";
	case HESPER_MODE_CLOCK:
		return "clock";
	}
	return "unknown";
}

/* A string that is not NUL-terminated where it is used: a name cut at '='. */
struct span {
	const char *p;
	size_t len;
};

/* The shared reading rule (analysis/model/settings_text.h), on spans. */
static struct span trim(struct span v)
{
	hesper_text_trim(&v.p, &v.len);
	return v;
}

static bool equals_nocase(struct span v, const char *word)
{
	return hesper_text_is(v.p, v.len, word);
}

/* The index in @words (lower case, NULL-terminated) of the word @v is, ignoring case; -1 when none. */
static int word_index(struct span v, const char *const *words)
{
	for (int i = 0; words[i]; i++) {
		if (equals_nocase(v, words[i]))
			return i;
	}
	return -1;
}

static bool parse_number(struct span v, uint64_t min, uint64_t max, uint64_t *out)
{
	return hesper_text_whole(v.p, v.len, min, max, out);
}

/* BOOL's words, each true one before its false one. */
static const char *const bool_words[] = {"1", "0", "true", "false", "yes", "no", "on", "off", NULL};

static bool parse_bool(struct span v, bool *out)
{
	int i = word_index(v, bool_words);

	if (i < 0)
		return false;
	*out = i % 2 == 0;
	return true;
}

/*
 * Seconds as plain decimal with an optional fraction ("2", "0.25", "1.5"), into ns;
 * fractions past the ns are refused rather than rounded.
 */
static bool parse_seconds(struct span v, uint64_t *ns)
{
	const char *dot = memchr(v.p, '.', v.len);
	struct span whole = {v.p, dot ? (size_t)(dot - v.p) : v.len};
	uint64_t secs, frac = 0;

	if (whole.len == 0 || !parse_number(whole, 0, 1000000000ull, &secs))
		return false;
	if (dot) {
		size_t digits = v.len - whole.len - 1;

		if (digits == 0 || digits > 9)
			return false;
		for (size_t i = 0; i < digits; i++) {
			char c = dot[1 + i];

			if (c < '0' || c > '9')
				return false;
			frac = frac * 10 + (uint64_t)(c - '0');
		}
		for (size_t i = digits; i < 9; i++)
			frac *= 10;
	}
	*ns = secs * 1000000000ull + frac;
	return true;
}

/* "SECONDS" or "label:NAME" (and "#N" after NAME when @is_stop). */
static bool parse_bound(struct span v, const struct hesper_setting_row *row, bool is_stop,
			struct hesper_capture_bound *out)
{
	struct hesper_capture_bound b = {0};

	if (v.len >= 6 && equals_nocase((struct span){v.p, 6}, "label:")) {
		struct span name = {v.p + 6, v.len - 6};
		const char *hash = NULL;

		b.kind = HESPER_BOUND_LABEL;
		b.nth = 1;
		if (is_stop) {
			/* The last '#', so that a label may hold one: "a#b#2". */
			for (size_t i = name.len; i > 0; i--) {
				if (name.p[i - 1] == '#') {
					hash = name.p + i - 1;
					break;
				}
			}
			if (hash) {
				struct span count = {hash + 1, (size_t)(name.p + name.len - hash - 1)};

				if (!parse_number(count, 1, UINT64_MAX, &b.nth))
					return false;
				name.len = (size_t)(hash - name.p);
			}
		}
		if (name.len == 0 || name.len >= sizeof b.label || memchr(name.p, '\0', name.len))
			return false;
		memcpy(b.label, name.p, name.len);
		b.label[name.len] = '\0';
		*out = b;
		return true;
	}
	b.kind = HESPER_BOUND_TIME;
	if (!parse_seconds(v, &b.ns) || b.ns < row->min || b.ns > row->max)
		return false;
	*out = b;
	return true;
}

/* The parsers of settings_list.h's PARSED rows: each writes its field only when it accepts. */

/* HESPER_INTERVAL: seconds to the millisecond, into milliseconds (uint32_t) from row->min to row->max. */
static bool hesper_parse_interval(const char *value, size_t len, const struct hesper_setting_row *row, void *field)
{
	uint64_t ns, ms;

	if (!parse_seconds((struct span){value, len}, &ns) || ns % 1000000ull != 0)
		return false;
	ms = ns / 1000000ull;
	if (ms < row->min || ms > row->max)
		return false;
	*(uint32_t *)field = (uint32_t)ms;
	return true;
}

/* HESPER_REPORT_SIGNAL: an allowed signal, into an int. */
static bool hesper_parse_signal(const char *value, size_t len, const struct hesper_setting_row *row, void *field)
{
	int sig;

	(void)row;
	if (!hesper_settings_signal(value, len, &sig))
		return false;
	*(int *)field = sig;
	return true;
}

/* HESPER_START: into a struct hesper_capture_bound, times from row->min to row->max ns. */
static bool hesper_parse_start(const char *value, size_t len, const struct hesper_setting_row *row, void *field)
{
	return parse_bound((struct span){value, len}, row, false, field);
}

/* HESPER_STOP: as HESPER_START, with "#N" after a label. */
static bool hesper_parse_stop(const char *value, size_t len, const struct hesper_setting_row *row, void *field)
{
	return parse_bound((struct span){value, len}, row, true, field);
}

/* HESPER_LINES: comma-separated names, none empty, into a char array of row->size bytes. */
static bool hesper_parse_names(const char *value, size_t len, const struct hesper_setting_row *row, void *field)
{
	if (len >= row->size)
		return false;
	for (size_t start = 0, i = 0; i <= len; i++) {
		if (i < len && value[i] != ',')
			continue;
		if (trim((struct span){value + start, i - start}).len == 0)
			return false;
		start = i + 1;
	}
	memcpy(field, value, len);
	((char *)field)[len] = '\0';
	return true;
}

/* ---- the table ---------------------------------------------------------------------- */

/* The VALUES shapes of settings_list.h, as initializers of struct hesper_setting_row. */
#define ONE_OF(...) .words = (const char *const[]){__VA_ARGS__, NULL},
#define OFF_ON(off, on) .words = (const char *const[]){off, on, NULL},
#define ANY
#define RANGE(lo, hi) .min = (lo), .max = (hi),
#define PARSER(fn, lo, hi, accepted_, unset_) \
	.parse = fn, .min = (lo), .max = (hi), .accepted = accepted_, .unset = unset_,
#define READ_BY(accepted_, unset_) .accepted = accepted_, .unset = unset_,
#define ANY_MODE .mode = -1,
#define IN_MODE(m) .mode = HESPER_MODE_##m,
#define ROW(name_, kind_, values, type, field, def, mode_, doc_)                    \
	{.name = #name_,                                                            \
	 .kind = HESPER_SETTING_##kind_,                                            \
	 HESPER_IF_FIELD_##kind_(.offset = offsetof(struct hesper_settings, field), \
				 .size = sizeof(HESPER_SETTINGS_MEMBER_OF(field)), ) values mode_.doc = doc_},

static const struct hesper_setting_row rows[] = {HESPER_SETTINGS(ROW)};

#define ROW_COUNT (sizeof rows / sizeof rows[0])

#define DEFAULT_MEMBER(name, kind, values, type, field, def, mode, doc) HESPER_IF_FIELD_##kind(.field = def, )
static const struct hesper_settings defaults = {HESPER_SETTINGS(DEFAULT_MEMBER)};

void hesper_settings_default(struct hesper_settings *s)
{
	*s = defaults;
}

const struct hesper_setting_row *hesper_settings_row(size_t i)
{
	return i < ROW_COUNT ? &rows[i] : NULL;
}

/* @words as a list in words: "a, b or c", into @out (not empty). */
static void join_words(char *out, size_t size, const char *const *words)
{
	size_t n = 0, o = 0;

	while (words[n])
		n++;
	out[0] = '\0';
	for (size_t i = 0; i < n && o < size; i++)
		o += (size_t)snprintf(out + o, size - o, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", words[i]);
}

void hesper_settings_accepted(const struct hesper_setting_row *row, char *out, size_t size)
{
	if (size == 0)
		return;
	switch (row->kind) {
	case HESPER_SETTING_WORD:
		join_words(out, size, row->words);
		return;
	case HESPER_SETTING_SWITCH: {
		/* The on word first: it is the usual one. */
		const char *const on_off[] = {row->words[1], row->words[0], NULL};

		join_words(out, size, on_off);
		return;
	}
	case HESPER_SETTING_BOOL:
		join_words(out, size, bool_words);
		return;
	case HESPER_SETTING_COUNT:
		snprintf(out, size, "a whole number from %llu to %llu", (unsigned long long)row->min,
			 (unsigned long long)row->max);
		return;
	case HESPER_SETTING_PATH:
		snprintf(out, size, "a path (not empty, under %zu bytes)", row->size);
		return;
	case HESPER_SETTING_PARSED:
	case HESPER_SETTING_ELSEWHERE:
		snprintf(out, size, "%s", row->accepted);
		return;
	}
	out[0] = '\0';
}

/* ---- errors and applying ------------------------------------------------------------ */

void hesper_capture_bound_format(const struct hesper_capture_bound *b, bool is_stop, char *out, size_t size)
{
	switch (b->kind) {
	case HESPER_BOUND_NONE:
		snprintf(out, size, "%s", "");
		return;
	case HESPER_BOUND_TIME:
		snprintf(out, size, "%llu.%03llu s", (unsigned long long)(b->ns / 1000000000ull),
			 (unsigned long long)(b->ns % 1000000000ull / 1000000ull));
		return;
	case HESPER_BOUND_LABEL:
		if (is_stop)
			snprintf(out, size, "label:%s#%llu", b->label, (unsigned long long)b->nth);
		else
			snprintf(out, size, "label:%s", b->label);
		return;
	}
}

/*
 * Writes @v into @dst as it may be shown in an error line: at most QUOTE_MAX bytes of
 * it, then "..." if there was more; bytes outside printable ASCII, quotes and
 * backslashes as \xHH. @dst holds QUOTE_MAX * 4 + 4 bytes.
 */
static void quote(char *dst, struct span v)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = v.len < QUOTE_MAX ? v.len : QUOTE_MAX;
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v.p[i];

		if (c < 0x20 || c > 0x7e || c == '\'' || c == '\\') {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 0xf];
		} else {
			dst[o++] = (char)c;
		}
	}
	if (n < v.len) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

typedef char quoted[QUOTE_MAX * 4 + 4];

static void reject_value(FILE *err, const char *name, struct span value, const char *expected)
{
	quoted q;

	if (!err)
		return;
	quote(q, value);
	fprintf(err, "hesper: ignoring %s='%s': expected %s\n", name, q, expected);
	fflush(err);
}

static void reject_name(FILE *err, struct span name)
{
	char line[sizeof(quoted) + 64 + ROW_COUNT * 32];
	quoted q;
	size_t o;

	if (!err)
		return;
	quote(q, name);
	/* Built whole and written once, so that it stays one line among other output. */
	o = (size_t)snprintf(line, sizeof line, "hesper: unknown setting %s (known: ", q);
	for (size_t i = 0; i < ROW_COUNT && o < sizeof line; i++)
		o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", i ? ", " : "", rows[i].name);
	if (o < sizeof line)
		snprintf(line + o, sizeof line - o, ")\n");
	fputs(line, err);
	fflush(err);
}

static const struct hesper_setting_row *find_setting(struct span name)
{
	for (size_t i = 0; i < ROW_COUNT; i++) {
		if (strlen(rows[i].name) == name.len && memcmp(rows[i].name, name.p, name.len) == 0)
			return &rows[i];
	}
	return NULL;
}

/* Reads @value into @row's member of @s as its kind says; 0, or -1 with the error line on @err. */
static int apply_value(struct hesper_settings *s, const struct hesper_setting_row *row, const char *value, FILE *err)
{
	struct span raw = {value ? value : "", value ? strlen(value) : 0};
	struct span v = trim(raw);
	char *field = (char *)s + row->offset;
	char accepted[256];
	uint64_t n;
	bool b;
	int i;

	switch (row->kind) {
	case HESPER_SETTING_ELSEWHERE:
		return 0;
	case HESPER_SETTING_WORD:
		i = word_index(v, row->words);
		if (i >= 0) {
			unsigned index = (unsigned)i; /* an enum: HESPER_FITS_WORD */

			memcpy(field, &index, sizeof index);
			return 0;
		}
		break;
	case HESPER_SETTING_SWITCH:
		i = word_index(v, row->words);
		if (i >= 0) {
			*(bool *)field = i == 1;
			return 0;
		}
		break;
	case HESPER_SETTING_BOOL:
		if (parse_bool(v, &b)) {
			*(bool *)field = b;
			return 0;
		}
		break;
	case HESPER_SETTING_COUNT:
		if (parse_number(v, row->min, row->max, &n)) {
			if (row->size == sizeof(uint32_t))
				*(uint32_t *)field = (uint32_t)n; /* max fits: tests/unit/test_settings_table.c */
			else
				*(uint64_t *)field = n;
			return 0;
		}
		break;
	case HESPER_SETTING_PATH:
		if (v.len > 0 && v.len < row->size) {
			memcpy(field, v.p, v.len);
			field[v.len] = '\0';
			return 0;
		}
		break;
	case HESPER_SETTING_PARSED:
		if (row->parse(v.p, v.len, row, field))
			return 0;
		break;
	}
	hesper_settings_accepted(row, accepted, sizeof accepted);
	reject_value(err, row->name, raw, accepted);
	return -1;
}

int hesper_settings_apply(struct hesper_settings *s, const char *name, const char *value, FILE *err)
{
	struct span n = {name ? name : "", name ? strlen(name) : 0};
	const struct hesper_setting_row *row = find_setting(n);

	if (!row) {
		reject_name(err, n);
		return -1;
	}
	return apply_value(s, row, value, err);
}

/*
 * Sets each row given in @values (its raw value, NULL: not given) that has an effect in one
 * HESPER_MODE only back to its default when another mode is in effect, with one line on @err
 * each: a report must not show a setting as in effect that is not (HESPER_SAMPLE in clock mode).
 */
static void drop_out_of_mode(struct hesper_settings *s, const char *const *values, FILE *err)
{
	for (size_t i = 0; i < ROW_COUNT; i++) {
		const struct hesper_setting_row *row = &rows[i];
		char *field = (char *)s + row->offset;
		const char *def = (const char *)&defaults + row->offset;

		if (!values[i] || row->mode < 0 || row->mode == (int)s->mode || memcmp(field, def, row->size) == 0)
			continue;
		memcpy(field, def, row->size);
		if (err) {
			quoted q;

			quote(q, trim((struct span){values[i], strlen(values[i])}));
			fprintf(err,
				"hesper: ignoring %s='%s': it has an effect in %s mode only, and HESPER_MODE is %s\n",
				row->name, q, hesper_mode_name((enum hesper_mode)row->mode), hesper_mode_name(s->mode));
			fflush(err);
		}
	}
}

/*
 * Variables of Hesper's own scripts and tests (where llama.cpp's files are, the npm cache,
 * ...): not settings, but set in the environment of the programs those scripts profile,
 * so not worth a line each run.
 */
static const char *const script_vars[] = {"HESPER_LLAMA_FILES", "HESPER_NPM_CACHE", "HESPER_DENO_VERSION",
					  "HESPER_FUZZ_JOBS"};

static bool is_script_var(struct span name)
{
	for (size_t i = 0; i < sizeof script_vars / sizeof script_vars[0]; i++)
		if (strlen(script_vars[i]) == name.len && memcmp(script_vars[i], name.p, name.len) == 0)
			return true;
	return false;
}

int hesper_settings_from_env(struct hesper_settings *s, char *const *environ_vars, FILE *err)
{
	const char *values[ROW_COUNT] = {0}; /* the value of each row given and accepted */
	int rejected = 0;

	hesper_settings_default(s);
	if (!environ_vars)
		return 0;
	for (char *const *e = environ_vars; *e; e++) {
		const char *var = *e;
		const char *eq;
		struct span name;
		const struct hesper_setting_row *row;

		if (strncmp(var, PREFIX, strlen(PREFIX)) != 0)
			continue;
		eq = strchr(var, '=');
		if (!eq)
			continue; /* not NAME=VALUE: not a variable the process can read either */
		name.p = var;
		name.len = (size_t)(eq - var);
		row = find_setting(name);
		if (!row && is_script_var(name))
			continue;
		if (!row) {
			reject_name(err, name);
			rejected++;
			continue;
		}
		if (row->kind == HESPER_SETTING_ELSEWHERE)
			continue;
		if (apply_value(s, row, eq + 1, err) != 0)
			rejected++;
		else
			values[row - rows] = eq + 1;
	}
	drop_out_of_mode(s, values, err);
	return rejected;
}
