/* Sampled host time of Hesper's per-command and wait hooks (hook_time.h). */
#include "hook_time.h"

#include <stdatomic.h>
#include <time.h>

static atomic_uint_fast64_t sampled_ns;

/* The monotonic clock in ns (as hesper_now_ns; this file stays free of the process state). */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t hesper_hook_start(void)
{
	static _Thread_local uint32_t tick;
	return (++tick & (HESPER_HOOK_SAMPLE - 1)) == 0 ? now_ns() : 0;
}

uint64_t hesper_hook_pause(uint64_t t)
{
	if (!t)
		return 0;
	uint64_t now = now_ns();
	if (now > t)
		atomic_fetch_add_explicit(&sampled_ns, (now - t) * HESPER_HOOK_SAMPLE, memory_order_relaxed);
	return 1;
}

uint64_t hesper_hook_resume(uint64_t paused)
{
	return paused ? now_ns() : 0;
}

uint64_t hesper_hook_sampled_ns(void)
{
	return atomic_load_explicit(&sampled_ns, memory_order_relaxed);
}
