/* GPU work placed for the timeline sinks: on the host's clock through the device's clock pairing. */
#ifndef HESPER_TIMELINE_H
#define HESPER_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

struct hesper_queue;

/*
 * Where work of @q that began at raw tick @raw_start ran, in command buffer @command_buffer
 * of submission @submission: shown on the timeline when @traced, else counted only
 * (hesper_profile_add_work hands a traced one's event on with its statistics).
 */
struct hesper_work_place hesper_place_work(const struct hesper_queue *q, bool traced, uint64_t raw_start,
					   uint64_t command_buffer, uint64_t submission);

#endif
