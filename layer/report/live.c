/*
 * Reports while the program runs (see live.h).
 *
 * The signal handler only sets a flag (async-signal-safe); the collector thread, which
 * blocks every signal and wakes at least every IDLE_WAIT_MS, sees it at its next turn
 * and writes the report. Hesper takes the signal only when the program left it at its
 * default action when the first device was created: a handler the program installs
 * later replaces Hesper's, and the program's own choice stands.
 */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "report.h"
#include "state/state.h"
#include "analysis.h"

/* The control file is looked at no more often than this: one stat() per turn would do. */
#define CONTROL_POLL_NS 100000000ull

static struct {
	bool armed; /* hesper_live_start ran with something to do */
	uint64_t interval_ns;
	uint64_t next_due_ns; /* next interval report */
	uint64_t control_checked_ns;
	bool control_seen; /* the file existed at the last look */
	struct timespec control_mtime;
	ino_t control_ino;
	pid_t owner;        /* the process that armed it (a forked child did not) */
	char *control_path; /* HESPER_CONTROL from the directory the program started in */
} live;

static volatile sig_atomic_t requested;

static void on_report_signal(int sig)
{
	/* A forked child has no collector: for it the signal keeps its default action. */
	if (getpid() != live.owner) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	requested = 1;
}

/* Whether the control file appeared or changed since the last look (its first look sets the base). */
static bool control_changed(const char *path)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	bool changed = false;
	if (exists) {
		changed = !live.control_seen || st.st_ino != live.control_ino ||
			  st.st_mtim.tv_sec != live.control_mtime.tv_sec ||
			  st.st_mtim.tv_nsec != live.control_mtime.tv_nsec;
		live.control_mtime = st.st_mtim;
		live.control_ino = st.st_ino;
	}
	live.control_seen = exists;
	return changed;
}

static void take_signal(int sig)
{
	struct sigaction current;
	if (sigaction(sig, NULL, &current) != 0)
		return;
	if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL) {
		hesper_log("HESPER_REPORT_SIGNAL: the program already handles or ignores signal %d (%s); "
			   "it is left to the program and no report is written on it",
			   sig, strsignal(sig));
		return;
	}
	struct sigaction mine = {.sa_handler = on_report_signal, .sa_flags = SA_RESTART};
	sigemptyset(&mine.sa_mask);
	if (sigaction(sig, &mine, NULL) != 0)
		hesper_log("HESPER_REPORT_SIGNAL: cannot handle signal %d (%s)", sig, strsignal(sig));
}

void hesper_live_start(void)
{
	struct hesper_process *p = hesper_process();
	const struct hesper_settings *s = &p->settings;
	if (!s->interval_ms && !s->report_signal && !s->control_path[0])
		return;
	if (!hesper_report_has_file_sink()) {
		hesper_log("HESPER_INTERVAL, HESPER_REPORT_SIGNAL and HESPER_CONTROL write the file sinks of "
			   "HESPER_REPORT, and it has none: only the exit report is written");
		return;
	}
	live.owner = getpid();
	live.interval_ns = (uint64_t)s->interval_ms * 1000000ull;
	live.next_due_ns = hesper_now_ns() + live.interval_ns;
	if (s->control_path[0]) {
		live.control_path = hesper_path_from_start(s->control_path);
		if (live.control_path)
			(void)control_changed(live.control_path); /* a file there already is the base, not a request */
	}
	live.armed = true;
	pthread_mutex_lock(&p->lock);
	if (p->profile)
		p->profile->report.live = true;
	pthread_mutex_unlock(&p->lock);
	if (s->report_signal)
		take_signal(s->report_signal);
}

void hesper_live_poll(void)
{
	if (!live.armed)
		return;
	uint64_t now = hesper_now_ns();
	const char *reason = NULL;
	if (requested) {
		requested = 0;
		reason = "signal";
	}
	if (!reason && live.control_path && now - live.control_checked_ns >= CONTROL_POLL_NS) {
		live.control_checked_ns = now;
		if (control_changed(live.control_path))
			reason = "control";
	}
	if (live.interval_ns && now >= live.next_due_ns) {
		/* From now, not from the last deadline: a slow report does not cause a burst of them. */
		live.next_due_ns = now + live.interval_ns;
		if (!reason)
			reason = "interval";
	}
	if (reason)
		hesper_report_partial(reason);
}
