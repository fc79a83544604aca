/*
 * HESPER_REPORT parsing and writing the reports to their sinks.
 *
 * Parsing: entries are separated by commas and trimmed of white space; so is the PATH
 * after "kind:". A spec that is empty or only white space means the default (text on
 * stderr); an empty entry inside a list ("a,,b", "a,") is an error, as are an unknown
 * kind, an empty PATH, a '%' other than %p/%h/%%, and a PATH over 4096 bytes once
 * expanded. Each bad entry gets one line and is skipped; the others are kept.
 *
 * Writing never ends the process: errors become lines on @err, and SIGPIPE (a reader
 * that went away) is blocked and swallowed while Hesper writes.
 */
#include "sinks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

#define PATH_LIMIT 4096 /* bytes of an expanded PATH */
#define QUOTE_LIMIT 80  /* bytes of a bad entry quoted in an error line */

struct kind_name {
	const char *name;
	enum hesper_sink_kind kind;
};

static const struct kind_name path_kinds[] = {
	{"text", HESPER_SINK_TEXT},   {"json", HESPER_SINK_JSON},         {"csv", HESPER_SINK_CSV},
	{"trace", HESPER_SINK_TRACE}, {"html", HESPER_SINK_HTML},         {"sqlite", HESPER_SINK_SQLITE},
	{"prom", HESPER_SINK_PROM},   {"memcsv", HESPER_SINK_MEMOPS_CSV},
};
#define PATH_KIND_COUNT (sizeof(path_kinds) / sizeof(path_kinds[0]))

static const char *
kind_name(enum hesper_sink_kind kind)
{
	switch (kind) {
	case HESPER_SINK_STDOUT: return "stdout";
	case HESPER_SINK_STDERR: return "stderr";
	default: break;
	}
	for (size_t i = 0; i < PATH_KIND_COUNT; i++)
		if (path_kinds[i].kind == kind)
			return path_kinds[i].name;
	return "?";
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
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
		if (len == 6 && memcmp(e, "stdout", 6) == 0)
			return add_sink(out, HESPER_SINK_STDOUT, NULL);
		if (len == 6 && memcmp(e, "stderr", 6) == 0)
			return add_sink(out, HESPER_SINK_STDERR, NULL);
		bad_entry(err, e, len, "is not a known sink");
		return 1;
	}

	size_t kind_len = (size_t)(colon - e);
	const struct kind_name *kind = NULL;

	for (size_t i = 0; i < PATH_KIND_COUNT; i++)
		if (strlen(path_kinds[i].name) == kind_len && memcmp(path_kinds[i].name, e, kind_len) == 0)
			kind = &path_kinds[i];
	if (!kind) {
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
	if (add_sink(out, kind->kind, path) != 0) {
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

/*
 * A write to a pipe whose reader has gone raises SIGPIPE, and its default action would
 * kill the program Hesper runs in. Block it while writing and swallow the one we caused
 * (a SIGPIPE already pending before is left for the program).
 */
struct pipe_guard {
	sigset_t old;
	bool was_pending;
};

static void
guard_begin(struct pipe_guard *g)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
}

static void
guard_end(struct pipe_guard *g)
{
	int saved = errno;

	if (!g->was_pending) {
		sigset_t set, pending;
		struct timespec zero = {0, 0};

		sigemptyset(&set);
		sigaddset(&set, SIGPIPE);
		if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1)
			(void)sigtimedwait(&set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	errno = saved;
}

static int
write_report(FILE *f, enum hesper_sink_kind kind, const struct hesper_profile *p)
{
	switch (kind) {
	case HESPER_SINK_JSON: return hesper_report_json(f, p);
	case HESPER_SINK_CSV: return hesper_report_csv(f, p);
	case HESPER_SINK_TRACE: return hesper_report_trace(f, p);
	case HESPER_SINK_HTML: return hesper_report_html(f, p);
	case HESPER_SINK_PROM: return hesper_report_prom(f, p);
	case HESPER_SINK_MEMOPS_CSV: return hesper_report_memops_csv(f, p);
	default: return hesper_report_text(f, p);
	}
}

/* Opens @path for writing: never through a symbolic link, never hanging on a FIFO without a reader. */
static FILE *
open_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0666);
	FILE *f;

	if (fd < 0)
		return NULL;
	/* O_NONBLOCK was only for the open; writes should block as usual. */
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	f = fdopen(fd, "w");
	if (!f) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return f;
}

