/* Unit tests for analysis/sqlite/report_sqlite.c: the SQLite database sink, through its sink list. */
#include <check.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_fixtures.h"
#include "sqlite/sqlite.h"
#include "sinks/sinks.h"

static char dir[64];
static char db_path[128];

static void
make_dir(void)
{
	strcpy(dir, "/tmp/hesper-test-sqlite-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/run.db", dir);
}

static void
remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The one integer that @sql selects in the database at db_path. */
static int64_t
query_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v;

	ck_assert_int_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

/* Parses @spec into @l with the SQLite writer; no error expected. */
static void
parse_with_database(const char *spec, struct hesper_sink_list *l)
{
	ck_assert_int_eq(hesper_sinks_parse(spec, 1, "h", l, stderr), 0);
	l->database = &hesper_sqlite_database;
}

static struct hesper_trace_event
dispatch(const char *kernel, uint64_t start, uint64_t ns)
{
	return (struct hesper_trace_event){
		.kind = HESPER_TRACE_DISPATCH,
		.name = kernel,
		.start_ns = start,
		.end_ns = start + ns,
		.groups = {4, 2, 1},
		.command_buffer = 0xabc,
		.submission = 3,
	};
}

START_TEST(stream_then_summary)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	char spec[200], junk[160];

	make_dir();
	/* A previous file and a stale WAL at PATH: replaced, never replayed into the new database. */
	FILE *f = fopen(db_path, "w");
	fputs("not a database", f);
	fclose(f);
	snprintf(junk, sizeof(junk), "%s-wal", db_path);
	f = fopen(junk, "w");
	fputs("stale", f);
	fclose(f);

	fixture_known_profile(&p);
	snprintf(spec, sizeof(spec), "sqlite:%s", db_path);
	parse_with_database(spec, &l);

	/* Two batches, as two harvests: the profile's kernels, plus every other kind of event. */
	struct hesper_trace_event first[] = {
		dispatch("matmul", 100, 1000),
		dispatch("matmul", 2000, 2000),
		dispatch("softmax", 5000, 1000),
		{.kind = HESPER_TRACE_REGION, .name = "frame", .start_ns = 100, .end_ns = 8100},
		{.kind = HESPER_TRACE_BATCH, .name = "batch", .start_ns = 100, .end_ns = 4100, .submission = 3},
		{.kind = HESPER_TRACE_HOST_SUBMIT, .name = "vkQueueSubmit", .thread = 77, .start_ns = 10, .end_ns = 20},
	};
	struct hesper_trace_event second[] = {
		dispatch("matmul", 9000, 3000),
		dispatch("softmax", 13000, 1000),
		{.kind = HESPER_TRACE_MEMORY_OP, .name = "vkCmdCopyBuffer", .bytes = 4096, .start_ns = 1, .end_ns = 9},
		{.kind = HESPER_TRACE_HOST_WAIT, .name = "vkWaitForFences", .thread = 77, .start_ns = 30, .end_ns = 90},
	};
	capture_open(&c);
	ck_assert(hesper_sinks_streaming(&l));
	ck_assert_int_eq(hesper_sinks_stream(&l, first, sizeof(first) / sizeof(first[0]), c.f), 0);
	ck_assert_int_eq(hesper_sinks_stream(&l, second, sizeof(second) / sizeof(second[0]), c.f), 0);
	/* A reader sees the committed events while the run goes on. */
	ck_assert_int_eq(query_int("SELECT count(*) FROM dispatches"), 5);
	/* Written twice (an interval rewrite, then the exit report): refreshed, not doubled. */
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 0);
	hesper_kernel_record(hesper_kernel_table_get(p.kernels, "untimed only"), 1);
	/* Never timed (submit mode): counted, no time (NULL, not 0). */
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.kernels, "never timed"), 4);
	hesper_kernel_count_untimed(hesper_kernel_table_get(p.regions, "untimed region"), 2);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 0);
	hesper_sinks_close(&l);
	ck_assert_str_eq(capture_close(&c), "");
	free(c.buf);

	ck_assert_int_eq(query_int("SELECT version FROM hesper_schema WHERE name = 'hesper-sqlite'"),
			 HESPER_SQLITE_SCHEMA_VERSION);
	ck_assert_int_eq(query_int("SELECT count(*) FROM process"), 1);
	ck_assert_int_eq(query_int("SELECT pid FROM process"), 123);
	ck_assert_int_eq(query_int("SELECT count(*) FROM devices"), 1);
	ck_assert_int_eq(query_int("SELECT count(*) FROM queues"), 1);
	ck_assert_int_eq(query_int("SELECT busy_ns FROM queues"), 1000000);
	ck_assert_int_eq(query_int("SELECT count(*) FROM kernels"), 4);
	ck_assert_int_eq(query_int("SELECT count(*) FROM kernels WHERE name = 'never timed' AND count = 4 AND timed = 0"
				   " AND total_ns IS NULL AND mean_ns IS NULL AND median_ns IS NULL AND min_ns IS NULL"
				   " AND max_ns IS NULL AND stddev_ns IS NULL AND p95_ns IS NULL AND p99_ns IS NULL"),
			 1);
	ck_assert_int_eq(query_int("SELECT count(*) FROM regions WHERE name = 'untimed region' AND count = 2"
				   " AND timed = 0 AND total_ns IS NULL"),
			 1);
	/* Streamed durations agree with the summary row of each kernel. */
	ck_assert_int_eq(query_int("SELECT total_ns FROM kernels WHERE name = 'matmul'"), 6000);
	ck_assert_int_eq(query_int("SELECT sum(duration_ns) FROM dispatches d JOIN kernels k ON k.id = d.kernel"
				   " WHERE k.name = 'matmul'"),
			 6000);
	ck_assert_int_eq(query_int("SELECT count(*) FROM dispatches d JOIN kernels k ON k.id = d.kernel"
				   " WHERE k.name = 'softmax'"),
			 2);
	ck_assert_int_eq(query_int("SELECT median_ns FROM kernels WHERE name = 'matmul'"),
			 (int64_t)hesper_stats_quantile(&hesper_kernel_table_find(p.kernels, "matmul")->timed, 0.5));
	ck_assert_int_eq(query_int("SELECT max_ns FROM kernels WHERE name = 'matmul'"), 3000);
	ck_assert_int_eq(query_int("SELECT count FROM kernels WHERE name = 'untimed only'"), 1);
	ck_assert_int_eq(query_int("SELECT groups_x * 100 + groups_y * 10 + groups_z FROM dispatches LIMIT 1"), 421);
	ck_assert_int_eq(query_int("SELECT count(*) FROM region_spans s JOIN regions r ON r.id = s.region"
				   " WHERE r.name = 'frame' AND s.end_ns - s.start_ns = 8000"),
			 1);
	ck_assert_int_eq(query_int("SELECT total_ns FROM regions WHERE name = 'frame'"), 8000);
	ck_assert_int_eq(query_int("SELECT count(*) FROM submissions"), 1);
	ck_assert_int_eq(query_int("SELECT thread FROM host_submits"), 77);
	ck_assert_int_eq(query_int("SELECT bytes FROM memory_ops WHERE operation = 'vkCmdCopyBuffer'"), 4096);
	ck_assert_int_eq(query_int("SELECT end_ns - start_ns FROM host_waits WHERE call = 'vkWaitForFences'"), 60);
	ck_assert_int_eq(query_int("SELECT events_streamed FROM hesper_cost"), 10);
	ck_assert_int_eq(query_int("SELECT hook_ns FROM hesper_cost"), 1500);
	ck_assert_int_eq(query_int("SELECT count(*) FROM sqlite_master WHERE type = 'index'"
				   " AND name IN ('dispatches_by_kernel', 'dispatches_by_queue')"),
			 2);
	/* Closed: one plain file, no WAL left, no temporary file. */
	ck_assert_int_ne(access(junk, F_OK), 0);
	snprintf(junk, sizeof(junk), "ls -A '%s' | grep -qv '^run.db$'", dir);
	ck_assert_int_ne(system(junk), 0);

	/* A write after the exit report's close creates nothing new. */
	unlink(db_path);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, NULL), 1);
	ck_assert_int_ne(access(db_path, F_OK), 0);

	hesper_sinks_free(&l);
	hesper_profile_free(&p);
	remove_dir();
}
END_TEST

