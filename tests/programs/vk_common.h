/*
 * Minimal Vulkan compute scaffolding for Hesper's end-to-end test programs.
 *
 * The same sources build two ways: linked against libvulkan (prototypes), or with
 * -DHESPER_TEST_VOLK through volk, so every command is resolved with
 * vkGetInstanceProcAddr/vkGetDeviceProcAddr the way most real programs do it.
 * Every VkResult is checked; a failure prints one line and exits with status 2.
 */
#ifndef HESPER_TEST_VK_COMMON_H
#define HESPER_TEST_VK_COMMON_H

#ifdef HESPER_TEST_VOLK
#include <volk.h>
#else
#include <vulkan/vulkan.h>
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit status for "the Vulkan setup or a Vulkan call failed". */
#define VKC_EXIT_VULKAN 2

/* Checks a VkResult; on failure prints "<file>:<line>: <expr> failed: <code>" and exits 2. */
#define VKC_CHECK(expr) vkc_check((expr), #expr, __FILE__, __LINE__)

struct vkc_ctx {
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties mem_props;
	VkDevice device;
	uint32_t queue_family;
	uint32_t timestamp_valid_bits;
	VkQueue queue;
	uint32_t queue_count; /* queues of queue_family created (vkc_init: 1) */
	VkQueue queues[8];    /* queues[0] == queue */
	VkCommandPool cmd_pool;
	VkPhysicalDeviceFeatures features; /* the core features enabled (vkc_options.features) */
	uint32_t other_family;             /* vkc_options.other_family: its family, UINT32_MAX when none */
	VkQueue other_queue;               /* its queue 0, VK_NULL_HANDLE when none */
	bool has_debug_utils;
	PFN_vkSetDebugUtilsObjectNameEXT set_object_name; /* these three: NULL without VK_EXT_debug_utils */
	PFN_vkCmdBeginDebugUtilsLabelEXT cmd_begin_label;
	PFN_vkCmdEndDebugUtilsLabelEXT cmd_end_label;
};

struct vkc_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	VkDeviceSize size;
	void *map; /* host-visible, coherent, mapped for the buffer's lifetime */
};

/* One timestamp pool of 2 * pairs queries: a (begin, end) pair per timed region. */
struct vkc_timer {
	VkQueryPool pool;
	uint32_t pairs;
};

/* Checks @r (see VKC_CHECK). */
void vkc_check(VkResult r, const char *expr, const char *file, int line);

/* Prints one "vk_common: ..." line on stderr and exits with status 2. */
void vkc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Creates instance (API 1.3, VK_EXT_debug_utils when present), picks the physical device
 * (index from env TEST_DEVICE_INDEX, default 0), a compute queue family with timestamps,
 * the device, its queue and a resettable command pool (see also vkc_provoke_validation).
 * With env TEST_SETLOCALE set, first takes the locale of the environment (setlocale) and
 * says which on stderr ("vkc: locale NAME, decimal point 'C'").
 */
void vkc_init(struct vkc_ctx *ctx, const char *app_name);

/* What vkc_init_opts may change; zero-initialized means vkc_init's choices. */
struct vkc_options {
	const char *const *instance_extensions; /* enabled when the instance offers them */
	uint32_t instance_extension_count;
	const char *const *device_extensions; /* required: a missing one fails */
	uint32_t device_extension_count;
	const void *device_pnext;                 /* e.g. a feature struct chain for vkCreateDevice */
	uint32_t queue_count;                     /* wanted queues of the family, cut to what it has (0: 1) */
	bool no_volk_device;                      /* volk: keep the loader's trampolines (several devices) */
	const VkPhysicalDeviceFeatures *features; /* wanted core features: those the device has are enabled */
	bool other_family;                        /* also one queue of another compute family with timestamps */
};

/* vkc_init with @opts (may be NULL). */
void vkc_init_opts(struct vkc_ctx *ctx, const char *app_name, const struct vkc_options *opts);

/*
 * Creates another device (and its queues and pool) on the instance and physical device of
 * @from into @ctx, which shares @from's instance: destroy it with vkc_finish_device.
 */
void vkc_init_device(struct vkc_ctx *ctx, const struct vkc_ctx *from, const struct vkc_options *opts);

/* Waits for the device to go idle and destroys the pool and the device (not the instance). */
void vkc_finish_device(struct vkc_ctx *ctx);

/* Waits for the device to go idle and destroys the pool, device and instance; then changes directory to env TEST_CHDIR_AT_END where set. */
void vkc_finish(struct vkc_ctx *ctx);

/* Creates a host-visible coherent storage buffer of @size bytes (plus @extra_usage), mapped. */
/* Index of a memory type allowed by @type_bits with all of @flags; fails the program when there is none. */
uint32_t vkc_memory_type(const struct vkc_ctx *ctx, uint32_t type_bits, VkMemoryPropertyFlags flags);

void vkc_buffer_create(struct vkc_ctx *ctx, struct vkc_buffer *buf, VkDeviceSize size, VkBufferUsageFlags extra_usage);

/* Unmaps and destroys @buf. */
void vkc_buffer_destroy(struct vkc_ctx *ctx, struct vkc_buffer *buf);

/* Loads "<HESPER_SPV_DIR>/<spv_name>" (or env TEST_SPV_DIR) into a shader module. */
VkShaderModule vkc_shader_module(struct vkc_ctx *ctx, const char *spv_name);

/* Descriptor set layout with @n storage buffers at bindings 0..n-1, compute stage. */
VkDescriptorSetLayout vkc_set_layout(struct vkc_ctx *ctx, uint32_t n);

