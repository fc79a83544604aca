/* Unit tests for analysis/sinks_*.c: HESPER_REPORT parsing and writing to sinks. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_fixtures.h"
#include "sinks/sinks.h"

static size_t
count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Parses @spec expecting @bad bad entries; returns the error text (caller frees). */
static char *
parse(const char *spec, int bad, struct hesper_sink_list *list)
{
	struct capture c;

	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_parse(spec, 4242, "node7", list, c.f), bad);
	capture_close(&c);
	return c.buf;
}

/* One error line: starts "hesper: ", quotes @entry, lists the forms. */
static void
assert_error_line(const char *err, const char *entry)
{
	char quoted[256];

	ck_assert_uint_eq(count_lines(err), 1);
	ck_assert_msg(strncmp(err, "hesper: ", 8) == 0, "%s", err);
	snprintf(quoted, sizeof(quoted), "'%s'", entry);
	ck_assert_msg(strstr(err, quoted) != NULL, "%s lacks %s", err, quoted);
	ck_assert_ptr_nonnull(strstr(err, HESPER_SINK_FORMS));
}

START_TEST(default_when_empty)
{
	const char *specs[] = {NULL, "", "   ", "\t \n"};

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct hesper_sink_list l;
		char *err = parse(specs[i], 0, &l);

		ck_assert_str_eq(err, "");
		ck_assert_uint_eq(l.count, 1);
		ck_assert_int_eq(l.items[0].kind, HESPER_SINK_STDERR);
		ck_assert_ptr_null(l.items[0].path);
		free(err);
		hesper_sinks_free(&l);
	}
}
END_TEST

START_TEST(every_kind)
{
	struct hesper_sink_list l;
	char *err = parse(" stdout ,stderr,text:t.txt, json:j.json ,csv: c.csv,trace:t.json,html:h.html", 0, &l);

	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(l.count, 7);
	ck_assert_int_eq(l.items[0].kind, HESPER_SINK_STDOUT);
	ck_assert_ptr_null(l.items[0].path);
	ck_assert_int_eq(l.items[1].kind, HESPER_SINK_STDERR);
	ck_assert_int_eq(l.items[2].kind, HESPER_SINK_TEXT);
	ck_assert_str_eq(l.items[2].path, "t.txt");
	ck_assert_int_eq(l.items[3].kind, HESPER_SINK_JSON);
	ck_assert_str_eq(l.items[3].path, "j.json");
	ck_assert_int_eq(l.items[4].kind, HESPER_SINK_CSV);
	ck_assert_str_eq(l.items[4].path, "c.csv");
	ck_assert_int_eq(l.items[5].kind, HESPER_SINK_TRACE);
	ck_assert_int_eq(l.items[6].kind, HESPER_SINK_HTML);
	ck_assert_str_eq(l.items[6].path, "h.html");
	free(err);
	hesper_sinks_free(&l);
	ck_assert_uint_eq(l.count, 0);
}
END_TEST

/* Kinds are words: matched without regard to case, trimmed, as docs/settings.md says of every value. */
START_TEST(kinds_in_any_case)
{
	struct hesper_sink_list l;
	char *err = parse("Stdout,STDERR, JSON :j.json,Text:t.txt,sQlite:s.db", 0, &l);

	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(l.count, 5);
	ck_assert_int_eq(l.items[0].kind, HESPER_SINK_STDOUT);
	ck_assert_int_eq(l.items[1].kind, HESPER_SINK_STDERR);
	ck_assert_int_eq(l.items[2].kind, HESPER_SINK_JSON);
	ck_assert_str_eq(l.items[2].path, "j.json");
	ck_assert_int_eq(l.items[3].kind, HESPER_SINK_TEXT);
	ck_assert_str_eq(l.items[3].path, "t.txt"); /* the PATH keeps its case */
	ck_assert_int_eq(l.items[4].kind, HESPER_SINK_SQLITE);
	free(err);
	hesper_sinks_free(&l);
}
END_TEST

START_TEST(expansion)
{
	struct hesper_sink_list l;
	char *err = parse("json:/tmp/run-%p-%h-100%%.json,csv:a:b%p", 0, &l);

	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(l.count, 2);
	ck_assert_str_eq(l.items[0].path, "/tmp/run-4242-node7-100%.json");
	ck_assert_str_eq(l.items[1].path, "a:b4242"); /* only the first ':' separates */
	free(err);
	hesper_sinks_free(&l);

	/* No host name known. */
	struct capture c;
	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_parse("text:%h.txt", 1, NULL, &l, c.f), 0);
	capture_close(&c);
	ck_assert_str_eq(l.items[0].path, "unknown.txt");
	free(c.buf);
	hesper_sinks_free(&l);
}
END_TEST

