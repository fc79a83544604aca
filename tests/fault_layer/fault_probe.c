/*
 * fault_probe: proves the fault layer (fault_layer.c) before it judges Hesper. Raw Vulkan,
 * every result printed, nothing fatal but setup failures (exit 2).
 *
 *   fault_probe bits        one line per queue family:
 *                           "family I bits A B C" from vkGetPhysicalDeviceQueueFamilyProperties,
 *                           ...2 and ...2KHR
 *   fault_probe timestamp   writes one timestamp on queue family 0 whatever its valid bits
 *                           (invalid use when it has none: the validation layer must say so)
 *   fault_probe lost        ROUNDS rounds of one empty batch (signalling a fence and a
 *                           timeline semaphore) submitted with vkQueueSubmit,
 *                           vkQueueSubmit2, vkQueueSubmit2KHR in turn, each followed by
 *                           every kind of wait; one line per round:
 *                           "round I submit R fence_wait R fence_status R sem_wait R
 *                            sem_wait_khr R sem_value R sem_value_khr R queue_idle R device_idle R"
 *                           (R: the VkResult as a number)
 *   fault_probe queryread   (for FAULT_SERIALIZE_QUERY_READS=1) writes two timestamps and
 *                           copies them with vkCmdCopyQueryPoolResults into host memory;
 *                           then reads them READS times with vkGetQueryPoolResults while a
 *                           second thread submits empty batches on the queue (the use that
 *                           races inside lavapipe unless the layer serializes it); one line:
 *                           "queryread reads N mismatches M zero Z order O available A submits S"
 *                           (M: reads whose values or availability differ from the copy;
 *                            Z: 1 when a copied timestamp is 0; O: 1 when the second is
 *                            earlier than the first; A: 1 when the copy says both are
 *                            available; S: the other thread's submits)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#define ROUNDS 5
#define READS 2000

#define CHECK(expr)                                                                      \
	do {                                                                             \
		VkResult r_ = (expr);                                                    \
		if (r_ != VK_SUCCESS) {                                                  \
			fprintf(stderr, "fault_probe: %s failed: %d\n", #expr, (int)r_); \
			exit(2);                                                         \
		}                                                                        \
	} while (0)

static VkInstance instance;
static VkPhysicalDevice phys;

static void create_instance(void)
{
	const char *ext[] = {VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME};
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "fault_probe",
		.apiVersion = VK_API_VERSION_1_3,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledExtensionCount = 1,
		.ppEnabledExtensionNames = ext,
	};
	CHECK(vkCreateInstance(&info, NULL, &instance));
	uint32_t n = 1;
	VkResult r = vkEnumeratePhysicalDevices(instance, &n, &phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
		fprintf(stderr, "fault_probe: no physical device\n");
		exit(2);
	}
}

static int probe_bits(void)
{
	PFN_vkGetPhysicalDeviceQueueFamilyProperties2KHR khr = (PFN_vkGetPhysicalDeviceQueueFamilyProperties2KHR)
		vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceQueueFamilyProperties2KHR");
	if (!khr) {
		fprintf(stderr, "fault_probe: no vkGetPhysicalDeviceQueueFamilyProperties2KHR\n");
		return 2;
	}
	uint32_t n = 0, n2 = 0, n3 = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, NULL);
	vkGetPhysicalDeviceQueueFamilyProperties2(phys, &n2, NULL);
	khr(phys, &n3, NULL);
	if (n == 0 || n != n2 || n != n3 || n > 16) {
		fprintf(stderr, "fault_probe: family counts %u %u %u\n", n, n2, n3);
		return 2;
	}
	VkQueueFamilyProperties p1[16];
	VkQueueFamilyProperties2 p2[16], p3[16];
	for (uint32_t i = 0; i < n; i++) {
		p2[i] = (VkQueueFamilyProperties2){.sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2};
		p3[i] = p2[i];
	}
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, p1);
	vkGetPhysicalDeviceQueueFamilyProperties2(phys, &n2, p2);
	khr(phys, &n3, p3);
	for (uint32_t i = 0; i < n; i++)
		printf("family %u bits %u %u %u\n", i, p1[i].timestampValidBits,
		       p2[i].queueFamilyProperties.timestampValidBits, p3[i].queueFamilyProperties.timestampValidBits);
	return 0;
}

static VkDevice device;
static VkQueue queue;

static void create_device(void)
{
	static VkPhysicalDeviceVulkan13Features f13 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
		.synchronization2 = VK_TRUE,
	};
	static VkPhysicalDeviceVulkan12Features f12 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		.pNext = &f13,
		.timelineSemaphore = VK_TRUE,
	};
	const char *ext[] = {VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME};
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = 0,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = &f12,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qinfo,
		.enabledExtensionCount = 2,
		.ppEnabledExtensionNames = ext,
	};
	CHECK(vkCreateDevice(phys, &info, NULL, &device));
	vkGetDeviceQueue(device, 0, 0, &queue);
}

static VkCommandPool pool;

static VkCommandBuffer command_buffer(void)
{
	VkCommandPoolCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.queueFamilyIndex = 0,
	};
	CHECK(vkCreateCommandPool(device, &pinfo, NULL, &pool));
	VkCommandBufferAllocateInfo ainfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkCommandBuffer cb;
	CHECK(vkAllocateCommandBuffers(device, &ainfo, &cb));
	return cb;
}

static int probe_timestamp(void)
{
	create_device();
	VkCommandBuffer cb = command_buffer();
	VkQueryPoolCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 1,
	};
	VkQueryPool qp;
	CHECK(vkCreateQueryPool(device, &qinfo, NULL, &qp));
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	CHECK(vkBeginCommandBuffer(cb, &begin));
	vkCmdResetQueryPool(cb, qp, 0, 1);
	vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 0);
	CHECK(vkEndCommandBuffer(cb));
	VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
	CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
	CHECK(vkQueueWaitIdle(queue));
	printf("timestamp written\n");
	vkDestroyQueryPool(device, qp, NULL);
	vkDestroyCommandPool(device, pool, NULL);
	vkDestroyDevice(device, NULL);
	return 0;
}

static uint32_t host_visible_type(uint32_t bits)
{
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
			return i;
	fprintf(stderr, "fault_probe: no host-visible coherent memory type\n");
	exit(2);
}

static atomic_bool reads_done;

/* The other thread of probe_queryread: empty submissions on the queue until the reads end. */
static void *empty_submits(void *arg)
{
	unsigned long *n = arg;
	while (!atomic_load(&reads_done)) {
		CHECK(vkQueueSubmit(queue, 0, NULL, VK_NULL_HANDLE));
		++*n;
	}
	return NULL;
}

