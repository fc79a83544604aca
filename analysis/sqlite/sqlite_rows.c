/* The steps that add a row to the database, shared by its writers (report_sqlite_parts.h). */
#include <stdio.h>

#include "model/model.h"
#include "report_sqlite_parts.h"
#include "sqlite_calls.h"

int
hesper_sqlite_fail(sqlite3 *db, char *why, size_t size, const char *what)
{
	snprintf(why, size, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

int
hesper_sqlite_step(sqlite3 *db, sqlite3_stmt *stmt, char *why, size_t size)
{
	int rc = sqlite3_step(stmt);

	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	if (rc == SQLITE_DONE)
		return 0;
	return hesper_sqlite_fail(db, why, size, "cannot add a row");
}

int
hesper_sqlite_name_id(struct database *d, struct hesper_kernel_table *ids, int64_t *next, sqlite3_stmt *insert,
		      const char *name, int64_t *out_id, char *why, size_t size)
{
	struct hesper_kernel *row = hesper_kernel_table_get(ids, name ? name : "");

	if (!row) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	if (row->count == 0) {
		sqlite3_bind_int64(insert, 1, *next);
		sqlite3_bind_text(insert, 2, name ? name : "", -1, SQLITE_STATIC);
		if (hesper_sqlite_step(d->db, insert, why, size) != 0)
			return -1;
		row->count = (uint64_t)(*next)++;
	}
	*out_id = (int64_t)row->count;
	return 0;
}
