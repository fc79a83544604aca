/*
 * occupancy_probe: how many work groups of a kernel an SM holds at once, measured, for
 * holding Hesper's theoretical occupancy (docs/findings.md#occupancy) to the hardware. For
 * each SPIR-V file of shaders/occupancy.comp given, a compute pipeline named after the file
 * (VK_EXT_debug_utils, so that Hesper's report names it so too), one dispatch of GROUPS work
 * groups, and the largest number of them seen resident on one SM (the shader's count, by
 * gl_SMIDNV). bench/occupancy-check runs it under Hesper and compares.
 *
 *   occupancy_probe GROUPS FILE.spv...
 *
 * Prints "PROBE NAME: resident groups per SM measured N (lowest SM M), S SMs seen" per file.
 * Exit 0; 77 when the device lacks VK_NV_shader_sm_builtins or VK_KHR_shader_clock (the
 * shader reads the SM's id and the device clock); 2 on a Vulkan error.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define EXIT_SKIP 77
#define EXIT_VULKAN 2

#define CHECK(x)                                                                     \
	do {                                                                         \
		VkResult r_ = (x);                                                   \
		if (r_ != VK_SUCCESS) {                                              \
			fprintf(stderr, "occupancy_probe: %s failed: %d\n", #x, r_); \
			exit(EXIT_VULKAN);                                           \
		}                                                                    \
	} while (0)

/* Whether @phys offers device extension @name. */
static bool offers(VkPhysicalDevice phys, const char *name)
{
	uint32_t n = 0;
	bool found = false;
	if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS || !n)
		return false;
	VkExtensionProperties *props = calloc(n, sizeof(*props));
	if (props && vkEnumerateDeviceExtensionProperties(phys, NULL, &n, props) >= 0)
		for (uint32_t i = 0; i < n && !found; i++)
			found = strcmp(props[i].extensionName, name) == 0;
	free(props);
	return found;
}

