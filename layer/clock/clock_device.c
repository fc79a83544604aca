/*
 * Clock mode on a device: the features vkCreateDevice gets for it (added without
 * disturbing the program's chain, its own switches flipped only for the call), and, once
 * the device exists, Hesper's descriptor set layouts and the calibration of the device
 * clock against the timestamp clock.
 *
 * Calibration: before vkCreateDevice returns, Hesper runs its own one-invocation kernel,
 * instrumented like the program's, between a TOP_OF_PIPE and a BOTTOM_OF_PIPE timestamp
 * on an otherwise idle queue, three times, 50 ms apart (the first run only warms the
 * shader up). The device clock's reading lies inside each bracket; two brackets give the
 * rate (clock ticks per timestamp tick) and the offset. The error of a mapped time is at
 * most half the wider bracket plus the rate's error times the distance from calibration
 * (docs/timing.md).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "state/state.h"
#include "spirv_clock.h"

/* The program's feature switch for @stype/@offset in @info's chain, or NULL. */
static VkBool32 *find_switch(const VkDeviceCreateInfo *info, VkStructureType stype, size_t offset)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
		if (s->sType == stype)
			return (VkBool32 *)((char *)s + offset); /* const to us: flipped only for the call */
	return NULL;
}

/* Sets @sw for the call, remembering the program's value. */
static void flip(struct hesper_clock_create *c, VkBool32 *sw)
{
	if (*sw || c->flipped_count == sizeof(c->flipped) / sizeof(c->flipped[0]))
		return;
	c->flipped[c->flipped_count] = sw;
	c->saved[c->flipped_count++] = *sw;
	*sw = VK_TRUE;
}

/*
 * A Vulkan 1.2 feature for the call: the program's switch at @v12_offset of its
 * VkPhysicalDeviceVulkan12Features, or at @offset of its struct of @own's type, set; with
 * neither in @info's chain, @own (that struct, the feature set) is linked in front of *@chain.
 */
static void enable_12(struct hesper_clock_create *c, const VkDeviceCreateInfo *info, size_t v12_offset, size_t offset,
		      VkBaseOutStructure *own, const void **chain)
{
	VkBool32 *sw = find_switch(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, v12_offset);
	if (!sw)
		sw = find_switch(info, own->sType, offset);
	if (sw) {
		flip(c, sw);
		return;
	}
	own->pNext = (VkBaseOutStructure *)*chain;
	*chain = own;
}

static bool extension_named(const VkDeviceCreateInfo *info, const char *name)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (strcmp(info->ppEnabledExtensionNames[i], name) == 0)
			return true;
	return false;
}

/*
 * Why HESPER_LINES cannot count blocks on a device with @subgroup's operations and
 * @extended's switch, or NULL when it can: the counters' sums are 64-bit subgroup
 * arithmetic (spirv_blocks.h). Also why when HESPER_LINES is not set.
 */
static const char *lines_features(const struct hesper_instance *inst,
				  const VkPhysicalDeviceSubgroupProperties *subgroup,
				  const VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures *extended)
{
	if (!hesper_process()->settings.lines[0])
		return "HESPER_LINES is not set";
	if (inst->api_version < VK_API_VERSION_1_2)
		return "the program's instance asks for a Vulkan older than 1.2";
	if (!(subgroup->supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) ||
	    !(subgroup->supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT))
		return "no subgroup arithmetic in compute shaders";
	if (!extended->shaderSubgroupExtendedTypes)
		return "no 64-bit subgroup arithmetic (shaderSubgroupExtendedTypes)";
	return NULL;
}

