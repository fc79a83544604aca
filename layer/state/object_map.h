/* A locked hash map from a 64-bit handle to a pointer: Hesper's per-object state. */
#ifndef HESPER_OBJECT_MAP_H
#define HESPER_OBJECT_MAP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct hesper_map {
	pthread_mutex_t lock;
	uint64_t *keys; /* 0 marks an empty slot: no Vulkan handle is 0 */
	void **values;
	size_t capacity; /* a power of two, or 0 before the first insert */
	size_t count;
};

/* Makes @m empty. */
void hesper_map_init(struct hesper_map *m);

/* Frees the map's storage (not the values). */
void hesper_map_destroy(struct hesper_map *m);

/* The value stored for @key, or NULL. */
void *hesper_map_get(struct hesper_map *m, uint64_t key);

/* Stores @value for @key (replacing any); returns 0, or -1 when memory runs out. */
int hesper_map_put(struct hesper_map *m, uint64_t key, void *value);

/* Removes @key and returns the value it had, or NULL. */
void *hesper_map_remove(struct hesper_map *m, uint64_t key);

/* Removes every entry for which @fn(value, ctx) returns nonzero. @fn runs with the lock held. */
void hesper_map_remove_if(struct hesper_map *m, int (*fn)(void *value, void *ctx), void *ctx);

/* Removes every entry and free()s its value (values that own nothing else). */
void hesper_map_free_values(struct hesper_map *m);

#endif
