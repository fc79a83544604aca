/* Vulkan setup for vkbench (see vkbench_vk.h). */
#include "vkbench_vk.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* SPIR-V file of each kernel kind (built next to vkbench by bench/meson.build). */
static const char *const kernel_spv[VB_KERNEL_COUNT] = {
	[VB_KERNEL_EMPTY] = "vkbench_empty.spv",
	[VB_KERNEL_SHORT] = "vkbench_busy_short.spv",
	[VB_KERNEL_LONG] = "vkbench_busy_long.spv",
	[VB_KERNEL_TINY] = "vkbench_tiny.spv",
};

void vb_check(VkResult r, const char *expr, const char *file, int line)
{
	if (r == VK_SUCCESS)
		return;
	fprintf(stderr, "vkbench: %s:%d: %s failed: VkResult %d\n", file, line, expr, (int)r);
	exit(VB_EXIT_VULKAN);
}

void vb_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("vkbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(VB_EXIT_VULKAN);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		vb_fail("out of memory");
	return p;
}

static bool instance_has_extension(const char *name)
{
	uint32_t n = 0;
	VkExtensionProperties *props;
	bool found = false;

	VB_CHECK(vkEnumerateInstanceExtensionProperties(NULL, &n, NULL));
	props = xcalloc(n, sizeof(*props));
	VB_CHECK(vkEnumerateInstanceExtensionProperties(NULL, &n, props));
	for (uint32_t i = 0; i < n; i++)
		found |= strcmp(props[i].extensionName, name) == 0;
	free(props);
	return found;
}

static void create_instance(struct vb_ctx *ctx, const char *layer)
{
	const char *exts[1];
	uint32_t n_exts = 0;
	bool debug_utils = instance_has_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

	if (debug_utils)
		exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "vkbench",
		.applicationVersion = 1,
		.pEngineName = "hesper-bench",
		.engineVersion = 1,
		.apiVersion = VK_API_VERSION_1_2,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledLayerCount = layer ? 1 : 0,
		.ppEnabledLayerNames = layer ? &layer : NULL,
		.enabledExtensionCount = n_exts,
		.ppEnabledExtensionNames = exts,
	};
	VB_CHECK(vkCreateInstance(&info, NULL, &ctx->instance));
	if (debug_utils)
		ctx->set_object_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(
			ctx->instance, "vkSetDebugUtilsObjectNameEXT");
}

/* Physical device from env VKBENCH_DEVICE_INDEX (default 0). */
static void pick_physical_device(struct vb_ctx *ctx)
{
	uint32_t n = 0;
	unsigned long want = 0;
	const char *s = getenv("VKBENCH_DEVICE_INDEX");
	VkPhysicalDevice *devs;

	if (s && *s) {
		char *end;

		errno = 0;
		want = strtoul(s, &end, 10);
		if (errno || *end)
			vb_fail("bad VKBENCH_DEVICE_INDEX '%s'", s);
	}
	VB_CHECK(vkEnumeratePhysicalDevices(ctx->instance, &n, NULL));
	if (n == 0)
		vb_fail("no Vulkan physical device");
	if (want >= n)
		vb_fail("VKBENCH_DEVICE_INDEX=%lu but only %u device(s)", want, n);
	devs = xcalloc(n, sizeof(*devs));
	VB_CHECK(vkEnumeratePhysicalDevices(ctx->instance, &n, devs));
	ctx->physical_device = devs[want];
	free(devs);
	vkGetPhysicalDeviceProperties(ctx->physical_device, &ctx->props);
	vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &ctx->mem_props);
}

