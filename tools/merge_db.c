/*
 * hesper merge -o OUT.db A.db B.db...: the SQLite databases of many processes as one.
 * Every row is copied; the ids each database gave its processes, devices, queues,
 * kernels and regions are shifted past those already in OUT, and every reference with
 * them, so the processes stay distinct (kernels of the same name in two processes are two
 * rows: `GROUP BY name` adds them up). OUT is built under a temporary name in its folder
 * and renamed over OUT when complete; one transaction per input.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "sqlite/sqlite.h"

/* The copy of one table: @columns read from src (with :po, :do, :qo, :ko, :ro offsets). */
struct table_copy {
	const char *table;
	const char *into;   /* the columns written */
	const char *select; /* the expressions read */
};

static const struct table_copy copies[] = {
	{"process",
	 "id, pid, exe, host, mode, sample_every, origin_ns, wall_ns, gpu_busy_ns, dropped, clamped, submits_count,"
	 " submits_total_ns, calibrated, alignment_error_ns",
	 "id + :po, pid, exe, host, mode, sample_every, origin_ns, wall_ns, gpu_busy_ns, dropped, clamped,"
	 " submits_count, submits_total_ns, calibrated, alignment_error_ns"},
	{"devices", "id, process, idx, name, driver, timestamp_period_ns, copy",
	 "id + :do, process + :po, idx, name, driver, timestamp_period_ns, copy"},
	{"queues", "id, process, device, family, queue_index, timestamp_bits, submits, busy_ns",
	 "id + :qo, process + :po, device + :do, family, queue_index, timestamp_bits, submits, busy_ns"},
	{"kernels",
	 "id, process, name, count, timed, total_ns, mean_ns, median_ns, min_ns, max_ns, stddev_ns, p95_ns, p99_ns",
	 "id + :ko, process + :po, name, count, timed, total_ns, mean_ns, median_ns, min_ns, max_ns, stddev_ns, p95_ns,"
	 " p99_ns"},
	{"regions", "id, process, name, count, timed, total_ns",
	 "id + :ro, process + :po, name, count, timed, total_ns"},
	{"dispatches",
	 "process, kernel, queue, command_buffer, submission, start_ns, end_ns, groups_x, groups_y, groups_z",
	 "process + :po, kernel + :ko, queue + :qo, command_buffer, submission, start_ns, end_ns, groups_x, groups_y,"
	 " groups_z"},
	{"region_spans", "process, region, queue, command_buffer, submission, start_ns, end_ns",
	 "process + :po, region + :ro, queue + :qo, command_buffer, submission, start_ns, end_ns"},
	{"submissions", "process, queue, submission, start_ns, end_ns",
	 "process + :po, queue + :qo, submission, start_ns, end_ns"},
	{"host_submits", "process, queue, thread, submission, start_ns, end_ns",
	 "process + :po, queue + :qo, thread, submission, start_ns, end_ns"},
	{"memory_ops", "process, queue, command_buffer, submission, operation, bytes, start_ns, end_ns",
	 "process + :po, queue + :qo, command_buffer, submission, operation, bytes, start_ns, end_ns"},
	{"host_waits", "process, queue, thread, call, start_ns, end_ns",
	 "process + :po, queue + :qo, thread, call, start_ns, end_ns"},
	{"pipeline_stats", "process, kernel, executable, subgroup_size, name, value, variant, dispatches",
	 "process + :po, kernel, executable, subgroup_size, name, value, variant, dispatches"},
	{"pipeline_occupancy",
	 "process, kernel, share, groups_per_sm, warps_per_sm, device_groups, limit_factor, at_most, why, variant",
	 "process + :po, kernel, share, groups_per_sm, warps_per_sm, device_groups, limit_factor, at_most, why,"
	 " variant"},
	{"hot_lines", "process, kernel, dispatches, file, line, block, share, cycles, executions, code",
	 "process + :po, kernel, dispatches, file, line, block, share, cycles, executions, code"},
	{"hot_line_sources", "process, kernel, file, text, read_from", "process + :po, kernel, file, text, read_from"},
	{"hesper_cost",
	 "process, timestamps_written, hook_ns, submit_hook_ns, collector_ns, collected, copies_ahead, events_streamed,"
	 " stream_ns",
	 "process + :po, timestamps_written, hook_ns, submit_hook_ns, collector_ns, collected, copies_ahead,"
	 " events_streamed, stream_ns"},
};

/* Offsets by parameter name: the largest id of each table in OUT before an input is copied. */
static const struct {
	const char *param, *table;
} offsets[] = {
	{":po", "process"}, {":do", "devices"}, {":qo", "queues"}, {":ko", "kernels"}, {":ro", "regions"},
};
#define OFFSET_COUNT (sizeof(offsets) / sizeof(offsets[0]))

bool
hesper_is_database(const char *path)
{
	char head[16];
	FILE *f = fopen(path, "rb");
	bool yes;

	if (!f)
		return false;
	yes = fread(head, 1, sizeof(head), f) == sizeof(head) && memcmp(head, "SQLite format 3", 16) == 0;
	fclose(f);
	return yes;
}

/* The one integer @sql selects in @db, in *@out; false with a line on stderr on failure. */
static bool
select_int(sqlite3 *db, const char *sql, int64_t *out, const char *path)
{
	sqlite3_stmt *s = NULL;
	bool ok = false;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
		*out = sqlite3_column_int64(s, 0);
		ok = true;
	} else {
		fprintf(stderr, "hesper: merge: '%s': %s\n", path, sqlite3_errmsg(db));
	}
	sqlite3_finalize(s);
	return ok;
}

