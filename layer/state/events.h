/*
 * Timeline events on their way to the sinks: each is kept in the profile's bounded trace
 * when a sink shows the timeline (trace, HTML), and queued for the streaming sinks (the
 * SQLite database) when one takes every event. The queue is emptied by the report stage,
 * off the program's threads.
 */
#ifndef HESPER_EVENTS_H
#define HESPER_EVENTS_H

#include <stddef.h>

struct hesper_profile;
struct hesper_trace_event;

/* Keeps @e for the timeline sinks (see above), naming its host thread when first seen; called with the process lock held. */
void hesper_events_add(struct hesper_profile *p, const struct hesper_trace_event *e);

/* Moves every queued event into *@items (the caller frees it) and returns how many; logs events lost for memory. */
size_t hesper_events_take(struct hesper_trace_event **items);

#endif
