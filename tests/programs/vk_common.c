/* Vulkan compute scaffolding shared by the end-to-end test programs (see vk_common.h). */
#include "vk_common.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HESPER_SPV_DIR
#define HESPER_SPV_DIR "."
#endif

/* Name of a VkResult for error lines. */
static const char *result_name(VkResult r)
{
	switch (r) {
#define CASE(x) \
	case x: \
		return #x
		CASE(VK_SUCCESS);
		CASE(VK_NOT_READY);
		CASE(VK_TIMEOUT);
		CASE(VK_INCOMPLETE);
		CASE(VK_ERROR_OUT_OF_HOST_MEMORY);
		CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY);
		CASE(VK_ERROR_INITIALIZATION_FAILED);
		CASE(VK_ERROR_DEVICE_LOST);
		CASE(VK_ERROR_MEMORY_MAP_FAILED);
		CASE(VK_ERROR_LAYER_NOT_PRESENT);
		CASE(VK_ERROR_EXTENSION_NOT_PRESENT);
		CASE(VK_ERROR_FEATURE_NOT_PRESENT);
		CASE(VK_ERROR_INCOMPATIBLE_DRIVER);
		CASE(VK_ERROR_TOO_MANY_OBJECTS);
		CASE(VK_ERROR_UNKNOWN);
#undef CASE
	default:
		return "VkResult";
	}
}

void vkc_check(VkResult r, const char *expr, const char *file, int line)
{
	if (r == VK_SUCCESS)
		return;
	fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, expr, result_name(r), (int)r);
	exit(VKC_EXIT_VULKAN);
}

void vkc_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("vk_common: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(VKC_EXIT_VULKAN);
}

uint32_t vkc_env_u32(const char *name, uint32_t fallback)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return fallback;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		vkc_fail("bad value for %s: '%s'", name, s);
	return (uint32_t)v;
}

/* True when the instance offers extension @name. */
static bool instance_has_extension(const char *name)
{
	uint32_t n = 0;
	VkExtensionProperties *props;
	bool found = false;

	VKC_CHECK(vkEnumerateInstanceExtensionProperties(NULL, &n, NULL));
	props = calloc(n ? n : 1, sizeof(*props));
	if (!props)
		vkc_fail("out of memory");
	VKC_CHECK(vkEnumerateInstanceExtensionProperties(NULL, &n, props));
	for (uint32_t i = 0; i < n; i++)
		found |= strcmp(props[i].extensionName, name) == 0;
	free(props);
	return found;
}

/* Creates the instance (with the offered ones of @opts' extensions) and fills the debug-utils fields. */
static void create_instance(struct vkc_ctx *ctx, const char *app_name, const struct vkc_options *opts)
{
	const char *exts[17];
	uint32_t n_exts = 0;

	ctx->has_debug_utils = instance_has_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
	if (ctx->has_debug_utils)
		exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	for (uint32_t i = 0; opts && i < opts->instance_extension_count && n_exts < 17; i++)
		if (instance_has_extension(opts->instance_extensions[i]))
			exts[n_exts++] = opts->instance_extensions[i];

	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = app_name,
		.applicationVersion = 1,
		.pEngineName = "hesper-tests",
		.engineVersion = 1,
		.apiVersion = VK_API_VERSION_1_3,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledExtensionCount = n_exts,
		.ppEnabledExtensionNames = exts,
	};
	VKC_CHECK(vkCreateInstance(&info, NULL, &ctx->instance));
#ifdef HESPER_TEST_VOLK
	volkLoadInstance(ctx->instance);
#endif
	if (ctx->has_debug_utils) {
		ctx->set_object_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(
			ctx->instance, "vkSetDebugUtilsObjectNameEXT");
		ctx->cmd_begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(
			ctx->instance, "vkCmdBeginDebugUtilsLabelEXT");
		ctx->cmd_end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(
			ctx->instance, "vkCmdEndDebugUtilsLabelEXT");
		if (!ctx->set_object_name || !ctx->cmd_begin_label || !ctx->cmd_end_label) {
			ctx->has_debug_utils = false;
			ctx->set_object_name = NULL;
			ctx->cmd_begin_label = NULL;
			ctx->cmd_end_label = NULL;
		}
	}
}

