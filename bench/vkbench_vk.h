/*
 * The Vulkan side of vkbench: one instance, one device with up to VB_MAX_QUEUES
 * queues of one compute family that has timestamps, the benchmark kernels, and
 * command-buffer "slots" that carry their own timestamp query pool.
 *
 * Every VkResult is checked; a failure prints one line and exits with status
 * VB_EXIT_VULKAN, so the runner can tell a Vulkan error from a missed target.
 */
#ifndef VKBENCH_VK_H
#define VKBENCH_VK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vulkan/vulkan.h>

#define VB_EXIT_VULKAN 2
#define VB_MAX_QUEUES 16

#define VB_CHECK(expr) vb_check((expr), #expr, __FILE__, __LINE__)

/*
 * How a recording times its dispatches itself. Every recording starts and ends with a
 * whole-buffer TOP_OF_PIPE/BOTTOM_OF_PIPE pair (queries 0 and 1) in every way.
 */
enum vb_way {
	VB_WAY_PLAIN,    /* nothing else */
	VB_WAY_MANUAL,   /* a TOP_OF_PIPE/BOTTOM_OF_PIPE pair around every dispatch: the classic floor */
	VB_WAY_CHAINED,  /* one BOTTOM_OF_PIPE opening the first dispatch, then one after every
			    dispatch: Hesper's own scheme, written by hand */
	VB_WAY_BARRIERS, /* a compute-to-compute barrier between dispatches: isolated kernels */
	/*
	 * Barrier-separated dispatches timed by hand, each way a placement or stage of the
	 * timestamps a profiler could choose (what each costs the GPU, bench/run 2d):
	 */
	VB_WAY_BARRIER_PAIRS,   /* barrier, BOTTOM_OF_PIPE, dispatch, BOTTOM_OF_PIPE: two per dispatch */
	VB_WAY_BARRIER_CHAINED, /* dispatch, BOTTOM_OF_PIPE, barrier: one per dispatch, before the barrier */
	VB_WAY_BARRIER_COMPUTE, /* the same written at the COMPUTE_SHADER stage */
	VB_WAY_BARRIER_TOP,     /* barrier, TOP_OF_PIPE, dispatch: one per dispatch, after the barrier */
	VB_WAY_CHAINED_COMPUTE, /* the chained way written at the COMPUTE_SHADER stage, no barriers */
	VB_WAY_COUNT,
};

enum vb_kernel_kind {
	VB_KERNEL_EMPTY,
	VB_KERNEL_SHORT,
	VB_KERNEL_LONG,
	VB_KERNEL_TINY, /* one work group loading and storing a float per invocation */
	VB_KERNEL_COUNT,
};

struct vb_ctx {
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties mem_props;
	VkDevice device;
	uint32_t family;
	uint32_t family_queues; /* queues the family offers */
	uint32_t queue_count;   /* queues created (<= VB_MAX_QUEUES) */
	VkQueue queues[VB_MAX_QUEUES];
	pthread_mutex_t queue_locks[VB_MAX_QUEUES]; /* the program's own locking of shared queues */
	uint32_t timestamp_bits;
	uint64_t timestamp_mask;
	double period_ns;
	bool has_timeline;                                /* timelineSemaphore enabled on the device */
	PFN_vkSetDebugUtilsObjectNameEXT set_object_name; /* NULL without VK_EXT_debug_utils */

	/* Shared by every kernel: one storage buffer, push constants {iters, n}. */
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout pipeline_layout;
	VkDescriptorPool descriptor_pool;
	VkDescriptorSet set;
	VkBuffer buffer;
	VkDeviceMemory memory;
	uint32_t buffer_floats;
	/* vb_indirect_args: the arguments every dispatch reads, VK_NULL_HANDLE: direct dispatches. */
	VkBuffer indirect;
	VkDeviceMemory indirect_memory;
};

struct vb_kernel {
	enum vb_kernel_kind kind;
	const char *name; /* debug-utils name of the pipeline */
	VkShaderModule module;
	VkPipeline pipeline;
	uint32_t iters;  /* push constant: loop length (busy kernels) */
	uint32_t groups; /* work groups per dispatch */
};

/* A primary command buffer with its own pool, fence and timestamp queries. */
struct vb_slot {
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	VkQueryPool queries;
	uint32_t query_count; /* vb_way_queries() of the way it was made for */
	uint64_t *ticks;      /* readback, query_count values */
};

