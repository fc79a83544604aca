/*
 * What a device's properties say of its SMs or CUs (loader.h): how many there are, and for
 * the occupancy model what each holds. Only properties are read (asking needs no extension
 * enabled), once per device at vkCreateDevice: the program's device is untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "state/state.h"

#define VENDOR_NVIDIA 0x10de
#define VENDOR_AMD 0x1002
#define VENDOR_INTEL 0x8086

/* Whether @dev's physical device offers extension @name. */
static bool has_extension(const struct hesper_device *dev, const char *name)
{
	const struct hesper_instance_table *it = &dev->instance->next;
	uint32_t n = 0;
	bool found = false;
	if (!it->EnumerateDeviceExtensionProperties ||
	    it->EnumerateDeviceExtensionProperties(dev->physical, NULL, &n, NULL) != VK_SUCCESS || !n)
		return false;
	VkExtensionProperties *props = calloc(n, sizeof(*props));
	if (props && it->EnumerateDeviceExtensionProperties(dev->physical, NULL, &n, props) >= 0)
		for (uint32_t i = 0; i < n && !found; i++)
			found = strcmp(props[i].extensionName, name) == 0;
	free(props);
	return found;
}

/* vkGetPhysicalDeviceProperties2 as @dev's instance has it (core or KHR), or NULL. */
static PFN_vkGetPhysicalDeviceProperties2 properties2(const struct hesper_device *dev)
{
	const struct hesper_instance_table *it = &dev->instance->next;
	return dev->instance->api_version >= VK_API_VERSION_1_1 ? it->GetPhysicalDeviceProperties2
								: it->GetPhysicalDeviceProperties2KHR;
}

/* The SM figures of VK_NV_shader_sm_builtins into *@out; false when the device lacks the extension. */
static bool sm_builtins(const struct hesper_device *dev, VkPhysicalDeviceShaderSMBuiltinsPropertiesNV *out)
{
	PFN_vkGetPhysicalDeviceProperties2 props2 = properties2(dev);
	if (!props2 || !has_extension(dev, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME))
		return false;
	*out = (VkPhysicalDeviceShaderSMBuiltinsPropertiesNV){
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
	VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = out};
	props2(dev->physical, &p);
	return true;
}

uint32_t hesper_device_compute_units(const struct hesper_device *dev)
{
	PFN_vkGetPhysicalDeviceProperties2 props2 = properties2(dev);
	VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm;
	if (!props2)
		return 0;
	if (sm_builtins(dev, &sm))
		return sm.shaderSMCount;
	if (has_extension(dev, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME)) {
		VkPhysicalDeviceShaderCorePropertiesAMD core = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
		VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
						 .pNext = &core};
		props2(dev->physical, &p);
		return core.shaderEngineCount * core.shaderArraysPerEngineCount * core.computeUnitsPerShaderArray;
	}
	return 0;
}

/*
 * NVIDIA's model where the driver tells the SMs' warp slots; no model elsewhere, with why
 * (AMD's VK_AMD_shader_core_properties has per-SIMD figures, but its drivers' statistics and
 * wave sizes differ: not modelled yet; docs/findings.md#occupancy).
 */
void hesper_device_occupancy_model(const struct hesper_device *dev, struct hesper_occupancy_model *out)
{
	const VkPhysicalDeviceProperties *props = &dev->props;
	VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm;
	switch (props->vendorID) {
	case VENDOR_NVIDIA:
		if (!sm_builtins(dev, &sm)) {
			hesper_occupancy_model_none(
				out, "the driver does not offer VK_NV_shader_sm_builtins (warps per SM)");
			return;
		}
		hesper_occupancy_model_nvidia(out, sm.shaderWarpsPerSM, sm.shaderSMCount,
					      props->limits.maxComputeSharedMemorySize);
		return;
	case VENDOR_AMD:
		hesper_occupancy_model_none(out, "Hesper has no occupancy model of AMD's devices");
		return;
	case VENDOR_INTEL:
		hesper_occupancy_model_none(out, "Hesper has no occupancy model of Intel's devices");
		return;
	default:
		break;
	}
	hesper_occupancy_model_none(out, props->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU
						 ? "a CPU device (no SMs to model)"
						 : "Hesper has no occupancy model of this vendor's devices");
}
