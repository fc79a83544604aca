/* A profile made of a program's own events, so Hesper's report writers print them. */
#ifndef HESPER_PROFILE_EVENTS_H
#define HESPER_PROFILE_EVENTS_H

#include <stddef.h>

#include <hesper/profiling.h>

#include "profile.h"

/*
 * Initialises @p from @n events (@info may be NULL): this process, @info's device with
 * one queue whose busy time is the union of the events, one kernel row per name, every
 * event on the timeline (names borrowed: the events must outlive @p), wall time from the
 * first start to the last end. Returns 0, or -1 when memory runs out (@p then freed).
 */
int hesper_profile_from_events(struct hesper_profile *p, const struct hesper_event *events, size_t n,
			       const struct hesper_report_info *info);

#endif