const char *hesper_clock_create_begin(struct hesper_instance *inst, VkPhysicalDevice physical,
				      const VkDeviceCreateInfo *info, struct hesper_clock_create *c)
{
	memset(c, 0, sizeof(*c));
	c->info = *info;
	VkPhysicalDeviceProperties props;
	inst->next.GetPhysicalDeviceProperties(physical, &props);
	if (props.apiVersion < VK_API_VERSION_1_2 || inst->api_version < VK_API_VERSION_1_1 ||
	    !inst->next.GetPhysicalDeviceFeatures2)
		return "the device or instance is older than Vulkan 1.2/1.1";
	/* What the device has. */
	VkPhysicalDeviceShaderClockFeaturesKHR clock = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
	VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures extended = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES, .pNext = &clock};
	VkPhysicalDeviceShaderAtomicInt64Features atomics = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES, .pNext = &extended};
	VkPhysicalDeviceFeatures2 all = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &atomics};
	inst->next.GetPhysicalDeviceFeatures2(physical, &all);
	VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
	VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
					      .pNext = &subgroup};
	inst->next.GetPhysicalDeviceProperties2(physical, &props2);
	if (!clock.shaderDeviceClock)
		return "no shaderDeviceClock (VK_KHR_shader_clock)";
	if (!all.features.shaderInt64 || !atomics.shaderBufferInt64Atomics)
		return "no 64-bit integers or 64-bit buffer atomics";
	if (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
	    !(subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT))
		return "no basic subgroup operations in compute shaders";

	c->lines_why = lines_features(inst, &subgroup, &extended);
	c->subgroup_clock = !c->lines_why && clock.shaderSubgroupClock;

	/* The extension. */
	uint32_t n = info->enabledExtensionCount;
	if (!extension_named(info, VK_KHR_SHADER_CLOCK_EXTENSION_NAME)) {
		c->names = n + 1 <= 64 ? c->local_names : malloc((n + 1) * sizeof(*c->names));
		if (!c->names)
			return "out of memory";
		for (uint32_t i = 0; i < n; i++)
			c->names[i] = info->ppEnabledExtensionNames[i];
		c->names[n++] = VK_KHR_SHADER_CLOCK_EXTENSION_NAME;
		c->info.enabledExtensionCount = n;
		c->info.ppEnabledExtensionNames = c->names;
	}
	/* shaderInt64: in pEnabledFeatures, or in a VkPhysicalDeviceFeatures2 of the chain. */
	VkBool32 *int64 = find_switch(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
				      offsetof(VkPhysicalDeviceFeatures2, features.shaderInt64));
	if (int64) {
		flip(c, int64);
	} else {
		if (info->pEnabledFeatures)
			c->features = *info->pEnabledFeatures;
		c->features.shaderInt64 = VK_TRUE;
		c->info.pEnabledFeatures = &c->features;
	}
	const void *chain = info->pNext;
	c->atomics = (VkPhysicalDeviceShaderAtomicInt64Features){
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES,
		.shaderBufferInt64Atomics = VK_TRUE};
	enable_12(c, info, offsetof(VkPhysicalDeviceVulkan12Features, shaderBufferInt64Atomics),
		  offsetof(VkPhysicalDeviceShaderAtomicInt64Features, shaderBufferInt64Atomics),
		  (VkBaseOutStructure *)&c->atomics, &chain);
	VkBool32 *sw = find_switch(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
				   offsetof(VkPhysicalDeviceShaderClockFeaturesKHR, shaderDeviceClock));
	if (sw) {
		flip(c, sw);
		if (c->subgroup_clock)
			flip(c, find_switch(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
					    offsetof(VkPhysicalDeviceShaderClockFeaturesKHR, shaderSubgroupClock)));
	} else {
		c->clock = (VkPhysicalDeviceShaderClockFeaturesKHR){
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
			.pNext = (void *)chain,
			.shaderSubgroupClock = c->subgroup_clock,
			.shaderDeviceClock = VK_TRUE,
		};
		chain = &c->clock;
	}
	if (!c->lines_why) {
		c->extended = (VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures){
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES,
			.shaderSubgroupExtendedTypes = VK_TRUE};
		enable_12(c, info, offsetof(VkPhysicalDeviceVulkan12Features, shaderSubgroupExtendedTypes),
			  offsetof(VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures, shaderSubgroupExtendedTypes),
			  (VkBaseOutStructure *)&c->extended, &chain);
	}
	c->info.pNext = chain;
	return NULL;
}

