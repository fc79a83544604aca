/* GPU work placed on the host's clock for the timeline (see timeline.h). */
#include "timeline.h"

#include "clock_sync.h"
#include "state/state.h"

struct hesper_work_place hesper_place_work(const struct hesper_queue *q, bool traced, uint64_t raw_start,
					   uint64_t command_buffer, uint64_t submission)
{
	const struct hesper_device *dev = q->dev;
	if (!traced)
		return (struct hesper_work_place){0};
	return (struct hesper_work_place){
		.traced = true,
		.device = dev->profile_device,
		.queue = q->profile_queue,
		.start_ns = hesper_to_host_ns(dev, raw_start, dev->families[q->family].tick_mask),
		.command_buffer = command_buffer,
		.submission = submission,
	};
}
