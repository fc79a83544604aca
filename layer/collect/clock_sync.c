/* Pairing a device's clock with the host's: calibrated timestamps read together. */
#include "clock_sync.h"

#include <math.h>

#include "analysis.h"
#include "state/state.h"
#include "submit/submit.h"

/* Tries to read the device and host clocks together this many times, keeping the tightest pair. */
#define CALIBRATION_TRIES 8

bool hesper_device_calibrate(struct hesper_device *dev, struct hesper_clock_sync *out)
{
	if (!dev->calibrated_timestamps)
		return false;
	const VkCalibratedTimestampInfoEXT domains[2] = {
		{.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = VK_TIME_DOMAIN_DEVICE_EXT},
		{.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT,
		 .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT},
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

/* Recalibrate this often while work flows, so clock drift and 32-bit wrap stay small. */
#define RECALIBRATE_NS 500000000ull

/* Host CLOCK_MONOTONIC time of raw device timestamp @raw, from the device's clock pairing. */
uint64_t hesper_to_host_ns(const struct hesper_device *dev, uint64_t raw, uint64_t mask)
{
	const struct hesper_clock_sync *c = &dev->clock;
	double period = dev->props.limits.timestampPeriod;
	uint64_t ahead = (raw - c->device_ticks) & mask;
	double ticks = ahead <= mask / 2 ? (double)ahead : -(double)((c->device_ticks - raw) & mask);
	double ns = (double)c->host_ns + ticks * period;
	return ns <= 0 ? 0 : (uint64_t)llround(ns);
}

/*
 * Keeps @dev's clock pairing fresh for traces: calibrated timestamps when the device has
 * them, else the first command buffer's start is pinned to the host time of its submit
 * call (the GPU started later than that, by an unknown delay).
 */
void hesper_sync_clock(struct hesper_profile *p, struct hesper_device *dev, const struct hesper_submission *sub,
		       const uint64_t *first_cb_start)
{
	struct hesper_clock_sync *c = &dev->clock;
	if (c->calibrated && hesper_now_ns() - c->taken_at > RECALIBRATE_NS)
		hesper_device_calibrate(dev, c);
	if (!c->valid && first_cb_start) {
		c->valid = true;
		c->calibrated = false;
		c->device_ticks = *first_cb_start;
		c->host_ns = sub->host_end_ns;
		c->error_ns = -1.0;
		c->taken_at = hesper_now_ns();
	}
	if (!c->valid)
		return;
	/* The file states the worst alignment of any device; unknown beats any number. */
	if (!c->calibrated) {
		p->trace.calibrated = false;
		p->trace.alignment_error_ns = -1.0;
	} else if (p->trace.alignment_error_ns >= 0 || p->trace.count == 0) {
		p->trace.calibrated = true;
		if (c->error_ns > p->trace.alignment_error_ns)
			p->trace.alignment_error_ns = c->error_ns;
	}
}
