/*
 * The sqlite: sinks of a list (sinks.h): each database opened on first use through the
 * operations the list was handed (struct hesper_database_ops, which keep libsqlite3 out
 * of the public library), fed timeline events as they come (hesper_sinks_stream) and its
 * summary tables refreshed with every report (hesper_sinks_write_database). A database
 * that fails once is given up for the rest of the run: told once, left as it was, and
 * the other sinks go on.
 */
#include "sinks.h"

#include <stdbool.h>
#include <stdio.h>

#include "sinks_parts.h"

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

int
hesper_sinks_write_database(const struct hesper_sink_list *list, struct hesper_sink *s, const struct hesper_profile *p,
			    FILE *err)
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