void hesper_clock_create_end(struct hesper_clock_create *c)
{
	for (uint32_t i = 0; i < c->flipped_count; i++)
		*c->flipped[i] = c->saved[i];
	c->flipped_count = 0;
	if (c->names && c->names != c->local_names)
		free(c->names);
	c->names = NULL;
}

/* An empty compute kernel ("main", local size 1), instrumented for the calibration. */
/* clang-format off */
static const uint32_t empty_kernel[] = {
	0x07230203, 0x00010000, 0, 5, 0,
	(2u << 16) | 17, 1,                        /* OpCapability Shader */
	(3u << 16) | 14, 0, 1,                     /* OpMemoryModel Logical GLSL450 */
	(5u << 16) | 15, 5, 3, 0x6e69616d, 0,      /* OpEntryPoint GLCompute %3 "main" */
	(6u << 16) | 16, 3, 17, 1, 1, 1,           /* OpExecutionMode %3 LocalSize 1 1 1 */
	(2u << 16) | 19, 1,                        /* %1 = OpTypeVoid */
	(3u << 16) | 33, 2, 1,                     /* %2 = OpTypeFunction %1 */
	(5u << 16) | 54, 1, 3, 0, 2,               /* %3 = OpFunction %1 None %2 */
	(2u << 16) | 248, 4,                       /* %4 = OpLabel */
	(1u << 16) | 253,                          /* OpReturn */
	(1u << 16) | 56,                           /* OpFunctionEnd */
};
/* clang-format on */

/* A queue of a family with compute and timestamps the program created, or VK_NULL_HANDLE. */
static VkQueue calibration_queue(struct hesper_device *dev, const VkDeviceCreateInfo *info, uint32_t *family)
{
	for (uint32_t i = 0; i < info->queueCreateInfoCount; i++) {
		const VkDeviceQueueCreateInfo *q = &info->pQueueCreateInfos[i];
		if (q->flags || q->queueFamilyIndex >= dev->family_count || !q->queueCount)
			continue;
		const struct hesper_queue_family *f = &dev->families[q->queueFamilyIndex];
		if (!(f->props.queueFlags & VK_QUEUE_COMPUTE_BIT) || f->tick_mask != UINT64_MAX)
			continue;
		VkQueue queue = VK_NULL_HANDLE;
		dev->next.GetDeviceQueue(dev->handle, q->queueFamilyIndex, 0, &queue);
		if (queue && dev->set_loader_data)
			dev->set_loader_data(dev->handle, queue);
		*family = q->queueFamilyIndex;
		return queue;
	}
	return VK_NULL_HANDLE;
}

static void sleep_ms(long ms)
{
	struct timespec t = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
	nanosleep(&t, NULL);
}

/* The objects of one calibration. */
struct calibration {
	VkShaderModule module;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkQueryPool queries;
	VkCommandPool pool;
	VkCommandBuffer cb;
};

static void calibration_free(struct hesper_device *dev, struct calibration *k)
{
	VkDevice d = dev->handle;
	if (k->pool)
		dev->next.DestroyCommandPool(d, k->pool, NULL);
	if (k->queries)
		dev->next.DestroyQueryPool(d, k->queries, NULL);
	if (k->pipeline)
		dev->next.DestroyPipeline(d, k->pipeline, NULL);
	if (k->layout)
		dev->next.DestroyPipelineLayout(d, k->layout, NULL);
	if (k->module)
		dev->next.DestroyShaderModule(d, k->module, NULL);
}

