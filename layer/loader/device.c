/* vkCreateDevice / vkDestroyDevice, queues, and the program's own waits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "collect/collect.h"
#include "record/record.h"
#include "report/report.h"
#include "clock/clock.h"
#include "state/state.h"
#include "analysis.h"
#include "submit/submit.h"

/* The element of @info's chain with @function, or NULL. */
static VkLayerDeviceCreateInfo *find_device_link(const VkDeviceCreateInfo *info, VkLayerFunction function)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		if (s->sType != VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO)
			continue;
		VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)s;
		if (link->function == function)
			return link;
	}
	return NULL;
}

/* Fills the device's name and driver for the report; returns the driver's id (0 when it does not say). */
static VkDriverId describe_device(const struct hesper_device *dev, struct hesper_device_info *out)
{
	snprintf(out->name, sizeof(out->name), "%s", dev->props.deviceName);
	out->timestamp_period_ns = dev->props.limits.timestampPeriod;
	uint32_t v = dev->props.driverVersion;
	snprintf(out->driver, sizeof(out->driver), "driver version 0x%08x, Vulkan %u.%u.%u", v,
		 VK_API_VERSION_MAJOR(dev->props.apiVersion), VK_API_VERSION_MINOR(dev->props.apiVersion),
		 VK_API_VERSION_PATCH(dev->props.apiVersion));
	/* Driver properties are core in 1.2; asking needs a 1.1 instance for vkGetPhysicalDeviceProperties2. */
	if (dev->props.apiVersion < VK_API_VERSION_1_2 || dev->instance->api_version < VK_API_VERSION_1_1 ||
	    !dev->instance->next.GetPhysicalDeviceProperties2)
		return 0;
	VkPhysicalDeviceDriverProperties driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
	VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
					      .pNext = &driver};
	dev->instance->next.GetPhysicalDeviceProperties2(dev->physical, &props2);
	/* The driver's strings are at most 256 bytes each: cut them to fit one line. */
	int n = snprintf(out->driver, sizeof(out->driver), "%.100s %.100s", driver.driverName, driver.driverInfo);
	if (n > 0 && (size_t)n < sizeof(out->driver))
		snprintf(out->driver + n, sizeof(out->driver) - (size_t)n, " (Vulkan %u.%u.%u)",
			 VK_API_VERSION_MAJOR(dev->props.apiVersion), VK_API_VERSION_MINOR(dev->props.apiVersion),
			 VK_API_VERSION_PATCH(dev->props.apiVersion));
	return driver.driverID;
}

/*
 * How @dev's timestamps reach Hesper (HESPER_COPY; both are exact by the specification,
 * docs/timing.md). The host way needs timeline semaphores and costs the GPU nothing; the
 * wait way costs NVIDIA's driver about 0.9 us of GPU time per query (docs/measurements.md)
 * and lavapipe nothing, while lavapipe's vkGetQueryPoolResults waits for the whole device
 * to go idle, which is unsafe beside the program's own queue calls. So auto takes the
 * host way on NVIDIA's driver and the wait way elsewhere.
 */
static enum hesper_copy_way copy_way(const struct hesper_device *dev, VkDriverId driver, enum hesper_copy copy)
{
	bool host_possible = dev->timeline && dev->next.GetQueryPoolResults;
	switch (copy) {
	case HESPER_COPY_WAIT:
		return HESPER_WAY_WAIT;
	case HESPER_COPY_HOST:
		if (!host_possible)
			hesper_log("HESPER_COPY=host needs timeline semaphores, which '%s' lacks; copying on the GPU",
				   dev->props.deviceName);
		return host_possible ? HESPER_WAY_HOST : HESPER_WAY_WAIT;
	case HESPER_COPY_AUTO:
		break;
	}
	return host_possible && driver == VK_DRIVER_ID_NVIDIA_PROPRIETARY ? HESPER_WAY_HOST : HESPER_WAY_WAIT;
}