void vb_check(VkResult r, const char *expr, const char *file, int line);
void vb_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Creates instance and device. @family_override < 0 picks a compute family with
 * timestamps (preferring one without graphics); @want_queues is clamped to what the
 * family has and to VB_MAX_QUEUES. @buffer_floats sizes the kernels' output buffer.
 */
void vb_init(struct vb_ctx *ctx, int family_override, uint32_t want_queues, uint32_t buffer_floats);

/* vb_init with the instance layer @layer enabled by name (NULL: none). */
void vb_init_with_layer(struct vb_ctx *ctx, const char *layer, int family_override, uint32_t want_queues,
			uint32_t buffer_floats);

/* Waits for the device to go idle and destroys everything vb_init created. */
void vb_finish(struct vb_ctx *ctx);

/*
 * A buffer of @bytes that transfers write into, in host-visible coherent memory (cached
 * too when @cached and the device has such memory), bound and mapped; returns the mapping.
 */
void *vb_host_buffer(struct vb_ctx *ctx, VkDeviceSize bytes, bool cached, VkBuffer *buffer, VkDeviceMemory *memory);

/*
 * Creates @k's pipeline from "<spv_dir>/<spv>" and names it @name (debug utils, when
 * the instance has them).
 */
void vb_kernel_create(struct vb_ctx *ctx, struct vb_kernel *k, enum vb_kernel_kind kind, const char *spv_dir,
		      const char *name, uint32_t groups);
void vb_kernel_destroy(struct vb_ctx *ctx, struct vb_kernel *k);

/* Binds @k (pipeline, descriptor set, push constants) into @cmd. */
void vb_kernel_bind(struct vb_ctx *ctx, VkCommandBuffer cmd, const struct vb_kernel *k);

/* Creates a slot with room for @n dispatches recorded @way. */
void vb_slot_create(struct vb_ctx *ctx, struct vb_slot *s, uint32_t n, enum vb_way way);
void vb_slot_destroy(struct vb_ctx *ctx, struct vb_slot *s);

/* The way called @word ("plain", "manual", "chained", "barriers"), or -1. */
int vb_way_by_word(const char *word);
const char *vb_way_word(enum vb_way way);

/* Queries @way uses for @n dispatches, whole-buffer pair included. */
uint32_t vb_way_queries(enum vb_way way, uint32_t n);

/*
 * Makes every later vb_record dispatch indirectly (vkCmdDispatchIndirect) from a
 * host-written buffer of arguments (@groups, 1, 1), made without TRANSFER_SRC.
 */
void vb_indirect_args(struct vb_ctx *ctx, uint32_t groups);

/*
 * Records @n dispatches of @k into @s the way @way says, between the whole-buffer pair,
 * resetting the queries it uses first.
 */
void vb_record(struct vb_ctx *ctx, struct vb_slot *s, const struct vb_kernel *k, uint32_t n, enum vb_way way,
	       VkCommandBufferUsageFlags flags);

/*
 * Reads @s after a recording of @n dispatches made @way. Adds each dispatch's own
 * duration to *@own_sum_ns and counts it in *@own_count (only manual and chained time their dispatches). Returns
 * the whole-buffer nanoseconds.
 */
double vb_harvest(struct vb_ctx *ctx, struct vb_slot *s, uint32_t n, enum vb_way way, double *own_sum_ns,
		  uint64_t *own_count);

/* Reads the first @count queries of @s into s->ticks (waits for them). */
void vb_slot_read(struct vb_ctx *ctx, struct vb_slot *s, uint32_t count);

/* Nanoseconds between two raw timestamps (masked to the valid bits). */
double vb_ticks_ns(const struct vb_ctx *ctx, uint64_t begin, uint64_t end);

/* CLOCK_MONOTONIC in nanoseconds. */
double vb_now_ns(void);

/* Median of @n values (sorts them in place; 0 for none). */
double vb_median(double *v, size_t n);

/* The @q quantile (0..1) of @n values sorted ascending, by nearest rank. */
double vb_quantile_sorted(const double *v, size_t n, double q);

/* The directory holding the running executable, where the build puts the SPIR-V. */
const char *vb_own_dir(void);

/* Parses @s as a decimal number in [@min, @max] into *@out; false when it is not one. */
bool vb_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);

/* The process's resident set now, KiB (0 when /proc cannot be read). */
long vb_rss_kib(void);

#endif
