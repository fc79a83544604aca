/*
 * Process-wide state: settings, the devices, the maps from handles to Hesper's objects,
 * interned names and the profile every device feeds; the exit report.
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
	struct hesper_kernel *row;          /* profile row, resolved by the collector */
	atomic_uint_fast64_t recorded;      /* dispatches recorded, for HESPER_SAMPLE */
	atomic_uint_fast64_t local_size;    /* work-group size of its pipelines (hesper_local_size_pack) */
	atomic_bool clock_noted;            /* clock mode: its timestamp fallback is in the report */
	struct hesper_name *next;           /* intern table chain */
};

/* A work-group size x, y, z (each below 2^21) in one word; 0: unknown, UINT64_MAX: its pipelines differ. */
#define HESPER_LOCAL_SIZE_VARIES UINT64_MAX
static inline uint64_t hesper_local_size_pack(const uint32_t s[3])
{
	if (!s[0] || !s[1] || !s[2] || s[0] >> 21 || s[1] >> 21 || s[2] >> 21)
		return 0;
	return (uint64_t)s[0] | (uint64_t)s[1] << 21 | (uint64_t)s[2] << 42;
}

/* Notes that a pipeline named @name has local size @packed (hesper_local_size_pack): the first sets, a different one marks it as varying. */
void hesper_name_note_local_size(struct hesper_name *name, uint64_t packed);

struct hesper_process {
	struct hesper_settings settings;
	pthread_mutex_t lock;               /* guards devices, names, the profile */
	struct hesper_device *devices;
	struct hesper_map instances;        /* dispatch key -> struct hesper_instance */
	struct hesper_map device_keys;      /* dispatch key -> struct hesper_device */
	struct hesper_map queues;           /* VkQueue -> struct hesper_queue */
	struct hesper_map command_buffers[16]; /* VkCommandBuffer -> state, sharded */
	atomic_uint_fast64_t command_buffer_epoch; /* bumped whenever a command buffer is forgotten */
	struct hesper_profile *profile;
	uint64_t start_ns;
	bool exit_registered;
	bool reported;
	bool keep_trace;                    /* a sink shows the timeline (trace, html): keep the bounded trace */
	bool stream_events;                 /* a sink takes every timeline event (sqlite) */
};

/* The process state, set up on first use. */
struct hesper_process *hesper_process(void);

/* Monotonic clock in ns. */
uint64_t hesper_now_ns(void);


/* Interns @text (NULL on allocation failure). Names live until the process ends. */
struct hesper_name *hesper_intern(const char *text);

/* True when a sink needs timeline events (trace, HTML report, SQLite database). */
bool hesper_process_wants_trace(void);

/* Writes @n timeline events to the streaming sinks (hesper_collector_drain_events calls it). */
void hesper_process_stream_events(const struct hesper_trace_event *events, size_t n);

/* Registers the exit report once a device exists (so it runs before the driver's own exit handlers). */
void hesper_process_register_exit(void);

/* Registers the exit handler again once the driver has surely set up its own (first harvest). */
void hesper_process_exit_after_driver(void);

/* Writes the report to every sink, once per process. */
void hesper_process_report(void);

/*
 * Writes the report so far to the file sinks only (the program's stdout and stderr get the
 * exit report alone), marked partial with @reason ("interval", "signal", "control"). Does
 * nothing once the exit report was written. Called by the collector thread.
 */
void hesper_process_report_partial(const char *reason);

/* True when HESPER_REPORT names at least one file sink. */
bool hesper_process_has_file_sink(void);

/* One line on stderr, prefixed "hesper: ". */
void hesper_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Clock mode: notes in the report that @kernel is timed with timestamps because of @why. */
void hesper_process_note_clock_fallback(const char *kernel, const char *why);

/* Adds host time spent recording (sampled) to the process total. */
void hesper_add_record_hook_ns(uint64_t ns);

#endif
