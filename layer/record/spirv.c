/*
 * Reading kernel names out of SPIR-V (see spirv.h).
 *
 * Rules:
 *  - Every read is checked against the number of whole words given; nothing is
 *    allocated, and nothing is indexed by an id taken from the module (ids and the
 *    header's bound are untrusted and may be huge).
 *  - Only the part of the module before the first OpFunction is read: entry points,
 *    debug names and OpSource all precede it in a valid module.
 *  - The first malformed instruction (word count 0, running past the end, a literal
 *    string without its NUL) ends parsing; what came before it is kept.
 *  - Two passes over that part: the first collects the entry points and OpSource's
 *    file id, the second the OpName of each entry function and the file's OpString.
 *    No order between the debug instructions is assumed.
 */
#include "spirv.h"

#include <stdbool.h>
#include <string.h>

#define SPIRV_MAGIC 0x07230203u
#define SPIRV_HEADER_WORDS 5u

#define OP_SOURCE 3u
#define OP_NAME 5u
#define OP_STRING 7u
#define OP_ENTRY_POINT 15u
#define OP_FUNCTION 54u
#define OP_EXECUTION_MODE 16u
#define OP_EXECUTION_MODE_ID 331u
#define OP_DECORATE 71u
#define OP_CONSTANT 43u
#define OP_CONSTANT_COMPOSITE 44u
#define OP_SPEC_CONSTANT 50u
#define OP_SPEC_CONSTANT_COMPOSITE 51u

#define MODE_LOCAL_SIZE 17u
#define MODE_LOCAL_SIZE_ID 38u
#define DECORATION_SPEC_ID 1u
#define DECORATION_BUILTIN 11u
#define BUILTIN_WORKGROUP_SIZE 25u

#define EXECUTION_MODEL_GLCOMPUTE 5u

#define FNV64_OFFSET 0xcbf29ce484222325ull
#define FNV64_PRIME 0x100000001b3ull

/* The words of a module, in host order after an optional byte swap. */
struct words {
	const unsigned char *bytes;
	size_t count;
	bool swap;
};

static uint64_t
fnv1a64(uint64_t h, const void *data, size_t size)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < size; i++) {
		h ^= p[i];
		h *= FNV64_PRIME;
	}
	return h;
}

static uint32_t
bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static uint32_t
word_at(const struct words *w, size_t i)
{
	uint32_t v;

	memcpy(&v, w->bytes + i * 4, sizeof v); /* the buffer need not be aligned */
	return w->swap ? bswap32(v) : v;
}

/* Byte @k of a literal string that starts at word @first (SPIR-V packs octets little-endian). */
static unsigned char
string_byte(const struct words *w, size_t first, size_t k)
{
	return (unsigned char)(word_at(w, first + k / 4) >> (8 * (k % 4)));
}

/*
 * Measures the literal string at words [first, end): its length in bytes without the
 * NUL. Returns false when no NUL comes before @end.
 */
static bool
string_length(const struct words *w, size_t first, size_t end, size_t *out_len)
{
	for (size_t i = first; i < end; i++) {
		uint32_t v = word_at(w, i);

		for (unsigned b = 0; b < 4; b++) {
			if (((v >> (8 * b)) & 0xffu) == 0) {
				*out_len = (i - first) * 4 + b;
				return true;
			}
		}
	}
	return false;
}

/*
 * Copies bytes [@from, @from + @len) of the literal string at word @first into @dst
 * (@size bytes, at least 1), cut so that a UTF-8 sequence is never split, always
 * NUL-terminated.
 */
static void
copy_string(const struct words *w, size_t first, size_t from, size_t len, char *dst, size_t size)
{
	size_t n = len < size - 1 ? len : size - 1;

	if (n < len) {
		/* Back off over continuation bytes to the start of the cut sequence. */
		size_t cut = n;

		for (unsigned back = 0; back < 4 && cut > 0; back++) {
			if ((string_byte(w, first, from + cut) & 0xc0u) != 0x80u)
				break;
			cut--;
		}
		if ((string_byte(w, first, from + cut) & 0xc0u) != 0x80u)
			n = cut;
	}
	for (size_t k = 0; k < n; k++)
		dst[k] = (char)string_byte(w, first, from + k);
	dst[n] = '\0';
}

/* Copies the part of a path after its last '/' or '\\'. */
static void
copy_base_name(const struct words *w, size_t first, size_t len, char *dst, size_t size)
{
	size_t start = 0;

	for (size_t k = 0; k < len; k++) {
		unsigned char c = string_byte(w, first, k);

		if (c == '/' || c == '\\')
			start = k + 1;
	}
	copy_string(w, first, start, len - start, dst, size);
}

static bool
entry_is_compute(const struct hesper_spirv_entry *e)
{
	return e->execution_model == EXECUTION_MODEL_GLCOMPUTE;
}

/*
 * Slot for a new entry point: the next free one, or, once all are taken, the first
 * non-compute one when the new entry is a compute kernel (Hesper only names kernels).
 */