START_TEST(unknown_kind)
{
	struct hesper_sink_list l;
	char *err = parse("stdout,xml:/tmp/a.xml", 1, &l);

	assert_error_line(err, "xml:/tmp/a.xml");
	ck_assert_uint_eq(l.count, 1); /* the good entry is kept */
	ck_assert_int_eq(l.items[0].kind, HESPER_SINK_STDOUT);
	free(err);
	hesper_sinks_free(&l);

	err = parse("stdout:x", 1, &l);
	assert_error_line(err, "stdout:x");
	free(err);
	hesper_sinks_free(&l);
}
END_TEST

START_TEST(empty_path)
{
	struct hesper_sink_list l;
	char *err = parse("json:", 1, &l);

	assert_error_line(err, "json:");
	ck_assert_ptr_nonnull(strstr(err, "empty PATH"));
	ck_assert_uint_eq(l.count, 0);
	free(err);
	hesper_sinks_free(&l);

	err = parse("csv:   , text:x", 1, &l);
	assert_error_line(err, "csv:");
	ck_assert_uint_eq(l.count, 1);
	free(err);
	hesper_sinks_free(&l);
}
END_TEST

START_TEST(bad_percent)
{
	struct hesper_sink_list l;
	char *err = parse("json:out-%x.json", 1, &l);

	assert_error_line(err, "json:out-%x.json");
	ck_assert_ptr_nonnull(strstr(err, "'%x'"));
	ck_assert_uint_eq(l.count, 0);
	free(err);
	hesper_sinks_free(&l);

	err = parse("json:out%", 1, &l);
	assert_error_line(err, "json:out%");
	free(err);
	hesper_sinks_free(&l);
}
END_TEST

START_TEST(empty_entries)
{
	struct hesper_sink_list l;
	char *err = parse("stdout,,stderr", 1, &l);

	ck_assert_uint_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "''"));
	ck_assert_ptr_nonnull(strstr(err, "is empty"));
	ck_assert_uint_eq(l.count, 2);
	free(err);
	hesper_sinks_free(&l);

	err = parse("stdout, ,", 2, &l);
	ck_assert_uint_eq(count_lines(err), 2);
	ck_assert_uint_eq(l.count, 1);
	free(err);
	hesper_sinks_free(&l);

	err = parse(",", 2, &l);
	ck_assert_uint_eq(l.count, 0);
	free(err);
	hesper_sinks_free(&l);
}
END_TEST

START_TEST(huge_entries)
{
	struct hesper_sink_list l;
	char *spec = malloc(20000);
	char *err;

	/* A PATH of exactly 4096 bytes is accepted, one more is not. */
	strcpy(spec, "json:");
	memset(spec + 5, 'a', 4096);
	spec[5 + 4096] = '\0';
	err = parse(spec, 0, &l);
	ck_assert_uint_eq(l.count, 1);
	ck_assert_uint_eq(strlen(l.items[0].path), 4096);
	free(err);
	hesper_sinks_free(&l);

	strcat(spec, "a");
	err = parse(spec, 1, &l);
	ck_assert_uint_eq(l.count, 0);
	ck_assert_uint_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "longer than 4096 bytes"));
	ck_assert_uint_lt(strlen(err), 400); /* the entry is quoted cut */
	ck_assert_ptr_nonnull(strstr(err, "'json:aaaa"));
	ck_assert_ptr_nonnull(strstr(err, "...'"));
	free(err);
	hesper_sinks_free(&l);

	/* Growth by expansion counts too: %p is 4 bytes here. */
	strcpy(spec, "csv:");
	for (int i = 0; i < 1025; i++)
		strcat(spec, "%p");
	err = parse(spec, 1, &l);
	ck_assert_ptr_nonnull(strstr(err, "longer than 4096 bytes"));
	free(err);
	hesper_sinks_free(&l);

	/* A huge unknown entry, with control characters, is still one short line. */
	memset(spec, 'z', 15000);
	spec[100] = '\n';
	spec[15000] = '\0';
	err = parse(spec, 1, &l);
	ck_assert_uint_eq(count_lines(err), 1);
	ck_assert_uint_lt(strlen(err), 400);
	free(err);
	hesper_sinks_free(&l);
	free(spec);
}
END_TEST

