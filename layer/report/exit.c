/*
 * The exit report: written once, when the program exits (atexit), or when SIGINT or
 * SIGTERM would kill it, after the collector has harvested what is still in flight.
 */
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "collect/collect.h"
#include "live.h"
#include "profile.h"
#include "report.h"
#include "state/state.h"

/* Stops collecting, waits (bounded) for work in flight and writes the report; once. */
static void finish_profile(void)
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
		hesper_report_write();
	}
	pthread_mutex_unlock(&once);
}

static void at_exit(void)
{
	finish_profile();
}

/*
 * SIGINT and SIGTERM, when the program leaves them at their default (death): the handler
 * only wakes a thread of Hesper's (a handler may not take locks or allocate), which
 * writes the report and then lets the signal kill the process as it would have. A second
 * signal while the report is written kills at once.
 */
static sem_t signal_wake;
static volatile sig_atomic_t caught_signal;
static pid_t signal_owner; /* a forked child has no signal thread: it takes the default action */

static void on_signal(int sig)
{
	if (caught_signal || getpid() != signal_owner) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	caught_signal = sig;
	sem_post(&signal_wake);
}

static void *signal_main(void *arg)
{
	(void)arg;
	while (sem_wait(&signal_wake) != 0)
		;
	int sig = caught_signal;
	finish_profile();
	signal(sig, SIG_DFL);
	kill(getpid(), sig); /* this thread blocks every signal: another thread takes it and dies */
	return NULL;
}

/* Installs the handlers for the signals the program left at their default action. */
static void watch_signals(void)
{
	static const int watched[] = {SIGINT, SIGTERM};
	pthread_t thread;
	sigset_t all, old;
	if (sem_init(&signal_wake, 0, 0) != 0)
		return;
	signal_owner = getpid();
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int started = pthread_create(&thread, NULL, signal_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started != 0)
		return;
	pthread_detach(thread);
	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++) {
		struct sigaction current;
		if (sigaction(watched[i], NULL, &current) != 0 || (current.sa_flags & SA_SIGINFO) ||
		    current.sa_handler != SIG_DFL)
			continue; /* the program handles it (or ignores it): its choice stands */
		struct sigaction mine = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
		sigemptyset(&mine.sa_mask);
		sigaction(watched[i], &mine, NULL);
	}
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
	watch_signals();
	hesper_live_start();
}