/* Picks the physical device named by TEST_DEVICE_INDEX (default 0). */
static void pick_physical_device(struct vkc_ctx *ctx)
{
	uint32_t n = 0, want = vkc_env_u32("TEST_DEVICE_INDEX", 0);
	VkPhysicalDevice *devs;

	VKC_CHECK(vkEnumeratePhysicalDevices(ctx->instance, &n, NULL));
	if (n == 0)
		vkc_fail("no Vulkan physical device");
	if (want >= n)
		vkc_fail("TEST_DEVICE_INDEX=%u but only %u device(s)", want, n);
	devs = calloc(n, sizeof(*devs));
	if (!devs)
		vkc_fail("out of memory");
	VKC_CHECK(vkEnumeratePhysicalDevices(ctx->instance, &n, devs));
	ctx->physical_device = devs[want];
	free(devs);
	vkGetPhysicalDeviceProperties(ctx->physical_device, &ctx->props);
	vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &ctx->mem_props);
	if (ctx->props.apiVersion < VK_API_VERSION_1_1)
		vkc_fail("device '%s' lacks Vulkan 1.1", ctx->props.deviceName);
}

/* Picks a compute queue family, preferring one with timestamps, then one without graphics. */
static void pick_queue_family(struct vkc_ctx *ctx)
{
	uint32_t n = 0;
	VkQueueFamilyProperties *qf;
	int best = -1, best_score = -1;

	vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &n, NULL);
	qf = calloc(n ? n : 1, sizeof(*qf));
	if (!qf)
		vkc_fail("out of memory");
	vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &n, qf);
	for (uint32_t i = 0; i < n; i++) {
		int score;

		if (!(qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
			continue;
		score = (qf[i].timestampValidBits ? 2 : 0) + (qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT ? 0 : 1);
		if (score > best_score) {
			best = (int)i;
			best_score = score;
		}
	}
	if (best < 0)
		vkc_fail("device '%s' has no compute queue", ctx->props.deviceName);
	ctx->queue_family = (uint32_t)best;
	ctx->timestamp_valid_bits = qf[best].timestampValidBits;
	free(qf);
}

/* The features of @opts that @ctx's physical device has (none without @opts->features). */
static VkPhysicalDeviceFeatures supported_features(const struct vkc_ctx *ctx, const struct vkc_options *opts)
{
	VkPhysicalDeviceFeatures have, out;

	memset(&out, 0, sizeof(out));
	if (!opts || !opts->features)
		return out;
	vkGetPhysicalDeviceFeatures(ctx->physical_device, &have);
	/* The struct is nothing but VkBool32 members. */
	const VkBool32 *w = (const VkBool32 *)opts->features, *h = (const VkBool32 *)&have;
	VkBool32 *o = (VkBool32 *)&out;
	for (size_t i = 0; i < sizeof(out) / sizeof(VkBool32); i++)
		o[i] = w[i] && h[i] ? VK_TRUE : VK_FALSE;
	return out;
}

/* A compute family other than @not with timestamps, preferring one without graphics; UINT32_MAX if none. */
static uint32_t pick_other_family(const VkQueueFamilyProperties *qf, uint32_t n, uint32_t not )
{
	uint32_t best = UINT32_MAX;

	for (uint32_t i = 0; i < n; i++) {
		if (i == not || !(qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || !qf[i].timestampValidBits)
			continue;
		if (best == UINT32_MAX ||
		    ((qf[best].queueFlags & VK_QUEUE_GRAPHICS_BIT) && !(qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
			best = i;
	}
	return best;
}

/* Creates @ctx's device, queues and command pool on its physical device and family. */
static void create_device(struct vkc_ctx *ctx, const struct vkc_options *opts)
{
	uint32_t n = 0, want = opts && opts->queue_count ? opts->queue_count : 1;
	VkQueueFamilyProperties *qf;
	float priorities[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

	vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &n, NULL);
	qf = calloc(n ? n : 1, sizeof(*qf));
	if (!qf)
		vkc_fail("out of memory");
	vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &n, qf);
	if (want > qf[ctx->queue_family].queueCount)
		want = qf[ctx->queue_family].queueCount;
	if (want > 8)
		want = 8;
	ctx->other_family = opts && opts->other_family ? pick_other_family(qf, n, ctx->queue_family) : UINT32_MAX;
	ctx->other_queue = VK_NULL_HANDLE;
	free(qf);
	ctx->features = supported_features(ctx, opts);

	VkDeviceQueueCreateInfo qinfo[2] = {
		{
			.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
			.queueFamilyIndex = ctx->queue_family,
			.queueCount = want,
			.pQueuePriorities = priorities,
		},
		{
			.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
			.queueFamilyIndex = ctx->other_family,
			.queueCount = 1,
			.pQueuePriorities = priorities,
		},
	};
	VkDeviceCreateInfo dinfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = opts ? opts->device_pnext : NULL,
		.queueCreateInfoCount = ctx->other_family != UINT32_MAX ? 2 : 1,
		.pQueueCreateInfos = qinfo,
		.enabledExtensionCount = opts ? opts->device_extension_count : 0,
		.ppEnabledExtensionNames = opts ? opts->device_extensions : NULL,
		.pEnabledFeatures = opts && opts->features ? &ctx->features : NULL,
	};
	VKC_CHECK(vkCreateDevice(ctx->physical_device, &dinfo, NULL, &ctx->device));
#ifdef HESPER_TEST_VOLK
	if (!opts || !opts->no_volk_device)
		volkLoadDevice(ctx->device);
#endif
	ctx->queue_count = want;
	for (uint32_t i = 0; i < want; i++)
		vkGetDeviceQueue(ctx->device, ctx->queue_family, i, &ctx->queues[i]);
	ctx->queue = ctx->queues[0];
	if (ctx->other_family != UINT32_MAX)
		vkGetDeviceQueue(ctx->device, ctx->other_family, 0, &ctx->other_queue);

	VkCommandPoolCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = ctx->queue_family,
	};
	VKC_CHECK(vkCreateCommandPool(ctx->device, &pinfo, NULL, &ctx->cmd_pool));
}

void vkc_init(struct vkc_ctx *ctx, const char *app_name)
{
	vkc_init_opts(ctx, app_name, NULL);
}

void vkc_init_opts(struct vkc_ctx *ctx, const char *app_name, const struct vkc_options *opts)
{
	memset(ctx, 0, sizeof(*ctx));
	/* as programs that follow the user's locale do (a decimal comma in de_DE): said on stderr */
	if (getenv("TEST_SETLOCALE")) {
		const char *set = setlocale(LC_ALL, "");
		fprintf(stderr, "vkc: locale %s, decimal point '%s'\n", set ? set : "(not set)",
			localeconv()->decimal_point);
	}
#ifdef HESPER_TEST_VOLK
	VKC_CHECK(volkInitialize());
#endif
	create_instance(ctx, app_name, opts);
	pick_physical_device(ctx);
	pick_queue_family(ctx);
	create_device(ctx, opts);

	if (vkc_provoke_validation()) {
		/* A deliberate, harmless usage error: reserved fence flags (VUID-VkFenceCreateInfo-flags-parameter). */
		VkFence fence;
		VkFenceCreateInfo finfo = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = 0x100 };

		VKC_CHECK(vkCreateFence(ctx->device, &finfo, NULL, &fence));
		vkDestroyFence(ctx->device, fence, NULL);
	}
}

void vkc_init_device(struct vkc_ctx *ctx, const struct vkc_ctx *from, const struct vkc_options *opts)
{
	*ctx = *from;
	ctx->device = VK_NULL_HANDLE;
	ctx->cmd_pool = VK_NULL_HANDLE;
	memset(ctx->queues, 0, sizeof(ctx->queues));
	create_device(ctx, opts);
}

void vkc_finish_device(struct vkc_ctx *ctx)
{
	VKC_CHECK(vkDeviceWaitIdle(ctx->device));
	vkDestroyCommandPool(ctx->device, ctx->cmd_pool, NULL);
	vkDestroyDevice(ctx->device, NULL);
	ctx->device = VK_NULL_HANDLE;
	ctx->cmd_pool = VK_NULL_HANDLE;
}

bool vkc_provoke_validation(void)
{
	return vkc_env_u32("TEST_PROVOKE_VALIDATION", 0) != 0;
}

void vkc_finish(struct vkc_ctx *ctx)
{
	VKC_CHECK(vkDeviceWaitIdle(ctx->device));
	vkDestroyCommandPool(ctx->device, ctx->cmd_pool, NULL);
	vkDestroyDevice(ctx->device, NULL);
	vkDestroyInstance(ctx->instance, NULL);
	memset(ctx, 0, sizeof(*ctx));
	/* as programs that change directory before they exit do: reports must not follow them */
	const char *dir = getenv("TEST_CHDIR_AT_END");
	if (dir && chdir(dir) != 0)
		vkc_fail("cannot change directory to %s: %s", dir, strerror(errno));
}

uint32_t vkc_memory_type(const struct vkc_ctx *ctx, uint32_t type_bits, VkMemoryPropertyFlags flags)
{
	for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++)
		if ((type_bits & (1u << i)) && (ctx->mem_props.memoryTypes[i].propertyFlags & flags) == flags)
			return i;
	vkc_fail("no memory type with the properties 0x%x", (unsigned)flags);
}

