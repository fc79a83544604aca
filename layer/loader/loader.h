/*
 * The loader stage, the face of loader/: the layer's entry points (negotiation and the
 * proc-address lookups, negotiate.c), instances and devices as they are created and
 * destroyed. The top floor: it may call every stage; none calls it.
 */
#ifndef HESPER_LOADER_H
#define HESPER_LOADER_H

#include "analysis.h"
#include "state/state.h"

/* What Hesper enabled on a device beyond what the program asked for (or found enabled). */
struct hesper_device_additions {
	bool calibrated_timestamps;
	bool timeline;
	bool executable_properties; /* pipelineExecutableInfo is on (Hesper's or the program's) */
	bool executable_offered;    /* the device offers VK_KHR_pipeline_executable_properties */
};

/*
 * Creates the device through @create with Hesper's additions (calibrated timestamps,
 * timeline semaphores, pipeline executable properties) when the device has them; if that
 * fails, without the last, then exactly as the program asked. @link is the loader's chain element, already pointing at the next layer.
 */
VkResult hesper_create_device(PFN_vkCreateDevice create, VkLayerDeviceCreateInfo *link, struct hesper_instance *inst,
			      VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
			      const VkAllocationCallbacks *allocator, VkDevice *out,
			      struct hesper_device_additions *added);

/* SMs (VK_NV_shader_sm_builtins) or CUs (VK_AMD_shader_core_properties) of @dev; 0 when neither is there. */
uint32_t hesper_device_compute_units(const struct hesper_device *dev);

/* The occupancy model of @dev's SMs into *@out: NVIDIA's figures, or none with why (sm_figures.c). */
void hesper_device_occupancy_model(const struct hesper_device *dev, struct hesper_occupancy_model *out);

/*
 * Measures on a compute queue the program asked for in @info (index 0, no flags) the GPU
 * time of one empty dispatch between two timestamps (@out->dispatch_cost_ns) and what a
 * timestamp after each of many back-to-back dispatches adds (@out->timestamp_cost_ns).
 * Leaves them 0 when there is no such queue with timestamps, or anything fails. Creates,
 * waits for and destroys everything it uses; call before the program has the device.
 * (calibrate.c: what the findings need to know about a device.)
 */
void hesper_device_measure_dispatch(struct hesper_device *dev, const VkDeviceCreateInfo *info,
				    struct hesper_device_info *out);

#endif
