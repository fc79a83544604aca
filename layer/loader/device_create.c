/*
 * Creating the program's device with what Hesper needs added: VK_EXT_calibrated_timestamps
 * (GPU times on the host's clock in traces) and timeline semaphores (so Hesper learns
 * when its copies finish without a second vkQueueSubmit per submission). Both are
 * added only when the device has them, without disturbing the program's own chain; if
 * the device cannot be made that way it is made exactly as the program asked.
 */
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "report/report.h"
#include "state/state.h"

/* Most extensions the program and Hesper enable together, kept on the stack. */
#define LOCAL_NAMES 64

/* True when @info itself enables extension @name. */
static bool enabled_by_program(const VkDeviceCreateInfo *info, const char *name)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (strcmp(info->ppEnabledExtensionNames[i], name) == 0)
			return true;
	return false;
}

/* True when @physical offers device extension @name. */
static bool device_offers(struct hesper_instance *inst, VkPhysicalDevice physical, const char *name)
{
	uint32_t count = 0;
	if (!inst->next.EnumerateDeviceExtensionProperties ||
	    inst->next.EnumerateDeviceExtensionProperties(physical, NULL, &count, NULL) != VK_SUCCESS || !count)
		return false;
	VkExtensionProperties *props = calloc(count, sizeof(*props));
	if (!props)
		return false;
	bool offered = false;
	if (inst->next.EnumerateDeviceExtensionProperties(physical, NULL, &count, props) >= 0)
		for (uint32_t i = 0; i < count && !offered; i++)
			offered = strcmp(props[i].extensionName, name) == 0;
	free(props);
	return offered;
}

/* True when calibration pairs the device's clock with the host's CLOCK_MONOTONIC. */
static bool calibrates_monotonic(struct hesper_instance *inst, VkPhysicalDevice physical)
{
	VkTimeDomainEXT domains[16];
	uint32_t count = 16;
	if (!inst->next.GetPhysicalDeviceCalibrateableTimeDomainsEXT ||
	    inst->next.GetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &count, domains) < 0)
		return false;
	bool device = false, monotonic = false;
	for (uint32_t i = 0; i < count; i++) {
		device |= domains[i] == VK_TIME_DOMAIN_DEVICE_EXT;
		monotonic |= domains[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
	}
	return device && monotonic;
}

/* The program's own timelineSemaphore feature switch in @info's chain, or NULL. */
static VkBool32 *timeline_feature(const VkDeviceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		/* The chain is the program's and const to us; Hesper flips a switch only for the call. */
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
			return &((VkPhysicalDeviceVulkan12Features *)s)->timelineSemaphore;
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES)
			return &((VkPhysicalDeviceTimelineSemaphoreFeatures *)s)->timelineSemaphore;
	}
	return NULL;
}

VkResult hesper_create_device(PFN_vkCreateDevice create, VkLayerDeviceCreateInfo *link, struct hesper_instance *inst,
			      VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
			      const VkAllocationCallbacks *allocator, VkDevice *out,
			      struct hesper_device_additions *added)
{
	VkLayerDeviceLink *self = link->u.pLayerInfo;
	VkBool32 *feature = timeline_feature(info);
	bool program_timeline = feature && *feature;
	bool disabled = hesper_process()->settings.disabled;
	added->calibrated_timestamps = enabled_by_program(info, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	added->timeline = program_timeline;

	bool add_calibration = !disabled && !added->calibrated_timestamps &&
			       device_offers(inst, physical, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) &&
			       calibrates_monotonic(inst, physical);
	/* The extension form works whatever API version the program asked for. */
	bool add_timeline = !disabled && !program_timeline &&
			    device_offers(inst, physical, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
	bool add_timeline_ext = add_timeline && !enabled_by_program(info, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
	if (program_timeline && !enabled_by_program(info, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME)) {
		/* Core timelines: Hesper calls the KHR names, which then need the extension too. */
		add_timeline_ext = device_offers(inst, physical, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
		added->timeline = add_timeline_ext;
	}
	if (!add_calibration && !add_timeline && !add_timeline_ext)
		return create(physical, info, allocator, out);

	uint32_t n = info->enabledExtensionCount;
	const char *local[LOCAL_NAMES];
	const char **names = n + 2 <= LOCAL_NAMES ? local : malloc((n + 2) * sizeof(*names));
	if (!names) {
		added->timeline = program_timeline &&
				  enabled_by_program(info, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
		return create(physical, info, allocator, out);
	}
	for (uint32_t i = 0; i < n; i++)
		names[i] = info->ppEnabledExtensionNames[i];
	if (add_calibration)
		names[n++] = VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	if (add_timeline_ext)
		names[n++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;

	VkDeviceCreateInfo changed = *info;
	changed.enabledExtensionCount = n;
	changed.ppEnabledExtensionNames = names;
	VkPhysicalDeviceTimelineSemaphoreFeatures own_feature = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
		.pNext = (void *)info->pNext,
		.timelineSemaphore = VK_TRUE,
	};
	VkBool32 saved = feature ? *feature : VK_FALSE;
	if (add_timeline) {
		if (feature)
			*feature = VK_TRUE;
		else
			changed.pNext = &own_feature;
	}
	VkResult result = create(physical, &changed, allocator, out);
	if (feature)
		*feature = saved;
	if (names != local)
		free(names);
	if (result == VK_SUCCESS) {
		added->calibrated_timestamps |= add_calibration;
		added->timeline |= add_timeline;
		return result;
	}
	/* Never let Hesper's additions be why a device fails: again, exactly as asked. */
	link->u.pLayerInfo = self;
	added->calibrated_timestamps = enabled_by_program(info, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	added->timeline = program_timeline && enabled_by_program(info, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
	return create(physical, info, allocator, out);
}