/* The fixture for writing: a profile with one kernel. */
static void
small_profile(struct hesper_profile *p)
{
	ck_assert_int_eq(hesper_profile_init(p), 0);
	p->pid = 1;
	strcpy(p->exe, "app");
	strcpy(p->host, "h");
	hesper_kernel_record(hesper_kernel_table_get(p->kernels, "k"), 1000);
}

static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 16);

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(buf);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	ck_assert(!ferror(f));
	ck_assert_uint_lt(n, (1 << 16) - 1);
	fclose(f);
	return buf;
}

static char dir[] = "/tmp/hesper-test-sinks-XXXXXX";

static void
make_dir(void)
{
	strcpy(dir, "/tmp/hesper-test-sinks-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

START_TEST(write_files)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	char spec[512], path[300];
	mode_t old_umask = umask(022);

	make_dir();
	small_profile(&p);
	snprintf(spec, sizeof(spec),
		 "json:%s/r-%%p.json,csv:%s/r.csv,text:%s/r.txt,trace:%s/r.trace.json,html:%s/r.html", dir, dir, dir,
		 dir, dir);
	free(parse(spec, 0, &l));

	/* An existing file is truncated. */
	snprintf(path, sizeof(path), "%s/r.csv", dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 1000; i++)
		fputs("old content\n", f);
	fclose(f);

	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 0);
	ck_assert_str_eq(capture_close(&c), "");
	free(c.buf);

	const char *names[] = {"r-4242.json", "r.csv", "r.txt", "r.trace.json", "r.html"};
	report_writer writers[] = {hesper_report_json, hesper_report_csv, hesper_report_text, hesper_report_trace,
				   hesper_report_html};
	for (int i = 0; i < 5; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		char *got = read_file(path), *want = render_with(writers[i], &p, NULL);
		ck_assert_str_eq(got, want);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq(st.st_mode & 0777, 0644); /* 0666 less the umask */
		free(got);
		free(want);
		unlink(path);
	}
	rmdir(dir);
	umask(old_umask);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_unwritable)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	char spec[512], path[300];

	make_dir();
	small_profile(&p);
	snprintf(spec, sizeof(spec), "json:%s/missing/x.json,csv:%s/ok.csv", dir, dir);
	free(parse(spec, 0, &l));
	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 1);
	capture_close(&c);
	char want[600];
	snprintf(want, sizeof(want), "hesper: cannot write json report to '%s/missing/x.json': %s\n", dir,
		 strerror(ENOENT));
	ck_assert_str_eq(c.buf, want);
	free(c.buf);
	/* The good sink was still written. */
	snprintf(path, sizeof(path), "%s/ok.csv", dir);
	ck_assert_int_eq(access(path, F_OK), 0);
	unlink(path);
	rmdir(dir);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_refuses_symlink)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	char spec[512], target[300], link_path[300];

	make_dir();
	small_profile(&p);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link_path, sizeof(link_path), "%s/link.json", dir);
	ck_assert_int_eq(symlink(target, link_path), 0);
	snprintf(spec, sizeof(spec), "json:%s", link_path);
	free(parse(spec, 0, &l));
	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 1);
	capture_close(&c);
	ck_assert_uint_eq(count_lines(c.buf), 1);
	ck_assert_ptr_nonnull(strstr(c.buf, "hesper: cannot write json report to '"));
	ck_assert_ptr_nonnull(strstr(c.buf, "symbolic link"));
	ck_assert_int_ne(access(target, F_OK), 0); /* nothing written through the link */
	free(c.buf);
	unlink(link_path);
	rmdir(dir);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_trace_and_html)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	char spec[512], path[300];

	make_dir();
	small_profile(&p);
	snprintf(spec, sizeof(spec), "trace:%s/t-%%p.json,html:%s/h-%%p.html", dir, dir);
	free(parse(spec, 0, &l));
	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 0);
	ck_assert_str_eq(capture_close(&c), "");
	free(c.buf);

	snprintf(path, sizeof(path), "%s/t-4242.json", dir);
	char *got = read_file(path);
	ck_assert_msg(strncmp(got, "{\"displayTimeUnit\": \"ns\",", 25) == 0, "%s", got);
	ck_assert_ptr_nonnull(strstr(got, "\"schema\": \"hesper-trace/1\""));
	free(got);
	unlink(path);
	snprintf(path, sizeof(path), "%s/h-4242.html", dir);
	got = read_file(path);
	ck_assert_msg(strncmp(got, "<!DOCTYPE html>", 15) == 0, "%s", got);
	ck_assert_ptr_nonnull(strstr(got, "</html>\n"));
	free(got);
	unlink(path);
	rmdir(dir);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_stdout)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	char path[] = "/tmp/hesper-test-stdout-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDOUT_FILENO);

	ck_assert_int_ge(fd, 0);
	small_profile(&p);
	free(parse("stdout", 0, &l));
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	int failed = hesper_sinks_write(&l, &p, stderr);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	ck_assert_int_eq(failed, 0);
	char *got = read_file(path), *want = render_with(hesper_report_text, &p, NULL);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	unlink(path);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

