/* Pure helpers for the environment edits of the preloaded library. */
#include "loader_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hesper_loader_version hesper_loader_version_from_name(const char *file_name)
{
	const char *v = strstr(file_name, ".so.");
	unsigned long major, minor, patch;
	char tail;
	if (!v || sscanf(v + 4, "%lu.%lu.%lu%c", &major, &minor, &patch, &tail) != 3)
		return 0;
	if (major > 999 || minor > 999 || patch > 999)
		return 0;
	return major * 1000000ul + minor * 1000ul + patch;
}

bool hesper_list_contains(const char *list, char separator, const char *item)
{
	size_t n = strlen(item);
	if (!list || !n)
		return false;
	for (const char *p = list; *p;) {
		const char *end = strchr(p, separator);
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, item, n) == 0)
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

bool hesper_list_prepend(char *out, size_t size, const char *item, char separator, const char *existing)
{
	int n = existing && *existing ? snprintf(out, size, "%s%c%s", item, separator, existing)
				      : snprintf(out, size, "%s", item);
	return n >= 0 && (size_t)n < size;
}