/* Writes @p into the open @f and closes it; 0, or -1 with errno set. */
static int
write_and_close(FILE *f, enum hesper_sink_kind kind, const struct hesper_profile *p)
{
	int ret, saved;

	errno = 0;
	ret = write_report(f, kind, p);
	saved = errno ? errno : EIO;
	if (fclose(f) != 0 && ret == 0) {
		ret = -1;
		saved = errno;
	}
	errno = saved;
	return ret;
}

/* Writes straight into @path (a FIFO, a device, or a file whose folder Hesper cannot write). */
static int
write_in_place(const struct hesper_sink *s, const struct hesper_profile *p)
{
	FILE *f = open_file(s->path);

	return f ? write_and_close(f, s->kind, p) : -1;
}

/*
 * Short whatever PATH's own name is, and hidden, so that collectors reading "*.prom" or
 * "*.json" in the folder never pick it up.
 */
char *
hesper_sinks_temporary_name(const char *path, const char *suffix)
{
	static atomic_uint counter;
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp = malloc(dir_len + 64);

	if (!tmp)
		return NULL;
	memcpy(tmp, path, dir_len);
	snprintf(tmp + dir_len, 64, ".hesper-%d-%u%.16s", (int)getpid(), atomic_fetch_add(&counter, 1), suffix);
	return tmp;
}

/*
 * Writes one file sink; 0, or -1 with errno set. A regular file (or none yet) at PATH is
 * replaced whole: the report goes to a temporary file in the same folder, renamed over
 * PATH once complete, so that a reader (a periodic rewrite may happen while one reads)
 * never sees half a report. A symbolic link at PATH is refused, as when opening it.
 */
static int
write_file(const struct hesper_sink *s, const struct hesper_profile *p)
{
	struct stat st;
	char *tmp = NULL;
	FILE *f = NULL;
	int fd = -1, ret = -1, saved = 0;

	if (lstat(s->path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			return -1;
		}
		if (!S_ISREG(st.st_mode))
			return write_in_place(s, p);
	}
	tmp = hesper_sinks_temporary_name(s->path, ".tmp");
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		saved = errno;
		/* A file Hesper may write in a folder it may not: written in place, as before. */
		if (saved == EACCES && lstat(s->path, &st) == 0 && S_ISREG(st.st_mode)) {
			free(tmp);
			return write_in_place(s, p);
		}
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		saved = errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (write_and_close(f, s->kind, p) != 0) {
		saved = errno;
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, s->path) != 0) {
		saved = errno;
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	errno = saved;
	return ret;
}

static void
report_failure(FILE *err, const struct hesper_sink *s, int errnum)
{
	if (!err)
		return;
	if (s->kind == HESPER_SINK_PROM) {
		fprintf(err, "hesper: cannot write Prometheus metrics to '%s': %s%s\n", s->path, strerror(errnum),
			errnum == ELOOP ? " (Hesper does not follow a symbolic link at PATH)" : "");
		return;
	}
	if (!s->path) {
		fprintf(err, "hesper: cannot write text report to %s: %s\n", kind_name(s->kind), strerror(errnum));
		return;
	}
	fprintf(err, "hesper: cannot write %s report to '%s': %s%s\n", kind_name(s->kind), s->path, strerror(errnum),
		errnum == ELOOP ? " (Hesper does not follow a symbolic link at PATH)" : "");
}