void vkc_buffer_create(struct vkc_ctx *ctx, struct vkc_buffer *buf, VkDeviceSize size, VkBufferUsageFlags extra_usage)
{
	VkMemoryRequirements req;

	memset(buf, 0, sizeof(*buf));
	buf->size = size;
	VkBufferCreateInfo binfo = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | extra_usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VKC_CHECK(vkCreateBuffer(ctx->device, &binfo, NULL, &buf->buffer));
	vkGetBufferMemoryRequirements(ctx->device, buf->buffer, &req);
	VkMemoryAllocateInfo ainfo = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = vkc_memory_type(ctx, req.memoryTypeBits,
						   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
							   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT),
	};
	VKC_CHECK(vkAllocateMemory(ctx->device, &ainfo, NULL, &buf->memory));
	VKC_CHECK(vkBindBufferMemory(ctx->device, buf->buffer, buf->memory, 0));
	VKC_CHECK(vkMapMemory(ctx->device, buf->memory, 0, VK_WHOLE_SIZE, 0, &buf->map));
	memset(buf->map, 0, (size_t)size);
}

void vkc_buffer_destroy(struct vkc_ctx *ctx, struct vkc_buffer *buf)
{
	vkUnmapMemory(ctx->device, buf->memory);
	vkDestroyBuffer(ctx->device, buf->buffer, NULL);
	vkFreeMemory(ctx->device, buf->memory, NULL);
	memset(buf, 0, sizeof(*buf));
}

