/*
 * hesper merge FILES... -o OUT: the summaries of many processes as one report.
 *
 * Each file is taken once, told apart by its content (merge_inputs.c): summaries,
 * traces and databases may come in any order and through overlapping globs. A file named
 * twice, or a second copy of one process's summary (the same pid, host, program and wall
 * time), is merged once, with a line on stderr.
 *
 * Kernels with the same name are one row (counts and totals add up; quantiles are
 * approximate, see analysis/read/summary_load.h); wall and GPU busy times are sums over the processes. Text goes to stdout: the merged table, a per-process
 * breakdown and, per kernel, the imbalance between processes: the max/min and max/mean
 * of the per-process totals over all processes (a process that never ran the kernel
 * counts as 0). OUT.json is the merged hesper-summary/1 with "processes" and
 * "imbalance" added; the trace files among FILES (by content, or after --trace) are
 * merged into OUT.trace.json. The merged header names the programs and their pids.
 *
 * When FILES are SQLite databases (sqlite: sinks), OUT is the database written instead:
 * hesper merge -o all.db a.db b.db (merge_db.c).
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "commands.h"
#include "merge_inputs.h"
#include "merge_report.h"
#include "write/write.h"
#include "profile_merge.h"
#include "report_files.h"
#include "read/read.h"
#include "usage.h"

#define PIDS_LISTED 4 /* pids named per program in the merged header; more are counted */

static bool
append(char *out, size_t size, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= size)
		return false;
	memcpy(out + *len, s, n + 1);
	*len += n;
	return true;
}

/*
 * What was merged, for the header: each program once, in the order given, with its pids
 * ("multi_kernel (pids 4711, 4712), demo (pid 4720)"; past PIDS_LISTED, how many), cut
 * with "and N more" when @size is too small.
 */
static void
describe_programs(char *out, size_t size, const struct process *procs, size_t n)
{
	size_t len = 0, left = 0;
	char more[48];

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *exe = procs[i].profile.exe[0] ? procs[i].profile.exe : "?";
		size_t count = 0, first = i;
		char part[2 * HESPER_NAME_MAX];
		int o;

		for (size_t j = 0; j < i && first == i; j++)
			if (strcmp(procs[j].profile.exe[0] ? procs[j].profile.exe : "?", exe) == 0)
				first = j;
		if (first != i)
			continue; /* described with its first process */
		for (size_t j = i; j < n; j++)
			count += strcmp(procs[j].profile.exe[0] ? procs[j].profile.exe : "?", exe) == 0;
		o = snprintf(part, sizeof(part), "%s%s (%s", len ? ", " : "", exe, count == 1 ? "pid " : "pids ");
		for (size_t j = i, listed = 0; j < n && count <= PIDS_LISTED; j++)
			if (strcmp(procs[j].profile.exe[0] ? procs[j].profile.exe : "?", exe) == 0)
				o += snprintf(part + o, sizeof(part) - (size_t)o, "%s%d", listed++ ? ", " : "",
					      procs[j].profile.pid);
		if (count > PIDS_LISTED)
			snprintf(part, sizeof(part), "%s%s (%zu processes", len ? ", " : "", exe, count);
		snprintf(part + strlen(part), sizeof(part) - strlen(part), ")");
		if (left || !append(out, size - sizeof(more), &len, part))
			left++;
	}
	if (left) {
		snprintf(more, sizeof(more), " and %zu more", left);
		append(out, size, &len, more);
	}
}

/* The hosts of @procs, each once, comma-separated ("and N more" when @size is too small). */
static void
describe_hosts(char *out, size_t size, const struct process *procs, size_t n)
{
	size_t len = 0, left = 0;
	char more[48];

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= strcmp(procs[j].profile.host, procs[i].profile.host) == 0;
		if (seen)
			continue;
		if (left || (len && !append(out, size - sizeof(more), &len, ", ")) ||
		    !append(out, size - sizeof(more), &len, procs[i].profile.host))
			left++;
	}
	if (left) {
		snprintf(more, sizeof(more), " and %zu more", left);
		append(out, size, &len, more);
	}
}

/* The earlier of @procs that is the same process as @p (a copy of its summary), or NULL. */
static const struct process *
same_process(const struct process *procs, size_t n, const struct hesper_profile *p)
{
	for (size_t i = 0; i < n; i++) {
		const struct hesper_profile *q = &procs[i].profile;

		if (q->pid == p->pid && q->wall_ns == p->wall_ns && strcmp(q->exe, p->exe) == 0 &&
		    strcmp(q->host, p->host) == 0)
			return &procs[i];
	}
	return NULL;
}

