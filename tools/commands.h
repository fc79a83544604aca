/*
 * The subcommands of the `hesper` tool. Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit status: 0 success, 1 a
 * finding (diff: a regression), 2 bad usage or bad input.
 */
#ifndef HESPER_TOOL_COMMANDS_H
#define HESPER_TOOL_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#define HESPER_EXIT_USAGE 2

/* hesper [options] -- program args...: runs the program under Hesper (returns only on failure). */
int hesper_cmd_run(int argc, char **argv);

/* hesper report FILE.json: the text report of a saved summary. */
int hesper_cmd_report(int argc, char **argv);

/* hesper diff [options] A.json B.json (--runs N: N a side): per-kernel changes; 1 when a kernel got slower beyond the noise. */
int hesper_cmd_diff(int argc, char **argv);

/* hesper merge FILES... -o OUT: many processes' summaries (and traces) as one, each file and process once. */
int hesper_cmd_merge(int argc, char **argv);

/* True when @path starts like an SQLite database. */
bool hesper_is_database(const char *path);

/*
 * Merges the Hesper SQLite databases @paths (@n of them) into a new database @out_path,
 * the processes kept distinct; 0, or 2 with a line on stderr.
 */
int hesper_merge_databases(const char *out_path, char **paths, size_t n);

/*
 * Merges the trace files @paths (@n of them) into @out_path, a second trace of one
 * process (the same pid, host and origin) left out with a line on stderr; the traces
 * merged in *@merged. 0, or 2 with a line on stderr.
 */
int hesper_merge_traces(const char *out_path, char **paths, int n, int *merged);

#endif
