/*
 * hesper [options] [--] program args...: sets up the environment that loads Hesper
 * (LD_PRELOAD and the HESPER_* settings) and execs the program, so its exit status and
 * signals are hesper's own.
 *
 * The library: --lib, else $HESPER_LIB, else found from this executable's location:
 * installed (bindir/HESPER_LIB_FROM_BINDIR) or in the build tree (tools/../layer/).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "usage.h"

#ifndef HESPER_VERSION
#define HESPER_VERSION "unknown"
#endif
#ifndef HESPER_LIB_FROM_BINDIR
#define HESPER_LIB_FROM_BINDIR "../lib/hesper/libhesper.so"
#endif
#define BUILD_TREE_LIB "../layer/libhesper.so"
#define DEFAULT_PREFIX "hesper-%p"
#define DEFAULT_FORMATS "text,json"
#define SPEC_MAX 8192

static const char usage[] =
	"Usage: hesper [options] [--] program [args...]\n"
	"       hesper report FILE.json\n"
	"       hesper diff A.json B.json [--threshold PCT]\n"
	"       hesper merge FILE.json... [FILE.trace.json...] -o OUT\n"
	"       hesper merge -o OUT.db FILE.db...\n"
	"\n"
	"Runs a Vulkan compute program under Hesper; when it exits, Hesper writes how long\n"
	"each compute kernel ran on the GPU. The program's exit status (or signal) is hesper's.\n"
	"\n"
	"Options:\n"
	"  -o, --output PREFIX  output files PREFIX.json, PREFIX.csv, PREFIX.trace.json, PREFIX.html,\n"
	"                       PREFIX.db, PREFIX.prom\n"
	"                       (default " DEFAULT_PREFIX "; %p becomes the pid, %h the host name)\n"
	"  -f, --format LIST    comma-separated: text (table on stderr), stdout (table on stdout),\n"
	"                       json, csv, trace (Chrome/Perfetto timeline), html, sqlite (every dispatch\n"
	"                       in an SQLite database), prom (Prometheus metrics) (default " DEFAULT_FORMATS ")\n"
	"  -m, --mode MODE      dispatch: time every dispatch (default); submit: time command buffers only\n"
	"                       clock: time every dispatch from the shader clock, without serializing\n"
	"  -s, --sample N       time every N-th dispatch of each kernel (all are counted)\n"
	"      --max-events N   timeline events kept for the trace and html reports\n"
	"      --lib PATH       the libhesper.so to preload (default: $HESPER_LIB, or the one installed\n"
	"                       or built with this tool)\n"
	"  -h, --help           this help\n"
	"  -V, --version        Hesper's version\n"
	"\n"
	"report prints the text table of a saved JSON summary. diff compares two summaries per\n"
	"kernel and exits 1 when a kernel's mean grew by more than PCT percent (default 10).\n"
	"merge combines the summaries of many processes (text on stdout, OUT.json) and their\n"
	"traces (OUT.trace.json); given SQLite databases, it writes one database OUT.db.\n";

struct format {
	const char *name;
	const char *sink; /* HESPER_REPORT entry; "%s" is the prefix */
};

static const struct format formats[] = {
	{"text", "stderr"},
	{"stdout", "stdout"},
	{"json", "json:%s.json"},
	{"csv", "csv:%s.csv"},
	{"trace", "trace:%s.trace.json"},
	{"html", "html:%s.html"},
	{"sqlite", "sqlite:%s.db"},
	{"prom", "prom:%s.prom"},
};
#define FORMAT_COUNT (sizeof(formats) / sizeof(formats[0]))

