/*
 * The queue of timeline events for the streaming sinks: every event produced since the
 * last take, whatever the trace's cap. Filled under the profile's lock by whoever
 * accounts (the collector, or a program thread flushing a device), so SQLite is only ever
 * written off the program's threads (and at exit, by the thread writing the report).
 */
#include "events.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "process.h"
#include "profile.h"

static struct {
	pthread_mutex_t lock;
	struct hesper_trace_event *items;
	size_t count, capacity;
	uint64_t lost; /* events not kept for lack of memory */
} stream = {.lock = PTHREAD_MUTEX_INITIALIZER};

void hesper_events_add(struct hesper_profile *p, const struct hesper_trace_event *e)
{
	struct hesper_process *proc = hesper_process();
	if (proc->keep_trace)
		hesper_trace_add(&p->trace, e);
	if (!proc->stream_events)
		return;
	pthread_mutex_lock(&stream.lock);
	if (stream.count == stream.capacity) {
		size_t capacity = stream.capacity ? stream.capacity * 2 : 4096;
		struct hesper_trace_event *items = realloc(stream.items, capacity * sizeof(*items));
		if (!items) {
			stream.lost++;
			pthread_mutex_unlock(&stream.lock);
			return;
		}
		stream.items = items;
		stream.capacity = capacity;
	}
	stream.items[stream.count++] = *e;
	pthread_mutex_unlock(&stream.lock);
}

size_t hesper_events_take(struct hesper_trace_event **items)
{
	pthread_mutex_lock(&stream.lock);
	*items = stream.items;
	size_t count = stream.count;
	uint64_t lost = stream.lost;
	stream.items = NULL;
	stream.count = stream.capacity = 0;
	stream.lost = 0;
	pthread_mutex_unlock(&stream.lock);
	if (lost)
		hesper_log("out of memory: %llu timeline events were not streamed to the database",
			   (unsigned long long)lost);
	return count;
}