/* A compute family with timestamps; prefers no graphics, then more queues. */
static void pick_family(struct vb_ctx *ctx, int family_override)
{
	uint32_t n = 0;
	VkQueueFamilyProperties *qf;
	int best = -1;
	uint64_t best_score = 0;

	vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &n, NULL);
	qf = xcalloc(n, sizeof(*qf));
	vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &n, qf);
	if (family_override >= 0) {
		if ((uint32_t)family_override >= n)
			vb_fail("queue family %d does not exist (%u families)", family_override, n);
		best = family_override;
	} else {
		for (uint32_t i = 0; i < n; i++) {
			uint64_t score;

			if (!(qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || qf[i].timestampValidBits == 0)
				continue;
			score = ((qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) ? 0 : 1000) + qf[i].queueCount;
			if (best < 0 || score > best_score) {
				best = (int)i;
				best_score = score;
			}
		}
	}
	if (best < 0)
		vb_fail("device '%s' has no compute queue family with timestamps", ctx->props.deviceName);
	if (!(qf[best].queueFlags & VK_QUEUE_COMPUTE_BIT) || qf[best].timestampValidBits == 0)
		vb_fail("queue family %d lacks compute or timestamps", best);
	ctx->family = (uint32_t)best;
	ctx->family_queues = qf[best].queueCount;
	ctx->timestamp_bits = qf[best].timestampValidBits;
	ctx->timestamp_mask = ctx->timestamp_bits >= 64 ? ~0ull : (1ull << ctx->timestamp_bits) - 1;
	ctx->period_ns = ctx->props.limits.timestampPeriod;
	free(qf);
}

static uint32_t find_memory_type(const struct vb_ctx *ctx, uint32_t type_bits, VkMemoryPropertyFlags flags)
{
	for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++)
		if ((type_bits & (1u << i)) && (ctx->mem_props.memoryTypes[i].propertyFlags & flags) == flags)
			return i;
	vb_fail("no suitable memory type");
}

void *vb_host_buffer(struct vb_ctx *ctx, VkDeviceSize bytes, bool cached, VkBuffer *buffer, VkDeviceMemory *memory)
{
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = bytes,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VB_CHECK(vkCreateBuffer(ctx->device, &info, NULL, buffer));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(ctx->device, *buffer, &req);
	const VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
					       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	uint32_t type = UINT32_MAX;
	for (uint32_t i = 0; cached && i < ctx->mem_props.memoryTypeCount && type == UINT32_MAX; i++)
		if ((req.memoryTypeBits & (1u << i)) &&
		    (ctx->mem_props.memoryTypes[i].propertyFlags & (coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT)) ==
			    (coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT))
			type = i;
	if (type == UINT32_MAX)
		type = find_memory_type(ctx, req.memoryTypeBits, coherent);
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = type,
	};
	VB_CHECK(vkAllocateMemory(ctx->device, &alloc, NULL, memory));
	VB_CHECK(vkBindBufferMemory(ctx->device, *buffer, *memory, 0));
	void *mapped = NULL;
	VB_CHECK(vkMapMemory(ctx->device, *memory, 0, VK_WHOLE_SIZE, 0, &mapped));
	return mapped;
}

