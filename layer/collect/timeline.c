/* GPU work as timeline events, placed on the host's clock (see timeline.h). */
#include "timeline.h"

#include <string.h>

#include "clock_sync.h"
#include "analysis.h"
#include "state/state.h"
#include "ticks.h"

/* A GPU event of @q from @raw_start to @raw_end, placed on the host's clock; @bytes: those a memory operation moved. */
static struct hesper_trace_event gpu_event(const struct hesper_queue *q, enum hesper_trace_kind kind, const char *name,
					   uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
					   uint64_t command_buffer, uint64_t submission, uint64_t bytes)
{
	const struct hesper_device *dev = q->dev;
	uint64_t mask = dev->families[q->family].tick_mask;
	struct hesper_trace_event e = {
		.kind = kind,
		.device = dev->profile_device,
		.queue = q->profile_queue,
		.name = name,
		.start_ns = hesper_to_host_ns(dev, raw_start, mask),
		.command_buffer = command_buffer,
		.submission = submission,
		.bytes = bytes,
	};
	/* Ticks to nanoseconds by the rule the statistics use: an end before the start lasts 0. */
	uint64_t ns = 0;
	(void)hesper_interval_ns(raw_start, raw_end, mask, dev->props.limits.timestampPeriod, &ns);
	e.end_ns = e.start_ns + ns;
	if (groups) {
		e.groups[0] = groups[0];
		e.groups[1] = groups[1];
		e.groups[2] = groups[2];
	}
	return e;
}

/* Keeps a GPU event of @q for the timeline, placed on the host's clock; @bytes: those a memory operation moved. */
void hesper_trace_gpu_bytes(struct hesper_profile *p, const struct hesper_queue *q, enum hesper_trace_kind kind,
			    const char *name, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
			    uint64_t command_buffer, uint64_t submission, uint64_t bytes)
{
	struct hesper_trace_event e = gpu_event(q, kind, name, raw_start, raw_end, groups, command_buffer, submission,
						bytes);
	hesper_events_add(p, &e);
}

/* Keeps a GPU event of @q for the timeline, placed on the host's clock. */
void hesper_trace_gpu(struct hesper_profile *p, const struct hesper_queue *q, enum hesper_trace_kind kind,
		      const char *name, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
		      uint64_t command_buffer, uint64_t submission)
{
	hesper_trace_gpu_bytes(p, q, kind, name, raw_start, raw_end, groups, command_buffer, submission, 0);
}

/* Keeps a timed dispatch of @kernel for the timeline, with its work-group size @local_size (NULL: unknown). */
void hesper_trace_dispatch(struct hesper_profile *p, const struct hesper_queue *q, const char *name,
			   const uint32_t *local_size, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
			   uint64_t command_buffer, uint64_t submission)
{
	struct hesper_trace_event e = gpu_event(q, HESPER_TRACE_DISPATCH, name, raw_start, raw_end, groups,
						command_buffer, submission, 0);
	/*
	 * Complete before it is handed on: hesper_events_add copies it into the trace, the
	 * HESPER_TRACE_ALL spool and the database stream at once.
	 */
	if (local_size)
		memcpy(e.local_size, local_size, sizeof(e.local_size));
	hesper_events_add(p, &e);
}
