/*
 * HESPER_* settings (see settings.h).
 *
 * Values are read strictly: numbers are plain decimal (no sign, no base prefix, no
 * trailing text), range-checked without overflow; words are matched without regard
 * to case. White space around a value is ignored. Anything else is rejected with
 * one line on the error stream that quotes the value (cut, with unprintable bytes as
 * \xHH) and says what is accepted.
 */
#include "settings.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

#define PREFIX "HESPER_"
#define QUOTE_MAX 64 /* bytes of a rejected value or name shown in an error line */

enum setting_kind {
	SETTING_REPORT, /* read by the sinks; accepted here and left alone */
	SETTING_MODE,
	SETTING_SAMPLE,
	SETTING_MAX_EVENTS,
	SETTING_EXIT_TIMEOUT_MS,
	SETTING_MAX_QUERIES,
	SETTING_COPY,
	SETTING_DISABLE,
	SETTING_INTERVAL,
	SETTING_REPORT_SIGNAL,
	SETTING_CONTROL,
	SETTING_START,
	SETTING_STOP,
	SETTING_TRACE_ALL,
	SETTING_INDIRECT,
	SETTING_CLOCK_ISOLATED,
	SETTING_FINDINGS, /* read with the profile (analysis/findings_settings.h); accepted here and left alone */
};

struct setting {
	const char *name;
	enum setting_kind kind;
	uint64_t min, max; /* numbers only */
};

/* To add a setting: a row here, a case in apply_value(), a line in settings.h. */
static const struct setting settings[] = {
	{ "HESPER_REPORT", SETTING_REPORT, 0, 0 },
	{ "HESPER_MODE", SETTING_MODE, 0, 0 },
	{ "HESPER_SAMPLE", SETTING_SAMPLE, 1, 1000000 },
	{ "HESPER_MAX_EVENTS", SETTING_MAX_EVENTS, 0, 1000000000 },
	{ "HESPER_EXIT_TIMEOUT_MS", SETTING_EXIT_TIMEOUT_MS, 0, 600000 },
	{ "HESPER_MAX_QUERIES", SETTING_MAX_QUERIES, 0, 1000000000 },
	{ "HESPER_COPY", SETTING_COPY, 0, 0 },
	{ "HESPER_DISABLE", SETTING_DISABLE, 0, 0 },
	{ "HESPER_INTERVAL", SETTING_INTERVAL, 100, 86400000 },          /* ms */
	{ "HESPER_REPORT_SIGNAL", SETTING_REPORT_SIGNAL, 0, 0 },
	{ "HESPER_CONTROL", SETTING_CONTROL, 0, 0 },
	{ "HESPER_START", SETTING_START, 0, 1000000000000000000ull },   /* ns */
	{ "HESPER_STOP", SETTING_STOP, 1000000, 1000000000000000000ull }, /* ns */
	{ "HESPER_TRACE_ALL", SETTING_TRACE_ALL, 0, 0 },
	{ "HESPER_INDIRECT", SETTING_INDIRECT, 0, 0 },
	{ "HESPER_CLOCK_ISOLATED", SETTING_CLOCK_ISOLATED, 0, 0 },
	{ "HESPER_FINDINGS", SETTING_FINDINGS, 0, 0 },
};

#define SETTING_COUNT (sizeof settings / sizeof settings[0])

void
hesper_settings_default(struct hesper_settings *s)
{
	s->mode = HESPER_MODE_DISPATCH;
	s->sample_every = 1;
	s->max_events = 200000; /* about 60 MB of trace JSON: well inside what chrome://tracing and Perfetto open */
	s->exit_timeout_ms = 5000;
	s->max_queries = 64u << 20;
	s->copy = HESPER_COPY_AUTO;
	s->disabled = false;
	s->indirect_args = true;
	s->clock_isolated = true;
	s->interval_ms = 0;
	s->report_signal = 0;
	s->control_path[0] = '\0';
	memset(&s->start, 0, sizeof(s->start));
	memset(&s->stop, 0, sizeof(s->stop));
	s->trace_all = false;
}