static struct hesper_spirv_entry *
entry_slot(struct hesper_spirv_info *out, uint32_t model)
{
	if (out->entry_count < HESPER_SPIRV_MAX_ENTRIES)
		return &out->entries[out->entry_count++];
	if (model != EXECUTION_MODEL_GLCOMPUTE)
		return NULL;
	for (uint32_t i = 0; i < out->entry_count; i++) {
		if (!entry_is_compute(&out->entries[i]))
			return &out->entries[i];
	}
	return NULL;
}

/*
 * Walks the instructions up to the first OpFunction. Pass 1 collects entry points and
 * the first OpSource file id; pass 2 (@file_id known) resolves names. Returns false when
 * a malformed instruction stopped the walk.
 */
static bool
walk(const struct words *w, struct hesper_spirv_info *out, int pass, uint32_t *file_id)
{
	size_t i = SPIRV_HEADER_WORDS;
	bool file_found = false;

	while (i < w->count) {
		uint32_t first = word_at(w, i);
		uint32_t count = first >> 16;
		uint32_t op = first & 0xffffu;
		size_t len;

		if (count == 0 || count > w->count - i)
			return false;
		if (op == OP_FUNCTION)
			return true;

		size_t end = i + count;

		switch (op) {
		case OP_ENTRY_POINT:
			/* model, function id, name, interface ids... */
			if (count < 4 || !string_length(w, i + 3, end, &len))
				return false;
			if (pass == 1) {
				uint32_t model = word_at(w, i + 1);
				struct hesper_spirv_entry *e = entry_slot(out, model);

				if (e) {
					memset(e, 0, sizeof *e);
					e->execution_model = model;
					e->function_id = word_at(w, i + 2);
					copy_string(w, i + 3, 0, len, e->name, sizeof e->name);
				}
			}
			break;
		case OP_NAME:
			/* target id, name */
			if (count < 3 || !string_length(w, i + 2, end, &len))
				return false;
			if (pass == 2) {
				uint32_t target = word_at(w, i + 1);

				for (uint32_t k = 0; k < out->entry_count; k++) {
					struct hesper_spirv_entry *e = &out->entries[k];

					/* The first OpName of a function wins. */
					if (e->function_id == target && e->function_name[0] == '\0')
						copy_string(w, i + 2, 0, len, e->function_name, sizeof e->function_name);
				}
			}
			break;
		case OP_STRING:
			/* result id, string */
			if (count < 3 || !string_length(w, i + 2, end, &len))
				return false;
			if (pass == 2 && !file_found && *file_id != 0 && word_at(w, i + 1) == *file_id) {
				copy_base_name(w, i + 2, len, out->source_file, sizeof out->source_file);
				file_found = true;
			}
			break;
		case OP_EXECUTION_MODE:
		case OP_EXECUTION_MODE_ID:
			/* entry function id, mode, operands: LocalSize x y z (literals) or LocalSizeId (ids) */
			if (pass == 1 && count >= 6) {
				uint32_t mode = word_at(w, i + 2);
				bool ids = op == OP_EXECUTION_MODE_ID && mode == MODE_LOCAL_SIZE_ID;

				if (!ids && !(op == OP_EXECUTION_MODE && mode == MODE_LOCAL_SIZE))
					break;
				for (uint32_t k = 0; k < out->entry_count; k++) {
					struct hesper_spirv_entry *e = &out->entries[k];

					if (e->function_id != word_at(w, i + 1))
						continue;
					for (int c = 0; c < 3; c++) {
						if (ids)
							e->local_size_ids[c] = word_at(w, i + 3 + c);
						else
							e->local_size[c] = word_at(w, i + 3 + c);
					}
				}
			}
			break;
		case OP_DECORATE:
			/* target id, decoration, operands */
			if (pass == 1 && count >= 4 && word_at(w, i + 2) == DECORATION_BUILTIN &&
			    word_at(w, i + 3) == BUILTIN_WORKGROUP_SIZE)
				out->workgroup_size_id = word_at(w, i + 1);
			break;
		case OP_SOURCE:
			/* language, version, [file id, [source text]] */
			if (count < 3)
				return false;
			if (count >= 5 && !string_length(w, i + 4, end, &len))
				return false;
			if (pass == 1 && count >= 4 && *file_id == 0)
				*file_id = word_at(w, i + 3);
			break;
		default:
			break;
		}
		i = end;
	}
	return true;
}

/*
 * The value of 32-bit scalar constant @id (OpConstant or OpSpecConstant) and, for a
 * specialization constant, its SpecId (else HESPER_SPIRV_NO_SPEC). Returns false when
 * no such constant precedes the first OpFunction.
 */
static bool
constant_value(const struct words *w, uint32_t id, uint32_t *value, uint32_t *spec_id)
{
	bool found = false;

	*spec_id = HESPER_SPIRV_NO_SPEC;
	for (size_t i = SPIRV_HEADER_WORDS; i < w->count;) {
		uint32_t first = word_at(w, i), count = first >> 16, op = first & 0xffffu;

		if (count == 0 || count > w->count - i || op == OP_FUNCTION)
			break;
		if ((op == OP_CONSTANT || op == OP_SPEC_CONSTANT) && count == 4 && word_at(w, i + 2) == id) {
			*value = word_at(w, i + 3);
			found = true;
		} else if (op == OP_DECORATE && count >= 4 && word_at(w, i + 1) == id &&
			   word_at(w, i + 2) == DECORATION_SPEC_ID) {
			*spec_id = word_at(w, i + 3);
		}
		i += count;
	}
	return found;
}

