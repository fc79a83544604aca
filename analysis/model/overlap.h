/*
 * Time shared by overlapping intervals, split equally among them: each interval's share of
 * the time it covered, so that the shares of a set of intervals add up to their union.
 * Clock mode uses it for dispatches that ran at once on one queue (docs/timing.md).
 */
#ifndef HESPER_OVERLAP_H
#define HESPER_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

/* One interval [start, end) on a common time line; an end at or before its start is empty. */
struct hesper_span {
	uint64_t start, end;
};

/*
 * Fills @share[i] with interval @i's share of @n intervals: each stretch between consecutive
 * start and end points split equally among the intervals covering it, summed over interval
 * @i's stretches; whole units, the rounding distributed so that the shares add up exactly
 * to the union's length (into *@union_len when not NULL). Returns 0, or -1 when memory runs
 * out (@share untouched).
 */
int hesper_overlap_shares(const struct hesper_span *spans, size_t n, uint64_t *share, uint64_t *union_len);

#endif
