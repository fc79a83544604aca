/*
 * Report file names for `hesper [options] program` (report_files.h): -o and -f into
 * HESPER_REPORT, the folder checked before the run, the files found and named after it.
 *
 * Every process the program starts inherits HESPER_REPORT, so a name without %p would
 * be written by each of them in turn, the last one winning. The tool therefore always
 * asks for a name per process (PREFIX-%p.EXT when the user's prefix has no %p) and, once
 * the program has exited, gives the plain name PREFIX.EXT back when a single process
 * wrote reports. Files are told apart from older ones by their inode and modification
 * time: Hesper replaces a report whole (a new file renamed over the old one).
 */
#include "report_files.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "sinks/sinks.h"
#include "usage.h"

#define LISTED_MAX 12 /* files named in the closing line; the rest are counted */

struct format {
	const char *name;
	const char *kind; /* HESPER_REPORT's kind */
	const char *ext;  /* NULL: a stream, no file */
};

static const struct format formats[] = {
	{"text", "stderr", NULL},          {"stderr", "stderr", NULL}, {"stdout", "stdout", NULL},
	{"json", "json", ".json"},         {"csv", "csv", ".csv"},     {"memcsv", "memcsv", ".memops.csv"},
	{"trace", "trace", ".trace.json"}, {"html", "html", ".html"},  {"sqlite", "sqlite", ".db"},
	{"prom", "prom", ".prom"},
};
#define FORMAT_COUNT (sizeof(formats) / sizeof(formats[0]))
#define FORMAT_NAMES "text, stderr, stdout, json, csv, memcsv, trace, html, sqlite, prom"

/* A file the run wrote. */
struct written {
	char *name;
	const char *ext; /* one of the plan's */
	long pid;
};

static const struct format *
format_named(const char *name)
{
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

void
hesper_drop_report_extension(char *name)
{
	static const char *const exts[] = {".trace.json", ".memops.csv", ".json", ".csv", ".html", ".db", ".prom"};
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t m = strlen(exts[i]);

		if (n > m && strcmp(name + n - m, exts[i]) == 0) {
			name[n - m] = '\0';
			return;
		}
	}
}

/* True when @name has a %p; false, after a usage line, when it has a '%' HESPER_REPORT would refuse. */
static bool
scan_percents(const char *name, bool *has_pid)
{
	*has_pid = false;
	for (const char *s = name; *s; s++) {
		if (*s != '%')
			continue;
		s++;
		if (*s == 'p')
			*has_pid = true;
		else if (*s != 'h' && *s != '%') {
			hesper_usage_error("-o PREFIX: only %%p (pid), %%h (host) and %%%% (a percent sign) may follow "
					   "a '%%', in '%s'",
					   name);
			return false;
		}
	}
	return true;
}

/*
 * Matches the directory entry @name against the plan's stem and extension @ext: %p
 * takes one or more digits (the same ones each time; into *@pid), %h the host name.
 */
static bool
matches(const struct hesper_report_plan *plan, const char *name, const char *ext, long *pid)
{
	const char *s = name;

	*pid = -1;
	for (const char *p = plan->base; *p; p++) {
		if (*p != '%') {
			if (*s++ != *p)
				return false;
			continue;
		}
		p++;
		if (*p == 'p') {
			char *end;
			long v;

			if (*s < '0' || *s > '9')
				return false;
			errno = 0;
			v = strtol(s, &end, 10);
			if (errno || (*pid >= 0 && v != *pid))
				return false;
			*pid = v;
			s = end;
		} else if (*p == 'h') {
			size_t n = strlen(plan->host);

			if (strncmp(s, plan->host, n) != 0)
				return false;
			s += n;
		} else if (*s++ != '%') {
			return false;
		}
	}
	return strcmp(s, ext) == 0;
}

/* The extension when @name is one of the plan's files, else NULL; its pid in *@pid (-1 without %p). */
static const char *
plan_file(const struct hesper_report_plan *plan, const char *name, long *pid)
{
	for (size_t i = 0; i < plan->nexts; i++)
		if (matches(plan, name, plan->exts[i], pid))
			return plan->exts[i];
	return NULL;
}

/* Appends @s to @out (HESPER_REPORT_SPEC_MAX bytes) at *@len; false when it does not fit. */
static bool
append(char *out, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= HESPER_REPORT_SPEC_MAX)
		return false;
	memcpy(out + *len, s, n + 1);
	*len += n;
	return true;
}

