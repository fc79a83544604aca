/* Small helpers every part of the layer uses. */
#ifndef HESPER_UTIL_H
#define HESPER_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Grows an array of @size-byte elements to hold one more; false when memory runs out. */
static inline bool hesper_reserve_one(void **items, size_t count, size_t *capacity, size_t size)
{
	if (count < *capacity)
		return true;
	size_t grown = *capacity ? *capacity * 2 : 16;
	void *p = realloc(*items, grown * size);
	if (!p)
		return false;
	*items = p;
	*capacity = grown;
	return true;
}

/* The loader's dispatch key of a dispatchable handle. */
static inline uint64_t hesper_dispatch_key(const void *handle)
{
	return (uint64_t)(uintptr_t) * (void *const *)handle;
}

#endif
