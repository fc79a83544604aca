/* Source files found in HESPER_SOURCE_PATH's directories (see source_path.h). */
#include "source_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole of regular file @path (terminated), or NULL: missing, too large, binary, no memory. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || (unsigned long)len > HESPER_SOURCE_MAX ||
	    fseek(f, 0, SEEK_SET) != 0)
		goto out;
	text = malloc((size_t)len + 1);
	if (text && fread(text, 1, (size_t)len, f) != (size_t)len) {
		free(text);
		text = NULL;
	}
	if (text) {
		text[len] = '\0';
		if (strlen(text) != (size_t)len) { /* a zero byte: not source text */
			free(text);
			text = NULL;
		}
	}
out:
	fclose(f);
	return text;
}

char *hesper_source_find(const char *dirs, const char *base, const char *file, char **found)
{
	*found = NULL;
	if (!dirs || !file || !file[0])
		return NULL;
	const char *last = strrchr(file, '/');
	const char *tail = file[0] == '/' ? (last ? last + 1 : file) : file;
	for (const char *dir = dirs; *dir;) {
		const char *colon = strchr(dir, ':');
		size_t len = colon ? (size_t)(colon - dir) : strlen(dir);
		for (int pass = 0; len && pass < 2; pass++) {
			/* the name as given (relative), then its last component */
			const char *name = pass == 0 ? tail : (last ? last + 1 : file);
			if (pass == 1 && name == tail)
				break;
			const char *under = dir[0] != '/' && base && base[0] ? base : NULL;
			size_t size = (under ? strlen(under) + 1 : 0) + len + 1 + strlen(name) + 1;
			char *path = malloc(size);
			if (!path)
				return NULL;
			snprintf(path, size, "%s%s%.*s/%s", under ? under : "", under ? "/" : "", (int)len, dir, name);
			char *text = read_text(path);
			if (text) {
				/* named as the file it is, without the "dir/../" a relative walk made */
				char *real = realpath(path, NULL);
				*found = real ? real : path;
				if (real)
					free(path);
				return text;
			}
			free(path);
		}
		dir += len + (colon != NULL);
	}
	return NULL;
}