/* The three component ids of composite constant @id, or false. */
static bool
composite_ids(const struct words *w, uint32_t id, uint32_t ids[3])
{
	for (size_t i = SPIRV_HEADER_WORDS; i < w->count;) {
		uint32_t first = word_at(w, i), count = first >> 16, op = first & 0xffffu;

		if (count == 0 || count > w->count - i || op == OP_FUNCTION)
			break;
		if ((op == OP_CONSTANT_COMPOSITE || op == OP_SPEC_CONSTANT_COMPOSITE) && count == 6 &&
		    word_at(w, i + 2) == id) {
			for (int c = 0; c < 3; c++)
				ids[c] = word_at(w, i + 3 + c);
			return true;
		}
		i += count;
	}
	return false;
}

/* Sets @e's local size (and spec ids) from the constants @ids; all unknown when one is not found. */
static void
local_size_from_ids(const struct words *w, struct hesper_spirv_entry *e, const uint32_t ids[3])
{
	for (int c = 0; c < 3; c++) {
		if (!constant_value(w, ids[c], &e->local_size[c], &e->local_size_spec[c])) {
			memset(e->local_size, 0, sizeof e->local_size);
			return;
		}
	}
}

/* Resolves each compute entry's local size once the walks are done (spirv.h: which source wins). */
static void
resolve_local_sizes(const struct words *w, struct hesper_spirv_info *out)
{
	uint32_t wg[3];
	bool have_wg = out->workgroup_size_id && composite_ids(w, out->workgroup_size_id, wg);

	for (uint32_t k = 0; k < out->entry_count; k++) {
		struct hesper_spirv_entry *e = &out->entries[k];

		for (int c = 0; c < 3; c++)
			e->local_size_spec[c] = HESPER_SPIRV_NO_SPEC;
		if (!entry_is_compute(e))
			continue;
		if (have_wg)
			local_size_from_ids(w, e, wg);
		else if (e->local_size_ids[0])
			local_size_from_ids(w, e, e->local_size_ids);
	}
}

bool
hesper_spirv_local_size(const struct hesper_spirv_info *info, const char *entry,
			bool (*spec)(void *ctx, uint32_t spec_id, uint32_t *value), void *ctx, uint32_t out[3])
{
	memset(out, 0, 3 * sizeof(uint32_t));
	for (uint32_t k = 0; info && entry && k < info->entry_count; k++) {
		const struct hesper_spirv_entry *e = &info->entries[k];

		if (!entry_is_compute(e) || strcmp(e->name, entry) != 0)
			continue;
		for (int c = 0; c < 3; c++) {
			uint32_t v = e->local_size[c];

			if (e->local_size_spec[c] != HESPER_SPIRV_NO_SPEC && spec)
				spec(ctx, e->local_size_spec[c], &v);
			out[c] = v;
		}
		if (!out[0] || !out[1] || !out[2]) {
			memset(out, 0, 3 * sizeof(uint32_t));
			return false;
		}
		return true;
	}
	return false;
}

int
hesper_spirv_parse(const void *code, size_t size, struct hesper_spirv_info *out)
{
	struct words w = { .bytes = code, .count = size / 4, .swap = false };
	uint32_t magic;
	uint32_t file_id = 0;

	memset(out, 0, sizeof *out);
	out->hash = fnv1a64(FNV64_OFFSET, code, code ? size : 0);
	if (!code || size < SPIRV_HEADER_WORDS * 4)
		return -1;

	memcpy(&magic, code, sizeof magic);
	if (magic == bswap32(SPIRV_MAGIC))
		w.swap = true;
	else if (magic != SPIRV_MAGIC)
		return -1;

	/* Bytes past the last whole word: not a module, but read what is there. */
	if (size % 4 != 0)
		out->truncated = 1;
	if (!walk(&w, out, 1, &file_id))
		out->truncated = 1;
	walk(&w, out, 2, &file_id);
	resolve_local_sizes(&w, out);
	return 0;
}

/* One UTF-8 sequence at @s (@avail bytes): its length, or 0 when it is not valid. */
static size_t
utf8_sequence(const unsigned char *s, size_t avail)
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
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
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
static void
append(struct out_text *t, const char *s)
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
static bool
entry_matches(const char *stored, const char *entry)
{
	size_t len = strlen(stored);

	if (strcmp(stored, entry) == 0)
		return true;
	return len + 4 >= HESPER_SPIRV_NAME_MAX - 1 && strncmp(stored, entry, len) == 0;
}

void
hesper_spirv_kernel_name(const struct hesper_spirv_info *info, const char *entry, char *buf, size_t size)
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
	h = fnv1a64(info ? info->hash : FNV64_OFFSET, entry, strlen(entry));
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
	struct out_text t = { .buf = buf, .len = 0, .cap = size - 1 };

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
