/*
 * Per-name rows in an open-addressing hash table with linear probing.
 *
 * Slots hold the name's full 64-bit hash and a pointer to a separately allocated row, so
 * growing the table moves slots but never rows: pointers handed out stay valid. The
 * table doubles when it is 3/4 full, which keeps probe sequences short.
 */
#include "kernel_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 64 /* a power of two */

struct slot {
	uint64_t hash;
	struct hesper_kernel *row; /* NULL when free */
};

struct hesper_kernel_table {
	struct slot *slots;
	size_t capacity; /* a power of two */
	size_t size;
};

/* FNV-1a over the bytes, then a 64-bit finaliser so the low bits used for the index mix well. */
static uint64_t
hash_name(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

struct hesper_kernel_table *
hesper_kernel_table_create(void)
{
	struct hesper_kernel_table *t = malloc(sizeof(*t));

	if (!t)
		return NULL;
	t->slots = calloc(INITIAL_CAPACITY, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	t->capacity = INITIAL_CAPACITY;
	t->size = 0;
	return t;
}

void
hesper_kernel_table_destroy(struct hesper_kernel_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->capacity; i++) {
		struct hesper_kernel *k = t->slots[i].row;

		if (!k)
			continue;
		hesper_stats_free(&k->timed);
		free(k->name);
		free(k);
	}
	free(t->slots);
	free(t);
}

/* The slot holding @name, or the free slot where it would go. */
static struct slot *
probe(struct slot *slots, size_t capacity, uint64_t hash, const char *name)
{
	size_t mask = capacity - 1;

	for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
		struct slot *s = &slots[i];

		if (!s->row)
			return s;
		if (s->hash == hash && strcmp(s->row->name, name) == 0)
			return s;
	}
}

static bool
grow(struct hesper_kernel_table *t)
{
	size_t capacity = t->capacity * 2;
	struct slot *slots = calloc(capacity, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < t->capacity; i++) {
		struct slot *old = &t->slots[i];

		if (old->row)
			*probe(slots, capacity, old->hash, old->row->name) = *old;
	}
	free(t->slots);
	t->slots = slots;
	t->capacity = capacity;
	return true;
}

struct hesper_kernel *
hesper_kernel_table_find(const struct hesper_kernel_table *t, const char *name)
{
	return probe(t->slots, t->capacity, hash_name(name), name)->row;
}

struct hesper_kernel *
hesper_kernel_table_get(struct hesper_kernel_table *t, const char *name)
{
	uint64_t hash = hash_name(name);
	struct slot *s = probe(t->slots, t->capacity, hash, name);
	struct hesper_kernel *k = NULL;

	if (s->row)
		return s->row;

	if ((t->size + 1) * 4 > t->capacity * 3) {
		if (!grow(t))
			return NULL;
		s = probe(t->slots, t->capacity, hash, name);
	}

	k = malloc(sizeof(*k));
	if (!k)
		goto fail;
	k->name = strdup(name);
	if (!k->name)
		goto fail;
	k->count = 0;
	k->share_ns = 0;
	k->stats_set = 0;
	memset(&k->shapes, 0, sizeof(k->shapes));
	hesper_stats_init(&k->timed);

	s->hash = hash;
	s->row = k;
	t->size++;
	return k;

fail:
	free(k);
	return NULL;
}

size_t
hesper_kernel_table_size(const struct hesper_kernel_table *t)
{
	return t->size;
}

struct hesper_kernel *
hesper_kernel_table_next(const struct hesper_kernel_table *t, size_t *cursor)
{
	while (*cursor < t->capacity) {
		struct hesper_kernel *k = t->slots[(*cursor)++].row;

		if (k)
			return k;
	}
	return NULL;
}

static int
compare_rows(const void *a, const void *b)
{
	const struct hesper_kernel *x = *(const struct hesper_kernel *const *)a;
	const struct hesper_kernel *y = *(const struct hesper_kernel *const *)b;
	uint64_t tx = hesper_kernel_total_ns(x), ty = hesper_kernel_total_ns(y);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct hesper_kernel **
hesper_kernel_table_sorted(const struct hesper_kernel_table *t, size_t *out_count)
{
	struct hesper_kernel **rows;
	size_t n = 0, cursor = 0;
	struct hesper_kernel *k;

	*out_count = 0;
	if (t->size == 0)
		return NULL;
	rows = malloc(t->size * sizeof(*rows));
	if (!rows)
		return NULL;
	while ((k = hesper_kernel_table_next(t, &cursor)))
		rows[n++] = k;
	qsort(rows, n, sizeof(*rows), compare_rows);
	*out_count = n;
	return rows;
}

int
hesper_kernel_table_rows(const struct hesper_kernel_table *t, struct hesper_kernel ***out_rows, size_t *out_count)
{
	*out_rows = NULL;
	*out_count = 0;
	if (!t || t->size == 0)
		return 0;
	*out_rows = hesper_kernel_table_sorted(t, out_count);
	return *out_rows ? 0 : -1;
}

void
hesper_kernel_add_shares(struct hesper_kernel *k, uint64_t ns)
{
	if (__builtin_add_overflow(k->share_ns, ns, &k->share_ns))
		k->share_ns = UINT64_MAX;
}

void
hesper_kernel_record_share(struct hesper_kernel *k, uint64_t ns, uint64_t share_ns)
{
	k->count++;
	hesper_stats_add(&k->timed, ns);
	hesper_kernel_add_shares(k, share_ns);
}

void
hesper_kernel_record(struct hesper_kernel *k, uint64_t ns)
{
	hesper_kernel_record_share(k, ns, ns);
}

void
hesper_kernel_count_untimed(struct hesper_kernel *k, uint64_t n)
{
	k->count = k->count > UINT64_MAX - n ? UINT64_MAX : k->count + n;
}

/* @estimate rounded into a uint64_t: UINT64_MAX at or above 2^64, 0 below 0. */
static uint64_t
rounded(double estimate)
{
	estimate = round(estimate);
	/* 2^64 as a double: anything at or above it does not fit. */
	if (!(estimate < 18446744073709551616.0))
		return UINT64_MAX;
	return estimate > 0 ? (uint64_t)estimate : 0;
}

uint64_t
hesper_kernel_span_total_ns(const struct hesper_kernel *k)
{
	if (k->timed.count == k->count)
		return k->timed.total_ns;
	if (k->timed.count == 0)
		return 0;
	return rounded(k->timed.mean_ns * (double)k->count);
}

uint64_t
hesper_kernel_total_ns(const struct hesper_kernel *k)
{
	if (k->timed.count == k->count)
		return k->share_ns;
	uint64_t spans = hesper_kernel_span_total_ns(k);
	/* Nothing overlapped: the estimate exactly as from the spans. */
	if (k->share_ns == k->timed.total_ns || k->timed.total_ns == 0)
		return spans;
	return rounded((double)spans * ((double)k->share_ns / (double)k->timed.total_ns));
}
