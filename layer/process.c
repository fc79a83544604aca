/* Process-wide state: settings, the profile, interned names, and the report at exit. */
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "collector.h"
#include "findings_settings.h"
#include "hooks.h"
#include "live.h"
#include "process.h"
#include "profile.h"
#include "report_sqlite.h"
#include "sinks.h"
#include "trace_spool.h"
#include "waits.h"

extern char **environ;

#define NAME_BUCKETS 4096

static struct hesper_process process;
static pthread_once_t process_once = PTHREAD_ONCE_INIT;
static struct hesper_sink_list sinks;
static pthread_mutex_t sinks_lock = PTHREAD_MUTEX_INITIALIZER; /* streaming and writing never overlap */
static bool has_file_sink; /* a sink of @sinks has a PATH: reports while the program runs go there */
static atomic_uint_fast64_t record_hook_ns;

static struct {
	pthread_mutex_t lock;
	struct hesper_name *buckets[NAME_BUCKETS];
} names = {.lock = PTHREAD_MUTEX_INITIALIZER};

uint64_t hesper_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hesper_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "hesper: %s\n", line);
}

/* The program's name for the report: the base name of /proc/self/exe, else of argv[0]. */
static void read_exe(char *out, size_t size)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0) {
		snprintf(out, size, "%s", program_invocation_short_name);
		return;
	}
	path[n] = '\0';
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strnlen(base, size - 1); /* names longer than the field are cut */
	memcpy(out, base, len);
	out[len] = '\0';
}

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
			   "HESPER_MAX_EVENTS events", strerror(errno));
}

static void process_init(void)
{
	struct hesper_process *p = &process;
	p->start_ns = hesper_now_ns();
	pthread_mutex_init(&p->lock, NULL);
	hesper_map_init(&p->instances);
	hesper_map_init(&p->device_keys);
	hesper_map_init(&p->queues);
	for (size_t i = 0; i < sizeof(p->command_buffers) / sizeof(p->command_buffers[0]); i++)
		hesper_map_init(&p->command_buffers[i]);
	atomic_init(&p->command_buffer_epoch, 1);
	hesper_settings_from_env(&p->settings, environ, stderr);

	p->profile = calloc(1, sizeof(*p->profile));
	if (!p->profile || hesper_profile_init(p->profile) != 0) {
		hesper_log("out of memory at start; profiling is off");
		p->settings.disabled = true;
		return;
	}
	p->profile->pid = (int)getpid();
	read_exe(p->profile->exe, sizeof(p->profile->exe));
	if (gethostname(p->profile->host, sizeof(p->profile->host)) != 0)
		snprintf(p->profile->host, sizeof(p->profile->host), "unknown");
	p->profile->host[sizeof(p->profile->host) - 1] = '\0';
	snprintf(p->profile->mode, sizeof(p->profile->mode), "%s", hesper_mode_name(p->settings.mode));
	p->profile->sample_every = p->settings.sample_every;
	hesper_trace_init(&p->profile->trace, p->settings.max_events);
	/* Read here, like HESPER_REPORT: its parser belongs to the analysis library (findings_settings.h). */
	const char *findings = getenv("HESPER_FINDINGS");
	char err[512];
	if (findings && hesper_findings_settings_parse(&p->profile->findings, findings, err, sizeof(err)) != 0)
		hesper_log("%s", err);
	p->profile->trace.origin_ns = p->start_ns;
	/* Parsed now so a bad HESPER_REPORT is reported when profiling starts, not at exit. */
	if (hesper_sinks_parse(getenv("HESPER_REPORT"), p->profile->pid, p->profile->host, &sinks, stderr) < 0)
		hesper_log("out of memory reading HESPER_REPORT; no report will be written");
	sinks.database = &hesper_sqlite_database;
	for (size_t i = 0; i < sinks.count; i++) {
		enum hesper_sink_kind kind = sinks.items[i].kind;
		p->keep_trace |= kind == HESPER_SINK_TRACE || kind == HESPER_SINK_HTML;
		p->stream_events |= kind == HESPER_SINK_SQLITE;
	}
	for (size_t i = 0; i < sinks.count; i++)
		has_file_sink |= sinks.items[i].path != NULL;
	hesper_capture_init(&p->settings, p->start_ns);
	if (p->settings.trace_all)
		start_spool(p);
}

struct hesper_process *hesper_process(void)
{
	pthread_once(&process_once, process_init);
	return &process;
}

