/*
 * Hesper's own host time in the hooks a program calls for every command it records and
 * every wait it makes: one such call in HESPER_HOOK_SAMPLE of each thread's, on average, is
 * timed and counts HESPER_HOOK_SAMPLE times, since reading the clock costs as much as a
 * small hook. The sampled calls lie at random gaps: a program records the same few
 * commands over and over, and every HESPER_HOOK_SAMPLE-th call would be the same hook of
 * its pattern each time (llama.cpp's recording on lavapipe read 5-6 times its real hook
 * time so).
 * A hook times its own work only: around the driver's call it makes for the program it
 * pauses (hesper_hook_pause) and resumes (hesper_hook_resume); what it asks of the driver for
 * itself (a timestamp, a bind of its set) is its own work. An unsampled call costs the
 * increment of a thread-local counter.
 */
#ifndef HESPER_HOOK_TIME_H
#define HESPER_HOOK_TIME_H

#include <stdint.h>

#define HESPER_HOOK_SAMPLE 64 /* a power of two */

/* This thread's hook calls left until its next sampled one (0: none made yet). */
extern _Thread_local uint32_t hesper_hook_countdown;

/* Hesper's host clock: CLOCK_MONOTONIC in ns, never 0 (so 0 can mean "not read"). */
uint64_t hesper_now_ns(void);

/* Adds the stretch of a sampled hook's work from @t to now; returns 1. */
uint64_t hesper_hook_add(uint64_t t);

/*
 * At the thread's sampled call: draws the gap to its next (1 to 2 * HESPER_HOOK_SAMPLE - 1
 * calls) and returns the clock now; at its first call, draws where its first sampled one
 * falls and returns the clock only when that is this one, else 0.
 */
uint64_t hesper_hook_sample(void);

/* Where a hook's work starts: the clock now when this call is one of the thread's sampled ones, else 0. */
static inline uint64_t hesper_hook_start(void)
{
	if (hesper_hook_countdown > 1) {
		hesper_hook_countdown--;
		return 0;
	}
	return hesper_hook_sample();
}

/* Ends a stretch of a hook's work begun at @t (0: not sampled); returns what hesper_hook_resume takes. */
static inline uint64_t hesper_hook_pause(uint64_t t)
{
	return t ? hesper_hook_add(t) : 0;
}

/* Begins the hook's next stretch of work after the driver's call; @paused: hesper_hook_pause's result. */
static inline uint64_t hesper_hook_resume(uint64_t paused)
{
	return paused ? hesper_now_ns() : 0;
}

/*
 * Runs @call, the driver's call a hook makes for the program, with the hook's time @t (its
 * hesper_hook_start value) paused around it, so that only Hesper's own work is counted.
 */
#define HESPER_HOOK_CALL_DOWN(t, call)       \
	do {                                 \
		(t) = hesper_hook_pause(t);  \
		call;                        \
		(t) = hesper_hook_resume(t); \
	} while (0)

/*
 * Ends Hesper's own rare and long work inside a recording hook (a query pool, a clock chunk
 * or an indirect dispatches' argument chunk taken or made), begun at @begun (hesper_now_ns):
 * timed each time and counted once, and left out of the sampled stretch it falls in, which
 * would count it HESPER_HOOK_SAMPLE times or not at all, so that two runs of one program
 * could read several times apart.
 */
void hesper_hook_rare_end(uint64_t begun);

/* The hook time of the whole process so far (sampled stretches and rare work), ns. */
uint64_t hesper_hook_own_ns(void);

#endif
