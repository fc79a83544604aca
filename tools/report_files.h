/*
 * The report files of `hesper [options] program`: their names from -o and -f, the
 * HESPER_REPORT that writes them, the folder checked before the program starts, and
 * after it has run, the files its processes wrote, each process its own.
 *
 * With %p in the prefix the names are the user's. Without it every process writes
 * PREFIX-PID.EXT, and when one process alone wrote reports they are renamed PREFIX.EXT.
 */
#ifndef HESPER_TOOL_REPORT_FILES_H
#define HESPER_TOOL_REPORT_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define HESPER_REPORT_SPEC_MAX 8192
#define HESPER_REPORT_EXTS 10 /* formats that write a file */

/* A file in the report folder that matches the plan's names: what it was before the run. */
struct hesper_report_seen {
	char *name;
	ino_t ino;
	long long mtime_ns;
};

struct hesper_report_plan {
	char dir[PATH_MAX];                   /* the folder of the files, absolute (the program may change folders) */
	char shown[PATH_MAX];                 /* the folder as -o gave it, "" when none: for the names shown */
	char base[NAME_MAX + 1];              /* the file names' stem as HESPER_REPORT has it (%p, %h) */
	char host[256];                       /* what %h becomes */
	bool user_pid;                        /* the user's prefix has %p */
	const char *exts[HESPER_REPORT_EXTS]; /* the extensions of the formats that write files */
	size_t nexts;
	char spec[HESPER_REPORT_SPEC_MAX]; /* HESPER_REPORT */
	struct hesper_report_seen *seen;   /* matching files before the run */
	size_t nseen;
};

/*
 * Fills @plan from the -f list @formats and the -o @prefix (an extension of Hesper's at
 * its end dropped), and checks that the folder exists and takes new files. Returns 0, or
 * HESPER_EXIT_USAGE after one line on stderr.
 */
int hesper_report_plan_make(struct hesper_report_plan *plan, const char *formats, const char *prefix);

/* Drops an extension of Hesper's (.json, .trace.json, .csv, ...) from the end of @name, longest first, unless it is all of it. */
void hesper_drop_report_extension(char *name);

/* The folder part of output prefix @prefix into @dir (@size bytes): "" when it names none (the working folder). */
void hesper_prefix_folder(const char *prefix, char *dir, size_t size);

/* 0 when files can be made in folder @dir; else the errno value that says why not (ENOTDIR, EACCES, ...). */
int hesper_folder_refusal(const char *dir);

/* Remembers the files in the folder that match the plan's names, before the run; 0, or -1 out of memory. */
int hesper_report_plan_snapshot(struct hesper_report_plan *plan);

/*
 * After the run: the files written since the snapshot, renamed PREFIX.EXT when one
 * process alone wrote them and it has exited (without %p in the prefix), then one line
 * on stderr saying where the reports are (or that none was written).
 */
void hesper_report_plan_announce(struct hesper_report_plan *plan);

/* Frees what the snapshot kept. */
void hesper_report_plan_free(struct hesper_report_plan *plan);

#endif
