/*
 * vkfft_driver: VkFFT (Debian's libvkfft-dev, Vulkan backend, shaders compiled at plan
 * time with glslang) planning and running complex single-precision FFTs of several 1D,
 * 2D and 3D sizes, checked against a CPU reference.
 *
 * For each plan:
 *   1. forward FFT (one command buffer, one submission): compared with a naive DFT in
 *      double precision on the CPU (max error relative to the largest magnitude);
 *   2. inverse FFT (normalized): compared with the input (round-trip error);
 *   3. forward + inverse recorded once and submitted R times (R differs per plan, so
 *      the per-kernel dispatch counts differ from plan to plan), then compared with the
 *      input again. Plan "2d-64x48" records this command buffer as a secondary command
 *      buffer executed from a primary (vkCmdExecuteCommands).
 *
 * Prints one line per plan with the three errors (rounded: the output is the same from
 * run to run) and exits 0 when every error is below its bound, 1 otherwise, 2 when
 * Vulkan or VkFFT could not be set up.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>
/* glslang_default_resource(): the build's copy of vkFFT.h uses it (tests/real/meson.build) */
#include <glslang/Public/resource_limits_c.h>
#include "vkFFT.h"

#define FORWARD_TOLERANCE 1e-4   /* max |VkFFT - DFT| / max |DFT| */
#define ROUNDTRIP_TOLERANCE 1e-5 /* max |x' - x| / max |x| */

struct plan_spec {
	const char *name;
	unsigned dim;
	uint64_t size[3];
	unsigned resubmits; /* times the forward+inverse command buffer is submitted */
	int secondary;      /* record that command buffer as a secondary */
};

static const struct plan_spec plans[] = {
	{ "1d-256", 1, { 256, 1, 1 }, 2, 0 },       { "1d-1000", 1, { 1000, 1, 1 }, 3, 0 },
	{ "1d-4096", 1, { 4096, 1, 1 }, 4, 0 },     { "2d-64x48", 2, { 64, 48, 1 }, 5, 1 },
	{ "2d-128x128", 2, { 128, 128, 1 }, 2, 0 }, { "3d-16x16x16", 3, { 16, 16, 16 }, 3, 0 },
	{ "3d-32x16x8", 3, { 32, 16, 8 }, 6, 0 },
};

struct vk {
	VkInstance instance;
	VkPhysicalDevice phys;
	VkDevice device;
	VkQueue queue;
	uint32_t family;
	VkCommandPool pool;
	VkFence fence;
	uint32_t host_memory_type;
};

#define VK_CHECK(expr)                                                                    \
	do {                                                                              \
		VkResult r_ = (expr);                                                     \
		if (r_ != VK_SUCCESS) {                                                   \
			fprintf(stderr, "vkfft_driver: %s failed: %d\n", #expr, (int)r_); \
			exit(2);                                                          \
		}                                                                         \
	} while (0)

static void vk_init(struct vk *vk)
{
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
				  .pApplicationName = "vkfft_driver",
				  .apiVersion = VK_API_VERSION_1_1 };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
	VK_CHECK(vkCreateInstance(&ici, NULL, &vk->instance));
	uint32_t n = 1;
	VkResult r = vkEnumeratePhysicalDevices(vk->instance, &n, &vk->phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
		fprintf(stderr, "vkfft_driver: no Vulkan device\n");
		exit(2);
	}
	uint32_t nf = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(vk->phys, &nf, NULL);
	VkQueueFamilyProperties fams[16];
	nf = nf > 16 ? 16 : nf;
	vkGetPhysicalDeviceQueueFamilyProperties(vk->phys, &nf, fams);
	vk->family = UINT32_MAX;
	for (uint32_t i = 0; i < nf && vk->family == UINT32_MAX; i++)
		if (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
			vk->family = i;
	if (vk->family == UINT32_MAX) {
		fprintf(stderr, "vkfft_driver: no compute queue\n");
		exit(2);
	}
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
					.queueFamilyIndex = vk->family,
					.queueCount = 1,
					.pQueuePriorities = &prio };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
				   .queueCreateInfoCount = 1,
				   .pQueueCreateInfos = &qci };
	VK_CHECK(vkCreateDevice(vk->phys, &dci, NULL, &vk->device));
	vkGetDeviceQueue(vk->device, vk->family, 0, &vk->queue);
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
					.queueFamilyIndex = vk->family };
	VK_CHECK(vkCreateCommandPool(vk->device, &pci, NULL, &vk->pool));
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VK_CHECK(vkCreateFence(vk->device, &fci, NULL, &vk->fence));
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(vk->phys, &mp);
	const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	vk->host_memory_type = UINT32_MAX;
	for (uint32_t i = 0; i < mp.memoryTypeCount && vk->host_memory_type == UINT32_MAX; i++)
		if ((mp.memoryTypes[i].propertyFlags & want) == want)
			vk->host_memory_type = i;
	if (vk->host_memory_type == UINT32_MAX) {
		fprintf(stderr, "vkfft_driver: no host-visible coherent memory\n");
		exit(2);
	}
}

