/* The names of the trace's tracks (trace_names.h). */
#include "trace_names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void
hesper_trace_queue_name(char *buf, size_t size, const struct hesper_profile *p, uint32_t queue)
{
	if (queue >= p->queue_count) {
		snprintf(buf, size, "GPU ? queue %" PRIu32, queue);
		return;
	}
	const struct hesper_queue_info *q = &p->queues[queue];
	const char *device = q->device < p->device_count ? p->devices[q->device].name : "?";

	snprintf(buf, size, "GPU %" PRIu32 " %.*s queue family %" PRIu32 " index %" PRIu32, q->device, HESPER_NAME_MAX,
		 device, q->family, q->index);
}

/* What a track of @kind holds, after its queue's or thread's name. */
static const char *
track_kind_word(enum hesper_trace_kind kind)
{
	switch (kind) {
	case HESPER_TRACE_DISPATCH: return "dispatches";
	case HESPER_TRACE_REGION: return "labels";
	case HESPER_TRACE_BATCH: return "submissions";
	case HESPER_TRACE_MEMORY_OP: return "memory operations";
	case HESPER_TRACE_HOST_SUBMIT: return "submits";
	case HESPER_TRACE_HOST_WAIT: return "waits";
	}
	return "?";
}

void
hesper_trace_track_name(char *buf, size_t size, const struct hesper_profile *p, const struct hesper_trace_track *t)
{
	size_t len;

	if (hesper_trace_kind_is_host(t->kind)) {
		const char *name = hesper_trace_thread_name(&p->trace, t->key);

		if (name)
			snprintf(buf, size, "CPU thread %" PRIu32 " (%s)", t->key, name);
		else
			snprintf(buf, size, "CPU thread %" PRIu32, t->key);
	} else {
		hesper_trace_queue_name(buf, size, p, t->key);
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, " %s", track_kind_word(t->kind));
	len = strlen(buf);
	if (t->lane > 1)
		snprintf(buf + len, size - len, " lane %" PRIu32, t->lane);
}
