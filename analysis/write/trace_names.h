/*
 * The names of the trace's tracks, which the trace and HTML writers show: a queue's by its
 * device, family and index, a host thread's by its id and name (trace_names.c). Apart from
 * the layout (trace_layout.h), which the spool uses and which needs no profile.
 */
#ifndef HESPER_TRACE_NAMES_H
#define HESPER_TRACE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "timeline/timeline.h"

/* Room for any name hesper_trace_track_name() writes. */
#define HESPER_TRACK_NAME_MAX (2 * HESPER_NAME_MAX + 96)

/* "GPU <device> <device name> queue family F index I" for queue @queue of @p. */
void hesper_trace_queue_name(char *buf, size_t size, const struct hesper_profile *p, uint32_t queue);

/*
 * The display name of @t, distinct for every track of @p: its queue's name or "CPU thread
 * T (name)", then what it holds (" dispatches", " memory operations", " labels",
 * " submissions", " submits", " waits"), then " lane N" past the first lane.
 */
void hesper_trace_track_name(char *buf, size_t size, const struct hesper_profile *p,
			     const struct hesper_trace_track *t);

#endif
