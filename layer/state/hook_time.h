/*
 * Hesper's own host time in the hooks a program calls for every command it records and
 * every wait it makes: one such call in HESPER_HOOK_SAMPLE of each thread's is timed and
 * counts HESPER_HOOK_SAMPLE times, since reading the clock costs as much as a small hook.
 * A hook times its own work only: around the driver's call it makes for the program it
 * pauses (hesper_hook_pause) and resumes (hesper_hook_resume); what it asks of the driver for
 * itself (a timestamp, a bind of its set) is its own work.
 */
#ifndef HESPER_HOOK_TIME_H
#define HESPER_HOOK_TIME_H

#include <stdint.h>

#define HESPER_HOOK_SAMPLE 64 /* a power of two */

/* Where a hook's work starts: the clock now when this call is one of the thread's sampled ones, else 0. */
uint64_t hesper_hook_start(void);

/* Ends a stretch of a hook's work begun at @t (0: not sampled); returns what hesper_hook_resume takes. */
uint64_t hesper_hook_pause(uint64_t t);

/* Begins the hook's next stretch of work after the driver's call; @paused: hesper_hook_pause's result. */
uint64_t hesper_hook_resume(uint64_t paused);

/* The sampled hook time of the whole process so far, ns. */
uint64_t hesper_hook_sampled_ns(void);

#endif
