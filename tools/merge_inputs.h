/*
 * The files given to `hesper merge`: summaries, traces and SQLite databases told apart by
 * their content (a shell glob such as rank*.json also matches rank0.trace.json), and each
 * file taken once however often it is named.
 */
#ifndef HESPER_TOOL_MERGE_INPUTS_H
#define HESPER_TOOL_MERGE_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

enum hesper_merge_kind {
	HESPER_MERGE_SUMMARY, /* a JSON summary, or anything else: its loader says what is wrong */
	HESPER_MERGE_TRACE,
	HESPER_MERGE_DATABASE,
};

/* What the file at @path is: an SQLite header, a trace ("traceEvents" near its start, or a .trace.json name), else a summary. */
enum hesper_merge_kind hesper_merge_kind_of(const char *path);

/*
 * The index among @earlier (@n paths) of a file that is the file at @path (the same
 * device and inode: named twice, or through a link), or -1.
 */
long hesper_merge_same_file(const char *path, char *const *earlier, size_t n);

#endif