VkShaderModule vkc_shader_module(struct vkc_ctx *ctx, const char *spv_name)
{
	const char *dir = getenv("TEST_SPV_DIR");
	char path[4096];
	FILE *f;
	long size;
	uint32_t *code;
	VkShaderModule module;

	if (!dir || !*dir)
		dir = HESPER_SPV_DIR;
	snprintf(path, sizeof(path), "%s/%s", dir, spv_name);
	f = fopen(path, "rb");
	if (!f)
		vkc_fail("cannot open %s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 || size % 4 != 0 || fseek(f, 0, SEEK_SET) != 0)
		vkc_fail("%s is not a SPIR-V file", path);
	code = malloc((size_t)size);
	if (!code)
		vkc_fail("out of memory");
	if (fread(code, 1, (size_t)size, f) != (size_t)size)
		vkc_fail("cannot read %s", path);
	fclose(f);

	VkShaderModuleCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = (size_t)size,
		.pCode = code,
	};
	VKC_CHECK(vkCreateShaderModule(ctx->device, &info, NULL, &module));
	free(code);
	return module;
}

VkDescriptorSetLayout vkc_set_layout(struct vkc_ctx *ctx, uint32_t n)
{
	VkDescriptorSetLayoutBinding bindings[8];
	VkDescriptorSetLayout layout;

	if (n > 8)
		vkc_fail("too many bindings");
	for (uint32_t i = 0; i < n; i++)
		bindings[i] = (VkDescriptorSetLayoutBinding){
			.binding = i,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = 1,
			.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	VkDescriptorSetLayoutCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = n,
		.pBindings = bindings,
	};
	VKC_CHECK(vkCreateDescriptorSetLayout(ctx->device, &info, NULL, &layout));
	return layout;
}

