/*
 * What the findings need to know about a device: how many compute units it has (when the
 * driver says) and what one dispatch costs on it, measured by Hesper's own small
 * submission while the device is new and no program thread can use it.
 */
#ifndef HESPER_CALIBRATE_H
#define HESPER_CALIBRATE_H

#include "device.h"
#include "profile.h"

/* SMs (VK_NV_shader_sm_builtins) or CUs (VK_AMD_shader_core_properties) of @dev; 0 when neither is there. */
uint32_t hesper_device_compute_units(const struct hesper_device *dev);

/*
 * Measures on a compute queue the program asked for in @info (index 0, no flags) the GPU
 * time of one empty dispatch between two timestamps (@out->dispatch_cost_ns) and what a
 * timestamp after each of many back-to-back dispatches adds (@out->timestamp_cost_ns).
 * Leaves them 0 when there is no such queue with timestamps, or anything fails. Creates,
 * waits for and destroys everything it uses; call before the program has the device.
 */
void hesper_device_measure_dispatch(struct hesper_device *dev, const VkDeviceCreateInfo *info,
				    struct hesper_device_info *out);

#endif