static int probe_queryread(void)
{
	create_device();
	VkCommandBuffer cb = command_buffer();
	VkQueryPoolCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 2,
	};
	VkQueryPool qp;
	CHECK(vkCreateQueryPool(device, &qinfo, NULL, &qp));
	/* Per query: the value, then its availability (64-bit each). */
	const VkDeviceSize stride = 2 * sizeof(uint64_t), size = 2 * stride;
	VkBufferCreateInfo binfo = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	};
	VkBuffer buf;
	CHECK(vkCreateBuffer(device, &binfo, NULL, &buf));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(device, buf, &req);
	VkMemoryAllocateInfo ainfo = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = host_visible_type(req.memoryTypeBits),
	};
	VkDeviceMemory mem;
	CHECK(vkAllocateMemory(device, &ainfo, NULL, &mem));
	CHECK(vkBindBufferMemory(device, buf, mem, 0));
	void *mapped;
	CHECK(vkMapMemory(device, mem, 0, VK_WHOLE_SIZE, 0, &mapped));

	VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT |
				   VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	CHECK(vkBeginCommandBuffer(cb, &begin));
	vkCmdResetQueryPool(cb, qp, 0, 2);
	vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
	vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
	vkCmdCopyQueryPoolResults(cb, qp, 0, 2, buf, 0, stride, flags);
	VkMemoryBarrier host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0,
			     NULL);
	CHECK(vkEndCommandBuffer(cb));
	VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
	CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
	CHECK(vkQueueWaitIdle(queue));
	uint64_t copied[4];
	memcpy(copied, mapped, sizeof copied);

	/* From here on the queue belongs to the other thread; this one only reads. */
	unsigned long submits = 0, mismatches = 0;
	pthread_t t;
	if (pthread_create(&t, NULL, empty_submits, &submits) != 0) {
		fprintf(stderr, "fault_probe: pthread_create failed\n");
		return 2;
	}
	for (int i = 0; i < READS; i++) {
		uint64_t got[4] = {0};
		VkResult r = vkGetQueryPoolResults(device, qp, 0, 2, sizeof got, got, stride, flags);
		if (r != VK_SUCCESS || memcmp(got, copied, sizeof got) != 0)
			mismatches++;
	}
	atomic_store(&reads_done, true);
	pthread_join(t, NULL);
	CHECK(vkQueueWaitIdle(queue));
	printf("queryread reads %d mismatches %lu zero %d order %d available %d submits %lu\n", READS, mismatches,
	       copied[0] == 0 || copied[2] == 0, copied[2] < copied[0], copied[1] != 0 && copied[3] != 0, submits);
	vkUnmapMemory(device, mem);
	vkDestroyBuffer(device, buf, NULL);
	vkFreeMemory(device, mem, NULL);
	vkDestroyQueryPool(device, qp, NULL);
	vkDestroyCommandPool(device, pool, NULL);
	vkDestroyDevice(device, NULL);
	return 0;
}

