/* Helpers the unit tests share: captured streams and a deterministic PRNG. Needs only Check. */
#ifndef HESPER_TEST_FIXTURES_H
#define HESPER_TEST_FIXTURES_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A stream written in memory and read back as a string (error lines, reports). */
struct capture {
	FILE *f;
	char *buf;
	size_t size;
};

/* Opens @c's stream; fails the test when it cannot. */
static inline void
capture_open(struct capture *c)
{
	c->buf = NULL;
	c->size = 0;
	c->f = open_memstream(&c->buf, &c->size);
	ck_assert_ptr_nonnull(c->f);
}

/* Closes the stream and returns what was written; it stays in c->buf until capture_free() (or free()). */
static inline const char *
capture_close(struct capture *c)
{
	fclose(c->f);
	c->f = NULL;
	return c->buf;
}

/* Frees what capture_close() returned. */
static inline void
capture_free(struct capture *c)
{
	free(c->buf);
	c->buf = NULL;
}

/* The next number of xorshift64* at *@state: deterministic, so a failure reproduces. */
static inline uint64_t
xorshift64s(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dull;
}

#endif
