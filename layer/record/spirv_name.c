/*
 * Kernel names (hesper_spirv_kernel_name of spirv.h) from what spirv.c read out of a
 * module: a readable label (source file, entry point or its function's name) and a hash
 * of the module and entry point, so that two kernels never share a name even when their
 * labels do. Names end up in reports, databases and terminals: they are made valid,
 * printable UTF-8 here, whatever bytes the module held.
 */
#include "spirv.h"

#include <stdbool.h>
#include <string.h>

#include "spirv_words.h"

/* One UTF-8 sequence at @s (@avail bytes): its length, or 0 when it is not valid. */
static size_t utf8_sequence(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1fu;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0fu;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07u;
	} else {
		return 0;
	}
	if (n > avail)
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((s[k] & 0xc0u) != 0x80u)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3fu);
	}
	/* Overlong forms, surrogates, past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A bounded string being built: @len never exceeds @cap (the bytes left for text). */
struct out_text {
	char *buf;
	size_t len;
	size_t cap;
	bool full;
};

/*
 * Appends @s as valid, printable UTF-8: control bytes and invalid sequences become '?'.
 * A sequence that does not fit whole is left out, with everything after it.
 */
static void append(struct out_text *t, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t avail = strlen(s);

	while (avail > 0 && !t->full) {
		size_t n = utf8_sequence(p, avail);
		const unsigned char *src = p;
		size_t take = n;

		if (n == 0 || (n == 1 && (p[0] < 0x20 || p[0] == 0x7f))) {
			src = (const unsigned char *)"?";
			take = 1;
			n = 1;
		}
		if (t->len + take > t->cap) {
			t->full = true;
			break;
		}
		memcpy(t->buf + t->len, src, take);
		t->len += take;
		p += n;
		avail -= n;
	}
}

/* @stored matches @entry exactly, or is @entry cut to fit an entry's name field. */
static bool entry_matches(const char *stored, const char *entry)
{
	size_t len = strlen(stored);

	if (strcmp(stored, entry) == 0)
		return true;
	return len + 4 >= HESPER_SPIRV_NAME_MAX - 1 && strncmp(stored, entry, len) == 0;
}

void hesper_spirv_kernel_name(const struct hesper_spirv_info *info, const char *entry, char *buf, size_t size)
{
	const struct hesper_spirv_entry *found = NULL;
	const char *kernel;
	char suffix[16];
	uint64_t h;

	if (!buf || size == 0)
		return;
	if (!entry)
		entry = "";

	if (info) {
		for (uint32_t i = 0; i < info->entry_count && i < HESPER_SPIRV_MAX_ENTRIES; i++) {
			if (entry_matches(info->entries[i].name, entry)) {
				found = &info->entries[i];
				break;
			}
		}
	}

	kernel = entry;
	if (found && strcmp(entry, "main") == 0 && found->function_name[0] != '\0' &&
	    strcmp(found->function_name, "main") != 0)
		kernel = found->function_name;

	/* Module hash and entry point, mixed (splitmix64 finalizer) so all 64 bits count. */
	h = hesper_spirv_fnv1a64(info ? info->hash : FNV64_OFFSET, entry, strlen(entry));
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;

	static const char hex[] = "0123456789abcdef";
	uint32_t low = (uint32_t)h;

	suffix[0] = '#';
	for (int k = 0; k < 8; k++)
		suffix[1 + k] = hex[(low >> (28 - 4 * k)) & 0xfu];
	suffix[9] = '\0';

	/*
	 * The hash keeps two kernels apart, so it is kept whole whenever it fits; the
	 * label is cut instead.
	 */
	size_t suffix_len = strlen(suffix);
	struct out_text t = {.buf = buf, .len = 0, .cap = size - 1};

	if (t.cap >= suffix_len)
		t.cap -= suffix_len;

	/* An info that did not parse has no entries, so found is NULL then. */
	if (found && info->source_file[0] != '\0') {
		append(&t, info->source_file);
		if (strcmp(kernel, "main") != 0) {
			append(&t, ":");
			append(&t, kernel);
		}
	} else {
		append(&t, kernel);
	}

	t.cap = size - 1;
	t.full = false;
	append(&t, suffix);
	buf[t.len] = '\0';
}
