/*
 * Process-wide state: settings, the devices, the maps from handles to Hesper's objects,
 * interned names, the profile every device feeds, the log and the host's clock.
 */
#ifndef HESPER_PROCESS_H
#define HESPER_PROCESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object_map.h"
#include "settings.h"

struct hesper_kernel;
struct hesper_trace_event;
struct hesper_profile;
struct hesper_device;

/* A name interned for the life of the process: kernels and debug labels. */
struct hesper_name {
	char *text;
	struct hesper_kernel *row;       /* profile row, resolved by the collector */
	atomic_uint_fast64_t recorded;   /* dispatches recorded, for HESPER_SAMPLE */
	atomic_uint_fast64_t local_size; /* work-group size of its pipelines (hesper_local_size_pack) */
	atomic_bool clock_noted;         /* clock mode: its timestamp fallback is in the report */
	_Atomic uint8_t lines_chosen;    /* HESPER_LINES chooses it: 0 not asked yet, 1 no, 2 yes */
	struct hesper_name *next;        /* intern table chain */
};

/* A work-group size x, y, z (each below 2^21) in one word; 0: unknown, UINT64_MAX: its pipelines differ. */
#define HESPER_LOCAL_SIZE_VARIES UINT64_MAX
static inline uint64_t hesper_local_size_pack(const uint32_t s[3])
{
	if (!s[0] || !s[1] || !s[2] || s[0] >> 21 || s[1] >> 21 || s[2] >> 21)
		return 0;
	return (uint64_t)s[0] | (uint64_t)s[1] << 21 | (uint64_t)s[2] << 42;
}

/* The x, y, z that hesper_local_size_pack made @packed from, into @s. */
static inline void hesper_local_size_unpack(uint64_t packed, uint32_t s[3])
{
	s[0] = packed & 0x1fffff;
	s[1] = (packed >> 21) & 0x1fffff;
	s[2] = (packed >> 42) & 0x1fffff;
}

/* Notes that a pipeline named @name has local size @packed (hesper_local_size_pack): the first sets, a different one marks it as varying. */
void hesper_name_note_local_size(struct hesper_name *name, uint64_t packed);

struct hesper_process {
	struct hesper_settings settings;
	pthread_mutex_t lock; /* guards devices, names, the profile */
	struct hesper_device *devices;
	struct hesper_map instances;               /* dispatch key -> struct hesper_instance */
	struct hesper_map device_keys;             /* dispatch key -> struct hesper_device */
	struct hesper_map queues;                  /* VkQueue -> struct hesper_queue */
	struct hesper_map command_buffers[16];     /* VkCommandBuffer -> state, sharded */
	atomic_uint_fast64_t command_buffer_epoch; /* bumped whenever a command buffer is forgotten */
	struct hesper_profile *profile;
	uint64_t start_ns;
	bool keep_trace;            /* a sink shows the timeline (trace, html): keep the bounded trace */
	bool stream_events;         /* a sink takes every timeline event (sqlite) */
	atomic_bool capture_closed; /* the capture window closed for good (collect/capture.c) */
};

/* The process state, set up on first use. */
struct hesper_process *hesper_process(void);

/*
 * @path taken from the working directory the process had when Hesper was loaded, not the
 * one it has now (a program may change directory before it exits): a new string, @path
 * itself where it is absolute or that directory is unknown; NULL when memory runs out.
 */
char *hesper_path_from_start(const char *path);

/* That working directory; "" when unknown. */
const char *hesper_start_dir(void);

/* Interns @text (NULL on allocation failure). Names live until the process ends. */
struct hesper_name *hesper_intern(const char *text);

/* True when a sink needs timeline events (trace, HTML report, SQLite database). */
bool hesper_process_wants_trace(void);

/* One line on stderr, prefixed "hesper: ". */
void hesper_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* True when indirect dispatches' group counts are read back (dispatch mode, HESPER_INDIRECT=read). */
bool hesper_indirect_wanted(void);

/* Clock mode: notes in the report that @kernel is timed with timestamps because of @why. */
void hesper_process_note_clock_fallback(const char *kernel, const char *why);

struct hesper_pipeline_stats;

/*
 * Puts the pipeline statistics @s (of kernel s->kernel) in the report, unless a set alike
 * is there: the set's variant among the kernel's (hesper_profile_add_pipeline_stats), or -1.
 */
int hesper_process_note_pipeline_stats(const struct hesper_pipeline_stats *s);

/* Adds host time spent in a submit hook to the process total. */
void hesper_add_submit_hook_ns(uint64_t ns);

/* Host time spent inside Hesper's submit hooks so far, ns. */
uint64_t hesper_submit_hook_ns(void);

/* Hesper's host time in its submit hooks and (sampled, hook_time.h) its recording and wait hooks so far, ns. */
uint64_t hesper_hook_ns(void);

#endif
