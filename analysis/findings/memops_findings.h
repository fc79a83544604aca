/*
 * The finding "slow memory operations": a kind of copy, fill, update or clear whose
 * operations together moved their bytes far slower than the fastest single operation
 * of that kind reached in the same run (small copies that pay a fixed cost each, copies
 * that overlap other work, image layouts that need a slow path).
 */
#ifndef HESPER_MEMOPS_FINDINGS_H
#define HESPER_MEMOPS_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* Kinds whose timed operations took less than this in all are never reported. */
#define HESPER_MEMOPS_SLOW_MIN_NS 100000ull
/* Nor kinds with fewer timed, sized operations than this (one operation is its own best). */
#define HESPER_MEMOPS_SLOW_MIN_OPS 2u
/*
 * Nor kinds whose fastest operation moved less than this many times their mean
 * operation's bytes: the finding is about small operations that larger ones outrun, and
 * operations of one size that ran at different speeds (a loaded machine, the memory they
 * touched) say nothing about batching.
 */
#define HESPER_MEMOPS_SLOW_SIZE_RATIO 2.0

struct hesper_memops_finding {
	const char *kind;   /* the operation kind (static) */
	uint64_t count;     /* timed operations */
	uint64_t timed_ns;  /* their time in all */
	uint64_t bytes;     /* the bytes they moved */
	double mean_gbps;   /* bytes / timed_ns */
	double best_gbps;   /* the fastest single operation of the kind */
	uint64_t excess_ns; /* timed_ns minus the time at best_gbps: what the slowness cost at most */
};

/*
 * Fills @out (room for @max, at most HESPER_MEMOP_KINDS are ever needed) with the kinds of
 * @p whose mean GB/s is below @fraction of their best, that best operation a larger one
 * (HESPER_MEMOPS_SLOW_SIZE_RATIO), the largest excess first; returns how many there are
 * (possibly more than @max).
 */
size_t hesper_memops_slow(const struct hesper_profile *p, double fraction, struct hesper_memops_finding *out,
			  size_t max);

#endif