/* Records the bracketed dispatch into k->cb. */
static int record_bracket(struct hesper_device *dev, struct calibration *k)
{
	struct hesper_clock_device *cd = dev->clock_mode;
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	if (dev->next.BeginCommandBuffer(k->cb, &begin) != VK_SUCCESS)
		return -1;
	dev->next.CmdResetQueryPool(k->cb, k->queries, 0, 2);
	dev->next.CmdWriteTimestamp(k->cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, k->queries, 0);
	dev->next.CmdBindPipeline(k->cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
	dev->next.CmdBindDescriptorSets(k->cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &cd->sink->b.sets[0], 0,
					NULL);
	dev->next.CmdDispatch(k->cb, 1, 1, 1);
	dev->next.CmdWriteTimestamp(k->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, k->queries, 1);
	VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				   .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
				   .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
	dev->next.CmdPipelineBarrier(k->cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
				     &to_host, 0, NULL, 0, NULL);
	return dev->next.EndCommandBuffer(k->cb) == VK_SUCCESS ? 0 : -1;
}

/* One bracketed run: timestamps *@t0, *@t1 and the clock's midpoint *@clock. */
static int run_bracket(struct hesper_device *dev, struct calibration *k, VkQueue queue, uint64_t *t0, uint64_t *t1,
		       uint64_t *clock)
{
	struct hesper_clock_device *cd = dev->clock_mode;
	uint64_t *slot = cd->sink->b.mapped; /* one work group, x index 0: lane 0 */
	slot[0] = 0;
	slot[1] = 0;
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &k->cb};
	if (dev->next.QueueSubmit(queue, 1, &submit, VK_NULL_HANDLE) != VK_SUCCESS ||
	    dev->next.QueueWaitIdle(queue) != VK_SUCCESS)
		return -1;
	uint64_t ts[2];
	if (dev->next.GetQueryPoolResults(dev->handle, k->queries, 0, 2, sizeof(ts), ts, sizeof(uint64_t),
					  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
		return -1;
	if (!hesper_clock_lane_written(slot) || ts[1] < ts[0])
		return -1;
	*t0 = ts[0];
	*t1 = ts[1];
	uint64_t start = ~slot[0], end = slot[1];
	*clock = start + (end - start) / 2; /* a 32-bit clock that wrapped in between: off by 2^31 at worst, once */
	return 0;
}

/* Calibrates the device clock; NULL or why not. */
static const char *calibrate(struct hesper_device *dev, const VkDeviceCreateInfo *info)
{
	struct hesper_clock_device *cd = dev->clock_mode;
	struct calibration k = {0};
	const char *why = "the calibration could not run";
	uint32_t family = 0;
	VkQueue queue = calibration_queue(dev, info, &family);
	if (!queue)
		return "no queue with compute and 64-bit timestamps to calibrate on";
	uint32_t *words = NULL;
	size_t count = 0;
	const char *reason = NULL;
	struct hesper_clock_target target = {.entry = "main", .set = 0, .binding = 0, .row_words = cd->row_words};
	if (hesper_spirv_clock_instrument(empty_kernel, sizeof(empty_kernel), &target, &words, &count, &reason) != 0)
		return reason;
	VkDevice d = dev->handle;
	VkShaderModuleCreateInfo mi = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = count * 4, .pCode = words};
	VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
					 .setLayoutCount = 1,
					 .pSetLayouts = &cd->set_layout};
	VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
				    .queryType = VK_QUERY_TYPE_TIMESTAMP,
				    .queryCount = 2};
	VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = family};
	if (dev->next.CreateShaderModule(d, &mi, NULL, &k.module) != VK_SUCCESS ||
	    dev->next.CreatePipelineLayout(d, &li, NULL, &k.layout) != VK_SUCCESS ||
	    dev->next.CreateQueryPool(d, &qi, NULL, &k.queries) != VK_SUCCESS ||
	    dev->next.CreateCommandPool(d, &pi, NULL, &k.pool) != VK_SUCCESS)
		goto out;
	VkComputePipelineCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
			  .module = k.module,
			  .pName = "main"},
		.layout = k.layout,
	};
	VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					  .commandPool = k.pool,
					  .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					  .commandBufferCount = 1};
	if (dev->next.CreateComputePipelines(d, VK_NULL_HANDLE, 1, &ci, NULL, &k.pipeline) != VK_SUCCESS ||
	    dev->next.AllocateCommandBuffers(d, &ai, &k.cb) != VK_SUCCESS)
		goto out;
	if (dev->set_loader_data)
		dev->set_loader_data(d, k.cb);
	if (record_bracket(dev, &k) != 0)
		goto out;
	uint64_t t0[3], t1[3], c[3];
	for (int i = 0; i < 3; i++) {
		if (i)
			sleep_ms(50);
		if (run_bracket(dev, &k, queue, &t0[i], &t1[i], &c[i]) != 0)
			goto out;
	}
	double m1 = ((double)t0[1] + (double)t1[1]) / 2, m2 = ((double)t0[2] + (double)t1[2]) / 2;
	/* No reading above 32 bits: a 32-bit clock (lavapipe's), differences taken modulo 2^32. */
	cd->cal.mask = ((c[0] | c[1] | c[2]) >> 32) ? UINT64_MAX : 0xffffffffull;
	uint64_t dc = (c[2] - c[1]) & cd->cal.mask;
	if (dc == 0 || dc > cd->cal.mask / 2 || m2 <= m1) {
		why = "the device clock did not advance between calibration runs";
		goto out;
	}
	double period = dev->props.limits.timestampPeriod;
	double w1 = (double)(t1[1] - t0[1]) / 2, w2 = (double)(t1[2] - t0[2]) / 2;
	cd->cal.ts_per_clock = (m2 - m1) / (double)dc;
	cd->cal.clock0 = c[2];
	cd->cal.ts0 = m2;
	cd->cal.error_ns = (w1 > w2 ? w1 : w2) * period;
	why = NULL;
