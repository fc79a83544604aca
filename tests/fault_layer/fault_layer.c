/*
 * fault_layer: a Vulkan layer that makes a healthy device look broken in two ways real
 * hardware does and lavapipe never does. Meant to sit BELOW Hesper (between Hesper and
 * the driver); it shares no code with Hesper and only passes calls through, changing
 * what they return.
 *
 *   FAULT_NO_TIMESTAMPS=1
 *       vkGetPhysicalDeviceQueueFamilyProperties, ...2 and ...2KHR report
 *       timestampValidBits = 0 for every queue family: no family has timestamps.
 *
 *   FAULT_DEVICE_LOST_AFTER=N [FAULT_DEVICE_LOST_MODE=completion|next_submit]
 *                             [FAULT_DEVICE_LOST_GRACE_MS=MS]
 *       The first N vkQueueSubmit / vkQueueSubmit2 / vkQueueSubmit2KHR calls of each
 *       device pass through; then the device is lost:
 *         completion (default): the N-th call, once passed, waits for its queue to go
 *             idle (so that work really ran) and marks the device lost before it returns
 *             VK_SUCCESS. Every wait of the program that follows fails.
 *         next_submit: the (N+1)-th call waits for the queue to go idle, then
 *             FAULT_DEVICE_LOST_GRACE_MS (default 0) more, marks the device lost and
 *             returns VK_ERROR_DEVICE_LOST. Everything before it completed normally.
 *       Once lost: every vkQueueSubmit* returns VK_ERROR_DEVICE_LOST without submitting;
 *       vkWaitForFences, vkGetFenceStatus, vkWaitSemaphores(KHR),
 *       vkGetSemaphoreCounterValue(KHR), vkQueueWaitIdle and vkDeviceWaitIdle return
 *       VK_ERROR_DEVICE_LOST without calling down.
 *       N = 0 with completion: the first submit is already refused (nothing ran).
 *
 *   FAULT_SERIALIZE_QUERY_READS=1
 *       One mutex per device held around vkGetQueryPoolResults and around every call that
 *       touches a queue of that device: vkQueueSubmit, vkQueueSubmit2, vkQueueSubmit2KHR,
 *       vkQueueBindSparse, vkQueueWaitIdle and vkDeviceWaitIdle. Why: lavapipe (Mesa 22.3)
 *       begins vkGetQueryPoolResults with its own vkDeviceWaitIdle, which needs every
 *       queue of the device externally synchronized, though the spec asks no such thing
 *       of a query read; a read on one thread (Hesper's collector with HESPER_COPY=host)
 *       while another thread submits then races inside the driver (it crashed now and
 *       then). Tests only: it keeps that driver race out of the way of tests that check
 *       what the reads return.
 *       vkGetQueryPoolResults and vkQueueBindSparse are intercepted only in this mode.
 *       The lock is held while the call waits: a vkQueueWaitIdle, vkDeviceWaitIdle or
 *       query read (lavapipe's idle wait, or VK_QUERY_RESULT_WAIT_BIT) keeps every other
 *       thread's submit on that device waiting until it returns. HAZARD: work that can
 *       only finish after a LATER queue call of the program deadlocks in this mode, e.g.
 *       a queue waiting on a semaphore that only a later submit call signals (or that a
 *       thread signals from the host after a submit of its own): the idle wait holds the
 *       lock that the submit needs. Tests must not use such patterns with this mode.
 *       vkQueuePresentKHR is not serialized (the tests run compute programs only).
 *
 *   FAULT_PIPELINE_STATS=1
 *       The device offers VK_KHR_pipeline_executable_properties, which lavapipe does not:
 *       vkEnumerateDeviceExtensionProperties lists it; vkCreateDevice takes it (and the
 *       pipelineExecutableInfo feature) out before calling down; vkCreateComputePipelines
 *       takes VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR out; and the layer answers
 *       vkGetPipelineExecutablePropertiesKHR (one executable, "Compute Shader", subgroup
 *       size 8) and vkGetPipelineExecutableStatisticsKHR with statistics a test can know:
 *       "SPIR-V words" (UINT64: the module's code size / 4), "Captured" (BOOL32: the
 *       pipeline was made with the capture flag), "Negative words" (INT64: minus the
 *       words) and "Words / 1000" (FLOAT64). With FAULT_REFUSE_CAPTURE=1 too, a
 *       vkCreateComputePipelines call asking for statistics fails with
 *       VK_ERROR_OUT_OF_DEVICE_MEMORY, creating nothing.
 *
 *   FAULT_NVIDIA_SM=1
 *       The device poses as an NVIDIA H200 for Hesper's occupancy model: vkGetPhysicalDevice
 *       Properties(2) give vendorID 0x10de and the name "NVIDIA H200 (<the driver's name>
 *       under the fault layer)"; vkEnumerateDeviceExtensionProperties lists
 *       VK_NV_shader_sm_builtins, whose properties (asked through vkGetPhysicalDevice
 *       Properties2) say 132 SMs of 64 warps. With FAULT_PIPELINE_STATS=1 too, the
 *       executable's subgroup size is 32 and two statistics follow the four above, as
 *       NVIDIA's driver names them: "Register Count" (UINT64: 8 + words % 120) and "Shared
 *       Memory Size" (UINT64: 16384 for a module of an odd number of words, else 0).
 *
 *   FAULT_LOG=1   one "fault_layer: ..." line on stderr when the device is lost, and one
 *                 with the number of submit calls passed at vkDestroyDevice; with
 *                 FAULT_SERIALIZE_QUERY_READS=1 one more there with the number of
 *                 vkGetQueryPoolResults calls serialized.
 *
 * A submit call is counted when it reaches this layer, whoever made it (the program or a
 * layer above). The wait for idle uses vkQueueWaitIdle on the submitting queue: exact for
 * programs with one queue, which is what the tests use.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))
#define LAYER_NAME "VK_LAYER_HESPERTEST_fault"

/* ---------------------------------------------------------------- settings */