/* HESPER_REPORT from the -f list @list; 0 or a usage error. */
static int
build_spec(struct hesper_report_plan *plan, const char *list, const char *path_stem)
{
	char *copy = strdup(list), *save = NULL;
	const struct format *chosen[FORMAT_COUNT];
	size_t nchosen = 0, len = 0;
	int ret = HESPER_EXIT_USAGE;

	plan->spec[0] = '\0';
	if (!copy)
		return hesper_usage_error("out of memory");
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct format *f = format_named(name);
		bool again = false;

		if (!f) {
			hesper_usage_error("unknown format '%s' (accepted: " FORMAT_NAMES ")", name);
			goto out;
		}
		for (size_t i = 0; i < nchosen; i++)
			again |= strcmp(chosen[i]->kind, f->kind) == 0;
		if (!again)
			chosen[nchosen++] = f;
	}
	if (nchosen == 0) {
		hesper_usage_error("--format needs at least one format");
		goto out;
	}
	for (size_t i = 0; i < nchosen; i++) {
		if ((len && !append(plan->spec, &len, ",")) || !append(plan->spec, &len, chosen[i]->kind) ||
		    (chosen[i]->ext && (!append(plan->spec, &len, ":") || !append(plan->spec, &len, path_stem) ||
					!append(plan->spec, &len, chosen[i]->ext)))) {
			hesper_usage_error("-o PREFIX is too long");
			goto out;
		}
		if (chosen[i]->ext)
			plan->exts[plan->nexts++] = chosen[i]->ext;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* The spec as the layer will read it: each bad entry's line, the first one shown; 0 or a usage error. */
static int
check_spec(const struct hesper_report_plan *plan)
{
	struct hesper_sink_list sinks;
	char *text = NULL;
	size_t size = 0;
	FILE *err = open_memstream(&text, &size);
	int bad;

	if (!err)
		return hesper_usage_error("out of memory");
	bad = hesper_sinks_parse(plan->spec, (int)getpid(), plan->host, &sinks, err);
	fclose(err);
	if (bad >= 0)
		hesper_sinks_free(&sinks);
	if (bad != 0) {
		if (text && strchr(text, '\n'))
			*strchr(text, '\n') = '\0';
		hesper_usage_error("-o/--format: %s", text && *text ? text : "out of memory");
	}
	free(text);
	return bad == 0 ? 0 : HESPER_EXIT_USAGE;
}

/*
 * The files' path less its extension, as HESPER_REPORT gets it: absolute, so that a
 * program that changes folders still writes here, with the folder's '%' doubled (the
 * layer expands %p and %h in the whole path). A folder HESPER_REPORT cannot hold (a ','
 * in it) or one not found is left as -o gave it.
 */
static void
path_stem_of(const struct hesper_report_plan *plan, bool absolute, char *out, size_t size)
{
	const char *dir = absolute && !strchr(plan->dir, ',') ? plan->dir : plan->shown;
	size_t o = 0;

	for (const char *s = dir; *s && o + 2 < size; s++) {
		out[o++] = *s;
		if (*s == '%' && dir == plan->dir)
			out[o++] = '%';
	}
	if (*dir && strcmp(dir, "/") != 0 && o + 1 < size)
		out[o++] = '/';
	snprintf(out + o, size - o, "%s", plan->base);
}

int
hesper_report_plan_make(struct hesper_report_plan *plan, const char *formats_list, const char *prefix)
{
	char file[NAME_MAX + 1], path_stem[PATH_MAX + NAME_MAX + 2];
	const char *slash = strrchr(prefix, '/');
	const char *file_part = slash ? slash + 1 : prefix;

	memset(plan, 0, sizeof(*plan));
	if (gethostname(plan->host, sizeof(plan->host)) != 0 || !plan->host[0])
		snprintf(plan->host, sizeof(plan->host), "unknown");
	plan->host[sizeof(plan->host) - 1] = '\0';
	if (!*prefix || strchr(prefix, ','))
		return hesper_usage_error("-o PREFIX must be non-empty and without ',': '%s'", prefix);
	if (!*file_part)
		return hesper_usage_error("-o PREFIX names a folder ('%s'); give a file name prefix, such as %srun",
					  prefix, prefix);
	if (strlen(file_part) > NAME_MAX - 32 || (size_t)(file_part - prefix) >= sizeof(plan->shown))
		return hesper_usage_error("-o PREFIX is too long");
	if (slash && memchr(prefix, '%', (size_t)(slash - prefix)))
		return hesper_usage_error("-o PREFIX: %%p and %%h go in the file name, not in its folder ('%s')",
					  prefix);
	snprintf(file, sizeof(file), "%s", file_part);
	hesper_drop_report_extension(file);
	if (!scan_percents(file, &plan->user_pid))
		return HESPER_EXIT_USAGE;
	hesper_prefix_folder(prefix, plan->shown, sizeof(plan->shown));
	if (snprintf(plan->base, sizeof(plan->base), "%s%s", file, plan->user_pid ? "" : "-%p") >=
	    (int)sizeof(plan->base))
		return hesper_usage_error("-o PREFIX is too long");

	bool found = realpath(plan->shown[0] ? plan->shown : ".", plan->dir) != NULL;
	int saved = errno;
	path_stem_of(plan, found, path_stem, sizeof(path_stem));

	int ret = build_spec(plan, formats_list, path_stem);
	if (ret == 0)
		ret = check_spec(plan);
	if (ret != 0 || plan->nexts == 0)
		return ret;
	/* A folder that cannot take the files fails now, not after the whole run. */
	int refusal = found ? hesper_folder_refusal(plan->dir) : saved;
	if (refusal) {
		fprintf(stderr, "hesper: cannot write reports in '%s': %s\n", plan->shown[0] ? plan->shown : ".",
			strerror(refusal));
		return HESPER_EXIT_USAGE;
	}
	return 0;
}

void
hesper_prefix_folder(const char *prefix, char *dir, size_t size)
{
	const char *slash = strrchr(prefix, '/');

	if (!slash)
		snprintf(dir, size, "%s", "");
	else if (slash == prefix)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - prefix), prefix);
}

