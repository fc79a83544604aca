/*
 * HESPER_REPORT: a comma-separated list of sinks, and writing a profile to each.
 *   stdout | stderr | text:PATH | json:PATH | csv:PATH | trace:PATH | html:PATH
 *   | sqlite:PATH | prom:PATH | memcsv:PATH
 * PATH may hold %p (pid), %h (host name) and %% (a percent sign).
 *
 * Sinks may be written many times in one run (periodic rewrites, then the exit report).
 * A file sink is replaced whole each time: written to a temporary file in PATH's folder,
 * then renamed over PATH, so a reader sees the previous file or the new one, never half
 * of one. The SQLite database is the exception: it is one file written in place by
 * SQLite's transactions (a reader sees the last committed state), created fresh once per
 * run and fed every timeline event as it is harvested (hesper_sinks_stream).
 */
#ifndef HESPER_SINKS_H
#define HESPER_SINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"

enum hesper_sink_kind {
	HESPER_SINK_STDOUT,
	HESPER_SINK_STDERR,
	HESPER_SINK_TEXT,
	HESPER_SINK_JSON,
	HESPER_SINK_CSV,
	HESPER_SINK_TRACE,
	HESPER_SINK_HTML,
	HESPER_SINK_SQLITE,
	HESPER_SINK_PROM,
	HESPER_SINK_MEMOPS_CSV, /* the memory-operation table as CSV (report_csv.c) */
};

struct hesper_sink {
	enum hesper_sink_kind kind;
	char *path;  /* expanded; NULL for stdout and stderr */
	void *store; /* SQLITE: the open database (struct hesper_database_ops), NULL until first used */
	bool failed; /* its failure was reported: not reported again; a database is given up (or closed) */
};

/*
 * The SQLite writer lives outside the public analysis library (which must not need
 * libsqlite3): whoever links it (the layer, the `hesper` tool) hands its operations to
 * the list. Without them an sqlite: sink reports once that it is not available.
 */
struct hesper_database_ops {
	/* Creates a fresh database at @path; NULL with a reason in @why (@size bytes) on failure. */
	void *(*open)(const char *path, char *why, size_t size);
	/* Adds @n timeline events in one transaction; 0, or -1 with a reason in @why. */
	int (*events)(void *db, const struct hesper_trace_event *events, size_t n, char *why, size_t size);
	/* Writes (or refreshes) the summary tables from @p in one transaction; 0, or -1 with a reason. */
	int (*summary)(void *db, const struct hesper_profile *p, char *why, size_t size);
	/* Closes the database (NULL allowed). */
	void (*close)(void *db);
};

struct hesper_sink_list {
	struct hesper_sink *items;
	size_t count;
	const struct hesper_database_ops *database; /* NULL: sqlite sinks are not available */
	FILE *stdout_stream;                        /* where the stdout sink writes; NULL: stdout */
};

/* The accepted forms, for error messages. */
#define HESPER_SINK_FORMS \
	"stdout, stderr, text:PATH, json:PATH, csv:PATH, trace:PATH, html:PATH, sqlite:PATH, prom:PATH, memcsv:PATH"

/*
 * Parses @spec (NULL or empty means the default, text to stderr) into @out. Each bad
 * entry gets one line on @err naming it and the accepted forms and is skipped; the rest
 * are kept. Returns the number of bad entries, or -1 when memory runs out.
 */
int hesper_sinks_parse(const char *spec, int pid, const char *host, struct hesper_sink_list *out, FILE *err);

/* Frees what @list holds, closing open databases first. */
void hesper_sinks_free(struct hesper_sink_list *list);

/*
 * Writes @p to every sink of @list (a database gets its summary tables refreshed). A sink
 * that cannot be opened or written gets one line on @err the first time it fails; the
 * others are still written. A file is replaced by renaming a temporary file of the same
 * folder over PATH (an existing FIFO or device at PATH is written directly); it is never
 * created through a symbolic link at PATH, and gets mode 0666 less the umask. Returns the
 * number of sinks that failed.
 */
int hesper_sinks_write(const struct hesper_sink_list *list, const struct hesper_profile *p, FILE *err);

/* hesper_sinks_write, or with @files_only only the sinks with a PATH (a report while the program runs). */
int hesper_sinks_write_some(const struct hesper_sink_list *list, const struct hesper_profile *p, bool files_only,
			    FILE *err);

/* True when a sink of @list takes every timeline event (hesper_sinks_stream): an sqlite sink. */
bool hesper_sinks_streaming(const struct hesper_sink_list *list);

/*
 * Hands @n timeline events to every streaming sink, one transaction each; a sink that
 * fails gets one line on @err and is given up. Returns the number of sinks that failed.
 * Calls for one list must not overlap (the caller serialises them with the writes).
 */
int hesper_sinks_stream(const struct hesper_sink_list *list, const struct hesper_trace_event *events, size_t n,
			FILE *err);

/*
 * A fresh name for a temporary file next to @path: "<folder>/.hesper-<pid>-<n><suffix>"
 * (@suffix at most 16 bytes, e.g. ".tmp"). The caller frees it; NULL when memory runs out.
 */
char *hesper_sinks_temporary_name(const char *path, const char *suffix);

/* Closes what the sinks hold open (the databases); writes nothing. */
void hesper_sinks_close(const struct hesper_sink_list *list);

#endif