/* Copies the attached database "src" (from @path) into @db; false with a line on stderr. */
static bool
copy_input(sqlite3 *db, const char *path, uint64_t *dispatches)
{
	int64_t version = 0, off[OFFSET_COUNT], before = 0, after = 0;
	char sql[1024];

	if (!select_int(db, "SELECT version FROM src.hesper_schema WHERE name = '" HESPER_SQLITE_SCHEMA_NAME "'",
			&version, path))
		return false;
	if (version != HESPER_SQLITE_SCHEMA_VERSION) {
		fprintf(stderr, "hesper: merge: '%s' has schema version %" PRId64 "; this hesper reads version %d\n",
			path, version, HESPER_SQLITE_SCHEMA_VERSION);
		return false;
	}
	for (size_t i = 0; i < OFFSET_COUNT; i++) {
		snprintf(sql, sizeof(sql), "SELECT coalesce(max(id), 0) FROM main.%s", offsets[i].table);
		if (!select_int(db, sql, &off[i], path))
			return false;
	}
	if (!select_int(db, "SELECT count(*) FROM main.dispatches", &before, path))
		return false;
	for (size_t t = 0; t < sizeof(copies) / sizeof(copies[0]); t++) {
		sqlite3_stmt *s = NULL;
		int64_t present = 0;

		/* A database of an earlier Hesper of the same version lacks the tables added since. */
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = '%s'",
			 copies[t].table);
		if (!select_int(db, sql, &present, path))
			return false;
		if (!present)
			continue;

		snprintf(sql, sizeof(sql), "INSERT INTO main.%s(%s) SELECT %s FROM src.%s ORDER BY rowid",
			 copies[t].table, copies[t].into, copies[t].select, copies[t].table);
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
			fprintf(stderr, "hesper: merge: '%s': %s\n", path, sqlite3_errmsg(db));
			return false;
		}
		for (size_t i = 0; i < OFFSET_COUNT; i++) {
			int idx = sqlite3_bind_parameter_index(s, offsets[i].param);
			if (idx > 0)
				sqlite3_bind_int64(s, idx, off[i]);
		}
		int rc = sqlite3_step(s);
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE) {
			fprintf(stderr, "hesper: merge: '%s': %s\n", path, sqlite3_errmsg(db));
			return false;
		}
	}
	if (!select_int(db, "SELECT count(*) FROM main.dispatches", &after, path))
		return false;
	*dispatches += (uint64_t)(after - before);
	return true;
}

/* Attaches @path read-only as "src", copies it in one transaction and detaches it. */
static bool
merge_one(sqlite3 *db, const char *path, uint64_t *dispatches)
{
	char *uri = sqlite3_mprintf("file:%s?mode=ro", path);
	sqlite3_stmt *s = NULL;
	bool ok = false;

	/* A path with '?' or '#' would be cut by the URI parser: refuse rather than read another file. */
	if (strpbrk(path, "?#")) {
		fprintf(stderr, "hesper: merge: '%s': a database path may not hold '?' or '#'\n", path);
		goto out;
	}
	if (!uri || sqlite3_prepare_v2(db, "ATTACH ?1 AS src", -1, &s, NULL) != SQLITE_OK) {
		fprintf(stderr, "hesper: merge: '%s': %s\n", path, sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_text(s, 1, uri, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE) {
		fprintf(stderr, "hesper: merge: cannot open '%s': %s\n", path, sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto detach;
	ok = copy_input(db, path, dispatches);
	if (sqlite3_exec(db, ok ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && ok) {
		fprintf(stderr, "hesper: merge: '%s': %s\n", path, sqlite3_errmsg(db));
		ok = false;
	}
detach:
	(void)sqlite3_exec(db, "DETACH src", NULL, NULL, NULL);
out:
	sqlite3_finalize(s);
	sqlite3_free(uri);
	return ok;
}

int
hesper_merge_databases(const char *out_path, char **paths, size_t n)
{
	const char *slash = strrchr(out_path, '/');
	size_t dir_len = slash ? (size_t)(slash - out_path) + 1 : 0;
	char *tmp = malloc(dir_len + 64), why[256];
	sqlite3 *db = NULL;
	uint64_t dispatches = 0;
	int ret = HESPER_EXIT_USAGE;

	if (!tmp) {
		fprintf(stderr, "hesper: out of memory\n");
		return ret;
	}
	memcpy(tmp, out_path, dir_len);
	snprintf(tmp + dir_len, 64, ".hesper-merge-%d.db", (int)getpid());
	(void)unlink(tmp);
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "hesper: merge: cannot create '%s': %s\n", out_path, sqlite3_errmsg(db));
		goto out;
	}
	if (hesper_sqlite_create_schema(db, why, sizeof(why)) != 0) {
		fprintf(stderr, "hesper: merge: cannot create '%s': %s\n", out_path, why);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!merge_one(db, paths[i], &dispatches))
			goto out;
	if (sqlite3_close(db) != SQLITE_OK) {
		fprintf(stderr, "hesper: merge: cannot write '%s': %s\n", out_path, sqlite3_errmsg(db));
		goto out;
	}
	db = NULL;
	if (rename(tmp, out_path) != 0) {
		fprintf(stderr, "hesper: merge: cannot write '%s': %s\n", out_path, strerror(errno));
		goto out;
	}
	printf("%zu processes, %" PRIu64 " dispatches merged into %s\n", n, dispatches, out_path);
	ret = 0;
out:
	if (db)
		sqlite3_close(db);
	if (ret != 0)
		(void)unlink(tmp);
	free(tmp);
	return ret;
}
