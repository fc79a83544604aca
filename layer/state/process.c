/* Process-wide state: settings, the profile every device feeds, interned names, the log. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "events.h"
#include "hook_time.h"
#include "process.h"

extern char **environ;

#define NAME_BUCKETS 4096

static struct hesper_process process;
static pthread_once_t process_once = PTHREAD_ONCE_INIT;
static atomic_uint_fast64_t submit_hook_ns;

static struct {
	pthread_mutex_t lock;
	struct hesper_name *buckets[NAME_BUCKETS];
} names = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The working directory when the library was loaded (at the program's start where it is preloaded); "" unknown. */
static char start_dir[4096];

__attribute__((constructor)) static void note_start_dir(void)
{
	if (!getcwd(start_dir, sizeof(start_dir)))
		start_dir[0] = '\0';
}

const char *hesper_start_dir(void)
{
	return start_dir;
}

char *hesper_path_from_start(const char *path)
{
	size_t dir = strlen(start_dir), len = strlen(path);
	if (path[0] == '/' || !dir)
		return strdup(path);
	char *out = malloc(dir + 1 + len + 1);
	if (!out)
		return NULL;
	memcpy(out, start_dir, dir);
	out[dir] = '/';
	memcpy(out + dir + 1, path, len + 1);
	return out;
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
	p->profile->group_by = p->settings.group_by;
	hesper_trace_init(&p->profile->trace, p->settings.max_events);
	p->profile->keep_event = hesper_events_add;
	/* Read here, like HESPER_REPORT: its parser belongs to the analysis library (findings_settings.h). */
	const char *findings = getenv("HESPER_FINDINGS");
	char err[512];
	if (findings && hesper_findings_settings_parse(&p->profile->findings, findings, err, sizeof(err)) != 0)
		hesper_log("%s", err);
	p->profile->trace.origin_ns = p->start_ns;
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

void hesper_add_submit_hook_ns(uint64_t ns)
{
	atomic_fetch_add_explicit(&submit_hook_ns, ns, memory_order_relaxed);
}

uint64_t hesper_submit_hook_ns(void)
{
	return atomic_load(&submit_hook_ns);
}

uint64_t hesper_hook_ns(void)
{
	return atomic_load(&submit_hook_ns) + hesper_hook_own_ns();
}

bool hesper_indirect_wanted(void)
{
	const struct hesper_settings *set = &hesper_process()->settings;
	return set->mode == HESPER_MODE_DISPATCH && !set->disabled && set->indirect_args;
}

int hesper_process_note_pipeline_stats(const struct hesper_pipeline_stats *s)
{
	struct hesper_process *p = hesper_process();
	int variant = -1;
	pthread_mutex_lock(&p->lock);
	if (p->profile)
		variant = hesper_profile_add_pipeline_stats(p->profile, s);
	pthread_mutex_unlock(&p->lock);
	return variant;
}

void hesper_process_note_clock_fallback(const char *kernel, const char *why)
{
	struct hesper_process *p = hesper_process();
	pthread_mutex_lock(&p->lock);
	if (p->profile)
		hesper_profile_add_clock_note(p->profile, kernel, why);
	pthread_mutex_unlock(&p->lock);
}