static void create_resources(struct vb_ctx *ctx)
{
	VkMemoryRequirements req;
	VkBufferCreateInfo binfo = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = (VkDeviceSize)ctx->buffer_floats * sizeof(float),
		.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VB_CHECK(vkCreateBuffer(ctx->device, &binfo, NULL, &ctx->buffer));
	vkGetBufferMemoryRequirements(ctx->device, ctx->buffer, &req);
	VkMemoryAllocateInfo ainfo = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = find_memory_type(ctx, req.memoryTypeBits, 0),
	};
	VB_CHECK(vkAllocateMemory(ctx->device, &ainfo, NULL, &ctx->memory));
	VB_CHECK(vkBindBufferMemory(ctx->device, ctx->buffer, ctx->memory, 0));

	VkDescriptorSetLayoutBinding binding = {
		.binding = 0,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.descriptorCount = 1,
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
	};
	VkDescriptorSetLayoutCreateInfo linfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = 1,
		.pBindings = &binding,
	};
	VB_CHECK(vkCreateDescriptorSetLayout(ctx->device, &linfo, NULL, &ctx->set_layout));
	VkPushConstantRange range = {
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		.size = 2 * sizeof(uint32_t),
	};
	VkPipelineLayoutCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &ctx->set_layout,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &range,
	};
	VB_CHECK(vkCreatePipelineLayout(ctx->device, &pinfo, NULL, &ctx->pipeline_layout));
	VkDescriptorPoolSize size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
	VkDescriptorPoolCreateInfo dpinfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 1,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	VB_CHECK(vkCreateDescriptorPool(ctx->device, &dpinfo, NULL, &ctx->descriptor_pool));
	VkDescriptorSetAllocateInfo sinfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = ctx->descriptor_pool,
		.descriptorSetCount = 1,
		.pSetLayouts = &ctx->set_layout,
	};
	VB_CHECK(vkAllocateDescriptorSets(ctx->device, &sinfo, &ctx->set));
	VkDescriptorBufferInfo dbi = {.buffer = ctx->buffer, .offset = 0, .range = VK_WHOLE_SIZE};
	VkWriteDescriptorSet write = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = ctx->set,
		.dstBinding = 0,
		.descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.pBufferInfo = &dbi,
	};
	vkUpdateDescriptorSets(ctx->device, 1, &write, 0, NULL);
}

void vb_init(struct vb_ctx *ctx, int family_override, uint32_t want_queues, uint32_t buffer_floats)
{
	vb_init_with_layer(ctx, NULL, family_override, want_queues, buffer_floats);
}

void vb_init_with_layer(struct vb_ctx *ctx, const char *layer, int family_override, uint32_t want_queues,
			uint32_t buffer_floats)
{
	float priorities[VB_MAX_QUEUES];

	memset(ctx, 0, sizeof(*ctx));
	create_instance(ctx, layer);
	pick_physical_device(ctx);
	pick_family(ctx, family_override);

	ctx->queue_count = want_queues ? want_queues : 1;
	if (ctx->queue_count > ctx->family_queues)
		ctx->queue_count = ctx->family_queues;
	if (ctx->queue_count > VB_MAX_QUEUES)
		ctx->queue_count = VB_MAX_QUEUES;
	for (uint32_t i = 0; i < VB_MAX_QUEUES; i++)
		priorities[i] = 1.0f;
	VkDeviceQueueCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = ctx->family,
		.queueCount = ctx->queue_count,
		.pQueuePriorities = priorities,
	};
	/* Timeline semaphores when the device has them (copy_probe signals one). */
	VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
	};
	VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
					      .pNext = &timeline};
	if (ctx->props.apiVersion >= VK_API_VERSION_1_2)
		vkGetPhysicalDeviceFeatures2(ctx->physical_device, &features);
	ctx->has_timeline = timeline.timelineSemaphore;
	VkDeviceCreateInfo dinfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = ctx->has_timeline ? &timeline : NULL,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qinfo,
	};
	VB_CHECK(vkCreateDevice(ctx->physical_device, &dinfo, NULL, &ctx->device));
	for (uint32_t i = 0; i < ctx->queue_count; i++) {
		vkGetDeviceQueue(ctx->device, ctx->family, i, &ctx->queues[i]);
		pthread_mutex_init(&ctx->queue_locks[i], NULL);
	}
	ctx->buffer_floats = buffer_floats ? buffer_floats : 64;
	create_resources(ctx);
}