static void vk_destroy(struct vk *vk)
{
	vkDestroyFence(vk->device, vk->fence, NULL);
	vkDestroyCommandPool(vk->device, vk->pool, NULL);
	vkDestroyDevice(vk->device, NULL);
	vkDestroyInstance(vk->instance, NULL);
}

static VkCommandBuffer alloc_cmd(struct vk *vk, VkCommandBufferLevel level)
{
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					   .commandPool = vk->pool,
					   .level = level,
					   .commandBufferCount = 1 };
	VkCommandBuffer cb;
	VK_CHECK(vkAllocateCommandBuffers(vk->device, &ai, &cb));
	return cb;
}

static void submit_wait(struct vk *vk, VkCommandBuffer cb)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb };
	VK_CHECK(vkQueueSubmit(vk->queue, 1, &si, vk->fence));
	VK_CHECK(vkWaitForFences(vk->device, 1, &vk->fence, VK_TRUE, UINT64_MAX));
	VK_CHECK(vkResetFences(vk->device, 1, &vk->fence));
}

/* Compute-to-compute memory barrier between two FFTs in one command buffer. */
static void barrier(VkCommandBuffer cb)
{
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			       .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
			       .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT };
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb,
			     0, NULL, 0, NULL);
}

/* Naive DFT of @data (interleaved complex, double) along @axis of the @size volume. */
static void dft_axis(double *data, const uint64_t size[3], unsigned axis)
{
	uint64_t n = size[axis];
	uint64_t stride = axis == 0 ? 1 : axis == 1 ? size[0] : size[0] * size[1];
	uint64_t total = size[0] * size[1] * size[2];
	double *line = malloc(2 * n * sizeof *line), *out = malloc(2 * n * sizeof *out);
	double *tw = malloc(2 * n * sizeof *tw);
	if (!line || !out || !tw)
		exit(2);
	for (uint64_t k = 0; k < n; k++) {
		tw[2 * k] = cos(-2.0 * M_PI * (double)k / (double)n);
		tw[2 * k + 1] = sin(-2.0 * M_PI * (double)k / (double)n);
	}
	for (uint64_t start = 0; start < total; start++) {
		if ((start / stride) % n != 0)
			continue; /* not the first element of a line along @axis */
		for (uint64_t j = 0; j < n; j++) {
			line[2 * j] = data[2 * (start + j * stride)];
			line[2 * j + 1] = data[2 * (start + j * stride) + 1];
		}
		for (uint64_t k = 0; k < n; k++) {
			double re = 0, im = 0;
			for (uint64_t j = 0; j < n; j++) {
				uint64_t t = (j * k) % n;
				re += line[2 * j] * tw[2 * t] - line[2 * j + 1] * tw[2 * t + 1];
				im += line[2 * j] * tw[2 * t + 1] + line[2 * j + 1] * tw[2 * t];
			}
			out[2 * k] = re;
			out[2 * k + 1] = im;
		}
		for (uint64_t k = 0; k < n; k++) {
			data[2 * (start + k * stride)] = out[2 * k];
			data[2 * (start + k * stride) + 1] = out[2 * k + 1];
		}
	}
	free(line);
	free(out);
	free(tw);
}