/* FNV-1a: names are short and few. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct hesper_name *hesper_intern(const char *text)
{
	uint32_t bucket = name_hash(text) % NAME_BUCKETS;
	pthread_mutex_lock(&names.lock);
	struct hesper_name *n = names.buckets[bucket];
	while (n && strcmp(n->text, text) != 0)
		n = n->next;
	if (!n) {
		n = calloc(1, sizeof(*n));
		if (n && !(n->text = strdup(text))) {
			free(n);
			n = NULL;
		}
		if (n) {
			atomic_init(&n->recorded, 0);
			n->next = names.buckets[bucket];
			names.buckets[bucket] = n;
		}
	}
	pthread_mutex_unlock(&names.lock);
	return n;
}

void hesper_name_note_local_size(struct hesper_name *name, uint64_t packed)
{
	uint64_t old = 0;
	if (!name || !packed)
		return;
	if (!atomic_compare_exchange_strong(&name->local_size, &old, packed) && old != packed)
		atomic_store(&name->local_size, HESPER_LOCAL_SIZE_VARIES);
}

bool hesper_process_wants_trace(void)
{
	struct hesper_process *p = hesper_process();
	return p->keep_trace || p->stream_events;
}

void hesper_process_stream_events(const struct hesper_trace_event *events, size_t n)
{
	pthread_mutex_lock(&sinks_lock);
	hesper_sinks_stream(&sinks, events, n, stderr);
	pthread_mutex_unlock(&sinks_lock);
}

void hesper_add_record_hook_ns(uint64_t ns)
{
	if (ns)
		atomic_fetch_add_explicit(&record_hook_ns, ns, memory_order_relaxed);
}

/*
 * Writes @profile to every sink (the profile's lock held): the queued timeline events go
 * to the database first, so its summary never describes rows it lacks. @final (the exit
 * report, always the last) closes the database after. A periodic rewrite calls this too,
 * with @final false: then only the sinks with a PATH are written (not stdout, stderr).
 */
static void write_sinks(struct hesper_profile *profile, bool final)
{
	hesper_collector_drain_events();
	pthread_mutex_lock(&sinks_lock);
	hesper_sinks_write_some(&sinks, profile, !final, stderr);
	if (final)
		hesper_sinks_close(&sinks);
	pthread_mutex_unlock(&sinks_lock);
}

bool hesper_process_has_file_sink(void)
{
	hesper_process();
	return has_file_sink;
}

/* The numbers a report takes at the moment it is written. Called with the process lock held. */
static void stamp_profile(struct hesper_process *p)
{
	p->profile->wall_ns = hesper_now_ns() - p->start_ns;
	p->profile->submit_hook_ns = hesper_submit_hook_ns();
	p->profile->hook_ns = p->profile->submit_hook_ns + atomic_load(&record_hook_ns);
	hesper_capture_describe(&p->profile->capture);
	hesper_waits_report(p->profile);
	p->profile->findings_ready = true;
}

void hesper_process_note_clock_fallback(const char *kernel, const char *why)
{
	struct hesper_process *p = hesper_process();
	pthread_mutex_lock(&p->lock);
	if (p->profile)
		hesper_profile_add_clock_note(p->profile, kernel, why);
	pthread_mutex_unlock(&p->lock);
}

void hesper_process_report(void)
{
	struct hesper_process *p = hesper_process();
	pthread_mutex_lock(&p->lock);
	if (p->reported || !p->profile) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	p->reported = true;
	stamp_profile(p);
	p->profile->report.partial = false;
	p->profile->report.reason = NULL;
	fflush(stdout);
	write_sinks(p->profile, true);
	pthread_mutex_unlock(&p->lock);
}

void hesper_process_report_partial(const char *reason)
{
	struct hesper_process *p = hesper_process();
	pthread_mutex_lock(&p->lock);
	/* Under the lock the exit report also takes: none is written after it. */
	if (!p->reported && p->profile && has_file_sink) {
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
	if (!p->reported) {
		hesper_collector_stop();
		hesper_collector_flush(NULL, (uint64_t)p->settings.exit_timeout_ms * 1000000ull);
		hesper_process_report();
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

void hesper_process_exit_after_driver(void)
{
	static atomic_bool done;
	/*
	 * Drivers register exit handlers of their own lazily (lavapipe's LLVM does at its first
	 * shader compile); handlers run in reverse order, so Hesper's must come after theirs to
	 * run before them, while the driver can still finish work in flight. Running it twice
	 * is harmless: the report is written once.
	 */
	/* Called per harvested submission: a plain load keeps the common case a read. */
	if (atomic_load_explicit(&done, memory_order_relaxed) || atomic_exchange(&done, true))
		return;
	if (atexit(at_exit) != 0)
		hesper_log("cannot register the exit handler again; work in flight at exit may be dropped");
}

void hesper_process_register_exit(void)
{
	struct hesper_process *p = hesper_process();
	pthread_mutex_lock(&p->lock);
	bool first = !p->exit_registered;
	p->exit_registered = true;
	pthread_mutex_unlock(&p->lock);
	if (!first)
		return;
	/* Registered after the driver loaded, so it runs before the driver's own exit handlers. */
	if (atexit(at_exit) != 0)
		hesper_log("cannot register the exit handler; no report will be written");
	watch_signals();
	hesper_live_start();
}