const char *
hesper_mode_name(enum hesper_mode mode)
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

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static struct span
trim(struct span v)
{
	while (v.len > 0 && is_blank(v.p[0])) {
		v.p++;
		v.len--;
	}
	while (v.len > 0 && is_blank(v.p[v.len - 1]))
		v.len--;
	return v;
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool
equals_nocase(struct span v, const char *word)
{
	size_t len = strlen(word);

	if (v.len != len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (lower(v.p[i]) != word[i])
			return false;
	}
	return true;
}

/* The index in @words (lower case) of the word @v is, ignoring case; -1 when none. */
static int
word_index(struct span v, const char *const *words, int n)
{
	for (int i = 0; i < n; i++) {
		if (equals_nocase(v, words[i]))
			return i;
	}
	return -1;
}

static bool
parse_number(struct span v, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (v.len == 0)
		return false;
	for (size_t i = 0; i < v.len; i++) {
		unsigned d;

		if (v.p[i] < '0' || v.p[i] > '9')
			return false;
		d = (unsigned)(v.p[i] - '0');
		if (n > (UINT64_MAX - d) / 10)
			return false;
		n = n * 10 + d;
	}
	if (n < min || n > max)
		return false;
	*out = n;
	return true;
}

static bool
parse_bool(struct span v, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (equals_nocase(v, yes[i])) {
			*out = true;
			return true;
		}
		if (equals_nocase(v, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

/*
 * Seconds as plain decimal with an optional fraction ("2", "0.25", "1.5"), into ns;
 * fractions past the ns are refused rather than rounded.
 */
static bool
parse_seconds(struct span v, uint64_t *ns)
{
	const char *dot = memchr(v.p, '.', v.len);
	struct span whole = { v.p, dot ? (size_t)(dot - v.p) : v.len };
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

/*
 * Signals a user may pick for HESPER_REPORT_SIGNAL: those whose default action does not
 * matter to a long-running program's author or that exist for user requests. Signals the
 * kernel sends for faults (SEGV, BUS, FPE, ILL, TRAP, SYS), the ones that cannot be caught
 * (KILL, STOP), job control (TSTP, TTIN, TTOU, CONT, CHLD), and INT/TERM (Hesper's exit
 * report) are refused.
 */
static const struct {
	const char *name;
	int number;
} report_signals[] = {
	{ "hup", SIGHUP },   { "quit", SIGQUIT }, { "usr1", SIGUSR1 }, { "usr2", SIGUSR2 },
	{ "alrm", SIGALRM }, { "winch", SIGWINCH }, { "urg", SIGURG }, { "pwr", SIGPWR },
	{ "prof", SIGPROF }, { "vtalrm", SIGVTALRM }, { "xcpu", SIGXCPU }, { "xfsz", SIGXFSZ },
	{ "io", SIGIO },     { "stkflt", SIGSTKFLT },
};

static bool
signal_allowed(int sig)
{
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		return true;
	for (size_t i = 0; i < sizeof report_signals / sizeof report_signals[0]; i++)
		if (report_signals[i].number == sig)
			return true;
	return false;
}

/* A signal by name (USR1, SIGUSR1, RTMIN+2, RTMAX-1; any case) or number. */
static bool
parse_signal(struct span v, int *out)
{
	uint64_t n;

	if (parse_number(v, 1, (uint64_t)SIGRTMAX, &n)) {
		if (!signal_allowed((int)n))
			return false;
		*out = (int)n;
		return true;
	}
	if (v.len >= 3 && equals_nocase((struct span){ v.p, 3 }, "sig")) {
		v.p += 3;
		v.len -= 3;
	}
	for (size_t i = 0; i < sizeof report_signals / sizeof report_signals[0]; i++) {
		if (equals_nocase(v, report_signals[i].name)) {
			*out = report_signals[i].number;
			return true;
		}
	}
	if (v.len >= 5 && (equals_nocase((struct span){ v.p, 5 }, "rtmin") ||
			   equals_nocase((struct span){ v.p, 5 }, "rtmax"))) {
		bool from_max = lower(v.p[3]) == 'a';
		int sig = from_max ? SIGRTMAX : SIGRTMIN;

		if (v.len > 5) {
			if (v.p[5] != (from_max ? '-' : '+') ||
			    !parse_number((struct span){ v.p + 6, v.len - 6 }, 0, (uint64_t)(SIGRTMAX - SIGRTMIN), &n))
				return false;
			sig = from_max ? sig - (int)n : sig + (int)n;
		}
		*out = sig;
		return true;
	}
	return false;
}

/* "SECONDS" or "label:NAME" (and "#N" after NAME when @is_stop). */
static bool
parse_bound(struct span v, const struct setting *set, bool is_stop, struct hesper_capture_bound *out)
{
	struct hesper_capture_bound b = { 0 };

	if (v.len >= 6 && equals_nocase((struct span){ v.p, 6 }, "label:")) {
		struct span name = { v.p + 6, v.len - 6 };
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
				struct span count = { hash + 1, (size_t)(name.p + name.len - hash - 1) };

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
	if (!parse_seconds(v, &b.ns) || b.ns < set->min || b.ns > set->max)
		return false;
	*out = b;
	return true;
}

void
hesper_capture_bound_format(const struct hesper_capture_bound *b, bool is_stop, char *out, size_t size)
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
static void
quote(char *dst, struct span v)
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

static void
reject_value(FILE *err, const char *name, struct span value, const char *expected)
{
	quoted q;

	if (!err)
		return;
	quote(q, value);
	fprintf(err, "hesper: ignoring %s='%s': expected %s\n", name, q, expected);
	fflush(err);
}

static void
reject_name(FILE *err, struct span name)
{
	char line[sizeof(quoted) + 64 + SETTING_COUNT * 32];
	quoted q;
	size_t o;

	if (!err)
		return;
	quote(q, name);
	/* Built whole and written once, so that it stays one line among other output. */
	o = (size_t)snprintf(line, sizeof line, "hesper: unknown setting %s (known: ", q);
	for (size_t i = 0; i < SETTING_COUNT && o < sizeof line; i++)
		o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", i ? ", " : "", settings[i].name);
	if (o < sizeof line)
		snprintf(line + o, sizeof line - o, ")\n");
	fputs(line, err);
	fflush(err);
}

static const struct setting *
find_setting(struct span name)
{
	for (size_t i = 0; i < SETTING_COUNT; i++) {
		if (strlen(settings[i].name) == name.len && memcmp(settings[i].name, name.p, name.len) == 0)
			return &settings[i];
	}
	return NULL;
}

/*
 * A setting that is one of two words, @off then @on: sets *@out (true for @on); 0, or -1
 * with the error line on @err.
 */
static int
apply_switch(const struct setting *set, struct span v, struct span raw, const char *off, const char *on, bool *out,
	     FILE *err)
{
	const char *const words[] = { off, on };
	int i = word_index(v, words, 2);
	char expected[64];

	if (i >= 0) {
		*out = i == 1;
		return 0;
	}
	snprintf(expected, sizeof expected, "%s or %s", on, off);
	reject_value(err, set->name, raw, expected);
	return -1;
}

static int
apply_value(struct hesper_settings *s, const struct setting *set, const char *value, FILE *err)
{
	struct span raw = { value ? value : "", value ? strlen(value) : 0 };
	struct span v = trim(raw);
	char expected[96];
	uint64_t n;
	bool b;

	switch (set->kind) {
	case SETTING_REPORT:
	case SETTING_FINDINGS:
		return 0;
	case SETTING_MODE: {
		/* In enum hesper_mode's order. */
		static const char *const modes[] = { "dispatch", "submit", "clock" };
		int i = word_index(v, modes, 3);
		if (i >= 0) {
			s->mode = (enum hesper_mode)i;
			return 0;
		}
		reject_value(err, set->name, raw, "dispatch, submit or clock");
		return -1;
	}
	case SETTING_COPY: {
		/* In enum hesper_copy's order. */
		static const char *const copies[] = { "auto", "wait", "host" };
		int i = word_index(v, copies, 3);
		if (i >= 0) {
			s->copy = (enum hesper_copy)i;
			return 0;
		}
		reject_value(err, set->name, raw, "auto, wait or host");
		return -1;
	}
	case SETTING_INDIRECT:
		return apply_switch(set, v, raw, "off", "read", &s->indirect_args, err);
	case SETTING_CLOCK_ISOLATED:
		return apply_switch(set, v, raw, "span", "barriers", &s->clock_isolated, err);
	case SETTING_TRACE_ALL:
	case SETTING_DISABLE:
		if (parse_bool(v, &b)) {
			if (set->kind == SETTING_TRACE_ALL)
				s->trace_all = b;
			else
				s->disabled = b;
			return 0;
		}
		reject_value(err, set->name, raw, "1, 0, true, false, yes, no, on or off");
		return -1;
	case SETTING_INTERVAL:
		if (parse_seconds(v, &n) && n % 1000000ull == 0 && n / 1000000ull >= set->min &&
		    n / 1000000ull <= set->max) {
			s->interval_ms = (uint32_t)(n / 1000000ull);
			return 0;
		}
		reject_value(err, set->name, raw, "seconds from 0.1 to 86400, at most 3 decimals (e.g. 5 or 0.5)");
		return -1;
	case SETTING_REPORT_SIGNAL: {
		int sig;

		if (parse_signal(v, &sig)) {
			s->report_signal = sig;
			return 0;
		}
		reject_value(err, set->name, raw,
			     "a signal name or number: HUP, QUIT, USR1, USR2, ALRM, WINCH, URG, PWR, PROF, VTALRM, "
			     "XCPU, XFSZ, IO, STKFLT, RTMIN+N or RTMAX-N");
		return -1;
	}
	case SETTING_CONTROL:
		if (v.len > 0 && v.len < sizeof s->control_path) {
			memcpy(s->control_path, v.p, v.len);
			s->control_path[v.len] = '\0';
			return 0;
		}
		reject_value(err, set->name, raw, "a file path (not empty, under 4096 bytes)");
		return -1;
	case SETTING_START:
	case SETTING_STOP: {
		bool is_stop = set->kind == SETTING_STOP;

		if (parse_bound(v, set, is_stop, is_stop ? &s->stop : &s->start))
			return 0;
		reject_value(err, set->name, raw,
			     is_stop ? "seconds after the window opened (0.001 to 1e9, e.g. 2.5), label:NAME or "
				       "label:NAME#N (N from 1)"
				     : "seconds after the start (0 to 1e9, e.g. 2.5) or label:NAME");
		return -1;
	}
	case SETTING_SAMPLE:
	case SETTING_MAX_EVENTS:
	case SETTING_EXIT_TIMEOUT_MS:
	case SETTING_MAX_QUERIES:
		if (!parse_number(v, set->min, set->max, &n)) {
			snprintf(expected, sizeof expected, "a whole number from %llu to %llu",
				 (unsigned long long)set->min, (unsigned long long)set->max);
			reject_value(err, set->name, raw, expected);
			return -1;
		}
		if (set->kind == SETTING_SAMPLE)
			s->sample_every = (uint32_t)n;
		else if (set->kind == SETTING_MAX_EVENTS)
			s->max_events = n;
		else if (set->kind == SETTING_MAX_QUERIES)
			s->max_queries = n;
		else
			s->exit_timeout_ms = (uint32_t)n;
		return 0;
	}
	return -1;
}

/*
 * HESPER_REPORT is known (it is listed, and not reported as unknown) but belongs to
 * the sinks: applying it here changes nothing and succeeds.
 */
int
hesper_settings_apply(struct hesper_settings *s, const char *name, const char *value, FILE *err)
{
	struct span n = { name ? name : "", name ? strlen(name) : 0 };
	const struct setting *set = find_setting(n);

	if (!set) {
		reject_name(err, n);
		return -1;
	}
	return apply_value(s, set, value, err);
}

int
hesper_settings_from_env(struct hesper_settings *s, char *const *environ_vars, FILE *err)
{
	int rejected = 0;

	hesper_settings_default(s);
	if (!environ_vars)
		return 0;
	for (char *const *e = environ_vars; *e; e++) {
		const char *var = *e;
		const char *eq;
		struct span name;
		const struct setting *set;

		if (strncmp(var, PREFIX, strlen(PREFIX)) != 0)
			continue;
		eq = strchr(var, '=');
		if (!eq)
			continue; /* not NAME=VALUE: not a variable the process can read either */
		name.p = var;
		name.len = (size_t)(eq - var);
		set = find_setting(name);
		if (!set) {
			reject_name(err, name);
			rejected++;
			continue;
		}
		if (set->kind == SETTING_REPORT || set->kind == SETTING_FINDINGS)
			continue;
		if (apply_value(s, set, eq + 1, err) != 0)
			rejected++;
	}
	return rejected;
}
