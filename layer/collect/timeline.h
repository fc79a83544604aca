/* GPU work kept for the timeline sinks, placed on the host's clock through the device's clock pairing. */
#ifndef HESPER_TIMELINE_H
#define HESPER_TIMELINE_H

#include <stdint.h>

#include "analysis.h"

struct hesper_name;
struct hesper_profile;
struct hesper_queue;

/* Keeps a GPU event of @q from @raw_start to @raw_end; @bytes: those a memory operation moved. */
void hesper_trace_gpu_bytes(struct hesper_profile *p, const struct hesper_queue *q, enum hesper_trace_kind kind,
			    const char *name, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
			    uint64_t command_buffer, uint64_t submission, uint64_t bytes);

/* Keeps a GPU event of @q from @raw_start to @raw_end. */
void hesper_trace_gpu(struct hesper_profile *p, const struct hesper_queue *q, enum hesper_trace_kind kind,
		      const char *name, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
		      uint64_t command_buffer, uint64_t submission);

/*
 * Keeps a timed dispatch named @name (its row's, which outlives the trace) with its work-group
 * size @local_size (NULL: unknown), whole before any sink sees it.
 */
void hesper_trace_dispatch(struct hesper_profile *p, const struct hesper_queue *q, const char *name,
			   const uint32_t *local_size, uint64_t raw_start, uint64_t raw_end, const uint32_t *groups,
			   uint64_t command_buffer, uint64_t submission);

#endif
