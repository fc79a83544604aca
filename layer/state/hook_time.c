/* Hesper's host clock, and the sampled host time of its per-command and wait hooks (hook_time.h). */
#include "hook_time.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

_Thread_local uint32_t hesper_hook_countdown;

/* This thread's random state (xorshift32; 0 until its first hook call). */
static _Thread_local uint32_t gap_state;

static atomic_uint_fast64_t sampled_ns, rare_ns;

/* This thread's rare work (hesper_hook_rare_end) since its sampled stretch began. */
static _Thread_local uint64_t rare_in_stretch;

uint64_t hesper_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return ns ? ns : 1;
}

uint64_t hesper_hook_sample(void)
{
	bool first = gap_state == 0;
	if (first) {
		/* threads started together must not sample in step: the state's address tells them apart */
		gap_state = (uint32_t)hesper_now_ns() ^ (uint32_t)(uintptr_t)&gap_state;
		gap_state = gap_state ? gap_state : 1;
	}
	gap_state ^= gap_state << 13;
	gap_state ^= gap_state >> 17;
	gap_state ^= gap_state << 5;
	uint32_t gap = 1 + gap_state % (2 * HESPER_HOOK_SAMPLE - 1); /* HESPER_HOOK_SAMPLE on average */
	if (first && gap > 1) {
		hesper_hook_countdown = gap - 1;
		return 0;
	}
	hesper_hook_countdown = gap;
	rare_in_stretch = 0;
	return hesper_now_ns();
}

uint64_t hesper_hook_add(uint64_t t)
{
	uint64_t now = hesper_now_ns();
	uint64_t own = now > t ? now - t : 0;
	own = own > rare_in_stretch ? own - rare_in_stretch : 0; /* counted once already */
	rare_in_stretch = 0;
	atomic_fetch_add_explicit(&sampled_ns, own * HESPER_HOOK_SAMPLE, memory_order_relaxed);
	return 1;
}

void hesper_hook_rare_end(uint64_t begun)
{
	uint64_t now = hesper_now_ns();
	if (now <= begun)
		return;
	atomic_fetch_add_explicit(&rare_ns, now - begun, memory_order_relaxed);
	rare_in_stretch += now - begun;
}

uint64_t hesper_hook_own_ns(void)
{
	return atomic_load_explicit(&sampled_ns, memory_order_relaxed) +
	       atomic_load_explicit(&rare_ns, memory_order_relaxed);
}
