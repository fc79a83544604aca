/* Pairing a device's clock with the host's, for placing GPU times on the host's timeline. */
#ifndef HESPER_CLOCK_SYNC_H
#define HESPER_CLOCK_SYNC_H

#include <stdbool.h>
#include <stdint.h>

struct hesper_clock_sync;
struct hesper_device;
struct hesper_profile;
struct hesper_submission;

/* Reads the device and host clocks together (bounded retries); false when the device cannot. */
bool hesper_device_calibrate(struct hesper_device *dev, struct hesper_clock_sync *out);

/* Host CLOCK_MONOTONIC time of raw device timestamp @raw, from @dev's clock pairing. */
uint64_t hesper_to_host_ns(const struct hesper_device *dev, uint64_t raw, uint64_t mask);

/*
 * Keeps @dev's clock pairing fresh for traces: calibrated timestamps when the device has
 * them, else the first command buffer's start (@first_cb_start, when known) pinned to the
 * host time @sub's submit call returned; notes the alignment in @p's trace.
 */
void hesper_sync_clock(struct hesper_profile *p, struct hesper_device *dev, const struct hesper_submission *sub,
		       const uint64_t *first_cb_start);

#endif