/* Pipeline layout with one set layout and @push_bytes of compute push constants (0: none). */
VkPipelineLayout vkc_pipeline_layout(struct vkc_ctx *ctx, VkDescriptorSetLayout set_layout, uint32_t push_bytes);

/* Descriptor pool for @max_sets sets holding up to @max_buffers storage buffers in all. */
VkDescriptorPool vkc_descriptor_pool(struct vkc_ctx *ctx, uint32_t max_sets, uint32_t max_buffers);

/* Allocates a set of @layout from @pool and points bindings 0..n-1 at @bufs. */
VkDescriptorSet vkc_descriptor_set(struct vkc_ctx *ctx, VkDescriptorPool pool, VkDescriptorSetLayout layout,
				   struct vkc_buffer *const *bufs, uint32_t n);

/* Compute pipeline of entry point "main" in @module, with @flags. */
VkPipeline vkc_compute_pipeline(struct vkc_ctx *ctx, VkPipelineLayout layout, VkShaderModule module,
				VkPipelineCreateFlags flags);

/* Compute pipeline of entry point @entry in @module, specialized by @spec (may be NULL), with @flags. */
VkPipeline vkc_compute_pipeline_entry(struct vkc_ctx *ctx, VkPipelineLayout layout, VkShaderModule module,
				      const char *entry, const VkSpecializationInfo *spec, VkPipelineCreateFlags flags);

/* Names @pipeline with vkSetDebugUtilsObjectNameEXT. Returns false (and does nothing) without the extension. */
bool vkc_name_pipeline(struct vkc_ctx *ctx, VkPipeline pipeline, const char *name);

/* Opens a debug-utils label region @name in @cmd. Returns false (and does nothing) without the extension. */
bool vkc_label_begin(struct vkc_ctx *ctx, VkCommandBuffer cmd, const char *name);

/* Closes the innermost label region opened by vkc_label_begin (nothing without the extension). */
void vkc_label_end(struct vkc_ctx *ctx, VkCommandBuffer cmd);

/* Allocates a primary command buffer from the context's pool. */
VkCommandBuffer vkc_command_buffer(struct vkc_ctx *ctx);

/* Allocates one command buffer of @level from @pool. */
VkCommandBuffer vkc_command_buffer_from(struct vkc_ctx *ctx, VkCommandPool pool, VkCommandBufferLevel level);

/* Begins @cmd with @flags (e.g. ONE_TIME_SUBMIT, or 0 for a reusable recording). */
void vkc_begin(VkCommandBuffer cmd, VkCommandBufferUsageFlags flags);

/* Ends @cmd. */
void vkc_end(VkCommandBuffer cmd);

/* Compute-to-compute (and to indirect/host) memory barrier, so consecutive dispatches see each other's writes. */
void vkc_barrier(VkCommandBuffer cmd);

/* Creates an unsignaled fence. */
VkFence vkc_fence(struct vkc_ctx *ctx);

/* Waits for @fence and resets it; VKC_FENCE_TIMEOUT_MS=N (N > 0) ends the program when N ms pass first. */
void vkc_wait_fence(struct vkc_ctx *ctx, VkFence fence);

/* Submits @cmd alone with @fence and waits for it. */
void vkc_submit_wait(struct vkc_ctx *ctx, VkCommandBuffer cmd, VkFence fence);

/* Creates a timer with room for @pairs timed regions. */
void vkc_timer_create(struct vkc_ctx *ctx, struct vkc_timer *t, uint32_t pairs);

/* Destroys @t's query pool. */
void vkc_timer_destroy(struct vkc_ctx *ctx, struct vkc_timer *t);

/* Records a reset of the pairs [first, first + count) of @t into @cmd. */
void vkc_timer_reset(VkCommandBuffer cmd, const struct vkc_timer *t, uint32_t first, uint32_t count);

/* Records TOP_OF_PIPE (begin) or BOTTOM_OF_PIPE (end) of pair @pair into @cmd. */
void vkc_timer_mark(VkCommandBuffer cmd, const struct vkc_timer *t, uint32_t pair, bool end);

/*
 * Reads pairs [first, first + count) (waiting for them) and stores each region's
 * duration in nanoseconds into @out_ns.
 */
void vkc_timer_read(struct vkc_ctx *ctx, const struct vkc_timer *t, uint32_t first, uint32_t count, double *out_ns);

/*
 * Ground-truth line builder: vkc_truth_begin, one vkc_truth_kernel per distinct kernel,
 * optionally vkc_truth_region per debug-utils label region (after the kernels),
 * vkc_truth_end prints "HESPER-TRUTH {...}" as one line on stdout.
 * @source is the GLSL file's base name; @own_mean_ns < 0 prints null.
 */
void vkc_truth_begin(const char *program);
void vkc_truth_kernel(const char *spv, const char *source, const char *debug_name, bool source_named, uint64_t count,
		      double own_mean_ns);
void vkc_truth_region(const char *name, uint64_t count);
/* Optional: how many dispatches ran with a compute barrier right before and after them. */
void vkc_truth_isolated(uint64_t count);
void vkc_truth_end(bool validation_expected_clean);

/*
 * True when env TEST_PROVOKE_VALIDATION is a non-zero number: vkc_init then makes one
 * deliberate usage error, so the test runner can prove it sees validation messages.
 */
bool vkc_provoke_validation(void);

/* Unsigned integer from environment variable @name, or @fallback when unset; bad values fail. */
uint32_t vkc_env_u32(const char *name, uint32_t fallback);

#endif
