/*
 * HESPER_REPORT: a comma-separated list of sinks, and writing a profile to each.
 *   stdout | stderr | text:PATH | json:PATH | csv:PATH | trace:PATH | html:PATH | memcsv:PATH
 * PATH may hold %p (pid), %h (host name) and %% (a percent sign).
 */
#ifndef HESPER_SINKS_H
#define HESPER_SINKS_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"

enum hesper_sink_kind {
	HESPER_SINK_STDOUT,
	HESPER_SINK_STDERR,
	HESPER_SINK_TEXT,
	HESPER_SINK_JSON,
	HESPER_SINK_CSV,
	HESPER_SINK_TRACE,
	HESPER_SINK_HTML,
	HESPER_SINK_MEMOPS_CSV, /* the memory-operation table as CSV (report_csv.c) */
};

struct hesper_sink {
	enum hesper_sink_kind kind;
	char *path; /* expanded; NULL for stdout and stderr */
};

struct hesper_sink_list {
	struct hesper_sink *items;
	size_t count;
};

/* The accepted forms, for error messages. */
#define HESPER_SINK_FORMS "stdout, stderr, text:PATH, json:PATH, csv:PATH, trace:PATH, html:PATH, memcsv:PATH"

/*
 * Parses @spec (NULL or empty means the default, text to stderr) into @out. Each bad
 * entry gets one line on @err naming it and the accepted forms and is skipped; the rest
 * are kept. Returns the number of bad entries, or -1 when memory runs out.
 */
int hesper_sinks_parse(const char *spec, int pid, const char *host, struct hesper_sink_list *out, FILE *err);

/* Frees what @list holds. */
void hesper_sinks_free(struct hesper_sink_list *list);

/*
 * Writes @p to every sink of @list. A sink that cannot be opened or written gets one line
 * on @err; the others are still written. Files are created without following a symbolic
 * link at PATH, with mode 0666 less the umask. Returns the number of sinks that failed.
 */
int hesper_sinks_write(const struct hesper_sink_list *list, const struct hesper_profile *p, FILE *err);

#endif