VkPipelineLayout vkc_pipeline_layout(struct vkc_ctx *ctx, VkDescriptorSetLayout set_layout, uint32_t push_bytes)
{
	VkPipelineLayout layout;
	VkPushConstantRange range = {
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		.offset = 0,
		.size = push_bytes,
	};
	VkPipelineLayoutCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &set_layout,
		.pushConstantRangeCount = push_bytes ? 1 : 0,
		.pPushConstantRanges = &range,
	};
	VKC_CHECK(vkCreatePipelineLayout(ctx->device, &info, NULL, &layout));
	return layout;
}

VkDescriptorPool vkc_descriptor_pool(struct vkc_ctx *ctx, uint32_t max_sets, uint32_t max_buffers)
{
	VkDescriptorPool pool;
	VkDescriptorPoolSize size = {
		.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.descriptorCount = max_buffers,
	};
	VkDescriptorPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = max_sets,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	VKC_CHECK(vkCreateDescriptorPool(ctx->device, &info, NULL, &pool));
	return pool;
}

VkDescriptorSet vkc_descriptor_set(struct vkc_ctx *ctx, VkDescriptorPool pool, VkDescriptorSetLayout layout,
				   struct vkc_buffer *const *bufs, uint32_t n)
{
	VkDescriptorSet set;
	VkDescriptorBufferInfo infos[8];
	VkWriteDescriptorSet writes[8];

	if (n > 8)
		vkc_fail("too many bindings");
	VkDescriptorSetAllocateInfo ainfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = pool,
		.descriptorSetCount = 1,
		.pSetLayouts = &layout,
	};
	VKC_CHECK(vkAllocateDescriptorSets(ctx->device, &ainfo, &set));
	for (uint32_t i = 0; i < n; i++) {
		infos[i] = (VkDescriptorBufferInfo){ .buffer = bufs[i]->buffer, .offset = 0, .range = VK_WHOLE_SIZE };
		writes[i] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = set,
			.dstBinding = i,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &infos[i],
		};
	}
	vkUpdateDescriptorSets(ctx->device, n, writes, 0, NULL);
	return set;
}

VkPipeline vkc_compute_pipeline(struct vkc_ctx *ctx, VkPipelineLayout layout, VkShaderModule module,
				VkPipelineCreateFlags flags)
{
	return vkc_compute_pipeline_entry(ctx, layout, module, "main", NULL, flags);
}

VkPipeline vkc_compute_pipeline_entry(struct vkc_ctx *ctx, VkPipelineLayout layout, VkShaderModule module,
				      const char *entry, const VkSpecializationInfo *spec, VkPipelineCreateFlags flags)
{
	VkPipeline pipeline;
	VkComputePipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.flags = flags,
		.stage = {
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_COMPUTE_BIT,
			.module = module,
			.pName = entry,
			.pSpecializationInfo = spec,
		},
		.layout = layout,
	};
	VKC_CHECK(vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL, &pipeline));
	return pipeline;
}