out:
	calibration_free(dev, &k);
	free(words);
	return why;
}

/* A descriptor set layout with @count STORAGE_BUFFER bindings (0 or 1). */
static VkResult make_set_layout(struct hesper_device *dev, uint32_t count, VkDescriptorSetLayout *out)
{
	VkDescriptorSetLayoutBinding b = {.binding = 0,
					  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
					  .descriptorCount = 1,
					  .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
	VkDescriptorSetLayoutCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = count, .pBindings = &b};
	return dev->next.CreateDescriptorSetLayout(dev->handle, &info, NULL, out);
}

const char *hesper_clock_device_init(struct hesper_device *dev, const VkDeviceCreateInfo *info)
{
	struct hesper_clock_device *cd = calloc(1, sizeof(*cd));
	if (!cd)
		return "out of memory";
	dev->clock_mode = cd;
	VkDeviceSize align = dev->props.limits.minStorageBufferOffsetAlignment;
	/* a slot's entry in a row: two words, or the offset alignment (a power of two) when larger */
	cd->pitch = align > 16 ? (uint32_t)align : 16;
	/*
	 * A row holds HESPER_CLOCK_CHUNK_SLOTS entries and one 128-byte line more: a slot's
	 * lanes, a row apart, then fall on lines that a power-of-two distance would not put in
	 * one part of the device's cache.
	 */
	cd->row_words = HESPER_CLOCK_CHUNK_SLOTS * cd->pitch / 8 + 16;
	cd->max_sets = dev->props.limits.maxBoundDescriptorSets;
	const char *why = NULL;
	if (make_set_layout(dev, 1, &cd->set_layout) != VK_SUCCESS ||
	    make_set_layout(dev, 0, &cd->empty_layout) != VK_SUCCESS)
		why = "its descriptor set layout could not be made";
	else if (!(cd->sink = hesper_clock_chunk_new(dev, 1)))
		why = "its clock buffer could not be made";
	else
		why = calibrate(dev, info);
	if (why)
		hesper_clock_device_release(dev);
	return why;
}

void hesper_clock_device_release(struct hesper_device *dev)
{
	struct hesper_clock_device *cd = dev->clock_mode;
	if (!cd)
		return;
	while (cd->free_chunks) {
		struct hesper_clock_chunk *c = cd->free_chunks;
		cd->free_chunks = c->next_free;
		hesper_clock_chunk_free(dev, c);
	}
	if (cd->sink)
		hesper_clock_chunk_free(dev, cd->sink);
	if (cd->set_layout)
		dev->next.DestroyDescriptorSetLayout(dev->handle, cd->set_layout, NULL);
	if (cd->empty_layout)
		dev->next.DestroyDescriptorSetLayout(dev->handle, cd->empty_layout, NULL);
	free(cd);
	dev->clock_mode = NULL;
}
