/*
 * Creating the program's device with what Hesper needs added: VK_EXT_calibrated_timestamps
 * (GPU times on the host's clock in traces), timeline semaphores (so Hesper learns when
 * its copies finish without a second vkQueueSubmit per submission) and
 * VK_KHR_pipeline_executable_properties (each kernel's statistics from the driver). Each is
 * added only when the device has it, without disturbing the program's own chain; if the
 * device cannot be made that way it is made without the statistics, then exactly as the
 * program asked.
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
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
			return &((VkPhysicalDeviceVulkan12Features *)s)->timelineSemaphore;
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES)
			return &((VkPhysicalDeviceTimelineSemaphoreFeatures *)s)->timelineSemaphore;
	}
	return NULL;
}

/* The program's own pipelineExecutableInfo switch in @info's chain, or NULL. */
static VkBool32 *executable_feature(const VkDeviceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR)
			return &((VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR *)s)->pipelineExecutableInfo;
	return NULL;
}

/* What one attempt at creating the device adds to the program's create info. */
struct additions {
	bool calibration;    /* VK_EXT_calibrated_timestamps */
	bool timeline;       /* the timelineSemaphore feature */
	bool timeline_ext;   /* VK_KHR_timeline_semaphore */
	bool executable;     /* the pipelineExecutableInfo feature */
	bool executable_ext; /* VK_KHR_pipeline_executable_properties */
};

/*
 * Creates the device from @info with @want added: extensions appended, the program's own
 * feature switches set for the call only, Hesper's feature structs put in front of the
 * program's chain where it has none.
 */
static VkResult create_with(PFN_vkCreateDevice create, VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
			    const VkAllocationCallbacks *allocator, VkDevice *out, const struct additions *want)
{
	uint32_t n = info->enabledExtensionCount;
	const char *local[LOCAL_NAMES];
	const char **names = n + 3 <= LOCAL_NAMES ? local : malloc((n + 3) * sizeof(*names));
	if (!names)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	for (uint32_t i = 0; i < n; i++)
		names[i] = info->ppEnabledExtensionNames[i];
	if (want->calibration)
		names[n++] = VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	if (want->timeline_ext)
		names[n++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
	if (want->executable_ext)
		names[n++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;

	VkDeviceCreateInfo changed = *info;
	changed.enabledExtensionCount = n;
	changed.ppEnabledExtensionNames = names;
	VkPhysicalDeviceTimelineSemaphoreFeatures own_timeline = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
		.timelineSemaphore = VK_TRUE,
	};
	VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR own_executable = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
		.pipelineExecutableInfo = VK_TRUE,
	};
	/* The chain is the program's and const to us; Hesper flips a switch only for the call. */
	VkBool32 *timeline = timeline_feature(info), *executable = executable_feature(info);
	VkBool32 saved_timeline = timeline ? *timeline : VK_FALSE,
		 saved_executable = executable ? *executable : VK_FALSE;
	if (want->timeline) {
		if (timeline) {
			*timeline = VK_TRUE;
		} else {
			own_timeline.pNext = (void *)changed.pNext;
			changed.pNext = &own_timeline;
		}
	}
	if (want->executable) {
		if (executable) {
			*executable = VK_TRUE;
		} else {
			own_executable.pNext = (void *)changed.pNext;
			changed.pNext = &own_executable;
		}
	}
	VkResult result = create(physical, &changed, allocator, out);
	if (timeline)
		*timeline = saved_timeline;
	if (executable)
		*executable = saved_executable;
	if (names != local)
		free(names);
	return result;
}

VkResult hesper_create_device(PFN_vkCreateDevice create, VkLayerDeviceCreateInfo *link, struct hesper_instance *inst,
			      VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
			      const VkAllocationCallbacks *allocator, VkDevice *out,
			      struct hesper_device_additions *added)
{
	VkLayerDeviceLink *self = link->u.pLayerInfo;
	const struct hesper_settings *set = &hesper_process()->settings;
	VkBool32 *feature = timeline_feature(info), *exec_feature = executable_feature(info);
	bool program_timeline = feature && *feature;
	bool program_executable = exec_feature && *exec_feature &&
				  enabled_by_program(info, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
	bool disabled = set->disabled;
	struct additions want = {0};
	added->calibrated_timestamps = enabled_by_program(info, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	added->timeline = program_timeline;
	added->executable_properties = program_executable;
	added->executable_offered = program_executable;

	want.calibration = !disabled && !added->calibrated_timestamps &&
			   device_offers(inst, physical, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) &&
			   calibrates_monotonic(inst, physical);
	/* The extension form works whatever API version the program asked for. */
	want.timeline = !disabled && !program_timeline &&
			device_offers(inst, physical, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
	want.timeline_ext = want.timeline && !enabled_by_program(info, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
	if (program_timeline && !enabled_by_program(info, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME)) {
		/* Core timelines: Hesper calls the KHR names, which then need the extension too. */
		want.timeline_ext = device_offers(inst, physical, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
		added->timeline = want.timeline_ext;
	}
	/* The extension needs VkPhysicalDeviceFeatures2's world: an instance of Vulkan 1.1 or later. */
	if (!disabled && set->pipeline_stats && !program_executable)
		added->executable_offered = device_offers(inst, physical,
							  VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
	want.executable = added->executable_offered && !program_executable && inst->api_version >= VK_API_VERSION_1_1;
	want.executable_ext = want.executable &&
			      !enabled_by_program(info, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
	if (!want.calibration && !want.timeline && !want.timeline_ext && !want.executable)
		return create(physical, info, allocator, out);

	VkResult result = create_with(create, physical, info, allocator, out, &want);
	if (result != VK_SUCCESS && want.executable) {
		/* The statistics are the least of Hesper's additions: again without them first. */
		link->u.pLayerInfo = self;
		want.executable = want.executable_ext = false;
		result = create_with(create, physical, info, allocator, out, &want);
	}
	if (result == VK_SUCCESS) {
		added->calibrated_timestamps |= want.calibration;
		added->timeline |= want.timeline;
		added->executable_properties |= want.executable;
		return result;
	}
	/* Never let Hesper's additions be why a device fails: again, exactly as asked. */
	link->u.pLayerInfo = self;
	added->calibrated_timestamps = enabled_by_program(info, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	added->timeline = program_timeline && enabled_by_program(info, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
	added->executable_properties = program_executable;
	return create(physical, info, allocator, out);
}