/* max |got - want| / max |want| over @n complex values. */
static double rel_error(const float *got, const double *want, uint64_t n)
{
	double diff = 0, mag = 0;
	for (uint64_t i = 0; i < 2 * n; i++) {
		diff = fmax(diff, fabs((double)got[i] - want[i]));
		mag = fmax(mag, fabs(want[i]));
	}
	return mag > 0 ? diff / mag : diff;
}

/* Runs one plan; returns 1 when its errors are within bounds. */
static int run_plan(struct vk *vk, const struct plan_spec *p)
{
	uint64_t n = p->size[0] * p->size[1] * p->size[2];
	uint64_t bytes = n * 2 * sizeof(float);

	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				   .size = bytes,
				   .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
					    VK_BUFFER_USAGE_TRANSFER_DST_BIT };
	VkBuffer buffer;
	VK_CHECK(vkCreateBuffer(vk->device, &bci, NULL, &buffer));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(vk->device, buffer, &req);
	if (!(req.memoryTypeBits & (1u << vk->host_memory_type))) {
		fprintf(stderr, "vkfft_driver: buffer cannot live in host-visible memory\n");
		exit(2);
	}
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
				     .allocationSize = req.size,
				     .memoryTypeIndex = vk->host_memory_type };
	VkDeviceMemory memory;
	VK_CHECK(vkAllocateMemory(vk->device, &mai, NULL, &memory));
	VK_CHECK(vkBindBufferMemory(vk->device, buffer, memory, 0));
	float *map;
	VK_CHECK(vkMapMemory(vk->device, memory, 0, bytes, 0, (void **)&map));

	double *input = malloc(2 * n * sizeof *input), *want = malloc(2 * n * sizeof *want);
	if (!input || !want)
		exit(2);
	uint32_t seed = 12345u + (uint32_t)n;
	for (uint64_t i = 0; i < 2 * n; i++) {
		seed = seed * 1664525u + 1013904223u;
		input[i] = (double)(seed >> 8) / (double)(1u << 24) * 2.0 - 1.0;
		map[i] = (float)input[i];
	}
	for (uint64_t i = 0; i < 2 * n; i++)
		want[i] = (double)map[i];
	for (unsigned axis = 0; axis < p->dim; axis++)
		dft_axis(want, p->size, axis);

	VkFFTConfiguration cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.FFTdim = p->dim;
	memcpy(cfg.size, p->size, sizeof cfg.size);
	cfg.physicalDevice = &vk->phys;
	cfg.device = &vk->device;
	cfg.queue = &vk->queue;
	cfg.commandPool = &vk->pool;
	cfg.fence = &vk->fence;
	cfg.buffer = &buffer;
	cfg.bufferSize = &bytes;
	cfg.normalize = 1;
	cfg.isCompilerInitialized = 1; /* main() initializes glslang once */
	VkFFTApplication app;
	memset(&app, 0, sizeof app);
	VkFFTResult res = initializeVkFFT(&app, cfg);
	if (res != VKFFT_SUCCESS) {
		fprintf(stderr, "vkfft_driver: %s: initializeVkFFT failed: %d\n", p->name, (int)res);
		exit(2);
	}

	VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkFFTLaunchParams launch;
	memset(&launch, 0, sizeof launch);
	VkCommandBuffer cb = alloc_cmd(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	launch.commandBuffer = &cb;

	/* 1. forward */
	VK_CHECK(vkBeginCommandBuffer(cb, &begin));
	res = VkFFTAppend(&app, -1, &launch);
	VK_CHECK(vkEndCommandBuffer(cb));
	if (res != VKFFT_SUCCESS) {
		fprintf(stderr, "vkfft_driver: %s: VkFFTAppend forward failed: %d\n", p->name, (int)res);
		exit(2);
	}
	submit_wait(vk, cb);
	double err_fwd = rel_error(map, want, n);

	/* 2. inverse (the same command buffer, re-recorded) */
	VK_CHECK(vkBeginCommandBuffer(cb, &begin));
	res = VkFFTAppend(&app, 1, &launch);
	VK_CHECK(vkEndCommandBuffer(cb));
	if (res != VKFFT_SUCCESS) {
		fprintf(stderr, "vkfft_driver: %s: VkFFTAppend inverse failed: %d\n", p->name, (int)res);
		exit(2);
	}
	submit_wait(vk, cb);
	double err_rt = rel_error(map, input, n);

	/* 3. forward + inverse, recorded once (as a secondary for one plan), submitted R times */
	VkCommandBuffer rec = cb, sec = VK_NULL_HANDLE;
	if (p->secondary) {
		sec = alloc_cmd(vk, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
		VkCommandBufferInheritanceInfo inh = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
		VkCommandBufferBeginInfo sbegin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
						    .pInheritanceInfo = &inh };
		VK_CHECK(vkBeginCommandBuffer(sec, &sbegin));
		rec = sec;
	} else {
		VK_CHECK(vkBeginCommandBuffer(cb, &begin));
	}
	launch.commandBuffer = &rec;
	res = VkFFTAppend(&app, -1, &launch);
	barrier(rec);
	if (res == VKFFT_SUCCESS)
		res = VkFFTAppend(&app, 1, &launch);
	if (res != VKFFT_SUCCESS) {
		fprintf(stderr, "vkfft_driver: %s: VkFFTAppend round trip failed: %d\n", p->name, (int)res);
		exit(2);
	}
	VK_CHECK(vkEndCommandBuffer(rec));
	if (p->secondary) {
		VK_CHECK(vkBeginCommandBuffer(cb, &begin));
		vkCmdExecuteCommands(cb, 1, &sec);
		VK_CHECK(vkEndCommandBuffer(cb));
	}
	for (unsigned i = 0; i < p->resubmits; i++)
		submit_wait(vk, cb);
	double err_rep = rel_error(map, input, n);

	int ok = err_fwd < FORWARD_TOLERANCE && err_rt < ROUNDTRIP_TOLERANCE &&
		 err_rep < ROUNDTRIP_TOLERANCE * p->resubmits;
	printf("vkfft %-12s forward %.1e  round trip %.1e  after %u resubmits%s %.1e  %s\n", p->name, err_fwd, err_rt,
	       p->resubmits, p->secondary ? " (secondary)" : "", err_rep, ok ? "ok" : "FAIL");

	deleteVkFFT(&app);
	VkCommandBuffer cbs[2] = { cb, sec };
	vkFreeCommandBuffers(vk->device, vk->pool, sec ? 2 : 1, cbs);
	vkUnmapMemory(vk->device, memory);
	vkDestroyBuffer(vk->device, buffer, NULL);
	vkFreeMemory(vk->device, memory, NULL);
	free(input);
	free(want);
	return ok;
}

int main(void)
{
	struct vk vk;
	memset(&vk, 0, sizeof vk);
	vk_init(&vk);
	glslang_initialize_process();
	int ok = 1;
	for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
		ok &= run_plan(&vk, &plans[i]);
	glslang_finalize_process();
	vk_destroy(&vk);
	printf("vkfft_driver: %s\n", ok ? "all plans within tolerance" : "FAIL");
	return ok ? 0 : 1;
}