enum lost_mode { LOST_COMPLETION, LOST_NEXT_SUBMIT };

static struct {
	bool no_timestamps;
	bool lose; /* FAULT_DEVICE_LOST_AFTER given */
	uint64_t lost_after;
	enum lost_mode mode;
	uint64_t grace_ms;
	bool serialize;      /* FAULT_SERIALIZE_QUERY_READS=1 */
	bool pipeline_stats; /* FAULT_PIPELINE_STATS=1 */
	bool refuse_capture; /* FAULT_REFUSE_CAPTURE=1 */
	bool nvidia_sm;      /* FAULT_NVIDIA_SM=1 */
	bool log;
} cfg;

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

static bool env_u64(const char *name, uint64_t *out)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end) {
		fprintf(stderr, "fault_layer: bad %s='%s' (want a decimal number)\n", name, s);
		abort(); /* a test misconfigured must not pass quietly */
	}
	*out = v;
	return true;
}

static void read_cfg(void)
{
	const char *s = getenv("FAULT_NO_TIMESTAMPS");
	cfg.no_timestamps = s && strcmp(s, "1") == 0;
	cfg.lose = env_u64("FAULT_DEVICE_LOST_AFTER", &cfg.lost_after);
	s = getenv("FAULT_DEVICE_LOST_MODE");
	if (!s || !*s || strcmp(s, "completion") == 0) {
		cfg.mode = LOST_COMPLETION;
	} else if (strcmp(s, "next_submit") == 0) {
		cfg.mode = LOST_NEXT_SUBMIT;
	} else {
		fprintf(stderr, "fault_layer: bad FAULT_DEVICE_LOST_MODE='%s' (completion or next_submit)\n", s);
		abort();
	}
	if (!env_u64("FAULT_DEVICE_LOST_GRACE_MS", &cfg.grace_ms))
		cfg.grace_ms = 0;
	s = getenv("FAULT_SERIALIZE_QUERY_READS");
	cfg.serialize = s && strcmp(s, "1") == 0;
	s = getenv("FAULT_PIPELINE_STATS");
	cfg.pipeline_stats = s && strcmp(s, "1") == 0;
	s = getenv("FAULT_REFUSE_CAPTURE");
	cfg.refuse_capture = s && strcmp(s, "1") == 0;
	s = getenv("FAULT_NVIDIA_SM");
	cfg.nvidia_sm = s && strcmp(s, "1") == 0;
	s = getenv("FAULT_LOG");
	cfg.log = s && strcmp(s, "1") == 0;
}

static void settings(void)
{
	pthread_once(&cfg_once, read_cfg);
}

/* ---------------------------------------------------------------- state */

struct instance {
	uint64_t key;
	VkInstance handle;
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkDestroyInstance DestroyInstance;
	PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
	PFN_vkGetPhysicalDeviceQueueFamilyProperties2 GetPhysicalDeviceQueueFamilyProperties2;
	PFN_vkGetPhysicalDeviceQueueFamilyProperties2 GetPhysicalDeviceQueueFamilyProperties2KHR;
	PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
	PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
	PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2;
	PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2KHR;
	struct instance *next;
};

struct device {
	uint64_t key;
	VkDevice handle;
	PFN_vkGetDeviceProcAddr gdpa;
	PFN_vkDestroyDevice DestroyDevice;
	PFN_vkQueueSubmit QueueSubmit;
	PFN_vkQueueSubmit2 QueueSubmit2;
	PFN_vkQueueSubmit2 QueueSubmit2KHR;
	PFN_vkQueueWaitIdle QueueWaitIdle;
	PFN_vkDeviceWaitIdle DeviceWaitIdle;
	PFN_vkWaitForFences WaitForFences;
	PFN_vkGetFenceStatus GetFenceStatus;
	PFN_vkWaitSemaphores WaitSemaphores;
	PFN_vkWaitSemaphores WaitSemaphoresKHR;
	PFN_vkGetSemaphoreCounterValue GetSemaphoreCounterValue;
	PFN_vkGetSemaphoreCounterValue GetSemaphoreCounterValueKHR;
	PFN_vkQueueBindSparse QueueBindSparse;
	PFN_vkGetQueryPoolResults GetQueryPoolResults;
	PFN_vkCreateShaderModule CreateShaderModule;
	PFN_vkCreateComputePipelines CreateComputePipelines;
	/* FAULT_SERIALIZE_QUERY_READS: held around query reads and queue calls. Taken before
	 * submit_lock, never after it. */
	pthread_mutex_t queue_lock;
	pthread_mutex_t submit_lock;      /* orders the submit count and the loss (when losing) */
	atomic_uint_fast64_t submits;     /* submit calls passed through */
	atomic_uint_fast64_t query_reads; /* vkGetQueryPoolResults calls serialized */
	atomic_bool lost;
	struct device *next;
};