/* Reads what Hesper needs to know about @dev's physical device. Returns 0, or -1 when out of memory. */
static int read_physical_device(struct hesper_device *dev)
{
	const struct hesper_instance_table *it = &dev->instance->next;
	it->GetPhysicalDeviceProperties(dev->physical, &dev->props);
	it->GetPhysicalDeviceMemoryProperties(dev->physical, &dev->memory);
	uint32_t count = 0;
	it->GetPhysicalDeviceQueueFamilyProperties(dev->physical, &count, NULL);
	VkQueueFamilyProperties *props = calloc(count ? count : 1, sizeof(*props));
	dev->families = calloc(count ? count : 1, sizeof(*dev->families));
	if (!props || !dev->families) {
		free(props);
		return -1;
	}
	it->GetPhysicalDeviceQueueFamilyProperties(dev->physical, &count, props);
	dev->family_count = count;
	for (uint32_t i = 0; i < count; i++) {
		struct hesper_queue_family *f = &dev->families[i];
		uint32_t bits = props[i].timestampValidBits;
		f->props = props[i];
		/* A shift by 64 is undefined: spell out the full mask. */
		f->tick_mask = bits >= 64 ? UINT64_MAX : bits ? (1ull << bits) - 1 : 0;
		f->timed = bits != 0 && (props[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT));
	}
	free(props);
	return 0;
}

