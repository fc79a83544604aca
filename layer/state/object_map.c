/* Open addressing with linear probing and backward-shift deletion (no tombstones). */
#include "object_map.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t capacity)
{
	/* Handles are often aligned pointers: mix the bits before masking. */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (capacity - 1);
}

void hesper_map_init(struct hesper_map *m)
{
	pthread_mutex_init(&m->lock, NULL);
	m->keys = NULL;
	m->values = NULL;
	m->capacity = 0;
	m->count = 0;
}

void hesper_map_destroy(struct hesper_map *m)
{
	free(m->keys);
	free(m->values);
	m->keys = NULL;
	m->values = NULL;
	m->capacity = m->count = 0;
	pthread_mutex_destroy(&m->lock);
}

static void insert_slot(uint64_t *keys, void **values, size_t capacity, uint64_t key, void *value)
{
	size_t i = slot_of(key, capacity);
	while (keys[i] != 0 && keys[i] != key)
		i = (i + 1) & (capacity - 1);
	keys[i] = key;
	values[i] = value;
}

static int grow(struct hesper_map *m)
{
	size_t capacity = m->capacity ? m->capacity * 2 : 64;
	uint64_t *keys = calloc(capacity, sizeof(*keys));
	void **values = calloc(capacity, sizeof(*values));
	if (!keys || !values) {
		free(keys);
		free(values);
		return -1;
	}
	for (size_t i = 0; i < m->capacity; i++)
		if (m->keys[i])
			insert_slot(keys, values, capacity, m->keys[i], m->values[i]);
	free(m->keys);
	free(m->values);
	m->keys = keys;
	m->values = values;
	m->capacity = capacity;
	return 0;
}

static size_t find_slot(const struct hesper_map *m, uint64_t key)
{
	if (!m->capacity || !key)
		return SIZE_MAX;
	size_t i = slot_of(key, m->capacity);
	while (m->keys[i]) {
		if (m->keys[i] == key)
			return i;
		i = (i + 1) & (m->capacity - 1);
	}
	return SIZE_MAX;
}

void *hesper_map_get(struct hesper_map *m, uint64_t key)
{
	pthread_mutex_lock(&m->lock);
	size_t i = find_slot(m, key);
	void *value = i == SIZE_MAX ? NULL : m->values[i];
	pthread_mutex_unlock(&m->lock);
	return value;
}

int hesper_map_put(struct hesper_map *m, uint64_t key, void *value)
{
	int ret = 0;
	pthread_mutex_lock(&m->lock);
	if ((m->count + 1) * 2 > m->capacity && grow(m) != 0) {
		ret = -1;
		goto out;
	}
	if (find_slot(m, key) == SIZE_MAX)
		m->count++;
	insert_slot(m->keys, m->values, m->capacity, key, value);
out:
	pthread_mutex_unlock(&m->lock);
	return ret;
}

/* Empties slot @i and moves later members of its probe run back so lookups still find them. */
static void erase_slot(struct hesper_map *m, size_t i)
{
	size_t mask = m->capacity - 1;
	size_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->keys[j])
			break;
		size_t home = slot_of(m->keys[j], m->capacity);
		/* Move j into the hole at i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->keys[i] = m->keys[j];
			m->values[i] = m->values[j];
			i = j;
		}
	}
	m->keys[i] = 0;
	m->values[i] = NULL;
	m->count--;
}

void *hesper_map_remove(struct hesper_map *m, uint64_t key)
{
	pthread_mutex_lock(&m->lock);
	size_t i = find_slot(m, key);
	void *value = NULL;
	if (i != SIZE_MAX) {
		value = m->values[i];
		erase_slot(m, i);
	}
	pthread_mutex_unlock(&m->lock);
	return value;
}

void hesper_map_remove_if(struct hesper_map *m, int (*fn)(void *value, void *ctx), void *ctx)
{
	pthread_mutex_lock(&m->lock);
	size_t i = 0;
	while (i < m->capacity) {
		/* Backward shift may move an unvisited entry into slot i: look at i again. */
		if (m->keys[i] && fn(m->values[i], ctx))
			erase_slot(m, i);
		else
			i++;
	}
	pthread_mutex_unlock(&m->lock);
}

/* hesper_map_remove_if's test for hesper_map_free_values: every value, freed. */
static int free_value(void *value, void *ctx)
{
	(void)ctx;
	free(value);
	return 1;
}

void hesper_map_free_values(struct hesper_map *m)
{
	hesper_map_remove_if(m, free_value, NULL);
}