/* Few instances and devices: linked lists under one lock; entries are freed only at destroy. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct instance *g_instances;
static struct device *g_devices;

/* The loader's dispatch pointer: the same for an instance and its physical devices, and
 * for a device and its queues and command buffers. */
static uint64_t dkey(const void *dispatchable)
{
	return (uint64_t)(uintptr_t)(*(void *const *)dispatchable);
}

static struct instance *instance_of(const void *dispatchable)
{
	uint64_t key = dkey(dispatchable);
	pthread_mutex_lock(&g_lock);
	struct instance *i = g_instances;
	while (i && i->key != key)
		i = i->next;
	pthread_mutex_unlock(&g_lock);
	return i;
}

static struct device *device_of(const void *dispatchable)
{
	uint64_t key = dkey(dispatchable);
	pthread_mutex_lock(&g_lock);
	struct device *d = g_devices;
	while (d && d->key != key)
		d = d->next;
	pthread_mutex_unlock(&g_lock);
	if (!d) {
		fprintf(stderr, "fault_layer: call on an unknown device\n");
		abort();
	}
	return d;
}

/* ---------------------------------------------------------------- instance */

static VKAPI_ATTR VkResult VKAPI_CALL fault_CreateInstance(const VkInstanceCreateInfo *info,
							   const VkAllocationCallbacks *alloc, VkInstance *out)
{
	settings();
	VkLayerInstanceCreateInfo *chain = (VkLayerInstanceCreateInfo *)info->pNext;
	while (chain && !(chain->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
			  chain->function == VK_LAYER_LINK_INFO))
		chain = (VkLayerInstanceCreateInfo *)chain->pNext;
	if (!chain || !chain->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	VkResult r = create(info, alloc, out);
	if (r != VK_SUCCESS)
		return r;
	struct instance *in = calloc(1, sizeof *in);
	if (!in)
		abort();
	in->key = dkey(*out);
	in->handle = *out;
	in->gipa = gipa;
#define GET(fn) in->fn = (PFN_vk##fn)gipa(*out, "vk" #fn)
	GET(DestroyInstance);
	GET(GetPhysicalDeviceQueueFamilyProperties);
	GET(GetPhysicalDeviceQueueFamilyProperties2);
	GET(EnumerateDeviceExtensionProperties);
	GET(GetPhysicalDeviceProperties);
	GET(GetPhysicalDeviceProperties2);
#undef GET
	in->GetPhysicalDeviceQueueFamilyProperties2KHR = (PFN_vkGetPhysicalDeviceQueueFamilyProperties2)gipa(
		*out, "vkGetPhysicalDeviceQueueFamilyProperties2KHR");
	in->GetPhysicalDeviceProperties2KHR = (PFN_vkGetPhysicalDeviceProperties2)gipa(
		*out, "vkGetPhysicalDeviceProperties2KHR");
	pthread_mutex_lock(&g_lock);
	in->next = g_instances;
	g_instances = in;
	pthread_mutex_unlock(&g_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL fault_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc)
{
	if (!instance)
		return;
	uint64_t key = dkey(instance);
	pthread_mutex_lock(&g_lock);
	struct instance **p = &g_instances, *in = NULL;
	while (*p && (*p)->key != key)
		p = &(*p)->next;
	if (*p) {
		in = *p;
		*p = in->next;
	}
	pthread_mutex_unlock(&g_lock);
	if (in) {
		in->DestroyInstance(instance, alloc);
		free(in);
	}
}

static VKAPI_ATTR void VKAPI_CALL fault_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice phys, uint32_t *count,
									       VkQueueFamilyProperties *props)
{
	instance_of(phys)->GetPhysicalDeviceQueueFamilyProperties(phys, count, props);
	if (cfg.no_timestamps && props)
		for (uint32_t i = 0; i < *count; i++)
			props[i].timestampValidBits = 0;
}

static void family_props2(PFN_vkGetPhysicalDeviceQueueFamilyProperties2 next, VkPhysicalDevice phys, uint32_t *count,
			  VkQueueFamilyProperties2 *props)
{
	next(phys, count, props);
	if (cfg.no_timestamps && props)
		for (uint32_t i = 0; i < *count; i++)
			props[i].queueFamilyProperties.timestampValidBits = 0;
}

static VKAPI_ATTR void VKAPI_CALL fault_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice phys, uint32_t *count,
										VkQueueFamilyProperties2 *props)
{
	family_props2(instance_of(phys)->GetPhysicalDeviceQueueFamilyProperties2, phys, count, props);
}