void vb_finish(struct vb_ctx *ctx)
{
	VB_CHECK(vkDeviceWaitIdle(ctx->device));
	vkDestroyDescriptorPool(ctx->device, ctx->descriptor_pool, NULL);
	vkDestroyPipelineLayout(ctx->device, ctx->pipeline_layout, NULL);
	vkDestroyDescriptorSetLayout(ctx->device, ctx->set_layout, NULL);
	vkDestroyBuffer(ctx->device, ctx->buffer, NULL);
	vkFreeMemory(ctx->device, ctx->memory, NULL);
	if (ctx->indirect) {
		vkDestroyBuffer(ctx->device, ctx->indirect, NULL);
		vkFreeMemory(ctx->device, ctx->indirect_memory, NULL);
	}
	for (uint32_t i = 0; i < ctx->queue_count; i++)
		pthread_mutex_destroy(&ctx->queue_locks[i]);
	vkDestroyDevice(ctx->device, NULL);
	vkDestroyInstance(ctx->instance, NULL);
	memset(ctx, 0, sizeof(*ctx));
}

static VkShaderModule load_module(struct vb_ctx *ctx, const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	long size;
	uint32_t *code;
	VkShaderModule module;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		vb_fail("cannot open %s: %s (use --spv-dir)", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 || size % 4 != 0 || fseek(f, 0, SEEK_SET) != 0)
		vb_fail("%s is not a SPIR-V file", path);
	code = xcalloc((size_t)size, 1);
	if (fread(code, 1, (size_t)size, f) != (size_t)size)
		vb_fail("cannot read %s", path);
	fclose(f);
	VkShaderModuleCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = (size_t)size,
		.pCode = code,
	};
	VB_CHECK(vkCreateShaderModule(ctx->device, &info, NULL, &module));
	free(code);
	return module;
}

void vb_kernel_create(struct vb_ctx *ctx, struct vb_kernel *k, enum vb_kernel_kind kind, const char *spv_dir,
		      const char *name, uint32_t groups)
{
	memset(k, 0, sizeof(*k));
	k->kind = kind;
	k->name = name;
	k->groups = kind == VB_KERNEL_EMPTY || kind == VB_KERNEL_TINY ? 1 : groups;
	k->iters = 1;
	k->module = load_module(ctx, spv_dir, kernel_spv[kind]);
	VkComputePipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
			  .module = k->module,
			  .pName = "main"},
		.layout = ctx->pipeline_layout,
	};
	VB_CHECK(vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL, &k->pipeline));
	if (ctx->set_object_name) {
		VkDebugUtilsObjectNameInfoEXT ninfo = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
			.objectType = VK_OBJECT_TYPE_PIPELINE,
			.objectHandle = (uint64_t)k->pipeline,
			.pObjectName = name,
		};
		VB_CHECK(ctx->set_object_name(ctx->device, &ninfo));
	}
}

void vb_kernel_destroy(struct vb_ctx *ctx, struct vb_kernel *k)
{
	vkDestroyPipeline(ctx->device, k->pipeline, NULL);
	vkDestroyShaderModule(ctx->device, k->module, NULL);
	memset(k, 0, sizeof(*k));
}

void vb_kernel_bind(struct vb_ctx *ctx, VkCommandBuffer cmd, const struct vb_kernel *k)
{
	uint32_t push[2] = {k->iters, k->groups * 64u};

	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipeline_layout, 0, 1, &ctx->set, 0, NULL);
	vkCmdPushConstants(cmd, ctx->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
}

static const char *const way_words[VB_WAY_COUNT] = {
	[VB_WAY_PLAIN] = "plain",
	[VB_WAY_MANUAL] = "manual",
	[VB_WAY_CHAINED] = "chained",
	[VB_WAY_BARRIERS] = "barriers",
	[VB_WAY_BARRIER_PAIRS] = "barrier-pairs",
	[VB_WAY_BARRIER_CHAINED] = "barrier-chained",
	[VB_WAY_BARRIER_COMPUTE] = "barrier-compute",
	[VB_WAY_BARRIER_TOP] = "barrier-top",
	[VB_WAY_CHAINED_COMPUTE] = "chained-compute",
};

int vb_way_by_word(const char *word)
{
	for (int i = 0; i < VB_WAY_COUNT; i++)
		if (strcmp(word, way_words[i]) == 0)
			return i;
	return -1;
}