/* The inputs of one merge, each file once, by kind. */
struct inputs {
	char **all; /* every file taken, to find one named again */
	size_t nall;
	struct process *procs; /* summaries */
	size_t nprocs;
	char **traces;
	int ntraces;
	char **dbs;
	size_t ndbs;
};

/* Takes @path (@trace: given after --trace) unless it was taken before, by kind. */
static void
take(struct inputs *in, const char *path, bool trace)
{
	long same = hesper_merge_same_file(path, in->all, in->nall);

	if (same >= 0) {
		/* The same name twice is overlapping globs (rank*.json rank*.trace.json): nothing to say. */
		if (strcmp(path, in->all[same]) != 0)
			fprintf(stderr, "hesper: merge: '%s' is the same file as '%s'; merged once\n", path,
				in->all[same]);
		return;
	}
	in->all[in->nall++] = (char *)path;
	switch (trace ? HESPER_MERGE_TRACE : hesper_merge_kind_of(path)) {
	case HESPER_MERGE_TRACE: in->traces[in->ntraces++] = (char *)path; break;
	case HESPER_MERGE_DATABASE: in->dbs[in->ndbs++] = (char *)path; break;
	case HESPER_MERGE_SUMMARY: in->procs[in->nprocs++].path = path; break;
	}
}

/* Databases alone into one database; anything else with them is refused. Returns the exit status. */
static int
merge_databases(const char *out_prefix, struct inputs *in)
{
	const char *other = in->nprocs ? in->procs[0].path : in->ntraces ? in->traces[0] : NULL;

	if (other)
		return hesper_usage_error("merge: '%s' is not an SQLite database; databases merge only with databases",
					  other);
	return hesper_merge_databases(out_prefix, in->dbs, in->ndbs);
}

/* Loads the summaries; a second copy of one process's summary is dropped, said on stderr. 0, or 2 after a line. */
static int
load_summaries(struct inputs *in, size_t *loaded)
{
	char err[512];
	size_t kept = 0;

	for (size_t i = 0; i < in->nprocs; i++) {
		struct process *p = &in->procs[kept];
		const struct process *twin;

		*p = in->procs[i];
		if (hesper_summary_load(p->path, &p->profile, err, sizeof(err)) != 0) {
			fprintf(stderr, "hesper: %s\n", err);
			hesper_profile_free(&p->profile);
			in->nprocs = kept;
			return HESPER_EXIT_USAGE;
		}
		twin = same_process(in->procs, kept, &p->profile);
		if (twin) {
			fprintf(stderr,
				"hesper: merge: '%s' is a copy of the report in '%s' (pid %d on %s, the same wall time); "
				"merged once\n",
				p->path, twin->path, p->profile.pid, p->profile.host);
			hesper_profile_free(&p->profile);
			continue;
		}
		*loaded = ++kept;
	}
	in->nprocs = kept;
	return 0;
}

/*
 * 0 when the folder of output prefix @prefix can take files; else says why in one line and
 * returns the usage status: checked before anything is read or printed, as `hesper run` does.
 */
static int
output_folder_ok(const char *prefix)
{
	char dir[4096];

	hesper_prefix_folder(prefix, dir, sizeof(dir));
	int refusal = hesper_folder_refusal(dir[0] ? dir : ".");
	if (refusal) {
		fprintf(stderr, "hesper: merge: cannot write '%s.json': %s: %s\n", prefix, dir[0] ? dir : ".",
			strerror(refusal));
		return HESPER_EXIT_USAGE;
	}
	return 0;
}

