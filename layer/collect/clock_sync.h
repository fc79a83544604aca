/* Pairing a device's clock with the host's, for placing GPU times on the host's timeline. */
#ifndef HESPER_CLOCK_SYNC_H
#define HESPER_CLOCK_SYNC_H

#include <stdbool.h>

struct hesper_clock_sync;
struct hesper_device;

/* Reads the device and host clocks together (bounded retries); false when the device cannot. */
bool hesper_device_calibrate(struct hesper_device *dev, struct hesper_clock_sync *out);

#endif