/* The kernels' occupancy, one row each: the figures, the limit, NULL where unknown. */
START_TEST(occupancy_rows)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	char spec[200];

	make_dir();
	fixture_occupancy_profile(&p);
	snprintf(spec, sizeof(spec), "sqlite:%s", db_path);
	parse_with_database(spec, &l);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, stderr), 0);
	/* twice: rewritten, not doubled */
	ck_assert_int_eq(hesper_sinks_write(&l, &p, stderr), 0);
	ck_assert_int_eq(query_int("SELECT count(*) FROM pipeline_occupancy"), 2);
	ck_assert_int_eq(query_int("SELECT groups_per_sm * 1000 + warps_per_sm FROM pipeline_occupancy"
				   " WHERE kernel = 'matmul' AND limit_factor = 'registers' AND share = 0.25"
				   " AND at_most = 0 AND why IS NULL"),
			 8016);
	ck_assert_int_eq(query_int("SELECT device_groups FROM pipeline_occupancy WHERE kernel = 'softmax'"
				   " AND limit_factor = 'shared memory'"),
			 3 * 132);
	hesper_occupancy_model_none(&p.devices[0].occupancy, "a CPU device (no SMs to model)");
	ck_assert_int_eq(hesper_sinks_write(&l, &p, stderr), 0);
	ck_assert_int_eq(query_int("SELECT count(*) FROM pipeline_occupancy WHERE limit_factor = 'unknown'"
				   " AND share IS NULL AND groups_per_sm IS NULL AND device_groups IS NULL"
				   " AND why = 'a CPU device (no SMs to model)'"),
			 2);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
	remove_dir();
}
END_TEST