bool vkc_name_pipeline(struct vkc_ctx *ctx, VkPipeline pipeline, const char *name)
{
	if (!ctx->has_debug_utils)
		return false;
	VkDebugUtilsObjectNameInfoEXT info = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
		.objectType = VK_OBJECT_TYPE_PIPELINE,
		.objectHandle = (uint64_t)pipeline,
		.pObjectName = name,
	};
	VKC_CHECK(ctx->set_object_name(ctx->device, &info));
	return true;
}

bool vkc_label_begin(struct vkc_ctx *ctx, VkCommandBuffer cmd, const char *name)
{
	if (!ctx->has_debug_utils)
		return false;
	VkDebugUtilsLabelEXT label = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
		.pLabelName = name,
	};
	ctx->cmd_begin_label(cmd, &label);
	return true;
}

void vkc_label_end(struct vkc_ctx *ctx, VkCommandBuffer cmd)
{
	if (ctx->has_debug_utils)
		ctx->cmd_end_label(cmd);
}

VkCommandBuffer vkc_command_buffer(struct vkc_ctx *ctx)
{
	return vkc_command_buffer_from(ctx, ctx->cmd_pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
}

VkCommandBuffer vkc_command_buffer_from(struct vkc_ctx *ctx, VkCommandPool pool, VkCommandBufferLevel level)
{
	VkCommandBuffer cmd;
	VkCommandBufferAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = level,
		.commandBufferCount = 1,
	};
	VKC_CHECK(vkAllocateCommandBuffers(ctx->device, &info, &cmd));
	return cmd;
}

void vkc_begin(VkCommandBuffer cmd, VkCommandBufferUsageFlags flags)
{
	VkCommandBufferBeginInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = flags,
	};
	VKC_CHECK(vkBeginCommandBuffer(cmd, &info));
}

void vkc_end(VkCommandBuffer cmd)
{
	VKC_CHECK(vkEndCommandBuffer(cmd));
}

void vkc_barrier(VkCommandBuffer cmd)
{
	VkMemoryBarrier barrier = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
				 VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
			     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
				     VK_PIPELINE_STAGE_HOST_BIT,
			     0, 1, &barrier, 0, NULL, 0, NULL);
}

VkFence vkc_fence(struct vkc_ctx *ctx)
{
	VkFence fence;
	VkFenceCreateInfo info = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };

	VKC_CHECK(vkCreateFence(ctx->device, &info, NULL, &fence));
	return fence;
}

void vkc_wait_fence(struct vkc_ctx *ctx, VkFence fence)
{
	/* VKC_FENCE_TIMEOUT_MS bounds the wait, so a fence that is never signalled ends the run with what the driver says. */
	uint32_t timeout_ms = vkc_env_u32("VKC_FENCE_TIMEOUT_MS", 0);
	VkResult r = vkWaitForFences(ctx->device, 1, &fence, VK_TRUE,
				     timeout_ms ? timeout_ms * 1000000ull : UINT64_MAX);
	if (r == VK_TIMEOUT) {
		/* One thread ends the process; others that time out too wait for that. */
		static atomic_flag failing = ATOMIC_FLAG_INIT;
		if (atomic_flag_test_and_set(&failing))
			for (;;)
				pause();
		vkc_fail("fence not signalled after %u ms; vkGetFenceStatus returns %d", timeout_ms,
			 (int)vkGetFenceStatus(ctx->device, fence));
	}
	VKC_CHECK(r);
	VKC_CHECK(vkResetFences(ctx->device, 1, &fence));
}

void vkc_submit_wait(struct vkc_ctx *ctx, VkCommandBuffer cmd, VkFence fence)
{
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &cmd,
	};
	VKC_CHECK(vkQueueSubmit(ctx->queue, 1, &submit, fence));
	vkc_wait_fence(ctx, fence);
}

void vkc_timer_create(struct vkc_ctx *ctx, struct vkc_timer *t, uint32_t pairs)
{
	if (ctx->timestamp_valid_bits == 0)
		vkc_fail("queue family %u has no timestamps", ctx->queue_family);
	VkQueryPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 2 * pairs,
	};
	VKC_CHECK(vkCreateQueryPool(ctx->device, &info, NULL, &t->pool));
	t->pairs = pairs;
}