static int probe_lost(void)
{
	create_device();
	PFN_vkQueueSubmit2KHR submit2_khr = (PFN_vkQueueSubmit2KHR)vkGetDeviceProcAddr(device, "vkQueueSubmit2KHR");
	PFN_vkWaitSemaphoresKHR wait_khr = (PFN_vkWaitSemaphoresKHR)vkGetDeviceProcAddr(device, "vkWaitSemaphoresKHR");
	PFN_vkGetSemaphoreCounterValueKHR value_khr = (PFN_vkGetSemaphoreCounterValueKHR)vkGetDeviceProcAddr(
		device, "vkGetSemaphoreCounterValueKHR");
	if (!submit2_khr || !wait_khr || !value_khr) {
		fprintf(stderr, "fault_probe: a KHR entry point is missing\n");
		return 2;
	}
	VkFenceCreateInfo finfo = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence fence;
	CHECK(vkCreateFence(device, &finfo, NULL, &fence));
	VkSemaphoreTypeCreateInfo type = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
	};
	VkSemaphoreCreateInfo sinfo = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
	VkSemaphore timeline;
	CHECK(vkCreateSemaphore(device, &sinfo, NULL, &timeline));

	for (uint64_t round = 1; round <= ROUNDS; round++) {
		VkResult submit;
		vkResetFences(device, 1, &fence);
		if (round % 3 == 1) {
			VkTimelineSemaphoreSubmitInfo tinfo = {
				.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
				.signalSemaphoreValueCount = 1,
				.pSignalSemaphoreValues = &round,
			};
			VkSubmitInfo info = {
				.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
				.pNext = &tinfo,
				.signalSemaphoreCount = 1,
				.pSignalSemaphores = &timeline,
			};
			submit = vkQueueSubmit(queue, 1, &info, fence);
		} else {
			VkSemaphoreSubmitInfo signal = {
				.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
				.semaphore = timeline,
				.value = round,
				.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
			};
			VkSubmitInfo2 info = {
				.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
				.signalSemaphoreInfoCount = 1,
				.pSignalSemaphoreInfos = &signal,
			};
			submit = round % 3 == 2 ? vkQueueSubmit2(queue, 1, &info, fence)
						: submit2_khr(queue, 1, &info, fence);
		}
		/* After a refused submit nothing will signal: wait with a zero timeout. */
		uint64_t timeout = submit == VK_SUCCESS ? UINT64_MAX : 0;
		VkSemaphoreWaitInfo winfo = {
			.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
			.semaphoreCount = 1,
			.pSemaphores = &timeline,
			.pValues = &round,
		};
		VkResult fence_wait = vkWaitForFences(device, 1, &fence, VK_TRUE, timeout);
		VkResult fence_status = vkGetFenceStatus(device, fence);
		VkResult sem_wait = vkWaitSemaphores(device, &winfo, timeout);
		VkResult sem_wait_khr = wait_khr(device, &winfo, timeout);
		uint64_t value = 0;
		VkResult sem_value = vkGetSemaphoreCounterValue(device, timeline, &value);
		VkResult sem_value_khr = value_khr(device, timeline, &value);
		VkResult queue_idle = vkQueueWaitIdle(queue);
		VkResult device_idle = vkDeviceWaitIdle(device);
		printf("round %llu submit %d fence_wait %d fence_status %d sem_wait %d sem_wait_khr %d sem_value %d "
		       "sem_value_khr %d queue_idle %d device_idle %d\n",
		       (unsigned long long)round, submit, fence_wait, fence_status, sem_wait, sem_wait_khr, sem_value,
		       sem_value_khr, queue_idle, device_idle);
	}
	vkDestroySemaphore(device, timeline, NULL);
	vkDestroyFence(device, fence, NULL);
	vkDestroyDevice(device, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	int rc;
	create_instance();
	if (!strcmp(what, "bits"))
		rc = probe_bits();
	else if (!strcmp(what, "timestamp"))
		rc = probe_timestamp();
	else if (!strcmp(what, "lost"))
		rc = probe_lost();
	else if (!strcmp(what, "queryread"))
		rc = probe_queryread();
	else {
		fprintf(stderr, "usage: fault_probe bits|timestamp|lost|queryread\n");
		rc = 2;
	}
	vkDestroyInstance(instance, NULL);
	fflush(stdout);
	return rc;
}