/* Frees a device's state (not the VkDevice). */
static void free_device(struct hesper_device *dev)
{
	if (!dev)
		return;
	hesper_map_destroy(&dev->pools);
	hesper_map_destroy(&dev->modules);
	hesper_map_destroy(&dev->pipelines);
	hesper_map_destroy(&dev->buffers);
	hesper_map_destroy(&dev->images);
	hesper_map_destroy(&dev->layouts);
	hesper_map_destroy(&dev->set_layouts);
	pthread_mutex_destroy(&dev->lock);
	free(dev->families);
	free(dev);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
						   const VkAllocationCallbacks *allocator, VkDevice *out)
{
	struct hesper_process *proc = hesper_process();
	struct hesper_instance *inst = hesper_instance_from(physical);
	VkLayerDeviceCreateInfo *link = find_device_link(info, VK_LAYER_LINK_INFO);
	VkLayerDeviceCreateInfo *loader_data = find_device_link(info, VK_LOADER_DATA_CALLBACK);
	if (!inst || !link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(inst->handle, "vkCreateDevice");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* Advance the chain for the next layer before calling down. */
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	struct hesper_device_additions added;
	/* Clock mode: the shader clock's features, when the device has them (clock_device.c). */
	struct hesper_clock_create clock_create;
	const char *clock_why = NULL;
	const VkDeviceCreateInfo *asked = info;
	VkLayerDeviceLink *self = link->u.pLayerInfo;
	if (proc->settings.mode == HESPER_MODE_CLOCK && !proc->settings.disabled) {
		clock_why = hesper_clock_create_begin(inst, physical, info, &clock_create);
		if (!clock_why)
			asked = &clock_create.info;
	}
	VkResult result = hesper_create_device(create, link, inst, physical, asked, allocator, out, &added);
	if (asked != info) {
		hesper_clock_create_end(&clock_create);
		if (result != VK_SUCCESS) {
			/* Never let clock mode be why a device fails: again, as the program asked. */
			link->u.pLayerInfo = self;
			clock_why = "the device could not be made with the shader clock's features";
			result = hesper_create_device(create, link, inst, physical, info, allocator, out, &added);
		}
	}
	if (result != VK_SUCCESS)
		return result;

	struct hesper_device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		goto fail;
	dev->handle = *out;
	dev->physical = physical;
	dev->instance = inst;
	dev->set_loader_data = loader_data ? loader_data->u.pfnSetDeviceLoaderData : NULL;
	pthread_mutex_init(&dev->lock, NULL);
	hesper_map_init(&dev->pools);
	hesper_map_init(&dev->modules);
	hesper_map_init(&dev->pipelines);
	hesper_map_init(&dev->buffers);
	hesper_map_init(&dev->images);
	hesper_map_init(&dev->layouts);
	hesper_map_init(&dev->set_layouts);
	dev->next.GetDeviceProcAddr = gdpa;
#define LOAD(name) dev->next.name = (PFN_vk##name)gdpa(*out, "vk" #name);
#define LOAD_HOOKED(ret, name, params) LOAD(name)
#define LOAD_WORK(name, params, args) LOAD(name)
#define LOAD_STAMP(name, params, args, ...) LOAD(name)
#define LOAD_MEMORY(name, params, args, kind, size) LOAD(name)
	HESPER_DEVICE_COMMANDS(LOAD_HOOKED, LOAD)
	HESPER_WORK_COMMANDS(LOAD_WORK)
	HESPER_STAMP_COMMANDS(LOAD_STAMP)
	HESPER_BARRIER_COMMANDS(LOAD_STAMP)
	HESPER_MEMORY_COMMANDS(LOAD_MEMORY)
#undef LOAD_MEMORY
#undef LOAD_STAMP
#undef LOAD_WORK
#undef LOAD_HOOKED
#undef LOAD
	if (read_physical_device(dev) != 0)
		goto fail;
	dev->calibrated_timestamps = added.calibrated_timestamps && dev->next.GetCalibratedTimestampsEXT;
	dev->timeline = added.timeline && dev->next.GetSemaphoreCounterValueKHR && dev->next.WaitSemaphoresKHR &&
			dev->next.CreateSemaphore && dev->next.DestroySemaphore;
	dev->pipeline_stats = added.executable_properties && dev->next.GetPipelineExecutablePropertiesKHR &&
			      dev->next.GetPipelineExecutableStatisticsKHR;
	dev->clock.valid = hesper_device_calibrate(dev, &dev->clock);
	if (proc->settings.mode == HESPER_MODE_CLOCK && !proc->settings.disabled) {
		if (!clock_why)
			clock_why = hesper_clock_device_init(dev, info);
		dev->clock_fallback = clock_why;
		hesper_lines_device_ready(dev, clock_why ? clock_why : clock_create.lines_why,
					  clock_create.subgroup_clock);
	}

	struct hesper_device_info described = {0};
	dev->copy_way = copy_way(dev, describe_device(dev, &described), proc->settings.copy);
	described.clock_error_ns = -1.0;
	if (dev->clock_mode) {
		snprintf(described.timing, sizeof(described.timing), "clock");
		described.clock_error_ns = dev->clock_mode->cal.error_ns;
		described.clock_ticks_per_us = 1e3 /
					       (dev->clock_mode->cal.ts_per_clock * dev->props.limits.timestampPeriod);
	} else if (dev->clock_fallback) {
		snprintf(described.timing, sizeof(described.timing), "timestamps: %s", dev->clock_fallback);
	}
	snprintf(described.copy, sizeof(described.copy), "%s", dev->copy_way == HESPER_WAY_HOST ? "host" : "wait");
	snprintf(described.pipeline_stats, sizeof(described.pipeline_stats), "%s",
		 dev->pipeline_stats              ? HESPER_STATS_CAPTURED
		 : !proc->settings.pipeline_stats ? HESPER_STATS_OFF
		 : added.executable_offered       ? HESPER_STATS_NOT_ENABLED
						  : HESPER_STATS_NOT_OFFERED);
	/* What the reports need to reckon each kernel's occupancy from its pipeline statistics. */
	if (dev->pipeline_stats)
		hesper_device_occupancy_model(dev, &described.occupancy);
	if (!proc->profile->findings.off) {
		dev->compute_units = hesper_device_compute_units(dev);
		described.compute_units = dev->compute_units;
		hesper_device_measure_dispatch(dev, info, &described);
	}
	pthread_mutex_lock(&proc->lock);
	int index = hesper_profile_add_device(proc->profile, &described);
	if (index >= 0) {
		dev->profile_device = (uint32_t)index;
		dev->next_in_process = proc->devices;
		proc->devices = dev;
	}
	pthread_mutex_unlock(&proc->lock);
	if (index < 0)
		goto fail;
	if (hesper_map_put(&proc->device_keys, hesper_dispatch_key(*out), dev) != 0) {
		hesper_log("out of memory tracking a device; it will not be profiled");
		/* It stays in the process list (harmless); calls cannot reach it without the key. */
		goto fail_after_list;
	}
	hesper_report_register_exit();
	hesper_collector_start();
	return VK_SUCCESS;
fail:
	free_device(dev);
fail_after_list : {
	PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)gdpa(*out, "vkDestroyDevice");
	if (destroy)
		destroy(*out, allocator);
	*out = VK_NULL_HANDLE;
}
	return VK_ERROR_OUT_OF_HOST_MEMORY;
}