/* Counted lines and their source text: where the text was read from, NULL where the module held it. */
START_TEST(hot_line_sources_say_where_read)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct hesper_hot_line lines[1] = {
		{.file = "blur.comp", .line = 12, .ticks = 683, .executions = 6400, .share = 1.0},
	};
	char spec[200];

	make_dir();
	fixture_known_profile(&p);
	ck_assert_int_eq(hesper_profile_set_lines(&p, "matmul", lines, 1, 3), 0);
	ck_assert_int_eq(hesper_profile_set_lines(&p, "softmax", lines, 1, 2), 0);
	ck_assert_int_eq(hesper_profile_set_source(&p, "matmul", "blur.comp", "x\n", "/src/shaders/blur.comp"), 0);
	ck_assert_int_eq(hesper_profile_set_source(&p, "softmax", "blur.comp", "y\n", NULL), 0);
	snprintf(spec, sizeof(spec), "sqlite:%s", db_path);
	parse_with_database(spec, &l);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, stderr), 0);
	ck_assert_int_eq(query_int("SELECT count(*) FROM hot_line_sources"), 2);
	ck_assert_int_eq(
		query_int("SELECT count(*) FROM hot_line_sources WHERE kernel = 'matmul' AND file = 'blur.comp'"
			  " AND text = 'x' || char(10) AND read_from = '/src/shaders/blur.comp'"),
		1);
	ck_assert_int_eq(query_int("SELECT count(*) FROM hot_line_sources WHERE kernel = 'softmax'"
				   " AND text = 'y' || char(10) AND read_from IS NULL"),
			 1);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
	remove_dir();
}
END_TEST

START_TEST(cannot_create)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	char spec[600], link_path[200];

	make_dir();
	fixture_known_profile(&p);
	snprintf(link_path, sizeof(link_path), "%s/link.db", dir);
	ck_assert_int_eq(symlink(db_path, link_path), 0);
	snprintf(spec, sizeof(spec), "sqlite:%s/missing/x.db,sqlite:%s,json:%s/ok.json", dir, link_path, dir);
	parse_with_database(spec, &l);
	struct hesper_trace_event e = dispatch("matmul", 1, 2);

	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_stream(&l, &e, 1, c.f), 2);
	ck_assert_int_eq(hesper_sinks_stream(&l, &e, 1, c.f), 2);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 2);
	capture_close(&c);
	/* One line per database, however often it was tried; the JSON sink is written. */
	size_t lines = 0;
	for (const char *s = c.buf; *s; s++)
		lines += *s == '\n';
	ck_assert_uint_eq(lines, 2);
	ck_assert_ptr_nonnull(strstr(c.buf, "missing/x.db': cannot create it"));
	ck_assert_ptr_nonnull(strstr(c.buf, "symbolic link"));
	ck_assert_int_ne(access(db_path, F_OK), 0); /* nothing created through the link */
	free(c.buf);
	snprintf(spec, sizeof(spec), "%s/ok.json", dir);
	ck_assert_int_eq(access(spec, F_OK), 0);
	ck_assert(!hesper_sinks_streaming(&l));
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
	remove_dir();
}
END_TEST

static Suite *
sqlite_suite(void)
{
	Suite *s = suite_create("report_sqlite");
	TCase *tc = tcase_create("hesper_sqlite_database");

	tcase_add_test(tc, stream_then_summary);
	tcase_add_test(tc, occupancy_rows);
	tcase_add_test(tc, hot_line_sources_say_where_read);
	tcase_add_test(tc, cannot_create);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(sqlite_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
