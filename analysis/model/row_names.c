/* HESPER_GROUP_BY's words and the names of the rows it splits a kernel into (row_names.h). */
#include "row_names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const words[HESPER_GROUP_BY_COUNT] = {"kernel", "shape", "label"};

const char *
hesper_group_by_word(enum hesper_group_by g)
{
	return (unsigned)g < HESPER_GROUP_BY_COUNT ? words[g] : words[HESPER_GROUP_BY_KERNEL];
}

bool
hesper_group_by_from_word(const char *word, enum hesper_group_by *out)
{
	for (unsigned i = 0; word && i < HESPER_GROUP_BY_COUNT; i++)
		if (strcmp(word, words[i]) == 0) {
			*out = (enum hesper_group_by)i;
			return true;
		}
	return false;
}

size_t
hesper_row_name(char *buf, size_t size, enum hesper_group_by g, const char *kernel, const char *label,
		const uint32_t groups[3], bool known)
{
	int n;

	if (g == HESPER_GROUP_BY_SHAPE && known)
		/* U+00D7 MULTIPLICATION SIGN: one column wide, as the HTML report writes shapes */
		n = snprintf(buf, size, "%s [%" PRIu32 "\u00d7%" PRIu32 "\u00d7%" PRIu32 "]", kernel, groups[0],
			     groups[1], groups[2]);
	else if (g == HESPER_GROUP_BY_SHAPE)
		n = snprintf(buf, size, "%s [?]", kernel);
	else if (g == HESPER_GROUP_BY_LABEL && label)
		n = snprintf(buf, size, "%s/%s", label, kernel);
	else
		n = snprintf(buf, size, "%s", kernel);
	return n > 0 ? (size_t)n : 0;
}

bool
hesper_row_is_of(const char *row, const char *kernel)
{
	size_t r = strlen(row), k = strlen(kernel);

	if (r == k)
		return memcmp(row, kernel, k) == 0;
	if (r > k + 2 && memcmp(row, kernel, k) == 0 && row[k] == ' ' && row[k + 1] == '[')
		return true;
	return r > k + 1 && memcmp(row + r - k, kernel, k) == 0 && row[r - k - 1] == '/';
}