int
hesper_folder_refusal(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return errno;
	if (!S_ISDIR(st.st_mode))
		return ENOTDIR;
	return access(dir, W_OK | X_OK) != 0 ? errno : 0;
}

/* Calls @fn for each of the plan's files in its folder, with its stat; stops when @fn returns nonzero. */
typedef int file_fn(void *ctx, const char *name, const char *ext, long pid, const struct stat *st);

static int
each_file(const struct hesper_report_plan *plan, file_fn *fn, void *ctx)
{
	DIR *d = opendir(plan->dir);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return 0;
	while (ret == 0 && (e = readdir(d))) {
		char path[PATH_MAX + NAME_MAX + 2];
		const char *ext;
		struct stat st;
		long pid;

		if (!(ext = plan_file(plan, e->d_name, &pid)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", plan->dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			ret = fn(ctx, e->d_name, ext, pid, &st);
	}
	closedir(d);
	return ret;
}

static long long
mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static int
remember(void *ctx, const char *name, const char *ext, long pid, const struct stat *st)
{
	struct hesper_report_plan *plan = ctx;
	struct hesper_report_seen *seen = realloc(plan->seen, (plan->nseen + 1) * sizeof(*seen));

	(void)ext;
	(void)pid;
	if (!seen)
		return -1;
	plan->seen = seen;
	seen[plan->nseen] = (struct hesper_report_seen){strdup(name), st->st_ino, mtime_ns(st)};
	if (!seen[plan->nseen].name)
		return -1;
	plan->nseen++;
	return 0;
}

int
hesper_report_plan_snapshot(struct hesper_report_plan *plan)
{
	return plan->nexts ? each_file(plan, remember, plan) : 0;
}

struct found {
	const struct hesper_report_plan *plan;
	struct written *files;
	size_t n;
};

static int
collect(void *ctx, const char *name, const char *ext, long pid, const struct stat *st)
{
	struct found *f = ctx;
	struct written *files;

	for (size_t i = 0; i < f->plan->nseen; i++)
		if (strcmp(f->plan->seen[i].name, name) == 0 && f->plan->seen[i].ino == st->st_ino &&
		    f->plan->seen[i].mtime_ns == mtime_ns(st))
			return 0; /* there before the run, untouched */
	files = realloc(f->files, (f->n + 1) * sizeof(*files));
	if (!files)
		return -1;
	f->files = files;
	files[f->n] = (struct written){strdup(name), ext, pid};
	if (!files[f->n].name)
		return -1;
	f->n++;
	return 0;
}

static int
by_pid_then_name(const void *pa, const void *pb)
{
	const struct written *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* @name, where the user will look for it: in the folder -o gave, or bare. */
static void
put_path(const struct hesper_report_plan *plan, const char *name)
{
	if (!plan->shown[0])
		fputs(name, stderr);
	else
		fprintf(stderr, "%s%s%s", plan->shown, strcmp(plan->shown, "/") ? "/" : "", name);
}

/* The plan's stem without its "-%p" (the user's prefix), %h and %% expanded as the layer expands them. */
static void
plain_stem(const struct hesper_report_plan *plan, char *out, size_t size)
{
	size_t stem = strlen(plan->base) - 3, o = 0;

	for (size_t k = 0; k < stem && o + 1 < size; k++) {
		if (plan->base[k] == '%' && plan->base[k + 1] == 'h') {
			o += (size_t)snprintf(out + o, size - o, "%s", plan->host);
			k++;
		} else {
			out[o++] = plan->base[k];
			k += plan->base[k] == '%';
		}
	}
	out[o < size ? o : size - 1] = '\0';
}

/* The one process's files renamed from PREFIX-PID.EXT to PREFIX.EXT; stops at the first failure, said in @why. */
static void
rename_single(const struct hesper_report_plan *plan, struct written *files, size_t n, char *why, size_t size)
{
	char stem[NAME_MAX + 1];

	plain_stem(plan, stem, sizeof(stem));
	for (size_t i = 0; i < n; i++) {
		char from[PATH_MAX + NAME_MAX + 2], to[PATH_MAX + NAME_MAX + 2], *name;

		if (asprintf(&name, "%s%s", stem, files[i].ext) < 0)
			return;
		snprintf(from, sizeof(from), "%s/%s", plan->dir, files[i].name);
		snprintf(to, sizeof(to), "%s/%s", plan->dir, name);
		if (rename(from, to) != 0) {
			snprintf(why, size, " (cannot rename it to %s: %s)", name, strerror(errno));
			free(name);
			return;
		}
		free(files[i].name);
		files[i].name = name;
	}
}

void
hesper_report_plan_announce(struct hesper_report_plan *plan)
{
	struct found f = {plan, NULL, 0};
	size_t processes = 0;
	char why[PATH_MAX + 128] = "";

	if (plan->nexts == 0)
		return;
	if (each_file(plan, collect, &f) != 0) {
		fputs("hesper: out of memory listing the report files\n", stderr);
		goto out;
	}
	if (f.n == 0) {
		fputs("hesper: no report file was written (no process of the program used Vulkan, or none "
		      "lived to write its report)\n",
		      stderr);
		goto out;
	}
	qsort(f.files, f.n, sizeof(*f.files), by_pid_then_name);
	for (size_t i = 0; i < f.n; i++)
		processes += i == 0 || f.files[i].pid != f.files[i - 1].pid;
	if (processes == 1 && !plan->user_pid) {
		if (kill((pid_t)f.files[0].pid, 0) == 0 || errno != ESRCH)
			snprintf(why, sizeof(why), " (process %ld is still running, so its files keep its pid)",
				 f.files[0].pid);
		else
			rename_single(plan, f.files, f.n, why, sizeof(why));
	}
	if (processes == 1)
		fputs("hesper: report written to ", stderr);
	else
		fprintf(stderr, "hesper: %zu processes wrote reports, each its own: ", processes);
	for (size_t i = 0; i < f.n && i < LISTED_MAX; i++) {
		fputs(i ? ", " : "", stderr);
		put_path(plan, f.files[i].name);
	}
	if (f.n > LISTED_MAX)
		fprintf(stderr, " and %zu more", f.n - LISTED_MAX);
	fprintf(stderr, "%s\n", why);
out:
	for (size_t i = 0; i < f.n; i++)
		free(f.files[i].name);
	free(f.files);
}

void
hesper_report_plan_free(struct hesper_report_plan *plan)
{
	for (size_t i = 0; i < plan->nseen; i++)
		free(plan->seen[i].name);
	free(plan->seen);
	plan->seen = NULL;
	plan->nseen = 0;
}
