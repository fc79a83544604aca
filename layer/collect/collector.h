/*
 * The collector: a thread that waits for submissions to complete, collects their
 * timestamps and feeds the profile; the program's threads never wait for it. At
 * vkDestroyDevice and at exit the same harvesting runs on the caller's thread, for a
 * bounded time.
 */
#ifndef HESPER_COLLECTOR_H
#define HESPER_COLLECTOR_H

#include <stdint.h>

struct hesper_device;

/*
 * What the stage above (report/) asks of the collector, so that the collector never
 * calls up: work for the collector thread between harvests, and a note after each
 * submission accounted (on whichever thread harvested it).
 */
struct hesper_collector_duties {
	void (*between_harvests)(void);
	void (*harvested)(void);
};

/* Sets the duties (once, before hesper_collector_start); @duties must outlive the process. */
void hesper_collector_set_duties(const struct hesper_collector_duties *duties);

/* Starts the collector thread (once; with the first device). */
void hesper_collector_start(void);

/*
 * Harvests every queue of @dev (all devices when NULL) until nothing is pending or
 * @timeout_ns passes; what is left then is counted as dropped. A device named is also
 * taken out of the collector's sight.
 */
void hesper_collector_flush(struct hesper_device *dev, uint64_t timeout_ns);

/* Stops the collector thread (at exit). */
void hesper_collector_stop(void);

#endif
