/*
 * What the SQLite sink's files share (report_sqlite.c: the database, its schema and the
 * streamed events; report_sqlite_summary.c: the summary tables): the open database with
 * its statements, and the steps that add a row (sqlite_rows.c).
 */
#ifndef HESPER_REPORT_SQLITE_PARTS_H
#define HESPER_REPORT_SQLITE_PARTS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* The one process of a run's database (merged databases number theirs). */
#define PROCESS_ID 1

/* The statements that insert one streamed event, by kind. */
enum insert_kind {
	INSERT_DISPATCH,
	INSERT_REGION_SPAN,
	INSERT_SUBMISSION,
	INSERT_HOST_SUBMIT,
	INSERT_MEMORY_OP,
	INSERT_HOST_WAIT,
	INSERT_KERNEL_NAME,
	INSERT_REGION_NAME,
	INSERT_COUNT,
};

struct database {
	sqlite3 *db;
	sqlite3_stmt *insert[INSERT_COUNT];
	/* Name -> id: the row's count field holds the id (the tables' other fields are unused). */
	struct hesper_kernel_table *kernel_ids, *region_ids;
	int64_t next_kernel_id, next_region_id;
	uint64_t events_streamed;
	uint64_t stream_ns; /* time spent adding events */
};

/* Fills @why with @what and SQLite's message for @db; returns -1. */
int hesper_sqlite_fail(sqlite3 *db, char *why, size_t size, const char *what);

/* Steps @stmt once and resets it; 0, or -1 with a reason. */
int hesper_sqlite_step(sqlite3 *db, sqlite3_stmt *stmt, char *why, size_t size);

/*
 * The id of @name in @ids, added (with its row in the kernels or regions table through
 * @insert) on first sight. 0, or -1 with a reason.
 */
int hesper_sqlite_name_id(struct database *d, struct hesper_kernel_table *ids, int64_t *next, sqlite3_stmt *insert,
			  const char *name, int64_t *out_id, char *why, size_t size);

/* Writes the summary tables of @p into @d (inside the caller's transaction); 0, or -1 with a reason. */
int hesper_sqlite_write_summary(struct database *d, const struct hesper_profile *p, char *why, size_t size);

#endif
