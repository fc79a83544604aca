/*
 * The queue of timeline events for the streaming sinks: every event produced since the
 * last take, whatever the trace's cap. Filled under the profile's lock by whoever
 * accounts (the collector, or a program thread flushing a device), so SQLite is only ever
 * written off the program's threads (and at exit, by the thread writing the report).
 * The trace also gets the name of each program thread its host events come from.
 */
#include "events.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "process.h"
#include "analysis.h"

static struct {
	pthread_mutex_t lock;
	struct hesper_trace_event *items;
	size_t count, capacity;
	uint64_t lost; /* events not kept for lack of memory */
} stream = {.lock = PTHREAD_MUTEX_INITIALIZER};

/*
 * Gives the program thread @tid its name in @p's trace when it is first seen: its comm
 * from /proc (any thread of the process can be read from any other, so the collector can
 * name a thread whose submission it accounts). A thread that already ended stays unnamed.
 */
static void name_thread(struct hesper_profile *p, uint32_t tid)
{
	char path[64], name[HESPER_THREAD_NAME_MAX] = "";
	if (hesper_trace_thread_known(&p->trace, tid))
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", (unsigned)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, name, sizeof(name) - 1);
		close(fd);
		name[n > 0 ? n : 0] = '\0';
		if (n > 0 && name[n - 1] == '\n')
			name[n - 1] = '\0';
	}
	(void)hesper_trace_name_thread(&p->trace, tid, name); /* past the bound: shown by id */
}

void hesper_events_add(struct hesper_profile *p, const struct hesper_trace_event *e)
{
	struct hesper_process *proc = hesper_process();
	bool host = e->kind == HESPER_TRACE_HOST_SUBMIT || e->kind == HESPER_TRACE_HOST_WAIT;
	if (proc->keep_trace && host)
		name_thread(p, e->thread);
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
