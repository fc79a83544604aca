/*
 * The sinks of HESPER_REPORT and writing the profile to them: the exit report, the
 * reports while the program runs (live.h) and the stream of timeline events to the
 * database.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock/clock.h"
#include "collect/collect.h"
#include "live.h"
#include "analysis.h"
#include "report.h"
#include "state/state.h"

static struct hesper_sink_list sinks;
static pthread_mutex_t sinks_lock = PTHREAD_MUTEX_INITIALIZER; /* streaming and writing never overlap */
static pthread_once_t sinks_once = PTHREAD_ONCE_INIT;
static bool has_file_sink; /* a sink of @sinks has a PATH: reports while the program runs go there */
static bool reported;      /* the exit report was written: nothing is written after it */

/* HESPER_TRACE_ALL: every timeline event streams to a temporary file for the trace: sink. */
static void start_spool(struct hesper_process *p)
{
	bool trace_sink = false;
	for (size_t i = 0; i < sinks.count; i++)
		trace_sink |= sinks.items[i].kind == HESPER_SINK_TRACE;
	if (!trace_sink) {
		hesper_log("HESPER_TRACE_ALL applies to the trace: sink, and HESPER_REPORT has none");
		return;
	}
	p->profile->trace.spool = hesper_trace_spool_open();
	if (!p->profile->trace.spool)
		hesper_log("HESPER_TRACE_ALL: cannot create a temporary file (%s); the trace keeps at most "
			   "HESPER_MAX_EVENTS events",
			   strerror(errno));
}

static void open_sinks(void)
{
	struct hesper_process *p = hesper_process();
	if (!p->profile)
		return;
	/* Parsed now so a bad HESPER_REPORT is reported when profiling starts, not at exit. */
	if (hesper_sinks_parse(getenv("HESPER_REPORT"), p->profile->pid, p->profile->host, &sinks, stderr) < 0)
		hesper_log("out of memory reading HESPER_REPORT; no report will be written");
	sinks.database = &hesper_sqlite_database;
	for (size_t i = 0; i < sinks.count; i++) {
		enum hesper_sink_kind kind = sinks.items[i].kind;
		/* A relative PATH is the directory the program started in's, wherever it is at exit. */
		char *from_start = sinks.items[i].path ? hesper_path_from_start(sinks.items[i].path) : NULL;
		if (from_start) {
			free(sinks.items[i].path);
			sinks.items[i].path = from_start;
		}
		p->keep_trace |= kind == HESPER_SINK_TRACE || kind == HESPER_SINK_HTML;
		p->stream_events |= kind == HESPER_SINK_SQLITE;
		has_file_sink |= sinks.items[i].path != NULL;
	}
	if (p->settings.trace_all)
		start_spool(p);
}

void hesper_report_open(void)
{
	pthread_once(&sinks_once, open_sinks);
}

void hesper_report_stream_events(void)
{
	static pthread_mutex_t draining = PTHREAD_MUTEX_INITIALIZER;
	if (!hesper_process()->stream_events)
		return;
	/* One drainer at a time keeps the batches in the order they were produced. */
	pthread_mutex_lock(&draining);
	struct hesper_trace_event *items;
	size_t count = hesper_events_take(&items);
	if (count) {
		pthread_mutex_lock(&sinks_lock);
		hesper_sinks_stream(&sinks, items, count, stderr);
		pthread_mutex_unlock(&sinks_lock);
	}
	free(items);
	pthread_mutex_unlock(&draining);
}

/*
 * Writes @profile to every sink (the profile's lock held): the queued timeline events go
 * to the database first, so its summary never describes rows it lacks. @final (the exit
 * report, always the last) closes the database after. A periodic rewrite calls this too,
 * with @final false: then only the sinks with a PATH are written (not stdout, stderr).
 */
static void write_sinks(struct hesper_profile *profile, bool final)
{
	hesper_report_stream_events();
	pthread_mutex_lock(&sinks_lock);
	hesper_sinks_write_some(&sinks, profile, !final, stderr);
	if (final)
		hesper_sinks_close(&sinks);
	pthread_mutex_unlock(&sinks_lock);
}

bool hesper_report_has_file_sink(void)
{
	hesper_report_open();
	return has_file_sink;
}

/* The numbers a report takes at the moment it is written. Called with the process lock held. */
static void stamp_profile(struct hesper_process *p)
{
	p->profile->wall_ns = hesper_now_ns() - p->start_ns;
	p->profile->submit_hook_ns = hesper_submit_hook_ns();
	p->profile->hook_ns = hesper_hook_ns();
	hesper_capture_describe(&p->profile->capture);
	hesper_waits_report(p->profile);
	hesper_waits_settle_all(p);
	hesper_lines_report(p->profile);
	p->profile->findings_ready = true;
}

/*
 * A stream of its own on the program's standard output, for a report written as signal
 * ends the process: the program's output still in stdout's buffer would be lost without
 * Hesper, and stays so (nor is stdout's lock taken, which the thread that faulted may hold).
 * NULL when it cannot be had: then the stdout sink writes through stdout.
 */
static FILE *stdout_of_our_own(void)
{
	int fd = dup(STDOUT_FILENO);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f && fd >= 0)
		close(fd);
	return f;
}

void hesper_report_write(int sig)
{
	static char signal_name[32];
	struct hesper_process *p = hesper_process();
	FILE *own = NULL;
	pthread_mutex_lock(&p->lock);
	if (reported || !p->profile) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	reported = true;
	stamp_profile(p);
	p->profile->report.partial = false;
	p->profile->report.reason = NULL;
	if (sig) {
		const char *abbrev = sigabbrev_np(sig);
		snprintf(signal_name, sizeof(signal_name), "SIG%s", abbrev ? abbrev : "?");
		p->profile->report.signal = signal_name;
		own = stdout_of_our_own();
		sinks.stdout_stream = own;
	} else {
		fflush(stdout);
	}
	write_sinks(p->profile, true);
	if (own) {
		sinks.stdout_stream = NULL;
		fclose(own);
	}
	pthread_mutex_unlock(&p->lock);
}

bool hesper_report_written(void)
{
	struct hesper_process *p = hesper_process();
	pthread_mutex_lock(&p->lock);
	bool done = reported;
	pthread_mutex_unlock(&p->lock);
	return done;
}

void hesper_report_partial(const char *reason)
{
	struct hesper_process *p = hesper_process();
	pthread_mutex_lock(&p->lock);
	/* Under the lock the exit report also takes: none is written after it. */
	if (!reported && p->profile && has_file_sink) {
		stamp_profile(p);
		p->profile->report.partial = true;
		p->profile->report.reason = reason;
		/* A sink that cannot be written says so once (the sink remembers), not at every interval. */
		write_sinks(p->profile, false);
		p->profile->report.partial = false;
		p->profile->report.reason = NULL;
		p->profile->report.number++;
	}
	pthread_mutex_unlock(&p->lock);
}