const char *vb_way_word(enum vb_way way)
{
	return way_words[way];
}

uint32_t vb_way_queries(enum vb_way way, uint32_t n)
{
	switch (way) {
	case VB_WAY_MANUAL:
	case VB_WAY_BARRIER_PAIRS:
		return 2 + 2 * n;
	case VB_WAY_CHAINED:
	case VB_WAY_BARRIER_CHAINED:
	case VB_WAY_BARRIER_COMPUTE:
	case VB_WAY_BARRIER_TOP:
	case VB_WAY_CHAINED_COMPUTE:
		return 3 + n;
	default:
		return 2;
	}
}

void vb_indirect_args(struct vb_ctx *ctx, uint32_t groups)
{
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = 16,
		.usage = VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VB_CHECK(vkCreateBuffer(ctx->device, &info, NULL, &ctx->indirect));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(ctx->device, ctx->indirect, &req);
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = find_memory_type(ctx, req.memoryTypeBits,
						    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
							    VK_MEMORY_PROPERTY_HOST_COHERENT_BIT),
	};
	VB_CHECK(vkAllocateMemory(ctx->device, &alloc, NULL, &ctx->indirect_memory));
	VB_CHECK(vkBindBufferMemory(ctx->device, ctx->indirect, ctx->indirect_memory, 0));
	uint32_t *args = NULL;
	VB_CHECK(vkMapMemory(ctx->device, ctx->indirect_memory, 0, VK_WHOLE_SIZE, 0, (void **)&args));
	args[0] = groups, args[1] = 1, args[2] = 1;
	vkUnmapMemory(ctx->device, ctx->indirect_memory);
}

/* One dispatch of @k: from the indirect arguments when there are some. */
static void dispatch(const struct vb_ctx *ctx, VkCommandBuffer cmd, const struct vb_kernel *k)
{
	if (ctx->indirect)
		vkCmdDispatchIndirect(cmd, ctx->indirect, 0);
	else
		vkCmdDispatch(cmd, k->groups, 1, 1);
}

/* A compute-to-compute barrier, as programs put between dependent dispatches. */
static void compute_barrier(VkCommandBuffer cmd)
{
	VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			     .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
			     .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b,
			     0, NULL, 0, NULL);
}

void vb_record(struct vb_ctx *ctx, struct vb_slot *s, const struct vb_kernel *k, uint32_t n, enum vb_way way,
	       VkCommandBufferUsageFlags flags)
{
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = flags,
	};

	VB_CHECK(vkBeginCommandBuffer(s->cmd, &begin));
	vkCmdResetQueryPool(s->cmd, s->queries, 0, vb_way_queries(way, n));
	vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s->queries, 0);
	vb_kernel_bind(ctx, s->cmd, k);
	switch (way) {
	case VB_WAY_MANUAL:
		for (uint32_t i = 0; i < n; i++) {
			vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s->queries, 2 + 2 * i);
			dispatch(ctx, s->cmd, k);
			vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->queries, 3 + 2 * i);
		}
		break;
	case VB_WAY_BARRIERS:
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				compute_barrier(s->cmd);
			dispatch(ctx, s->cmd, k);
		}
		break;
	case VB_WAY_BARRIER_PAIRS:
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				compute_barrier(s->cmd);
			vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->queries, 2 + 2 * i);
			dispatch(ctx, s->cmd, k);
			vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->queries, 3 + 2 * i);
		}
		break;
	case VB_WAY_CHAINED:
	case VB_WAY_BARRIER_CHAINED:
	case VB_WAY_BARRIER_COMPUTE:
	case VB_WAY_CHAINED_COMPUTE: {
		/* One timestamp opening the first dispatch, then one after each (before its barrier). */
		bool compute = way == VB_WAY_BARRIER_COMPUTE || way == VB_WAY_CHAINED_COMPUTE;
		bool barriers = way == VB_WAY_BARRIER_CHAINED || way == VB_WAY_BARRIER_COMPUTE;
		VkPipelineStageFlagBits stage = compute ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
							: VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
		vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->queries, 2);
		for (uint32_t i = 0; i < n; i++) {
			if (i && barriers)
				compute_barrier(s->cmd);
			dispatch(ctx, s->cmd, k);
			vkCmdWriteTimestamp(s->cmd, stage, s->queries, 3 + i);
		}
		break;
	}
	case VB_WAY_BARRIER_TOP:
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				compute_barrier(s->cmd);
			vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s->queries, 2 + i);
			dispatch(ctx, s->cmd, k);
		}
		vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->queries, 2 + n);
		break;
	default:
		for (uint32_t i = 0; i < n; i++)
			dispatch(ctx, s->cmd, k);
		break;
	}
	vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->queries, 1);
	VB_CHECK(vkEndCommandBuffer(s->cmd));
}

