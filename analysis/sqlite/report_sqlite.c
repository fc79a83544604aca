/*
 * The SQLite database sink. The database is created complete with its schema under a
 * temporary name in PATH's folder and renamed over PATH before any row is added, so a
 * reader finds either the previous file or this run's database; from then on it is
 * written in place, and SQLite's transactions keep every reader on a committed state.
 *
 * Journal: WAL with synchronous=NORMAL. A commit per harvested batch then costs an append
 * to the WAL and no fsync (a crash of the program loses nothing committed; only a crash
 * of the machine may lose the last batches), and a reader (the sqlite3 shell during a
 * run) never blocks the collector nor is blocked by it. At close the journal goes back
 * to DELETE, which checkpoints and removes the -wal and -shm files: what is left is one
 * plain database file, readable from a read-only folder.
 *
 * Ids: process 1; device and queue ids are the profile's indexes plus 1; kernels and
 * regions get ids on first sight (a streamed event or the summary), kept in a name table.
 */
#include "report_sqlite.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile/profile.h"
#include "model/model.h"
#include "report_sqlite_parts.h"
#include "sqlite_calls.h"

static const char schema_sql[] =
	"CREATE TABLE hesper_schema(name TEXT NOT NULL, version INTEGER NOT NULL);\n"
	"CREATE TABLE process(id INTEGER PRIMARY KEY, pid INTEGER, exe TEXT, host TEXT, mode TEXT,\n"
	"  sample_every INTEGER, origin_ns INTEGER, wall_ns INTEGER, gpu_busy_ns INTEGER, dropped INTEGER,\n"
	"  clamped INTEGER, submits_count INTEGER, submits_total_ns INTEGER, calibrated INTEGER,\n"
	"  alignment_error_ns REAL);\n"
	"CREATE TABLE devices(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT,\n"
	"  driver TEXT, timestamp_period_ns REAL, copy TEXT);\n"
	"CREATE TABLE queues(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, device INTEGER, family INTEGER,\n"
	"  queue_index INTEGER, timestamp_bits INTEGER, submits INTEGER, busy_ns INTEGER);\n"
	"CREATE TABLE kernels(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, name TEXT NOT NULL, count INTEGER,\n"
	"  timed INTEGER, total_ns INTEGER, mean_ns REAL, median_ns INTEGER, min_ns INTEGER, max_ns INTEGER,\n"
	"  stddev_ns REAL, p95_ns INTEGER, p99_ns INTEGER, UNIQUE(process, name));\n"
	"CREATE TABLE regions(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, name TEXT NOT NULL, count INTEGER,\n"
	"  timed INTEGER, total_ns INTEGER, UNIQUE(process, name));\n"
	"CREATE TABLE dispatches(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, kernel INTEGER NOT NULL,\n"
	"  queue INTEGER, command_buffer INTEGER, submission INTEGER, start_ns INTEGER, end_ns INTEGER,\n"
	"  duration_ns INTEGER GENERATED ALWAYS AS (end_ns - start_ns) VIRTUAL,\n"
	"  groups_x INTEGER, groups_y INTEGER, groups_z INTEGER);\n"
	"CREATE TABLE region_spans(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, region INTEGER NOT NULL,\n"
	"  queue INTEGER, command_buffer INTEGER, submission INTEGER, start_ns INTEGER, end_ns INTEGER);\n"
	"CREATE TABLE submissions(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, queue INTEGER,\n"
	"  submission INTEGER, start_ns INTEGER, end_ns INTEGER);\n"
	"CREATE TABLE host_submits(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, queue INTEGER, thread INTEGER,\n"
	"  submission INTEGER, start_ns INTEGER, end_ns INTEGER);\n"
	"CREATE TABLE memory_ops(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, queue INTEGER,\n"
	"  command_buffer INTEGER, submission INTEGER, operation TEXT, bytes INTEGER, start_ns INTEGER,\n"
	"  end_ns INTEGER);\n"
	"CREATE TABLE host_waits(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, queue INTEGER, thread INTEGER,\n"
	"  call TEXT, start_ns INTEGER, end_ns INTEGER);\n"
	"CREATE TABLE pipeline_stats(process INTEGER NOT NULL, kernel TEXT NOT NULL, executable TEXT,\n"
	"  subgroup_size INTEGER, name TEXT NOT NULL, value, variant INTEGER, dispatches INTEGER);\n"
	"CREATE TABLE pipeline_occupancy(process INTEGER NOT NULL, kernel TEXT NOT NULL, share REAL,\n"
	"  groups_per_sm INTEGER, warps_per_sm INTEGER, device_groups INTEGER, limit_factor TEXT NOT NULL,\n"
	"  at_most INTEGER, why TEXT, variant INTEGER);\n"
	"CREATE TABLE hot_lines(process INTEGER NOT NULL, kernel TEXT NOT NULL, dispatches INTEGER, file TEXT,\n"
	"  line INTEGER, block TEXT, share REAL, cycles REAL, executions INTEGER, code TEXT);\n"
	"CREATE TABLE hot_line_sources(process INTEGER NOT NULL, kernel TEXT NOT NULL, file TEXT, text TEXT,\n"
	"  read_from TEXT);\n"
	"CREATE TABLE hesper_cost(process INTEGER PRIMARY KEY, timestamps_written INTEGER, hook_ns INTEGER,\n"
	"  submit_hook_ns INTEGER, collector_ns INTEGER, collected INTEGER, copies_ahead INTEGER,\n"
	"  events_streamed INTEGER, stream_ns INTEGER);\n"
	"CREATE INDEX dispatches_by_kernel ON dispatches(kernel, start_ns);\n"
	"CREATE INDEX dispatches_by_queue ON dispatches(queue, start_ns);\n"
	"CREATE INDEX region_spans_by_region ON region_spans(region, start_ns);\n"
	"CREATE INDEX submissions_by_queue ON submissions(queue, start_ns);\n";