/* With a stream of its own for stdout: the report goes there, and what stdout's buffer holds stays unwritten. */
START_TEST(write_stdout_to_its_own_stream)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	char path[] = "/tmp/hesper-test-stdout-XXXXXX", own_path[] = "/tmp/hesper-test-own-XXXXXX";
	int fd = mkstemp(path), own_fd = mkstemp(own_path), saved = dup(STDOUT_FILENO);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(own_fd, 0);
	small_profile(&p);
	free(parse("stdout", 0, &l));
	l.stdout_stream = fdopen(own_fd, "w");
	ck_assert_ptr_nonnull(l.stdout_stream);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	fputs("the program's output, not flushed (no newline: held line-buffered too)", stdout);
	int failed = hesper_sinks_write(&l, &p, stderr);
	fclose(l.stdout_stream);
	l.stdout_stream = NULL;
	char *on_stdout = read_file(path); /* before the program's buffer is flushed */
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	ck_assert_int_eq(failed, 0);
	char *got = read_file(own_path), *want = render_with(hesper_report_text, &p, NULL);
	ck_assert_str_eq(got, want);
	ck_assert_str_eq(on_stdout, "");
	free(on_stdout);
	free(got);
	free(want);
	unlink(path);
	unlink(own_path);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_broken_pipe_survives)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	int fds[2], saved = dup(STDOUT_FILENO);

	ck_assert_int_eq(pipe(fds), 0);
	close(fds[0]); /* the reader is gone: a write raises SIGPIPE */
	small_profile(&p);
	free(parse("stdout", 0, &l));
	fflush(stdout);
	dup2(fds[1], STDOUT_FILENO);
	close(fds[1]);
	capture_open(&c);
	int failed = hesper_sinks_write(&l, &p, c.f);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	capture_close(&c);
	/* Still running (the default SIGPIPE action would have killed us), and told. */
	ck_assert_int_eq(failed, 1);
	char want[200];
	snprintf(want, sizeof(want), "hesper: cannot write text report to stdout: %s\n", strerror(EPIPE));
	ck_assert_str_eq(c.buf, want);
	/* No SIGPIPE left pending for the program. */
	sigset_t pending;
	sigpending(&pending);
	ck_assert(!sigismember(&pending, SIGPIPE));
	free(c.buf);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(parse_sqlite_and_prom)
{
	struct hesper_sink_list l;
	char *err = parse("sqlite: run-%p.db ,prom:/var/lib/node/%h.prom", 0, &l);

	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(l.count, 2);
	ck_assert_int_eq(l.items[0].kind, HESPER_SINK_SQLITE);
	ck_assert_str_eq(l.items[0].path, "run-4242.db");
	ck_assert_int_eq(l.items[1].kind, HESPER_SINK_PROM);
	ck_assert_str_eq(l.items[1].path, "/var/lib/node/node7.prom");
	ck_assert_ptr_null(l.items[0].store);
	ck_assert(!l.items[0].failed);
	free(err);
	hesper_sinks_free(&l);

	err = parse("sqlite:,prom", 2, &l);
	ck_assert_uint_eq(count_lines(err), 2);
	ck_assert_uint_eq(l.count, 0);
	free(err);
	hesper_sinks_free(&l);
}
END_TEST