/* The SPIR-V of @path, its size in *@size; exits on failure. */
static uint32_t *load(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long len;
	if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "occupancy_probe: cannot read %s\n", path);
		exit(1);
	}
	*size = (size_t)len;
	uint32_t *code = malloc(*size);
	if (!code || fread(code, 1, *size, f) != *size) {
		fprintf(stderr, "occupancy_probe: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return code;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: occupancy_probe GROUPS FILE.spv...\n");
		return 1;
	}
	uint32_t groups = (uint32_t)strtoul(argv[1], NULL, 10);
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2};
	const char *iext[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
	VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				   .pApplicationInfo = &app,
				   .enabledExtensionCount = 1,
				   .ppEnabledExtensionNames = iext};
	VkInstance inst;
	CHECK(vkCreateInstance(&ii, NULL, &inst));
	uint32_t n = 1;
	VkPhysicalDevice phys;
	VkResult got = vkEnumeratePhysicalDevices(inst, &n, &phys);
	if ((got != VK_SUCCESS && got != VK_INCOMPLETE) || !n) {
		fprintf(stderr, "occupancy_probe: no Vulkan device\n");
		return EXIT_VULKAN;
	}
	VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smp = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
	VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &smp};
	vkGetPhysicalDeviceProperties2(phys, &p2);
	if (!offers(phys, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME) ||
	    !offers(phys, VK_KHR_SHADER_CLOCK_EXTENSION_NAME)) {
		printf("occupancy_probe: %s lacks VK_NV_shader_sm_builtins or VK_KHR_shader_clock: skipped\n",
		       p2.properties.deviceName);
		return EXIT_SKIP;
	}
	printf("device %s: %u SMs, %u warps per SM, maxComputeSharedMemorySize %u\n", p2.properties.deviceName,
	       smp.shaderSMCount, smp.shaderWarpsPerSM, p2.properties.limits.maxComputeSharedMemorySize);

	uint32_t qf = 0, nq = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
	VkQueueFamilyProperties qp[16];
	nq = nq < 16 ? nq : 16;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qp);
	for (uint32_t i = 0; i < nq; i++)
		if (qp[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
			qf = i;
			break;
		}
	float prio = 1;
	VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
				      .queueFamilyIndex = qf,
				      .queueCount = 1,
				      .pQueuePriorities = &prio};
	VkPhysicalDeviceShaderClockFeaturesKHR clockf = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR, .shaderDeviceClock = VK_TRUE};
	VkPhysicalDeviceShaderSMBuiltinsFeaturesNV smf = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV,
		.pNext = &clockf,
		.shaderSMBuiltins = VK_TRUE};
	const char *dext[] = {VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME, VK_KHR_SHADER_CLOCK_EXTENSION_NAME};
	VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
				 .pNext = &smf,
				 .queueCreateInfoCount = 1,
				 .pQueueCreateInfos = &qi,
				 .enabledExtensionCount = 2,
				 .ppEnabledExtensionNames = dext};
	VkDevice dev;
	CHECK(vkCreateDevice(phys, &di, NULL, &dev));
	VkQueue queue;
	vkGetDeviceQueue(dev, qf, 0, &queue);
	PFN_vkSetDebugUtilsObjectNameEXT name_it = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetDeviceProcAddr(
		dev, "vkSetDebugUtilsObjectNameEXT");

	VkDeviceSize size = (512 + (VkDeviceSize)groups * 64) * 4;
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				 .size = size,
				 .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
	VkBuffer buf;
	CHECK(vkCreateBuffer(dev, &bi, NULL, &buf));
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(dev, buf, &mr);
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	uint32_t mt = 0;
	VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
		if ((mr.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
			mt = i;
			break;
		}
	VkMemoryAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size, .memoryTypeIndex = mt};
	VkDeviceMemory mem;
	CHECK(vkAllocateMemory(dev, &ai, NULL, &mem));
	CHECK(vkBindBufferMemory(dev, buf, mem, 0));
	uint32_t *counts;
	CHECK(vkMapMemory(dev, mem, 0, size, 0, (void **)&counts));

	VkDescriptorSetLayoutBinding b = {.binding = 0,
					  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
					  .descriptorCount = 1,
					  .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
	VkDescriptorSetLayoutCreateInfo li = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &b};
	VkDescriptorSetLayout sl;
	CHECK(vkCreateDescriptorSetLayout(dev, &li, NULL, &sl));
	VkPipelineLayoutCreateInfo pli = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &sl};
	VkPipelineLayout pl;
	CHECK(vkCreatePipelineLayout(dev, &pli, NULL, &pl));
	VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
	VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
					  .maxSets = 1,
					  .poolSizeCount = 1,
					  .pPoolSizes = &ps};
	VkDescriptorPool dp;
	CHECK(vkCreateDescriptorPool(dev, &dpi, NULL, &dp));
	VkDescriptorSetAllocateInfo dsi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
					   .descriptorPool = dp,
					   .descriptorSetCount = 1,
					   .pSetLayouts = &sl};
	VkDescriptorSet ds;
	CHECK(vkAllocateDescriptorSets(dev, &dsi, &ds));
	VkDescriptorBufferInfo dbi = {buf, 0, VK_WHOLE_SIZE};
	VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
				  .dstSet = ds,
				  .descriptorCount = 1,
				  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
				  .pBufferInfo = &dbi};
	vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
	VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
				       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
				       .queueFamilyIndex = qf};
	VkCommandPool cp;
	CHECK(vkCreateCommandPool(dev, &cpi, NULL, &cp));
	VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					   .commandPool = cp,
					   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					   .commandBufferCount = 1};
	VkCommandBuffer cb;
	CHECK(vkAllocateCommandBuffers(dev, &cai, &cb));
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence fence;
	CHECK(vkCreateFence(dev, &fi, NULL, &fence));

	for (int a = 2; a < argc; a++) {
		size_t code_size;
		uint32_t *code = load(argv[a], &code_size);
		VkShaderModuleCreateInfo mi = {
			.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = code_size, .pCode = code};
		VkShaderModule sm;
		CHECK(vkCreateShaderModule(dev, &mi, NULL, &sm));
		VkComputePipelineCreateInfo ci = {
			.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
			.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
				  .module = sm,
				  .pName = "main"},
			.layout = pl};
		VkPipeline pipe;
		CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, NULL, &pipe));
		const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
		char label[128];
		snprintf(label, sizeof(label), "%.*s", (int)(strcspn(base, ".")), base);
		VkDebugUtilsObjectNameInfoEXT ni = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
						    .objectType = VK_OBJECT_TYPE_PIPELINE,
						    .objectHandle = (uint64_t)pipe,
						    .pObjectName = label};
		if (name_it)
			name_it(dev, &ni);
		/* live and peak start at 0 for every kernel */
		memset(counts, 0, 512 * 4);
		VkCommandBufferBeginInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
		CHECK(vkResetCommandBuffer(cb, 0));
		CHECK(vkBeginCommandBuffer(cb, &cbi));
		vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
		vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &ds, 0, NULL);
		vkCmdDispatch(cb, groups, 1, 1);
		CHECK(vkEndCommandBuffer(cb));
		VkSubmitInfo si = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
		CHECK(vkQueueSubmit(queue, 1, &si, fence));
		CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, 10000000000ull));
		CHECK(vkResetFences(dev, 1, &fence));
		uint32_t peak = 0, sms = 0, low = ~0u;
		for (int s = 0; s < 256; s++)
			if (counts[256 + s]) {
				sms++;
				if (counts[256 + s] > peak)
					peak = counts[256 + s];
				if (counts[256 + s] < low)
					low = counts[256 + s];
			}
		printf("PROBE %s: resident groups per SM measured %u (lowest SM %u), %u SMs seen\n", label, peak, low,
		       sms);
		vkDestroyPipeline(dev, pipe, NULL);
		vkDestroyShaderModule(dev, sm, NULL);
		free(code);
	}
	vkDeviceWaitIdle(dev);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