/* The database of @s, opened on first use; NULL once it failed (reported once on @err). */
static void *
database_of(const struct hesper_sink_list *list, struct hesper_sink *s, FILE *err)
{
	char why[256] = "";

	if (s->store || s->failed)
		return s->store;
	if (!list->database)
		snprintf(why, sizeof(why), "this build of Hesper has no SQLite support");
	else
		s->store = list->database->open(s->path, why, sizeof(why));
	if (!s->store) {
		s->failed = true;
		if (err)
			fprintf(err, "hesper: cannot write SQLite database '%s': %s; the other sinks go on\n", s->path,
				why);
	}
	return s->store;
}

/* Gives up the database of @s after the error @why: one line, and no more writes to it. */
static void
database_failed(const struct hesper_sink_list *list, struct hesper_sink *s, const char *why, FILE *err)
{
	if (err)
		fprintf(err,
			"hesper: cannot write SQLite database '%s': %s; it is left as it was, the other sinks go on\n",
			s->path, why);
	list->database->close(s->store);
	s->store = NULL;
	s->failed = true;
}

/* Refreshes the summary tables of the database of @s; 0, or -1 (reported once). */
static int
write_database(const struct hesper_sink_list *list, struct hesper_sink *s, const struct hesper_profile *p, FILE *err)
{
	char why[256] = "";
	void *db = database_of(list, s, err);

	if (!db)
		return -1;
	if (list->database->summary(db, p, why, sizeof(why)) != 0) {
		database_failed(list, s, why, err);
		return -1;
	}
	return 0;
}

bool
hesper_sinks_streaming(const struct hesper_sink_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->items[i].kind == HESPER_SINK_SQLITE && !list->items[i].failed)
			return true;
	return false;
}

int
hesper_sinks_stream(const struct hesper_sink_list *list, const struct hesper_trace_event *events, size_t n, FILE *err)
{
	int failed = 0;

	for (size_t i = 0; i < list->count; i++) {
		struct hesper_sink *s = &list->items[i];
		char why[256] = "";
		void *db;

		if (s->kind != HESPER_SINK_SQLITE || n == 0)
			continue;
		db = database_of(list, s, err);
		if (!db) {
			failed++;
			continue;
		}
		if (list->database->events(db, events, n, why, sizeof(why)) != 0) {
			database_failed(list, s, why, err);
			failed++;
		}
	}
	if (failed && err)
		fflush(err);
	return failed;
}

void
hesper_sinks_close(const struct hesper_sink_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		struct hesper_sink *s = &list->items[i];

		if (s->store && list->database)
			list->database->close(s->store);
		s->store = NULL;
		/* Closed for good: a later write must not create a new database over this one. */
		if (s->kind == HESPER_SINK_SQLITE)
			s->failed = true;
	}
}

int
hesper_sinks_write(const struct hesper_sink_list *list, const struct hesper_profile *p, FILE *err)
{
	return hesper_sinks_write_some(list, p, false, err);
}

int
hesper_sinks_write_some(const struct hesper_sink_list *list, const struct hesper_profile *p, bool files_only, FILE *err)
{
	struct pipe_guard guard;
	int failed = 0;

	guard_begin(&guard);
	for (size_t i = 0; i < list->count; i++) {
		struct hesper_sink *s = &list->items[i];
		int ret;

		if (files_only && !s->path)
			continue;
		switch (s->kind) {
		case HESPER_SINK_STDOUT:
		case HESPER_SINK_STDERR:
			errno = 0;
			ret = hesper_report_text(s->kind == HESPER_SINK_STDOUT ? stdout : stderr, p);
			if (ret != 0) {
				int errnum = errno ? errno : EIO;
				/* stdio keeps the error flag; later writes by the program should not see ours. */
				clearerr(s->kind == HESPER_SINK_STDOUT ? stdout : stderr);
				if (!s->failed)
					report_failure(err, s, errnum);
				s->failed = true;
			}
			break;
		case HESPER_SINK_SQLITE: ret = write_database(list, s, p, err); break;
		default:
			ret = write_file(s, p);
			/* Rewritten many times a run: its failure is told once. */
			if (ret != 0 && !s->failed) {
				report_failure(err, s, errno);
				s->failed = true;
			}
			break;
		}
		failed += ret != 0;
	}
	if (err)
		fflush(err);
	guard_end(&guard);
	return failed;
}
