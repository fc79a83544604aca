/* Telling `hesper merge`'s inputs apart by content, and a file named twice (merge_inputs.h). */
#include "merge_inputs.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"

#define TRACE_SUFFIX ".trace.json"
#define SNIFF_BYTES 4096 /* a trace names "traceEvents" within its first line or two */

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

enum hesper_merge_kind
hesper_merge_kind_of(const char *path)
{
	char head[SNIFF_BYTES + 1];
	size_t n;
	FILE *f;

	if (hesper_is_database(path))
		return HESPER_MERGE_DATABASE;
	if (ends_with(path, TRACE_SUFFIX))
		return HESPER_MERGE_TRACE;
	f = fopen(path, "rb");
	if (!f)
		return HESPER_MERGE_SUMMARY;
	n = fread(head, 1, SNIFF_BYTES, f);
	fclose(f);
	head[n] = '\0';
	/* A summary's first key is its schema; a trace's events come before its metadata. */
	if (strstr(head, "\"traceEvents\"") && !strstr(head, "\"hesper-summary/"))
		return HESPER_MERGE_TRACE;
	return HESPER_MERGE_SUMMARY;
}

long
hesper_merge_same_file(const char *path, char *const *earlier, size_t n)
{
	struct stat a, b;

	if (stat(path, &a) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (stat(earlier[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return (long)i;
	return -1;
}
