/* Slow memory operations: mean GB/s far below the best single, larger operation of the same kind. */
#include "memops_findings.h"

#include <math.h>

size_t
hesper_memops_slow(const struct hesper_profile *p, double fraction, struct hesper_memops_finding *out, size_t max)
{
	struct hesper_memops_finding found[HESPER_MEMOP_KINDS];
	size_t n = 0;

	for (int i = 0; i < HESPER_MEMOP_KINDS; i++) {
		struct hesper_memop_stats s = hesper_memop_stats(&p->memops, (enum hesper_memop_kind)i);
		uint64_t sized = s.timed - (s.unsized < s.timed ? s.unsized : s.timed);

		if (sized < HESPER_MEMOPS_SLOW_MIN_OPS || s.timed_ns < HESPER_MEMOPS_SLOW_MIN_NS || s.best_gbps <= 0 ||
		    s.mean_gbps >= fraction * s.best_gbps ||
		    (double)s.best_bytes < HESPER_MEMOPS_SLOW_SIZE_RATIO * (double)s.timed_bytes / (double)sized)
			continue;
		uint64_t at_best = (uint64_t)llround((double)s.timed_bytes / s.best_gbps);
		found[n++] = (struct hesper_memops_finding){
			.kind = s.name,
			.count = s.timed,
			.timed_ns = s.timed_ns,
			.bytes = s.timed_bytes,
			.mean_gbps = s.mean_gbps,
			.best_gbps = s.best_gbps,
			.excess_ns = s.timed_ns > at_best ? s.timed_ns - at_best : 0,
		};
	}
	/* Largest excess first (insertion sort: at most HESPER_MEMOP_KINDS entries). */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && found[j].excess_ns > found[j - 1].excess_ns; j--) {
			struct hesper_memops_finding t = found[j];
			found[j] = found[j - 1];
			found[j - 1] = t;
		}
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = found[i];
	return n;
}
