/*
 * The exit report when a signal ends the process (see signals.h).
 *
 * A signal handler may not take locks or allocate, and writing the report does both, so no
 * handler writes it: Hesper's signal thread does, woken with sem_post() (async-signal-safe).
 * The thread blocks every signal, so none of the program's handlers ever runs on it, and a
 * fault in it ends the process at once.
 *
 * Requests to end (INT, TERM, HUP, QUIT) come from outside the thread they land on: the
 * handler wakes the signal thread and returns, so that thread goes on and lets go of any lock
 * it holds; the signal thread writes the report, puts back the default action and sends the
 * signal again. A second request while the report is written ends the process at once, unless
 * it came within SAME_REQUEST_NS of the first: that is the same request sent twice (`timeout`
 * signals the program and then its whole process group; a wrapper that passes signals on to
 * its child is in the group the terminal or `kill -PGID` signals too).
 *
 * A fault (SEGV, BUS, FPE, ILL) stops the thread that made it, and abort()'s ABRT does not
 * return: the handler wakes the signal thread, then waits for the report (a flag polled with
 * nanosleep(), async-signal-safe), at most HESPER_EXIT_TIMEOUT_MS plus WRITE_WAIT_NS, so a lock
 * the faulting thread holds costs the report, never the ending. Then the default action comes
 * back and the signal ends the process as it would have without Hesper, with the same status
 * and core dump: a fault made by an instruction happens again when the handler returns; a
 * signal that was sent (kill, raise, abort) is sent again to the thread, to arrive as the
 * handler returns.
 *
 * A fault the program handles itself (its handler was there when the first device was
 * created) is the program's first: Hesper's handler runs the program's, and writes the report
 * only when the signal then ends the process (the program's handler put back the default
 * action and raised it again, or returns from a fault that will recur; or the signal is ABRT),
 * so a program that recovers from faults (runtimes that use SIGSEGV) goes on, profiled. A
 * handler the program installs later replaces Hesper's: the program's choice stands.
 */
#include "signals.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "state/state.h"

/* How long a fault waits for the report to be written once the work in flight is in (a large trace or HTML sink takes seconds). */
#define WRITE_WAIT_NS (10ull * 1000000000ull)

/* A request this soon after the first is the same one, sent twice (a person's second Ctrl-C comes later). */
#define SAME_REQUEST_NS (200ull * 1000000ull)

static const int requests[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define FAULTS (sizeof(faults) / sizeof(faults[0]))

static struct {
	void (*finish)(int sig);
	sem_t wake;
	pid_t owner;                      /* the process that watches: a forked child has no signal thread */
	uint64_t fault_wait_ns;           /* how long a fault waits for the report */
	struct sigaction program[FAULTS]; /* each fault's action of the program's when Hesper took it */
} watch;

static atomic_int caught;                 /* the signal the report is written for; 0 before one came */
static atomic_bool written;               /* the signal thread wrote it */
static _Atomic uint64_t first_request_ns; /* CLOCK_MONOTONIC when the first request came; 0 before */

static int fault_index(int sig)
{
	for (size_t i = 0; i < FAULTS; i++)
		if (faults[i] == sig)
			return (int)i;
	return -1;
}

/* Takes the report for @sig: true for the first signal to ask, which wakes the signal thread. */
static bool claim(int sig)
{
	int none = 0;
	if (!atomic_compare_exchange_strong(&caught, &none, sig))
		return false;
	sem_post(&watch.wake);
	return true;
}

static void *signal_main(void *arg)
{
	(void)arg;
	while (sem_wait(&watch.wake) != 0)
		;
	int sig = atomic_load(&caught);
	watch.finish(sig);
	atomic_store(&written, true);
	if (fault_index(sig) >= 0)
		return NULL; /* the faulting thread, waiting for this, ends the process */
	signal(sig, SIG_DFL);
	kill(getpid(), sig); /* this thread blocks every signal: another thread takes it and dies */
	return NULL;
}

static uint64_t monotonic_ns(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_MONOTONIC, &t) != 0)
		return UINT64_MAX; /* no clock: no wait */
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Whether a request coming at @now is the first one sent again (see SAME_REQUEST_NS); notes the first one's time. */
static bool same_request(uint64_t now)
{
	uint64_t none = 0;
	if (now == UINT64_MAX || atomic_compare_exchange_strong(&first_request_ns, &none, now))
		return false;
	return now <= none || now - none < SAME_REQUEST_NS;
}

static void on_request(int sig)
{
	int saved = errno;
	bool again = same_request(monotonic_ns());
	/* A forked child (no signal thread), or a second request while the report is written: now. */
	if (getpid() != watch.owner || (!claim(sig) && !again)) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	errno = saved;
}

