/* Pairing a device's clock with the host's: calibrated timestamps read together. */
#include "clock_sync.h"
#include "state/state.h"

/* Tries to read the device and host clocks together this many times, keeping the tightest pair. */
#define CALIBRATION_TRIES 8

bool hesper_device_calibrate(struct hesper_device *dev, struct hesper_clock_sync *out)
{
	if (!dev->calibrated_timestamps)
		return false;
	const VkCalibratedTimestampInfoEXT domains[2] = {
		{.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = VK_TIME_DOMAIN_DEVICE_EXT},
		{.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT},
	};
	bool found = false;
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < CALIBRATION_TRIES; i++) {
		uint64_t ts[2], deviation = 0;
		if (dev->next.GetCalibratedTimestampsEXT(dev->handle, 2, domains, ts, &deviation) != VK_SUCCESS)
			break;
		if (deviation < best) {
			best = deviation;
			out->device_ticks = ts[0];
			out->host_ns = ts[1];
			found = true;
		}
	}
	if (!found)
		return false;
	out->valid = true;
	out->calibrated = true;
	out->error_ns = (double)best;
	out->taken_at = hesper_now_ns();
	return true;
}