static int queue_of_device(void *value, void *ctx)
{
	return ((struct hesper_queue *)value)->dev == ctx;
}

/* Forgets @dev's queues and Hesper's objects on it; results already harvested. */
static void release_queues(struct hesper_device *dev)
{
	hesper_map_remove_if(&hesper_process()->queues, queue_of_device, dev);
	pthread_mutex_lock(&dev->lock);
	struct hesper_queue *q = dev->queues;
	dev->queues = NULL;
	pthread_mutex_unlock(&dev->lock);
	struct hesper_process *proc = hesper_process();
	while (q) {
		struct hesper_queue *next = q->next_in_device;
		hesper_submissions_release(q);
		/* The round trips of its waits, before the queue goes (the report may come later). */
		pthread_mutex_lock(&proc->lock);
		hesper_waits_settle(proc->profile, q);
		pthread_mutex_unlock(&proc->lock);
		if (q->pool)
			dev->next.DestroyCommandPool(dev->handle, q->pool, NULL);
		pthread_mutex_destroy(&q->lock);
		free(q);
		q = next;
	}
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator)
{
	if (!device)
		return;
	struct hesper_process *proc = hesper_process();
	struct hesper_device *dev = hesper_device_from(device);
	if (!dev)
		return;
	atomic_store(&dev->closing, true);
	/*
	 * The program has waited for its work by now (it must, before destroying): harvest it
	 * all. The flush also takes the device out of the collector's sight.
	 */
	hesper_collector_flush(dev, (uint64_t)proc->settings.exit_timeout_ms * 1000000ull);
	hesper_command_pools_release_all(dev);
	hesper_pipelines_release_all(dev);
	hesper_resources_release_all(dev);
	release_queues(dev);
	hesper_query_blocks_destroy(dev);
	hesper_clock_release_layouts(dev);
	hesper_clock_device_release(dev);
	hesper_indirect_device_release(dev);

	hesper_map_remove(&proc->device_keys, hesper_dispatch_key(device));
	dev->next.DestroyDevice(device, allocator);
	free_device(dev);
}

/* The state of @handle, created on first sight. */
static void track_queue(struct hesper_device *dev, VkQueue handle, uint32_t family, uint32_t index)
{
	struct hesper_process *proc = hesper_process();
	if (!handle || hesper_map_get(&proc->queues, (uint64_t)(uintptr_t)handle))
		return;
	struct hesper_queue *q = calloc(1, sizeof(*q));
	if (!q) {
		hesper_log("out of memory tracking a queue; its work will not be timed");
		return;
	}
	q->handle = handle;
	q->dev = dev;
	q->family = family;
	q->index = index;
	pthread_mutex_init(&q->lock, NULL);
	pthread_mutex_lock(&proc->lock);
	struct hesper_queue_info *row = hesper_profile_queue(proc->profile, dev->profile_device, family, index);
	if (row) {
		row->timestamp_bits = family < dev->family_count ? dev->families[family].props.timestampValidBits : 0;
		q->profile_queue = (uint32_t)(row - proc->profile->queues);
	}
	pthread_mutex_unlock(&proc->lock);
	if (!row || hesper_map_put(&proc->queues, (uint64_t)(uintptr_t)handle, q) != 0) {
		pthread_mutex_destroy(&q->lock);
		free(q);
		return;
	}
	pthread_mutex_lock(&dev->lock);
	q->next_in_device = dev->queues;
	dev->queues = q;
	pthread_mutex_unlock(&dev->lock);
	hesper_queue_prepare(q);
}

VKAPI_ATTR void VKAPI_CALL hesper_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	dev->next.GetDeviceQueue(device, family, index, out);
	track_queue(dev, *out, family, index);
}

VKAPI_ATTR void VKAPI_CALL hesper_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	dev->next.GetDeviceQueue2(device, info, out);
	track_queue(dev, *out, info->queueFamilyIndex, info->queueIndex);
}