static VKAPI_ATTR void VKAPI_CALL fault_GetPhysicalDeviceQueueFamilyProperties2KHR(VkPhysicalDevice phys,
										   uint32_t *count,
										   VkQueueFamilyProperties2 *props)
{
	family_props2(instance_of(phys)->GetPhysicalDeviceQueueFamilyProperties2KHR, phys, count, props);
}

/* ---------------------------------------------------------------- device */

static VkResult create_without_stats(PFN_vkCreateDevice create, VkPhysicalDevice phys, const VkDeviceCreateInfo *info,
				     const VkAllocationCallbacks *alloc, VkDevice *out);

static VKAPI_ATTR VkResult VKAPI_CALL fault_CreateDevice(VkPhysicalDevice phys, const VkDeviceCreateInfo *info,
							 const VkAllocationCallbacks *alloc, VkDevice *out)
{
	VkLayerDeviceCreateInfo *chain = (VkLayerDeviceCreateInfo *)info->pNext;
	while (chain &&
	       !(chain->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
		chain = (VkLayerDeviceCreateInfo *)chain->pNext;
	if (!chain || !chain->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = chain->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
	struct instance *in = instance_of(phys);
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(in ? in->handle : VK_NULL_HANDLE, "vkCreateDevice");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	VkResult r = cfg.pipeline_stats ? create_without_stats(create, phys, info, alloc, out)
					: create(phys, info, alloc, out);
	if (r != VK_SUCCESS)
		return r;
	struct device *d = calloc(1, sizeof *d);
	if (!d)
		abort();
	VkDevice dev = *out;
	d->key = dkey(dev);
	d->handle = dev;
	d->gdpa = gdpa;
	pthread_mutex_init(&d->queue_lock, NULL);
	pthread_mutex_init(&d->submit_lock, NULL);
	atomic_init(&d->submits, 0);
	atomic_init(&d->query_reads, 0);
	atomic_init(&d->lost, false);
#define GET(fn) d->fn = (PFN_vk##fn)gdpa(dev, "vk" #fn)
	GET(DestroyDevice);
	GET(QueueSubmit);
	GET(QueueSubmit2);
	GET(QueueWaitIdle);
	GET(DeviceWaitIdle);
	GET(WaitForFences);
	GET(GetFenceStatus);
	GET(WaitSemaphores);
	GET(GetSemaphoreCounterValue);
	GET(QueueBindSparse);
	GET(GetQueryPoolResults);
	GET(CreateShaderModule);
	GET(CreateComputePipelines);
#undef GET
	d->QueueSubmit2KHR = (PFN_vkQueueSubmit2)gdpa(dev, "vkQueueSubmit2KHR");
	d->WaitSemaphoresKHR = (PFN_vkWaitSemaphores)gdpa(dev, "vkWaitSemaphoresKHR");
	d->GetSemaphoreCounterValueKHR = (PFN_vkGetSemaphoreCounterValue)gdpa(dev, "vkGetSemaphoreCounterValueKHR");
	pthread_mutex_lock(&g_lock);
	d->next = g_devices;
	g_devices = d;
	pthread_mutex_unlock(&g_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL fault_DestroyDevice(VkDevice dev, const VkAllocationCallbacks *alloc)
{
	if (!dev)
		return;
	uint64_t key = dkey(dev);
	pthread_mutex_lock(&g_lock);
	struct device **p = &g_devices, *d = NULL;
	while (*p && (*p)->key != key)
		p = &(*p)->next;
	if (*p) {
		d = *p;
		*p = d->next;
	}
	pthread_mutex_unlock(&g_lock);
	if (d) {
		if (cfg.log)
			fprintf(stderr, "fault_layer: vkDestroyDevice after %llu submit calls\n",
				(unsigned long long)atomic_load(&d->submits));
		if (cfg.log && cfg.serialize)
			fprintf(stderr,
				"fault_layer: vkDestroyDevice after %llu vkGetQueryPoolResults calls serialized\n",
				(unsigned long long)atomic_load(&d->query_reads));
		d->DestroyDevice(dev, alloc);
		pthread_mutex_destroy(&d->submit_lock);
		pthread_mutex_destroy(&d->queue_lock);
		free(d);
	}
}

/* ---------------------------------------------------------------- serialized queue use */

/* FAULT_SERIALIZE_QUERY_READS: around every call of the device that touches a queue or
 * reads queries; nothing when the mode is off. */
static void serial_lock(struct device *d)
{
	if (cfg.serialize)
		pthread_mutex_lock(&d->queue_lock);
}

static void serial_unlock(struct device *d)
{
	if (cfg.serialize)
		pthread_mutex_unlock(&d->queue_lock);
}

/* Hooked only in FAULT_SERIALIZE_QUERY_READS mode (device_hook). */
static VKAPI_ATTR VkResult VKAPI_CALL fault_GetQueryPoolResults(VkDevice dev, VkQueryPool pool, uint32_t first,
								uint32_t count, size_t size, void *data,
								VkDeviceSize stride, VkQueryResultFlags flags)
{
	struct device *d = device_of(dev);
	serial_lock(d);
	VkResult r = d->GetQueryPoolResults(dev, pool, first, count, size, data, stride, flags);
	atomic_fetch_add(&d->query_reads, 1);
	serial_unlock(d);
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_QueueBindSparse(VkQueue queue, uint32_t n, const VkBindSparseInfo *info,
							    VkFence fence)
{
	struct device *d = device_of(queue);
	serial_lock(d);
	VkResult r = d->QueueBindSparse(queue, n, info, fence);
	serial_unlock(d);
	return r;
}

/* ---------------------------------------------------------------- device loss */

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Lets @queue's work finish, then marks @d lost. Called with d->submit_lock held. */
static void lose_device(struct device *d, VkQueue queue, const char *when)
{
	VkResult r = d->QueueWaitIdle(queue);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "fault_layer: vkQueueWaitIdle failed (%d) before the loss\n", (int)r);
		abort();
	}
	if (cfg.mode == LOST_NEXT_SUBMIT && cfg.grace_ms)
		sleep_ms(cfg.grace_ms);
	atomic_store(&d->lost, true);
	if (cfg.log)
		fprintf(stderr, "fault_layer: device lost %s (%llu submit calls passed)\n", when,
			(unsigned long long)atomic_load(&d->submits));
}

/*
 * Before a submit call: returns VK_ERROR_DEVICE_LOST when it must be refused, else
 * VK_SUCCESS (the call then goes down and after() runs). Holds d->submit_lock on
 * VK_SUCCESS: after() releases it.
 */
static VkResult before_submit(struct device *d, VkQueue queue)
{
	if (!cfg.lose || atomic_load(&d->lost))
		return cfg.lose ? VK_ERROR_DEVICE_LOST : VK_SUCCESS;
	pthread_mutex_lock(&d->submit_lock);
	if (atomic_load(&d->lost)) {
		pthread_mutex_unlock(&d->submit_lock);
		return VK_ERROR_DEVICE_LOST;
	}
	if (atomic_load(&d->submits) >= cfg.lost_after) {
		/* completion mode reaches this only with N = 0; next_submit mode at call N + 1. */
		lose_device(d, queue, "at a submit call");
		pthread_mutex_unlock(&d->submit_lock);
		return VK_ERROR_DEVICE_LOST;
	}
	return VK_SUCCESS;
}

static void after_submit(struct device *d, VkQueue queue, VkResult result)
{
	uint64_t passed = result == VK_SUCCESS ? atomic_fetch_add(&d->submits, 1) + 1 : 0;
	if (!cfg.lose)
		return;
	if (passed && cfg.mode == LOST_COMPLETION && passed == cfg.lost_after)
		lose_device(d, queue, "after its last submission completed");
	pthread_mutex_unlock(&d->submit_lock);
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_QueueSubmit(VkQueue queue, uint32_t n, const VkSubmitInfo *submits,
							VkFence fence)
{
	struct device *d = device_of(queue);
	serial_lock(d);
	VkResult r = before_submit(d, queue);
	if (r == VK_SUCCESS) {
		r = d->QueueSubmit(queue, n, submits, fence);
		after_submit(d, queue, r);
	}
	serial_unlock(d);
	return r;
}

static VkResult submit2(struct device *d, PFN_vkQueueSubmit2 next, VkQueue queue, uint32_t n,
			const VkSubmitInfo2 *submits, VkFence fence)
{
	serial_lock(d);
	VkResult r = before_submit(d, queue);
	if (r == VK_SUCCESS) {
		r = next(queue, n, submits, fence);
		after_submit(d, queue, r);
	}
	serial_unlock(d);
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_QueueSubmit2(VkQueue queue, uint32_t n, const VkSubmitInfo2 *submits,
							 VkFence fence)
{
	struct device *d = device_of(queue);
	return submit2(d, d->QueueSubmit2, queue, n, submits, fence);
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_QueueSubmit2KHR(VkQueue queue, uint32_t n, const VkSubmitInfo2 *submits,
							    VkFence fence)
{
	struct device *d = device_of(queue);
	return submit2(d, d->QueueSubmit2KHR, queue, n, submits, fence);
}

#define LOST_OR(d, call) (atomic_load(&(d)->lost) ? VK_ERROR_DEVICE_LOST : (call))

static VKAPI_ATTR VkResult VKAPI_CALL fault_QueueWaitIdle(VkQueue queue)
{
	struct device *d = device_of(queue);
	serial_lock(d);
	VkResult r = LOST_OR(d, d->QueueWaitIdle(queue));
	serial_unlock(d);
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_DeviceWaitIdle(VkDevice dev)
{
	struct device *d = device_of(dev);
	serial_lock(d);
	VkResult r = LOST_OR(d, d->DeviceWaitIdle(dev));
	serial_unlock(d);
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_WaitForFences(VkDevice dev, uint32_t n, const VkFence *fences, VkBool32 all,
							  uint64_t timeout)
{
	struct device *d = device_of(dev);
	return LOST_OR(d, d->WaitForFences(dev, n, fences, all, timeout));
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_GetFenceStatus(VkDevice dev, VkFence fence)
{
	struct device *d = device_of(dev);
	return LOST_OR(d, d->GetFenceStatus(dev, fence));
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_WaitSemaphores(VkDevice dev, const VkSemaphoreWaitInfo *info,
							   uint64_t timeout)
{
	struct device *d = device_of(dev);
	return LOST_OR(d, d->WaitSemaphores(dev, info, timeout));
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_WaitSemaphoresKHR(VkDevice dev, const VkSemaphoreWaitInfo *info,
							      uint64_t timeout)
{
	struct device *d = device_of(dev);
	return LOST_OR(d, d->WaitSemaphoresKHR(dev, info, timeout));
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_GetSemaphoreCounterValue(VkDevice dev, VkSemaphore sem, uint64_t *value)
{
	struct device *d = device_of(dev);
	return LOST_OR(d, d->GetSemaphoreCounterValue(dev, sem, value));
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_GetSemaphoreCounterValueKHR(VkDevice dev, VkSemaphore sem, uint64_t *value)
{
	struct device *d = device_of(dev);
	return LOST_OR(d, d->GetSemaphoreCounterValueKHR(dev, sem, value));
}

/* ---------------------------------------------------------------- FAULT_PIPELINE_STATS */

#define STATS_EXTENSION VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME

/* The extensions the layer adds to the driver's (FAULT_PIPELINE_STATS, FAULT_NVIDIA_SM) into @names; their number. */
static uint32_t offered(const char *names[2])
{
	uint32_t n = 0;
	if (cfg.pipeline_stats)
		names[n++] = STATS_EXTENSION;
	if (cfg.nvidia_sm)
		names[n++] = VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME;
	return n;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_EnumerateDeviceExtensionProperties(VkPhysicalDevice phys, const char *layer,
									       uint32_t *count,
									       VkExtensionProperties *props)
{
	if (layer && strcmp(layer, LAYER_NAME) == 0) {
		*count = 0;
		return VK_SUCCESS;
	}
	PFN_vkEnumerateDeviceExtensionProperties next = instance_of(phys)->EnumerateDeviceExtensionProperties;
	if (layer)
		return next(phys, layer, count, props);
	const char *extra[2];
	uint32_t extras = offered(extra);
	uint32_t below = 0;
	VkResult r = next(phys, NULL, &below, NULL);
	if (r != VK_SUCCESS)
		return r;
	if (!props) {
		*count = below + extras;
		return VK_SUCCESS;
	}
	uint32_t room = *count;
	uint32_t got = room < below ? room : below;
	r = next(phys, NULL, &got, props);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < extras && got < room; i++, got++) {
		memset(&props[got], 0, sizeof(props[got]));
		snprintf(props[got].extensionName, sizeof(props[got].extensionName), "%s", extra[i]);
		props[got].specVersion = 1;
	}
	*count = got;
	return got < below + extras ? VK_INCOMPLETE : r;
}

/* ---------------------------------------------------------------- FAULT_NVIDIA_SM */

#define NVIDIA_SMS 132
#define NVIDIA_WARPS_PER_SM 64

/* @props as an H200 would say them: NVIDIA's vendor id, a name with "H200" in it. */
static void pose_as_nvidia(VkPhysicalDeviceProperties *props)
{
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	snprintf(name, sizeof(name), "%s", props->deviceName);
	props->vendorID = 0x10de;
	snprintf(props->deviceName, sizeof(props->deviceName), "NVIDIA H200 (%.150s under the fault layer)", name);
}

static VKAPI_ATTR void VKAPI_CALL fault_GetPhysicalDeviceProperties(VkPhysicalDevice phys,
								    VkPhysicalDeviceProperties *props)
{
	instance_of(phys)->GetPhysicalDeviceProperties(phys, props);
	pose_as_nvidia(props);
}

/* Properties2 through @next, posing as an H200, with the SM figures where the chain asks for them. */
static void properties2(PFN_vkGetPhysicalDeviceProperties2 next, VkPhysicalDevice phys,
			VkPhysicalDeviceProperties2 *props)
{
	next(phys, props);
	pose_as_nvidia(&props->properties);
	for (VkBaseOutStructure *s = props->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV) {
			VkPhysicalDeviceShaderSMBuiltinsPropertiesNV *sm =
				(VkPhysicalDeviceShaderSMBuiltinsPropertiesNV *)s;
			sm->shaderSMCount = NVIDIA_SMS;
			sm->shaderWarpsPerSM = NVIDIA_WARPS_PER_SM;
		}
}

static VKAPI_ATTR void VKAPI_CALL fault_GetPhysicalDeviceProperties2(VkPhysicalDevice phys,
								     VkPhysicalDeviceProperties2 *props)
{
	properties2(instance_of(phys)->GetPhysicalDeviceProperties2, phys, props);
}

static VKAPI_ATTR void VKAPI_CALL fault_GetPhysicalDeviceProperties2KHR(VkPhysicalDevice phys,
									VkPhysicalDeviceProperties2 *props)
{
	properties2(instance_of(phys)->GetPhysicalDeviceProperties2KHR, phys, props);
}

/* ---------------------------------------------------------------- FAULT_PIPELINE_STATS, its commands */

/* vkCreateDevice without the extension and its feature struct, which the driver below does not know. */
static VkResult create_without_stats(PFN_vkCreateDevice create, VkPhysicalDevice phys, const VkDeviceCreateInfo *info,
				     const VkAllocationCallbacks *alloc, VkDevice *out)
{
	VkDeviceCreateInfo changed = *info;
	const char *names[64];
	uint32_t n = 0;
	for (uint32_t i = 0; i < info->enabledExtensionCount && n < 64; i++)
		if (strcmp(info->ppEnabledExtensionNames[i], STATS_EXTENSION) != 0)
			names[n++] = info->ppEnabledExtensionNames[i];
	changed.enabledExtensionCount = n;
	changed.ppEnabledExtensionNames = names;
	/* Unlinked for the call only: the chain is the caller's. */
	VkBaseOutStructure *before = (VkBaseOutStructure *)&changed, *cut = NULL;
	while (before->pNext &&
	       before->pNext->sType != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR)
		before = before->pNext;
	if (before->pNext) {
		cut = before->pNext;
		before->pNext = cut->pNext;
	}
	VkResult r = create(phys, &changed, alloc, out);
	if (cut)
		before->pNext = cut;
	return r;
}

/* What the layer knows of a module or pipeline: its SPIR-V words, and whether it asked for statistics. */
struct shader_note {
	uint64_t handle;
	uint64_t words;
	bool captured;
	struct shader_note *next;
};
static struct shader_note *g_modules, *g_pipelines;

static void note(struct shader_note **list, uint64_t handle, uint64_t words, bool captured)
{
	struct shader_note *n = calloc(1, sizeof *n);
	if (!n)
		abort();
	*n = (struct shader_note){.handle = handle, .words = words, .captured = captured};
	pthread_mutex_lock(&g_lock);
	n->next = *list; /* newest first: a handle the driver reuses finds its latest note */
	*list = n;
	pthread_mutex_unlock(&g_lock);
}

static const struct shader_note *noted(struct shader_note *list, uint64_t handle)
{
	pthread_mutex_lock(&g_lock);
	while (list && list->handle != handle)
		list = list->next;
	pthread_mutex_unlock(&g_lock);
	return list;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_CreateShaderModule(VkDevice dev, const VkShaderModuleCreateInfo *info,
							       const VkAllocationCallbacks *alloc, VkShaderModule *out)
{
	VkResult r = device_of(dev)->CreateShaderModule(dev, info, alloc, out);
	if (r == VK_SUCCESS)
		note(&g_modules, (uint64_t)*out, info->codeSize / 4, false);
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_CreateComputePipelines(VkDevice dev, VkPipelineCache cache, uint32_t n,
								   const VkComputePipelineCreateInfo *infos,
								   const VkAllocationCallbacks *alloc, VkPipeline *out)
{
	for (uint32_t i = 0; cfg.refuse_capture && i < n; i++)
		if (infos[i].flags & VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR) {
			for (uint32_t j = 0; j < n; j++)
				out[j] = VK_NULL_HANDLE;
			return VK_ERROR_OUT_OF_DEVICE_MEMORY;
		}
	VkComputePipelineCreateInfo *plain = calloc(n ? n : 1, sizeof *plain);
	if (!plain)
		abort();
	for (uint32_t i = 0; i < n; i++) {
		plain[i] = infos[i];
		plain[i].flags &= ~(VkPipelineCreateFlags)VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
	}
	VkResult r = device_of(dev)->CreateComputePipelines(dev, cache, n, plain, alloc, out);
	for (uint32_t i = 0; i < n; i++) {
		const struct shader_note *m = noted(g_modules, (uint64_t)infos[i].stage.module);
		if (out[i])
			note(&g_pipelines, (uint64_t)out[i], m ? m->words : 0,
			     infos[i].flags & VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR);
	}
	free(plain);
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_GetPipelineExecutablePropertiesKHR(VkDevice dev,
									       const VkPipelineInfoKHR *info,
									       uint32_t *count,
									       VkPipelineExecutablePropertiesKHR *props)
{
	(void)dev;
	if (!noted(g_pipelines, (uint64_t)info->pipeline))
		return VK_ERROR_UNKNOWN;
	if (!props) {
		*count = 1;
		return VK_SUCCESS;
	}
	if (*count < 1)
		return VK_INCOMPLETE;
	props[0].stages = VK_SHADER_STAGE_COMPUTE_BIT;
	snprintf(props[0].name, sizeof(props[0].name), "Compute Shader");
	snprintf(props[0].description, sizeof(props[0].description), "the fault layer's stand-in");
	props[0].subgroupSize = cfg.nvidia_sm ? 32 : 8;
	*count = 1;
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_GetPipelineExecutableStatisticsKHR(VkDevice dev,
									       const VkPipelineExecutableInfoKHR *info,
									       uint32_t *count,
									       VkPipelineExecutableStatisticKHR *stats)
{
	(void)dev;
	const struct shader_note *p = noted(g_pipelines, (uint64_t)info->pipeline);
	if (!p || info->executableIndex != 0)
		return VK_ERROR_UNKNOWN;
	uint32_t all = cfg.nvidia_sm ? 6 : 4;
	if (!stats) {
		*count = all;
		return VK_SUCCESS;
	}
	uint32_t n = *count < all ? *count : all;
	for (uint32_t i = 0; i < n; i++) {
		VkPipelineExecutableStatisticKHR *s = &stats[i];
		snprintf(s->description, sizeof(s->description), "the fault layer's stand-in");
		switch (i) {
		case 0:
			snprintf(s->name, sizeof(s->name), "SPIR-V words");
			s->format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR;
			s->value.u64 = p->words;
			break;
		case 1:
			snprintf(s->name, sizeof(s->name), "Captured");
			s->format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR;
			s->value.b32 = p->captured;
			break;
		case 2:
			snprintf(s->name, sizeof(s->name), "Negative words");
			s->format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR;
			s->value.i64 = -(int64_t)p->words;
			break;
		case 3:
			snprintf(s->name, sizeof(s->name), "Words / 1000");
			s->format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR;
			s->value.f64 = (double)p->words / 1000.0;
			break;
		case 4:
			snprintf(s->name, sizeof(s->name), "Register Count");
			s->format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR;
			s->value.u64 = 8 + p->words % 120;
			break;
		default:
			snprintf(s->name, sizeof(s->name), "Shared Memory Size");
			s->format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR;
			s->value.u64 = p->words % 2 ? 16384 : 0;
			break;
		}
	}
	*count = n;
	return n < all ? VK_INCOMPLETE : VK_SUCCESS;
}

/* ---------------------------------------------------------------- lookup and negotiation */

static PFN_vkVoidFunction device_hook(const char *name)
{
	settings();
/* clang-format off */
#define HOOK(fn)                          \
	if (strcmp(name, "vk" #fn) == 0) \
		return (PFN_vkVoidFunction)fault_##fn
	/* clang-format on */
	if (cfg.serialize) {
		/* Not intercepted otherwise: without the mode these calls reach the driver as
		 * they would without this layer. */
		HOOK(GetQueryPoolResults);
		HOOK(QueueBindSparse);
	}
	if (cfg.pipeline_stats) {
		HOOK(CreateShaderModule);
		HOOK(CreateComputePipelines);
	}
	HOOK(DestroyDevice);
	HOOK(QueueSubmit);
	HOOK(QueueSubmit2);
	HOOK(QueueSubmit2KHR);
	HOOK(QueueWaitIdle);
	HOOK(DeviceWaitIdle);
	HOOK(WaitForFences);
	HOOK(GetFenceStatus);
	HOOK(WaitSemaphores);
	HOOK(WaitSemaphoresKHR);
	HOOK(GetSemaphoreCounterValue);
	HOOK(GetSemaphoreCounterValueKHR);
	return NULL;
}

static PFN_vkVoidFunction instance_hook(const char *name)
{
	HOOK(DestroyInstance);
	HOOK(CreateDevice);
	HOOK(GetPhysicalDeviceQueueFamilyProperties);
	HOOK(GetPhysicalDeviceQueueFamilyProperties2);
	HOOK(GetPhysicalDeviceQueueFamilyProperties2KHR);
	if (cfg.pipeline_stats || cfg.nvidia_sm)
		HOOK(EnumerateDeviceExtensionProperties);
	if (cfg.nvidia_sm) {
		HOOK(GetPhysicalDeviceProperties);
		HOOK(GetPhysicalDeviceProperties2);
		HOOK(GetPhysicalDeviceProperties2KHR);
	}
	return NULL;
}

/* The extension's commands, which the driver below does not have. */
static PFN_vkVoidFunction emulated_hook(const char *name)
{
	if (!cfg.pipeline_stats)
		return NULL;
	HOOK(GetPipelineExecutablePropertiesKHR);
	HOOK(GetPipelineExecutableStatisticsKHR);
#undef HOOK
	return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL fault_GetDeviceProcAddr(VkDevice dev, const char *name)
{
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)fault_GetDeviceProcAddr;
	PFN_vkVoidFunction emulated = emulated_hook(name);
	if (emulated)
		return emulated;
	PFN_vkVoidFunction next = device_of(dev)->gdpa(dev, name);
	PFN_vkVoidFunction hook = device_hook(name);
	return next && hook ? hook : next; /* hook only what the chain below provides */
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL fault_GetInstanceProcAddr(VkInstance instance, const char *name)
{
	if (strcmp(name, "vkGetInstanceProcAddr") == 0)
		return (PFN_vkVoidFunction)fault_GetInstanceProcAddr;
	if (strcmp(name, "vkCreateInstance") == 0)
		return (PFN_vkVoidFunction)fault_CreateInstance;
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)fault_GetDeviceProcAddr;
	if (!instance)
		return NULL;
	struct instance *in = instance_of(instance);
	if (!in)
		return NULL;
	PFN_vkVoidFunction emulated = emulated_hook(name);
	if (emulated)
		return emulated;
	PFN_vkVoidFunction next = in->gipa(instance, name);
	PFN_vkVoidFunction hook = instance_hook(name);
	if (!hook)
		hook = device_hook(name);
	return next && hook ? hook : next;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || v->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	v->loaderLayerInterfaceVersion = 2;
	v->pfnGetInstanceProcAddr = fault_GetInstanceProcAddr;
	v->pfnGetDeviceProcAddr = fault_GetDeviceProcAddr;
	v->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