/* Whether @sig, just handled by the program's own handler, now ends the process. */
static bool ends_now(int sig, const siginfo_t *info)
{
	struct sigaction now;
	sigset_t pending;
	if (sig == SIGABRT)
		return true; /* abort() does not return: a handler that does lets it end the process */
	if (sigaction(sig, NULL, &now) != 0 || (now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL)
		return false;
	/* Back at the default action: raised again (pending, as it is blocked here), or a fault that recurs. */
	return (sigpending(&pending) == 0 && sigismember(&pending, sig)) || info->si_code > 0;
}

/* Runs the program's handler @a of @sig as the kernel would have. */
static void run_program_handler(const struct sigaction *a, int sig, siginfo_t *info, void *context)
{
	if (a->sa_flags & SA_RESETHAND)
		signal(sig, SIG_DFL);
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, info, context);
	else
		a->sa_handler(sig);
}

/* Waits until the signal thread wrote the report, or the wait for it ran out. */
static void wait_for_report(void)
{
	const struct timespec nap = {.tv_sec = 0, .tv_nsec = 1000000};
	uint64_t start = monotonic_ns();
	if (start == UINT64_MAX)
		return;
	while (!atomic_load(&written) && monotonic_ns() - start < watch.fault_wait_ns)
		nanosleep(&nap, NULL);
}

/* Puts back the default action of @sig, and sends @sig again where it will not recur by itself. */
static void default_action(int sig, const siginfo_t *info)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	/* Sent (kill, raise, abort), not made by an instruction: blocked here, it arrives as the handler returns. */
	if (info->si_code <= 0 || sig == SIGABRT)
		tgkill(getpid(), gettid(), sig);
}

static void on_fault(int sig, siginfo_t *info, void *context)
{
	int saved = errno;
	int i = fault_index(sig);
	const struct sigaction *program = i >= 0 ? &watch.program[i] : NULL;
	bool own = program &&
		   ((program->sa_flags & SA_SIGINFO) ? program->sa_sigaction != NULL : program->sa_handler != SIG_DFL);
	if (own) {
		run_program_handler(program, sig, info, context);
		if (!ends_now(sig, info))
			goto out; /* the program's handler dealt with it: the program goes on */
	}
	if (getpid() == watch.owner) {
		/* A second fault (another thread's) waits for the report the first one asked for. */
		claim(sig);
		wait_for_report();
	}
	if (!own)
		default_action(sig, info);
out:
	errno = saved;
}

/* Takes request @sig where the program left it at its default action. */
static void take_request(int sig)
{
	struct sigaction current;
	if (sigaction(sig, NULL, &current) != 0 || (current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)
		return; /* the program handles it (or ignores it: nohup): its choice stands */
	struct sigaction mine = {.sa_handler = on_request, .sa_flags = SA_RESTART};
	sigemptyset(&mine.sa_mask);
	sigaction(sig, &mine, NULL);
}

/* Takes fault number @i, keeping the program's handler of it to run first; one it ignores is left alone. */
static void take_fault(size_t i)
{
	struct sigaction current;
	if (sigaction(faults[i], NULL, &current) != 0 ||
	    (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN))
		return;
	watch.program[i] = current;
	/*
	 * The program's mask while its handler runs, as the kernel would have set it; on the
	 * alternate stack where the thread has one (a stack overflow's fault needs it).
	 */
	struct sigaction mine = {
		.sa_sigaction = on_fault,
		.sa_flags = SA_SIGINFO | SA_ONSTACK | (current.sa_flags & SA_RESTART),
		.sa_mask = current.sa_mask,
	};
	sigaction(faults[i], &mine, NULL);
}

void hesper_signals_watch(void (*finish)(int sig))
{
	const struct hesper_settings *s = &hesper_process()->settings;
	pthread_t thread;
	sigset_t all, old;
	watch.finish = finish;
	watch.fault_wait_ns = (uint64_t)s->exit_timeout_ms * 1000000ull + WRITE_WAIT_NS;
	if (sem_init(&watch.wake, 0, 0) != 0)
		return;
	watch.owner = getpid();
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int started = pthread_create(&thread, NULL, signal_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started != 0) {
		hesper_log("cannot start the signal thread; no report is written when a signal ends the program");
		return;
	}
	pthread_detach(thread);
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++)
		if (requests[i] != s->report_signal) /* HESPER_REPORT_SIGNAL writes live reports on it */
			take_request(requests[i]);
	for (size_t i = 0; i < FAULTS; i++)
		take_fault(i);
}
