/*
 * Process-wide state: settings, the devices, the maps from handles to Hesper's objects,
 * interned names and the profile every device feeds; the exit report.
 */
#ifndef HESPER_PROCESS_H
#define HESPER_PROCESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "object_map.h"
#include "settings.h"

struct hesper_kernel;
struct hesper_profile;
struct hesper_device;

/* A name interned for the life of the process: kernels and debug labels. */
struct hesper_name {
	char *text;
	struct hesper_kernel *row;          /* profile row, resolved by the collector */
	atomic_uint_fast64_t recorded;      /* dispatches recorded, for HESPER_SAMPLE */
	atomic_bool clock_noted;            /* clock mode: its timestamp fallback is in the report */
	struct hesper_name *next;           /* intern table chain */
};

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
};

/* The process state, set up on first use. */
struct hesper_process *hesper_process(void);

/* Monotonic clock in ns. */
uint64_t hesper_now_ns(void);


/* Interns @text (NULL on allocation failure). Names live until the process ends. */
struct hesper_name *hesper_intern(const char *text);

/* True when a sink needs timeline events (trace or HTML report). */
bool hesper_process_wants_trace(void);

/* Registers the exit report once a device exists (so it runs before the driver's own exit handlers). */
void hesper_process_register_exit(void);

/* Registers the exit handler again once the driver has surely set up its own (first harvest). */
void hesper_process_exit_after_driver(void);

/* Writes the report to every sink, once per process. */
void hesper_process_report(void);

/* One line on stderr, prefixed "hesper: ". */
void hesper_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Clock mode: notes in the report that @kernel is timed with timestamps because of @why. */
void hesper_process_note_clock_fallback(const char *kernel, const char *why);

/* Adds host time spent recording (sampled) to the process total. */
void hesper_add_record_hook_ns(uint64_t ns);

#endif
