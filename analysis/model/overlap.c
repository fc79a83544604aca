/*
 * Overlapping intervals' shares (overlap.h) by one sweep over their sorted end points.
 *
 * Instead of visiting every interval active in each stretch (quadratic when many overlap),
 * the sweep keeps a running sum C(t) of (stretch length / intervals active) and an
 * interval's exact share is C(end) - C(start). C is fixed point with 64 fraction bits, each
 * term rounded down, so a computed share never exceeds the exact one and falls short of it
 * by far less than a unit. The shares are then whole units: each rounded down, and the
 * units that leaves over of the union (fewer than the intervals) go one each to the
 * largest fractions (the largest remainder method), so they add up to the union exactly.
 */
#include "overlap.h"

#include <stdbool.h>
#include <stdlib.h>

/* 64.64 fixed point: lengths are at most 2^64 - 1 units, so C never reaches 2^128. */
__extension__ typedef unsigned __int128 fixed;

struct point {
	uint64_t at;
	size_t index;
	bool end;
};

struct remainder {
	uint64_t fraction;
	size_t index;
};

/* By time; at one time starts first (the running sum is the same for all, so the order only
 * makes an empty interval's start come before its end), then by index, to be deterministic. */
static int
compare_points(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->end != y->end)
		return x->end ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Largest fraction first; the lower index on a tie. */
static int
compare_remainders(const void *a, const void *b)
{
	const struct remainder *x = a, *y = b;

	if (x->fraction != y->fraction)
		return x->fraction > y->fraction ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int
hesper_overlap_shares(const struct hesper_span *spans, size_t n, uint64_t *share, uint64_t *union_len)
{
	if (union_len)
		*union_len = 0;
	if (n == 0)
		return 0;
	if (n > SIZE_MAX / 2 / sizeof(struct point))
		return -1;
	struct point *points = malloc(2 * n * sizeof(*points));
	fixed *sums = malloc(n * sizeof(*sums));
	struct remainder *rest = malloc(n * sizeof(*rest));
	if (!points || !sums || !rest) {
		free(points);
		free(sums);
		free(rest);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t start = spans[i].start, end = spans[i].end > start ? spans[i].end : start;

		points[2 * i] = (struct point){start, i, false};
		points[2 * i + 1] = (struct point){end, i, true};
	}
	qsort(points, 2 * n, sizeof(*points), compare_points);

	fixed sum = 0;
	uint64_t covered = 0;
	size_t active = 0;
	for (size_t j = 0; j < 2 * n;) {
		uint64_t at = points[j].at;

		/* Every point at this time: a start notes C, an end turns it into the share. */
		for (; j < 2 * n && points[j].at == at; j++) {
			size_t i = points[j].index;

			if (points[j].end) {
				sums[i] = sum - sums[i];
				active--;
			} else {
				sums[i] = sum;
				active++;
			}
		}
		if (j < 2 * n && active) {
			uint64_t length = points[j].at - at;

			sum += ((fixed)length << 64) / active;
			covered += length;
		}
	}

	uint64_t given = 0;
	for (size_t i = 0; i < n; i++) {
		share[i] = (uint64_t)(sums[i] >> 64);
		given += share[i];
		rest[i] = (struct remainder){(uint64_t)sums[i], i};
	}
	/* Each share fell short by less than a unit, so fewer than n units are left to give. */
	uint64_t left = covered - given;
	if (left) {
		qsort(rest, n, sizeof(*rest), compare_remainders);
		for (size_t k = 0; left; k = (k + 1) % n, left--)
			share[rest[k].index]++;
	}
	if (union_len)
		*union_len = covered;
	free(points);
	free(sums);
	free(rest);
	return 0;
}