/* Builds HESPER_REPORT from @list and @prefix into @spec; 0, or a usage error. */
static int
build_report_spec(const char *list, const char *prefix, char *spec, size_t size)
{
	char *copy = strdup(list), *save = NULL;
	size_t len = 0;
	int ret = HESPER_EXIT_USAGE;

	spec[0] = '\0';
	if (!copy)
		return hesper_usage_error("out of memory");
	if (!*prefix || strchr(prefix, ',')) {
		hesper_usage_error("-o PREFIX must be non-empty and without ',': '%s'", prefix);
		goto out;
	}
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct format *f = NULL;

		for (size_t i = 0; i < FORMAT_COUNT; i++)
			if (strcmp(formats[i].name, name) == 0)
				f = &formats[i];
		if (!f) {
			hesper_usage_error(
				"unknown format '%s' (accepted: text, stdout, json, csv, trace, html, sqlite, prom)",
				name);
			goto out;
		}
		int n = snprintf(spec + len, size - len, "%s", len ? "," : "");
		len += (size_t)n;
		n = snprintf(spec + len, size - len, f->sink, prefix);
		if (n < 0 || (size_t)n >= size - len) {
			hesper_usage_error("-o PREFIX is too long");
			goto out;
		}
		len += (size_t)n;
	}
	if (len == 0) {
		hesper_usage_error("--format needs at least one format");
		goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* The directory of this executable, with a trailing '/'; false when unknown. */
static bool
exe_dir(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return false;
	slash[1] = '\0';
	return true;
}

/* The library to preload, made absolute, into @out; false with a message when none is found. */
static bool
find_library(const char *given, char *out)
{
	char dir[PATH_MAX], candidate[2 * PATH_MAX];
	const char *from_env = getenv("HESPER_LIB");

	if (!given && from_env && *from_env)
		given = from_env;
	if (given) {
		if (!realpath(given, out) || access(out, R_OK) != 0) {
			fprintf(stderr, "hesper: cannot use the library '%s'%s: %s\n", given,
				given == from_env ? " (from HESPER_LIB)" : "", strerror(errno));
			return false;
		}
		return true;
	}
	if (exe_dir(dir, sizeof(dir))) {
		const char *relative[] = {HESPER_LIB_FROM_BINDIR, BUILD_TREE_LIB};

		for (size_t i = 0; i < sizeof(relative) / sizeof(relative[0]); i++) {
			snprintf(candidate, sizeof(candidate), "%s%s", relative[i][0] == '/' ? "" : dir, relative[i]);
			if (realpath(candidate, out) && access(out, R_OK) == 0)
				return true;
		}
	}
	fprintf(stderr,
		"hesper: cannot find libhesper.so next to this tool (looked for %s and %s relative to "
		"%s); give it with --lib PATH or HESPER_LIB\n",
		HESPER_LIB_FROM_BINDIR, BUILD_TREE_LIB, dir);
	return false;
}

static bool
is_sanitizer_runtime(const char *entry, size_t len)
{
	static const char *const names[] = {"libasan", "libclang_rt.asan", "libtsan", "libubsan", "libhwasan"};
	const char *base = entry;

	for (size_t i = 0; i < len; i++)
		if (entry[i] == '/')
			base = entry + i + 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(base, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

/*
 * LD_PRELOAD with @lib first, after any sanitizer runtime already there (those must
 * stay first), without a second copy of @lib. The caller frees the result.
 */
static char *
preload_value(const char *lib, const char *old)
{
	size_t size = strlen(lib) + (old ? strlen(old) : 0) + 3;
	char *out = malloc(size);
	size_t len = 0;

	if (!out)
		return NULL;
	out[0] = '\0';
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ":" : "", lib);
			continue;
		}
		for (const char *s = old ? old : ""; *s;) {
			size_t n = strcspn(s, ": ");
			bool sanitizer = is_sanitizer_runtime(s, n);

			if (n > 0 && (pass == 0) == sanitizer && !(strlen(lib) == n && strncmp(s, lib, n) == 0))
				len += (size_t)snprintf(out + len, size - len, "%s%.*s", len ? ":" : "", (int)n, s);
			s += n;
			s += *s != '\0';
		}
	}
	return out;
}

/* A positive integer option value, or 0 when @s is not one. */
static unsigned long
positive(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (*s < '0' || *s > '9')
		return 0;
	v = strtoul(s, &end, 10);
	return errno || *end || v == 0 || v > 0xffffffffu ? 0 : v;
}

int
hesper_cmd_run(int argc, char **argv)
{
	enum { OPT_LIB = 256, OPT_MAX_EVENTS };
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"mode", required_argument, NULL, 'm'},
		{"sample", required_argument, NULL, 's'},
		{"lib", required_argument, NULL, OPT_LIB},
		{"max-events", required_argument, NULL, OPT_MAX_EVENTS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *prefix = DEFAULT_PREFIX, *format = DEFAULT_FORMATS, *mode = NULL, *sample = NULL;
	const char *max_events = NULL, *lib_arg = NULL;
	char lib[PATH_MAX], spec[SPEC_MAX];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:f:m:s:hV", options, NULL)) != -1) {
		switch (c) {
		case 'o': prefix = optarg; break;
		case 'f': format = optarg; break;
		case 'm':
			if (strcmp(optarg, "dispatch") != 0 && strcmp(optarg, "submit") != 0 &&
			    strcmp(optarg, "clock") != 0)
				return hesper_usage_error("--mode takes dispatch, submit or clock, not '%s'", optarg);
			mode = optarg;
			break;
		case 's':
			if (!positive(optarg))
				return hesper_usage_error("--sample takes a whole number >= 1, not '%s'", optarg);
			sample = optarg;
			break;
		case OPT_MAX_EVENTS:
			if (!positive(optarg))
				return hesper_usage_error("--max-events takes a whole number >= 1, not '%s'", optarg);
			max_events = optarg;
			break;
		case OPT_LIB: lib_arg = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': printf("hesper %s\n", HESPER_VERSION); return 0;
		case ':': return hesper_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return hesper_usage_error("unknown option '-%c'", optopt);
			return hesper_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return hesper_usage_error("no program given (hesper [options] -- program args...)");
	if (build_report_spec(format, prefix, spec, sizeof(spec)) != 0)
		return HESPER_EXIT_USAGE;
	if (!find_library(lib_arg, lib))
		return HESPER_EXIT_USAGE;

	char *preload = preload_value(lib, getenv("LD_PRELOAD"));
	if (!preload || setenv("LD_PRELOAD", preload, 1) != 0 || setenv("HESPER_REPORT", spec, 1) != 0 ||
	    (mode && setenv("HESPER_MODE", mode, 1) != 0) || (sample && setenv("HESPER_SAMPLE", sample, 1) != 0) ||
	    (max_events && setenv("HESPER_MAX_EVENTS", max_events, 1) != 0)) {
		free(preload);
		return hesper_usage_error("out of memory");
	}
	free(preload);

	execvp(argv[optind], &argv[optind]);
	int saved = errno;
	fprintf(stderr, "hesper: cannot run '%s': %s\n", argv[optind], strerror(saved));
	return saved == ENOENT ? 127 : 126;
}