double vb_harvest(struct vb_ctx *ctx, struct vb_slot *s, uint32_t n, enum vb_way way, double *own_sum_ns,
		  uint64_t *own_count)
{
	vb_slot_read(ctx, s, vb_way_queries(way, n));
	bool own = way != VB_WAY_PLAIN && way != VB_WAY_BARRIERS;
	bool pairs = way == VB_WAY_MANUAL || way == VB_WAY_BARRIER_PAIRS;
	for (uint32_t i = 0; i < n && own; i++) {
		uint32_t a = pairs ? 2 + 2 * i : 2 + i;

		*own_sum_ns += vb_ticks_ns(ctx, s->ticks[a], s->ticks[a + 1]);
		(*own_count)++;
	}
	return vb_ticks_ns(ctx, s->ticks[0], s->ticks[1]);
}

void vb_slot_create(struct vb_ctx *ctx, struct vb_slot *s, uint32_t n, enum vb_way way)
{
	memset(s, 0, sizeof(*s));
	VkCommandPoolCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = ctx->family,
	};
	VB_CHECK(vkCreateCommandPool(ctx->device, &pinfo, NULL, &s->pool));
	VkCommandBufferAllocateInfo cinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = s->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VB_CHECK(vkAllocateCommandBuffers(ctx->device, &cinfo, &s->cmd));
	VkFenceCreateInfo finfo = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VB_CHECK(vkCreateFence(ctx->device, &finfo, NULL, &s->fence));
	s->query_count = vb_way_queries(way, n);
	VkQueryPoolCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = s->query_count,
	};
	VB_CHECK(vkCreateQueryPool(ctx->device, &qinfo, NULL, &s->queries));
	s->ticks = xcalloc(s->query_count, sizeof(uint64_t));
}

void vb_slot_destroy(struct vb_ctx *ctx, struct vb_slot *s)
{
	vkDestroyQueryPool(ctx->device, s->queries, NULL);
	vkDestroyFence(ctx->device, s->fence, NULL);
	vkDestroyCommandPool(ctx->device, s->pool, NULL);
	free(s->ticks);
	memset(s, 0, sizeof(*s));
}

void vb_slot_read(struct vb_ctx *ctx, struct vb_slot *s, uint32_t count)
{
	if (count > s->query_count)
		vb_fail("reading %u of %u queries", count, s->query_count);
	VB_CHECK(vkGetQueryPoolResults(ctx->device, s->queries, 0, count, (size_t)count * sizeof(uint64_t), s->ticks,
				       sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
}

double vb_ticks_ns(const struct vb_ctx *ctx, uint64_t begin, uint64_t end)
{
	return (double)((end - begin) & ctx->timestamp_mask) * ctx->period_ns;
}

double vb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double vb_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double vb_quantile_sorted(const double *v, size_t n, double q)
{
	if (!n)
		return 0;
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

const char *vb_own_dir(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n <= 0)
		return ".";
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return ".";
	*slash = '\0';
	return path;
}

bool vb_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !*s || s[0] == '-' || v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

long vb_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}
