/*
 * The exit report: written once, when the program exits (atexit), or when a signal ends it
 * (signals.h), after the collector has harvested what is still in flight.
 */
#include <stdlib.h>
#include <unistd.h>

#include "collect/collect.h"
#include "live.h"
#include "analysis.h"
#include "report.h"
#include "signals.h"
#include "state/state.h"

/*
 * Stops collecting, waits (bounded) for work in flight and writes the report; once. @sig:
 * the signal ending the process, 0 at exit.
 */
static void finish_profile(int sig)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	struct hesper_process *p = hesper_process();
	/*
	 * A child made by fork() inherits this handler but none of Hesper's threads, and
	 * maybe a lock held by one of them: the profile is the parent's to write.
	 */
	if (p->profile && getpid() != p->profile->pid)
		return;
	pthread_mutex_lock(&once);
	if (!hesper_report_written()) {
		hesper_collector_stop();
		hesper_collector_flush(NULL, (uint64_t)p->settings.exit_timeout_ms * 1000000ull);
		hesper_report_write(sig);
	}
	pthread_mutex_unlock(&once);
}

static void at_exit(void)
{
	finish_profile(0);
}

/*
 * Drivers register exit handlers of their own lazily (lavapipe's LLVM does at its first
 * shader compile); handlers run in reverse order, so Hesper's must come after theirs to
 * run before them, while the driver can still finish work in flight. Registered again at
 * the first harvest, when the driver has surely set up its own; running it twice is
 * harmless: the report is written once.
 */
static void exit_after_driver(void)
{
	static atomic_bool done;
	/* Called per harvested submission: a plain load keeps the common case a read. */
	if (atomic_load_explicit(&done, memory_order_relaxed) || atomic_exchange(&done, true))
		return;
	if (atexit(at_exit) != 0)
		hesper_log("cannot register the exit handler again; work in flight at exit may be dropped");
}

/* The collector thread's turn between harvests: the database stream, then a live report when one is due. */
static void between_harvests(void)
{
	hesper_report_stream_events();
	hesper_live_poll();
}

void hesper_report_register_exit(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static bool registered;
	pthread_mutex_lock(&lock);
	bool first = !registered;
	registered = true;
	pthread_mutex_unlock(&lock);
	if (!first)
		return;
	static const struct hesper_collector_duties duties = {
		.between_harvests = between_harvests,
		.harvested = exit_after_driver,
	};
	hesper_collector_set_duties(&duties);
	/* Registered after the driver loaded, so it runs before the driver's own exit handlers. */
	if (atexit(at_exit) != 0)
		hesper_log("cannot register the exit handler; no report will be written");
	hesper_signals_watch(finish_profile);
	hesper_live_start();
}