void vkc_timer_destroy(struct vkc_ctx *ctx, struct vkc_timer *t)
{
	vkDestroyQueryPool(ctx->device, t->pool, NULL);
	t->pool = VK_NULL_HANDLE;
}

void vkc_timer_reset(VkCommandBuffer cmd, const struct vkc_timer *t, uint32_t first, uint32_t count)
{
	vkCmdResetQueryPool(cmd, t->pool, 2 * first, 2 * count);
}

void vkc_timer_mark(VkCommandBuffer cmd, const struct vkc_timer *t, uint32_t pair, bool end)
{
	vkCmdWriteTimestamp(cmd, end ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
			    t->pool, 2 * pair + (end ? 1 : 0));
}

void vkc_timer_read(struct vkc_ctx *ctx, const struct vkc_timer *t, uint32_t first, uint32_t count, double *out_ns)
{
	uint64_t ticks[2 * 64];
	uint32_t bits = ctx->timestamp_valid_bits;
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;

	if (count > 64)
		vkc_fail("too many timer pairs in one read");
	VKC_CHECK(vkGetQueryPoolResults(ctx->device, t->pool, 2 * first, 2 * count, sizeof(ticks), ticks,
					sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
	for (uint32_t i = 0; i < count; i++)
		out_ns[i] = (double)((ticks[2 * i + 1] - ticks[2 * i]) & mask) * ctx->props.limits.timestampPeriod;
}

/* The ground-truth line under construction. */
static char truth_line[8192];
static size_t truth_len;
static unsigned truth_kernels;
static unsigned truth_regions;

/* Appends printf-formatted text to the truth line. */
static void __attribute__((format(printf, 1, 2))) truth_append(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(truth_line + truth_len, sizeof(truth_line) - truth_len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(truth_line) - truth_len)
		vkc_fail("truth line too long");
	truth_len += (size_t)n;
}

/* Appends @s as a JSON string, or null. Test names hold no characters needing escapes. */
static void truth_string(const char *s)
{
	if (s)
		truth_append("\"%s\"", s);
	else
		truth_append("null");
}

/* vkc_truth_isolated's count, or -1 when not given. */
static int64_t truth_isolated = -1;

void vkc_truth_begin(const char *program)
{
	truth_len = 0;
	truth_kernels = 0;
	truth_regions = 0;
	truth_isolated = -1;
	truth_append("{\"program\":");
	truth_string(program);
	truth_append(",\"kernels\":[");
}

void vkc_truth_kernel(const char *spv, const char *source, const char *debug_name, bool source_named, uint64_t count,
		      double own_mean_ns)
{
	truth_append("%s{\"spv\":", truth_kernels++ ? "," : "");
	truth_string(spv);
	truth_append(",\"source\":");
	truth_string(source);
	truth_append(",\"debug_name\":");
	truth_string(debug_name);
	truth_append(",\"source_named\":%s,\"count\":%llu,\"own_mean_ns\":", source_named ? "true" : "false",
		     (unsigned long long)count);
	if (own_mean_ns >= 0)
		truth_append("%.1f", own_mean_ns);
	else
		truth_append("null");
	truth_append("}");
}

void vkc_truth_region(const char *name, uint64_t count)
{
	truth_append("%s", truth_regions++ ? "," : "],\"regions\":[");
	truth_append("{\"name\":");
	truth_string(name);
	truth_append(",\"count\":%llu}", (unsigned long long)count);
}

void vkc_truth_isolated(uint64_t count)
{
	truth_isolated = (int64_t)count;
}

void vkc_truth_end(bool validation_expected_clean)
{
	truth_append("]");
	if (truth_isolated >= 0)
		truth_append(",\"isolated\":%lld", (long long)truth_isolated);
	truth_append(",\"validation_expected_clean\":%s}", validation_expected_clean ? "true" : "false");
	printf("HESPER-TRUTH %s\n", truth_line);
	fflush(stdout);
}
