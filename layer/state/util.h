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

/*
 * Stamps: an owner (a submit call's number, a primary recording's id) and an index within
 * it in one 64-bit word, so "did this run before, in the same owner, and where" is one
 * atomic exchange. The owner keeps its low 40 bits; indices past 2^24 - 2 are not told.
 */
#define HESPER_STAMP_INDEX_BITS 24
#define HESPER_STAMP_NO_INDEX ((1u << HESPER_STAMP_INDEX_BITS) - 1)

/* The stamp of @index within @owner. */
static inline uint64_t hesper_stamp(uint64_t owner, size_t index)
{
	return owner << HESPER_STAMP_INDEX_BITS | (index < HESPER_STAMP_NO_INDEX ? index : HESPER_STAMP_NO_INDEX);
}

/* Whether @stamp was made by @owner for an index told apart; the index in *@index. */
static inline bool hesper_stamp_of(uint64_t stamp, uint64_t owner, size_t *index)
{
	*index = (size_t)(stamp & HESPER_STAMP_NO_INDEX);
	return stamp >> HESPER_STAMP_INDEX_BITS == (owner & (UINT64_MAX >> HESPER_STAMP_INDEX_BITS)) &&
	       *index != HESPER_STAMP_NO_INDEX;
}

#endif