int
hesper_cmd_merge(int argc, char **argv)
{
	const char *out_prefix = NULL;
	char prefix[PATH_MAX - 32]; /* room in a path for the longest extension */
	struct inputs in = {
		.all = calloc((size_t)argc, sizeof(char *)),
		.procs = calloc((size_t)argc, sizeof(struct process)),
		.traces = calloc((size_t)argc, sizeof(char *)),
		.dbs = calloc((size_t)argc, sizeof(char *)),
	};
	struct process *procs = in.procs;
	struct hesper_profile merged;
	struct imbalance *rows = NULL;
	struct hesper_kernel **sorted = NULL;
	size_t nprocs = 0, loaded = 0, n = 0;
	int ret = HESPER_EXIT_USAGE;
	bool merged_init = false;
	char path[4096];

	if (!in.all || !in.procs || !in.traces || !in.dbs) {
		ret = hesper_usage_error("out of memory");
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
			if (i + 1 >= argc) {
				ret = hesper_usage_error("merge: -o needs a value (the output prefix)");
				goto out;
			}
			out_prefix = argv[++i];
		} else if (strcmp(argv[i], "--trace") == 0) {
			if (i + 1 >= argc) {
				ret = hesper_usage_error("merge: --trace needs a file");
				goto out;
			}
			take(&in, argv[++i], true);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ret = hesper_usage_error("merge: unknown option '%s'", argv[i]);
			goto out;
		} else {
			take(&in, argv[i], false);
		}
	}
	if (out_prefix && in.ndbs) {
		ret = merge_databases(out_prefix, &in);
		goto out;
	}
	if (!out_prefix || in.nprocs == 0) {
		ret = hesper_usage_error(
			"merge takes summaries and an output prefix (hesper merge A.json B.json... -o OUT)");
		goto out;
	}
	/* "-o merged.json" means merged.json, not merged.json.json: the prefix is what is left */
	snprintf(prefix, sizeof(prefix), "%s", out_prefix);
	hesper_drop_report_extension(prefix);
	out_prefix = prefix;
	if ((ret = output_folder_ok(out_prefix)) != 0)
		goto out;
	if ((ret = load_summaries(&in, &loaded)) != 0)
		goto out;
	ret = HESPER_EXIT_USAGE;
	nprocs = in.nprocs;

	if (hesper_profile_init(&merged) != 0)
		goto oom;
	merged_init = true;
	merged.pid = 0; /* no one process: the header names them all */
	describe_programs(merged.exe, sizeof(merged.exe), procs, nprocs);
	describe_hosts(merged.host, sizeof(merged.host), procs, nprocs);
	snprintf(merged.mode, sizeof(merged.mode), "%s", procs[0].profile.mode);
	merged.sample_every = procs[0].profile.sample_every;
	merged.group_by = procs[0].profile.group_by;
	for (size_t i = 0; i < nprocs; i++) {
		/* Rows of different groupings are different rows: summed, they would count dispatches twice over. */
		if (procs[i].profile.group_by != merged.group_by) {
			fprintf(stderr, "hesper: the summaries have different groupings (%s, %s); not merged\n",
				hesper_group_by_word(merged.group_by), hesper_group_by_word(procs[i].profile.group_by));
			goto out;
		}
	}
	for (size_t i = 0; i < nprocs; i++) {
		if (hesper_profile_merge(&merged, &procs[i].profile) != 0)
			goto oom;
		if (procs[i].profile.sample_every != merged.sample_every)
			merged.sample_every = 0;
		if (strcmp(procs[i].profile.mode, merged.mode) != 0)
			snprintf(merged.mode, sizeof(merged.mode), "mixed");
	}

	if (hesper_kernel_table_rows(merged.kernels, &sorted, &n) != 0)
		goto oom;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		goto oom;
	for (size_t i = 0; i < n; i++)
		hesper_merge_imbalance(&rows[i], sorted[i], procs, nprocs);

	printf("Merged %zu process%s\n", nprocs, nprocs == 1 ? "" : "es");
	if (hesper_report_text(stdout, &merged) != 0)
		goto oom;
	hesper_merge_print_processes(procs, nprocs);
	if (n && nprocs > 1) /* one process has no imbalance to show */
		hesper_merge_print_imbalance(rows, n, nprocs);

	snprintf(path, sizeof(path), "%s.json", out_prefix);
	int w = hesper_merge_write_json(path, &merged, procs, nprocs, rows, n);
	if (w == -1)
		goto oom;
	if (w != 0)
		goto out;
	printf("\nhesper: wrote %s", path);
	if (in.ntraces) {
		int merged_traces;

		snprintf(path, sizeof(path), "%s.trace.json", out_prefix);
		if (hesper_merge_traces(path, in.traces, in.ntraces, &merged_traces) != 0)
			goto out;
		printf(" and %s (%d trace%s)", path, merged_traces, merged_traces == 1 ? "" : "s");
	}
	fputc('\n', stdout);
	ret = 0;
	goto out;
oom:
	fputs("hesper: out of memory\n", stderr);
	ret = 1;
out:
	free(sorted);
	free(rows);
	if (merged_init)
		hesper_profile_free(&merged);
	for (size_t i = 0; i < loaded; i++)
		hesper_profile_free(&procs[i].profile);
	free(in.all);
	free(in.procs);
	free(in.traces);
	free(in.dbs);
	return ret;
}