static const char *const insert_sql[INSERT_COUNT] = {
	[INSERT_DISPATCH] = "INSERT INTO dispatches(process, kernel, queue, command_buffer, submission, start_ns,"
			    " end_ns, groups_x, groups_y, groups_z) VALUES(1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[INSERT_REGION_SPAN] = "INSERT INTO region_spans(process, region, queue, command_buffer, submission,"
			       " start_ns, end_ns) VALUES(1, ?, ?, ?, ?, ?, ?)",
	[INSERT_SUBMISSION] = "INSERT INTO submissions(process, queue, submission, start_ns, end_ns)"
			      " VALUES(1, ?, ?, ?, ?)",
	[INSERT_HOST_SUBMIT] = "INSERT INTO host_submits(process, queue, thread, submission, start_ns, end_ns)"
			       " VALUES(1, ?, ?, ?, ?, ?)",
	[INSERT_MEMORY_OP] = "INSERT INTO memory_ops(process, queue, command_buffer, submission, operation, bytes,"
			     " start_ns, end_ns) VALUES(1, ?, ?, ?, ?, ?, ?, ?)",
	[INSERT_HOST_WAIT] = "INSERT INTO host_waits(process, queue, thread, call, start_ns, end_ns)"
			     " VALUES(1, ?, ?, ?, ?, ?)",
	[INSERT_KERNEL_NAME] = "INSERT INTO kernels(id, process, name) VALUES(?, 1, ?)",
	[INSERT_REGION_NAME] = "INSERT INTO regions(id, process, name) VALUES(?, 1, ?)",
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs @sql (no rows expected); 0, or -1 with a reason. */
static int
exec(sqlite3 *db, const char *sql, char *why, size_t size)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	snprintf(why, size, "%s", msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

int
hesper_sqlite_create_schema(sqlite3 *db, char *why, size_t size)
{
	char version[128];

	if (hesper_sqlite_load(why, size) != 0)
		return -1;
	snprintf(version, sizeof(version), "INSERT INTO hesper_schema VALUES('%s', %d);", HESPER_SQLITE_SCHEMA_NAME,
		 HESPER_SQLITE_SCHEMA_VERSION);
	if (exec(db, "BEGIN", why, size) != 0)
		return -1;
	if (exec(db, schema_sql, why, size) != 0 || exec(db, version, why, size) != 0) {
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return exec(db, "COMMIT", why, size);
}

/* Removes @path's journal files (a previous database's WAL would otherwise be replayed into the new one). */
static void
remove_journals(const char *path)
{
	static const char *const suffixes[] = {"-wal", "-shm", "-journal"};
	size_t len = strlen(path);
	char *name = malloc(len + 16);

	if (!name)
		return;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(name, len + 16, "%s%s", path, suffixes[i]);
		(void)unlink(name);
	}
	free(name);
}

/* Creates the schema in a new file @tmp; 0, or -1 with a reason. */
static int
create_file(const char *tmp, char *why, size_t size)
{
	sqlite3 *db = NULL;
	int ret = -1;

	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK) {
		hesper_sqlite_fail(db, why, size, "cannot create it");
		goto out;
	}
	ret = hesper_sqlite_create_schema(db, why, size);
out:
	if (sqlite3_close(db) != SQLITE_OK && ret == 0)
		ret = hesper_sqlite_fail(db, why, size, "cannot close it");
	return ret;
}

static void
database_close(void *handle)
{
	struct database *d = handle;

	if (!d)
		return;
	for (size_t i = 0; i < INSERT_COUNT; i++)
		sqlite3_finalize(d->insert[i]);
	if (d->db) {
		/* Checkpoints and removes the WAL: one plain file is left. */
		(void)sqlite3_exec(d->db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
		sqlite3_close(d->db);
	}
	hesper_kernel_table_destroy(d->kernel_ids);
	hesper_kernel_table_destroy(d->region_ids);
	free(d);
}

static void *
database_open(const char *path, char *why, size_t size)
{
	struct database *d = calloc(1, sizeof(*d));
	char *tmp = hesper_sinks_temporary_name(path, ".db");
	struct stat st;

	if (!d || !tmp) {
		snprintf(why, size, "out of memory");
		goto fail;
	}
	if (hesper_sqlite_load(why, size) != 0)
		goto fail;
	d->kernel_ids = hesper_kernel_table_create();
	d->region_ids = hesper_kernel_table_create();
	d->next_kernel_id = d->next_region_id = 1;
	if (!d->kernel_ids || !d->region_ids) {
		snprintf(why, size, "out of memory");
		goto fail;
	}
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(why, size, "%s",
			 S_ISLNK(st.st_mode) ? "it is a symbolic link (Hesper does not follow one)"
					     : "it is not a regular file");
		goto fail;
	}
	(void)unlink(tmp);
	if (create_file(tmp, why, size) != 0) {
		(void)unlink(tmp);
		goto fail;
	}
	remove_journals(path);
	if (rename(tmp, path) != 0) {
		snprintf(why, size, "cannot rename the new database over it: %s", strerror(errno));
		(void)unlink(tmp);
		goto fail;
	}
	if (sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		hesper_sqlite_fail(d->db, why, size, "cannot open it");
		goto fail;
	}
	if (exec(d->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", why, size) != 0)
		goto fail;
	for (size_t i = 0; i < INSERT_COUNT; i++) {
		if (sqlite3_prepare_v3(d->db, insert_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &d->insert[i], NULL) !=
		    SQLITE_OK) {
			hesper_sqlite_fail(d->db, why, size, "cannot prepare a statement");
			goto fail;
		}
	}
	free(tmp);
	return d;
fail:
	free(tmp);
	database_close(d);
	return NULL;
}

static int64_t
queue_id(const struct hesper_trace_event *e)
{
	return (int64_t)e->queue + 1;
}

/* Inserts one event; 0, or -1 with a reason. */
/* Binds the integers @v[0..@n) to the parameters @first, @first + 1, ... of @s. */
static void
bind_ints(sqlite3_stmt *s, int first, const int64_t *v, int n)
{
	for (int i = 0; i < n; i++)
		sqlite3_bind_int64(s, first + i, v[i]);
}

#define BIND_INTS(s, first, ...)                                \
	bind_ints((s), (first), (const int64_t[]){__VA_ARGS__}, \
		  (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))

static int
add_event(struct database *d, const struct hesper_trace_event *e, char *why, size_t size)
{
	int64_t q = queue_id(e), cb = (int64_t)e->command_buffer, sub = (int64_t)e->submission;
	int64_t start = (int64_t)e->start_ns, end = (int64_t)e->end_ns;
	const char *name = e->name ? e->name : "";
	sqlite3_stmt *s;
	int64_t id;

	switch (e->kind) {
	case HESPER_TRACE_DISPATCH:
		if (hesper_sqlite_name_id(d, d->kernel_ids, &d->next_kernel_id, d->insert[INSERT_KERNEL_NAME], e->name,
					  &id, why, size) != 0)
			return -1;
		s = d->insert[INSERT_DISPATCH];
		BIND_INTS(s, 1, id, q, cb, sub, start, end, e->groups[0], e->groups[1], e->groups[2]);
		break;
	case HESPER_TRACE_REGION:
		if (hesper_sqlite_name_id(d, d->region_ids, &d->next_region_id, d->insert[INSERT_REGION_NAME], e->name,
					  &id, why, size) != 0)
			return -1;
		s = d->insert[INSERT_REGION_SPAN];
		BIND_INTS(s, 1, id, q, cb, sub, start, end);
		break;
	case HESPER_TRACE_BATCH:
		s = d->insert[INSERT_SUBMISSION];
		BIND_INTS(s, 1, q, sub, start, end);
		break;
	case HESPER_TRACE_HOST_SUBMIT:
		s = d->insert[INSERT_HOST_SUBMIT];
		BIND_INTS(s, 1, q, e->thread, sub, start, end);
		break;
	case HESPER_TRACE_MEMORY_OP:
		s = d->insert[INSERT_MEMORY_OP];
		BIND_INTS(s, 1, q, cb, sub);
		sqlite3_bind_text(s, 4, name, -1, SQLITE_STATIC);
		BIND_INTS(s, 5, (int64_t)e->bytes, start, end);
		break;
	case HESPER_TRACE_HOST_WAIT:
		s = d->insert[INSERT_HOST_WAIT];
		BIND_INTS(s, 1, q, e->thread);
		sqlite3_bind_text(s, 3, name, -1, SQLITE_STATIC);
		BIND_INTS(s, 4, start, end);
		break;
	default: return 0; /* a kind this schema does not know yet */
	}
	return hesper_sqlite_step(d->db, s, why, size);
}

static int
database_events(void *handle, const struct hesper_trace_event *events, size_t n, char *why, size_t size)
{
	struct database *d = handle;
	uint64_t t0 = now_ns();

	if (exec(d->db, "BEGIN", why, size) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (add_event(d, &events[i], why, size) != 0) {
			(void)sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	if (exec(d->db, "COMMIT", why, size) != 0) {
		(void)sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	d->events_streamed += n;
	d->stream_ns += now_ns() - t0;
	return 0;
}

static int
database_summary(void *handle, const struct hesper_profile *p, char *why, size_t size)
{
	struct database *d = handle;

	if (exec(d->db, "BEGIN", why, size) != 0)
		return -1;
	if (hesper_sqlite_write_summary(d, p, why, size) != 0) {
		(void)sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (exec(d->db, "COMMIT", why, size) != 0) {
		(void)sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

const struct hesper_database_ops hesper_sqlite_database = {
	.open = database_open,
	.events = database_events,
	.summary = database_summary,
	.close = database_close,
};
