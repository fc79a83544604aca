/*
 * Writing a profile to the sinks of a list (sinks.h): the standard streams, the files,
 * and, through sinks_database.c, the databases.
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

#include "write/write.h"
#include "sinks_parts.h"

/*
 * A write to a pipe whose reader has gone raises SIGPIPE, and its default action would
 * kill the program Hesper runs in. Block it while writing and swallow the one we caused
 * (a SIGPIPE already pending before is left for the program). And write numbers in the
 * "C" locale, whatever the program's (model/c_numbers.h).
 */
struct pipe_guard {
	sigset_t old;
	bool was_pending;
	locale_t locale; /* the thread's before */
};

static void
guard_begin(struct pipe_guard *g)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
	g->locale = hesper_c_numbers_begin();
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
	hesper_c_numbers_end(g->locale);
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
		fprintf(err, "hesper: cannot write text report to %s: %s\n", hesper_sink_kind_name(s->kind),
			strerror(errnum));
		return;
	}
	fprintf(err, "hesper: cannot write %s report to '%s': %s%s\n", hesper_sink_kind_name(s->kind), s->path,
		strerror(errnum), errnum == ELOOP ? " (Hesper does not follow a symbolic link at PATH)" : "");
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
		case HESPER_SINK_STDERR: {
			FILE *out = s->kind == HESPER_SINK_STDERR ? stderr
				    : list->stdout_stream         ? list->stdout_stream
								  : stdout;
			errno = 0;
			ret = hesper_report_text(out, p);
			if (ret != 0) {
				int errnum = errno ? errno : EIO;
				/* stdio keeps the error flag; later writes by the program should not see ours. */
				clearerr(out);
				if (!s->failed)
					report_failure(err, s, errnum);
				s->failed = true;
			}
			break;
		}
		case HESPER_SINK_SQLITE: ret = hesper_sinks_write_database(list, s, p, err); break;
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