/* Names in @dir other than "." and "..", sorted, joined by spaces (caller frees). */
static char *
list_dir(const char *path)
{
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	char *out = calloc(1, 4096);

	ck_assert_int_ge(n, 0);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0) {
			strcat(out, *out ? " " : "");
			strcat(out, names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	return out;
}

START_TEST(write_replaces_atomically)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	char spec[512], path[300];
	struct stat before, after;

	make_dir();
	small_profile(&p);
	snprintf(spec, sizeof(spec), "json:%s/r.json,prom:%s/r.prom", dir, dir);
	free(parse(spec, 0, &l));
	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 0);
	ck_assert_str_eq(capture_close(&c), "");
	free(c.buf);

	/* A reader holding the first file keeps all of it while the second is written. */
	snprintf(path, sizeof(path), "%s/r.json", dir);
	char *first = read_file(path);
	FILE *reader = fopen(path, "rb");
	ck_assert_ptr_nonnull(reader);
	ck_assert_int_eq(stat(path, &before), 0);
	for (int i = 0; i < 50; i++)
		hesper_kernel_record(hesper_kernel_table_get(p.kernels, "more"), 10);
	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 0);
	ck_assert_str_eq(capture_close(&c), "");
	free(c.buf);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_ne(before.st_ino, after.st_ino); /* a new file renamed over, not rewritten in place */
	char held[8192];
	size_t n = fread(held, 1, sizeof(held) - 1, reader);
	held[n] = '\0';
	fclose(reader);
	ck_assert_str_eq(held, first);

	/* The new file is the whole new report, and no temporary file is left in the folder. */
	char *second = read_file(path), *want = render_with(hesper_report_json, &p, NULL);
	ck_assert_str_eq(second, want);
	char *names = list_dir(dir);
	ck_assert_str_eq(names, "r.json r.prom");
	free(names);
	free(first);
	free(second);
	free(want);
	unlink(path);
	snprintf(path, sizeof(path), "%s/r.prom", dir);
	unlink(path);
	rmdir(dir);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

START_TEST(write_failure_told_once)
{
	struct hesper_profile p;
	struct hesper_sink_list l;
	struct capture c;
	char spec[1024], path[400], sub[300];

	make_dir();
	small_profile(&p);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	ck_assert_int_eq(mkdir(sub, 0777), 0);
	snprintf(spec, sizeof(spec), "prom:%s/x.prom,json:%s/ok.json,sqlite:%s/x.db", sub, dir, dir);
	free(parse(spec, 0, &l));

	/* First write: prom and json are fine; sqlite has no database writer in this list. */
	capture_open(&c);
	ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 1);
	capture_close(&c);
	ck_assert_uint_eq(count_lines(c.buf), 1);
	ck_assert_ptr_nonnull(strstr(c.buf, "hesper: cannot write SQLite database '"));
	ck_assert_ptr_nonnull(strstr(c.buf, "no SQLite support"));
	free(c.buf);

	/* The folder goes away: the prom sink fails, told once over several rewrites. */
	snprintf(path, sizeof(path), "%s/x.prom", sub);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(sub), 0);
	capture_open(&c);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(hesper_sinks_write(&l, &p, c.f), 2);
	capture_close(&c);
	char want[700];
	snprintf(want, sizeof(want), "hesper: cannot write Prometheus metrics to '%s/x.prom': %s\n", sub,
		 strerror(ENOENT));
	ck_assert_str_eq(c.buf, want);
	free(c.buf);

	/* The other sink kept being written. */
	snprintf(path, sizeof(path), "%s/ok.json", dir);
	char *got = read_file(path), *expect = render_with(hesper_report_json, &p, NULL);
	ck_assert_str_eq(got, expect);
	free(got);
	free(expect);
	unlink(path);
	char *names = list_dir(dir);
	ck_assert_str_eq(names, ""); /* no database, no temporary file */
	free(names);
	rmdir(dir);
	hesper_sinks_free(&l);
	hesper_profile_free(&p);
}
END_TEST

static Suite *
sinks_suite(void)
{
	Suite *s = suite_create("sinks");
	TCase *tc = tcase_create("hesper_sinks_parse");

	tcase_add_test(tc, default_when_empty);
	tcase_add_test(tc, every_kind);
	tcase_add_test(tc, kinds_in_any_case);
	tcase_add_test(tc, expansion);
	tcase_add_test(tc, unknown_kind);
	tcase_add_test(tc, empty_path);
	tcase_add_test(tc, bad_percent);
	tcase_add_test(tc, empty_entries);
	tcase_add_test(tc, huge_entries);
	tcase_add_test(tc, parse_sqlite_and_prom);
	suite_add_tcase(s, tc);

	tc = tcase_create("hesper_sinks_write");
	tcase_add_test(tc, write_files);
	tcase_add_test(tc, write_unwritable);
	tcase_add_test(tc, write_refuses_symlink);
	tcase_add_test(tc, write_trace_and_html);
	tcase_add_test(tc, write_stdout);
	tcase_add_test(tc, write_stdout_to_its_own_stream);
	tcase_add_test(tc, write_broken_pipe_survives);
	tcase_add_test(tc, write_replaces_atomically);
	tcase_add_test(tc, write_failure_told_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(sinks_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
