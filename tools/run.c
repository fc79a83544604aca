/*
 * hesper [options] [--] program args...: sets up the environment that loads Hesper
 * (LD_PRELOAD and the HESPER_* settings), runs the program as a child (child.c: its exit
 * status and signals are hesper's own) and then says where its reports went
 * (report_files.c).
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

#include "child.h"
#include "commands.h"
#include "report_files.h"
#include "setting_check.h"
#include "usage.h"

#ifndef HESPER_VERSION
#define HESPER_VERSION "unknown"
#endif
#ifndef HESPER_LIB_FROM_BINDIR
#define HESPER_LIB_FROM_BINDIR "../lib/hesper/libhesper.so"
#endif
#define BUILD_TREE_LIB "../layer/libhesper.so"

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

/* Sets LD_PRELOAD and the HESPER_* settings the options gave; false when memory runs out. */
static bool
set_environment(const char *lib, const char *spec, const char *const settings[][2], size_t n)
{
	char *preload = preload_value(lib, getenv("LD_PRELOAD"));
	bool ok = preload && setenv("LD_PRELOAD", preload, 1) == 0 && setenv("HESPER_REPORT", spec, 1) == 0;

	for (size_t i = 0; ok && i < n; i++)
		ok = !settings[i][1] || setenv(settings[i][0], settings[i][1], 1) == 0;
	free(preload);
	return ok;
}

int
hesper_cmd_run(int argc, char **argv)
{
	enum { OPT_LIB = 256, OPT_MAX_EVENTS };
	enum { SET_MODE, SET_SAMPLE, SET_GROUP_BY, SET_MAX_EVENTS, SET_COUNT };
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"mode", required_argument, NULL, 'm'},
		{"sample", required_argument, NULL, 's'},
		{"group-by", required_argument, NULL, 'g'},
		{"lib", required_argument, NULL, OPT_LIB},
		{"max-events", required_argument, NULL, OPT_MAX_EVENTS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	/* Each option that is a setting, its variable, and the value given (NULL: not given). */
	const char *settings[SET_COUNT][2] = {
		[SET_MODE] = {"HESPER_MODE", NULL},
		[SET_SAMPLE] = {"HESPER_SAMPLE", NULL},
		[SET_GROUP_BY] = {"HESPER_GROUP_BY", NULL},
		[SET_MAX_EVENTS] = {"HESPER_MAX_EVENTS", NULL},
	};
	const char *prefix = HESPER_DEFAULT_PREFIX, *format = HESPER_DEFAULT_FORMATS, *lib_arg = NULL;
	struct hesper_report_plan plan;
	char lib[PATH_MAX];
	int c, status, code;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:f:m:s:g:hV", options, NULL)) != -1) {
		int set = -1;

		switch (c) {
		case 'o': prefix = optarg; break;
		case 'f': format = optarg; break;
		case 'm': set = SET_MODE; break;
		case 's': set = SET_SAMPLE; break;
		case 'g': set = SET_GROUP_BY; break;
		case OPT_MAX_EVENTS: set = SET_MAX_EVENTS; break;
		case OPT_LIB: lib_arg = optarg; break;
		case 'h': hesper_usage_print(stdout); return 0;
		case 'V': printf("hesper %s\n", HESPER_VERSION); return 0;
		case ':': return hesper_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return hesper_usage_error("unknown option '-%c'", optopt);
			return hesper_usage_error("unknown option '%s'", argv[optind - 1]);
		}
		if (set >= 0) {
			const char *name = c == 'm'   ? "--mode"
					   : c == 's' ? "--sample"
					   : c == 'g' ? "--group-by"
						      : "--max-events";

			if (hesper_check_setting(name, settings[set][0], optarg) != 0)
				return HESPER_EXIT_USAGE;
			settings[set][1] = optarg;
		}
	}
	if (optind >= argc)
		return hesper_usage_error("no program given (hesper [options] -- program args...)");
	if (hesper_report_plan_make(&plan, format, prefix) != 0)
		return HESPER_EXIT_USAGE;
	if (!find_library(lib_arg, lib))
		return HESPER_EXIT_USAGE;
	if (!set_environment(lib, plan.spec, settings, SET_COUNT) || hesper_report_plan_snapshot(&plan) != 0) {
		hesper_report_plan_free(&plan);
		return hesper_usage_error("out of memory");
	}

	status = hesper_child_run(&argv[optind], &code);
	if (status < 0) {
		hesper_report_plan_free(&plan);
		return code;
	}
	hesper_report_plan_announce(&plan);
	hesper_report_plan_free(&plan);
	hesper_child_exit_as(status);
}
