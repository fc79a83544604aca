/*
 * The collector: a thread that waits for submissions to complete, collects their
 * timestamps and feeds the profile; the program's threads never wait for it.
 */
#ifndef HESPER_COLLECTOR_H
#define HESPER_COLLECTOR_H

#include <stdint.h>

struct hesper_device;
struct hesper_profile;
struct hesper_queue;
struct hesper_submission;
struct hesper_trace_event;

/*
 * The one way every timeline event goes: kept in @p's bounded trace when a sink wants
 * the trace (trace, html), and queued for the streaming sinks (sqlite) when there is
 * one. Called with the profile's lock held, from any thread; it never writes a sink.
 */
void hesper_collector_event(struct hesper_profile *p, const struct hesper_trace_event *e);

/*
 * Hands the queued events to the streaming sinks (one transaction each); the collector
 * thread calls it after every harvest, the exit report once more before writing. Must
 * not be called with the profile's lock held by another path than the report's.
 */
void hesper_collector_drain_events(void);

/* Hands a submission to the collector (it owns it from now on). */
void hesper_collector_enqueue(struct hesper_queue *queue, struct hesper_submission *sub);

/* Asks the collector to look for finished work now (the program just waited on something). */
void hesper_collector_nudge(void);

/*
 * Harvests every pending submission of @dev (or of every device when NULL), waiting at
 * most @timeout_ns for work in flight; what does not finish is counted as dropped.
 */
void hesper_collector_flush(struct hesper_device *dev, uint64_t timeout_ns);

/* Stops the collector thread (at exit). */
void hesper_collector_stop(void);

#endif
