/*
 * Hesper's Vulkan layer: shared state and the functions its files call in each other.
 *
 * Objects: one struct per instance, device, queue, command pool and command buffer,
 * found through locked maps keyed by handle. A command buffer's commands are described
 * by a recording (kernels dispatched, timestamp queries written, labels, secondaries
 * executed); a submission holds references to the recordings it ran, so a command buffer
 * can be reset, re-recorded or freed while earlier results are still on their way.
 */
#ifndef HESPER_LAYER_H
#define HESPER_LAYER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "commands.h"
#include "object_map.h"
#include "settings.h"

#define HESPER_LAYER_NAME "VK_LAYER_HESPER_profiler"
#define HESPER_EXPORT __attribute__((visibility("default")))

#define HESPER_NO_QUERY UINT32_MAX
/*
 * Query blocks: a recording's i-th block is a VkQueryPool of HESPER_BLOCK_QUERIES << i
 * queries (i capped at HESPER_BLOCK_CLASSES - 1): few pools for long command buffers,
 * little unused query memory (some drivers keep query pools in host memory, NVIDIA's at
 * about 180 bytes a query). Each block is reset whole, in the command buffer, just
 * before its first query is written.
 */
#define HESPER_BLOCK_QUERIES 1024u
#ifndef HESPER_BLOCK_CLASSES
#define HESPER_BLOCK_CLASSES 4u
#endif
#define HESPER_MAX_LABEL_DEPTH 32

#define HESPER_PFN_MEMBER(name) PFN_vk##name name;

struct hesper_kernel;
struct hesper_profile;
struct hesper_spirv_info;

struct hesper_instance_table {
	PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
	HESPER_INSTANCE_COMMANDS(HESPER_PFN_MEMBER, HESPER_PFN_MEMBER)
};

#define HESPER_WORK_MEMBER(name, params, args) PFN_vk##name name;
#define HESPER_STAMP_MEMBER(name, params, args, top) PFN_vk##name name;

struct hesper_device_table {
	PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
	HESPER_DEVICE_COMMANDS(HESPER_PFN_MEMBER, HESPER_PFN_MEMBER)
	HESPER_WORK_COMMANDS(HESPER_WORK_MEMBER)
	HESPER_STAMP_COMMANDS(HESPER_STAMP_MEMBER)
};

/* A name interned for the life of the process: kernels and debug labels. */
struct hesper_name {
	char *text;
	struct hesper_kernel *row;          /* profile row, resolved by the collector */
	atomic_uint_fast64_t recorded;      /* dispatches recorded, for HESPER_SAMPLE */
	struct hesper_name *next;           /* intern table chain */
};

struct hesper_instance {
	VkInstance handle;
	struct hesper_instance_table next;
	uint32_t api_version;
};

struct hesper_queue_family {
	VkQueueFamilyProperties props;
	uint64_t tick_mask;                 /* timestampValidBits as a mask */
	bool timed;                         /* has valid bits and graphics or compute */
};

/* A buffer of Hesper's in host-visible, coherent memory (host_buffer.h). */
struct hesper_host_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	uint64_t *mapped;
	uint32_t slots;                     /* 64-bit slots it holds */
};

#define HESPER_NO_SHADOW UINT32_MAX

/*
 * A secondary as a primary executes it. When the primary executes the same secondary
 * again, the queries of this execution are copied first into one of the primary's
 * shadow buffers (command_buffer.c), from where they are collected.
 */
struct hesper_execution {
	struct hesper_recording *rec;       /* a reference is held */
	uint32_t shadow;                    /* index of the primary's shadow buffer, or HESPER_NO_SHADOW */
	uint32_t shadow_slot;               /* first slot of the copy in it */
};

struct hesper_query_block {
	VkQueryPool pool;
	uint32_t size_class;                /* holds HESPER_BLOCK_QUERIES << size_class queries */
	uint32_t position;                  /* its index among the last recording's blocks */
	uint64_t owner;                     /* the command buffer that recording was made in */
	struct hesper_query_block *next_free;
};

struct hesper_submission;
struct hesper_occurrence;

/* How a device's timestamps reach Hesper's results (HESPER_COPY; submission.h says more). */
enum hesper_copy_way {
	HESPER_WAY_WAIT,                    /* a GPU copy after each submission, waiting per query */
	HESPER_WAY_HOST,                    /* read on the host once the submission completed */
};

struct hesper_queue {
	VkQueue handle;
	struct hesper_device *dev;
	uint32_t family;
	uint32_t index;
	uint32_t profile_queue;             /* index of the queue's row in the profile */
	pthread_mutex_t lock;               /* guards the two lists */
	struct hesper_submission *pending_head, *pending_tail;
	unsigned pending_count;             /* submissions on the pending list */
	struct hesper_submission *free_list;
	VkCommandPool pool;                 /* Hesper's; used only inside the app's queue submits */
	VkSemaphore timeline;               /* Hesper's; signalled by its copy batch */
	uint64_t timeline_value;            /* last value submitted for signalling */
	uint64_t submit_index;
	/* Collector-only: extending ticks to 64 bits and the union of busy intervals. */
	bool seen_tick;
	uint64_t last_raw, last_ext, busy_end;
	struct hesper_queue *next_in_device;
};

/* A pair of simultaneous device and host clock readings, for placing GPU times on the host's clock. */
struct hesper_clock_sync {
	bool valid;
	bool calibrated;                    /* from calibrated timestamps; else anchored at a submit */
	uint64_t device_ticks;
	uint64_t host_ns;                   /* CLOCK_MONOTONIC */
	double error_ns;                    /* bound of the pairing error; negative when unknown */
	uint64_t taken_at;                  /* host time of the reading, for recalibration */
};

struct hesper_device {
	VkDevice handle;
	VkPhysicalDevice physical;
	struct hesper_instance *instance;
	struct hesper_device_table next;
	PFN_vkSetDeviceLoaderData set_loader_data;
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties memory;
	struct hesper_queue_family *families;
	uint32_t family_count;
	uint32_t profile_device;            /* index of the device in the profile */
	bool calibrated_timestamps;         /* VK_EXT_calibrated_timestamps is enabled */
	bool timeline;                      /* timeline semaphores are enabled: Hesper signals its own */
	struct hesper_clock_sync clock;     /* collector-only after creation */

	pthread_mutex_t lock;               /* guards free_blocks and queues */
	struct hesper_query_block *free_blocks[HESPER_BLOCK_CLASSES];
	uint64_t queries_made;              /* queries in blocks made, bounded by HESPER_MAX_QUERIES */
	struct hesper_queue *queues;
	struct hesper_map pools;            /* VkCommandPool -> struct hesper_command_pool */
	struct hesper_map modules;          /* VkShaderModule -> struct hesper_module */
	struct hesper_map pipelines;        /* VkPipeline -> struct hesper_pipeline */
	atomic_int collector_users;         /* collector waits in progress on this device */
	atomic_bool closing;
	atomic_bool lost;                   /* said once, when a wait first reports the device lost */
	enum hesper_copy_way copy_way;      /* how timestamps reach the results (submission.h) */
	struct hesper_device *next_in_process;
};

struct hesper_command_buffer;

struct hesper_command_pool {
	VkCommandPool handle;
	uint32_t family;
	bool protected_pool;
	struct hesper_command_buffer *buffers; /* doubly linked through pool_prev/pool_next */
};

/*
 * One vkCmdDispatch* as recorded, or a run of @repeat identical ones recorded back to
 * back. Untimed, they share nothing else; timed, they are chained: dispatch k of the run
 * (from 0) spans queries k ? end + k - 1 : start to end + k.
 */
struct hesper_dispatch_record {
	struct hesper_name *kernel;
	struct hesper_name *label;          /* innermost debug label, or NULL */
	uint32_t start, end;                /* the first dispatch's timestamps (start may be the
					       previous dispatch's end), or HESPER_NO_QUERY */
	uint32_t repeat : 31;               /* dispatches in the run, at least 1 */
	uint32_t dropped : 1;               /* should have been timed but could not be */
	uint32_t groups[3];
};

#define HESPER_MAX_RUN 0x7fffffffu

/* One debug-utils label range as recorded. */
struct hesper_region_record {
	struct hesper_name *label;
	uint32_t query;                     /* first of a pair, or HESPER_NO_QUERY */
};

struct hesper_recording {
	atomic_uint refs;
	uint64_t id;                        /* unique in the process, never reused */
	struct hesper_device *dev;
	uint32_t family;
	bool primary;
	bool can_query;                     /* queries may be written (timed family, outside render passes) */
	struct hesper_query_block **blocks;
	uint32_t block_count, block_capacity;
	uint32_t queries_used;
	uint32_t query_capacity;            /* queries in the blocks held */
	uint32_t last_end;                  /* when the last command was a timed dispatch's closing
					       timestamp, its query; else HESPER_NO_QUERY */
	bool after_program_top;             /* the last command was the program's own TOP_OF_PIPE
					       timestamp (HESPER_STAMP_COMMANDS) */
	uint32_t cb_query;                  /* begin/end pair of a primary, or HESPER_NO_QUERY */
	uint64_t command_buffer;            /* the handle it was recorded in, for traces */
	struct hesper_dispatch_record *dispatches;
	size_t dispatch_count, dispatch_capacity;
	struct hesper_region_record *regions;
	size_t region_count, region_capacity;
	uint32_t open_regions[HESPER_MAX_LABEL_DEPTH]; /* indices into regions */
	uint32_t label_depth;               /* may exceed the array: deeper labels are untimed */
	struct hesper_execution *secondaries; /* executed, in order (may repeat) */
	size_t secondary_count, secondary_capacity;
	struct hesper_host_buffer *shadows;  /* copies of secondaries' runs executed again after them */
	uint32_t shadow_count, shadow_used;  /* buffers, and slots used in the last one */
	uint64_t lost_dispatches;           /* dispatches not recorded: memory ran out */
	/*
	 * Runs submitted and not yet harvested, and the queue of the last one: a cheap test
	 * for a recording that may be running on another queue (see submit.c).
	 */
	atomic_uint pending;
	struct hesper_queue *_Atomic pending_queue;
	struct hesper_occurrence *_Atomic unread; /* host way: its newest run not read yet (runs.h) */
	atomic_uint_fast64_t seen;          /* the submit call and run index it last ran in (submit.c) */
	atomic_uint_fast64_t executed;      /* the primary and index of its last execution (command_buffer.c) */
	uint64_t hook_ns;                   /* host time spent recording, sampled */
};

struct hesper_command_buffer {
	VkCommandBuffer handle;
	struct hesper_device *dev;
	struct hesper_command_pool *pool;
	bool primary;
	struct hesper_recording *rec;       /* current recording, NULL before the first begin */
	struct hesper_name *bound_kernel;   /* compute pipeline bound now */
	struct hesper_command_buffer *pool_prev, *pool_next;
};

struct hesper_module {
	struct hesper_spirv_info *info;
};

struct hesper_pipeline {
	struct hesper_name *_Atomic kernel; /* what dispatches of this pipeline are called */
	struct hesper_name *spirv_kernel;   /* the name from the SPIR-V, kept if the debug name is cleared */
};

/* --- process.c: process-wide state ---------------------------------------------------- */

struct hesper_process {
	struct hesper_settings settings;
	pthread_mutex_t lock;               /* guards devices, names, the profile */
	struct hesper_device *devices;
	struct hesper_map instances;        /* dispatch key -> struct hesper_instance */
	struct hesper_map device_keys;      /* dispatch key -> struct hesper_device */
	struct hesper_map queues;           /* VkQueue -> struct hesper_queue */
	struct hesper_map command_buffers[16]; /* VkCommandBuffer -> state, sharded */
	atomic_uint_fast64_t command_buffer_epoch; /* bumped whenever a command buffer is forgotten */
	struct hesper_profile *profile;
	uint64_t start_ns;
	bool exit_registered;
	bool reported;
};

/* The process state, set up on first use. */
struct hesper_process *hesper_process(void);

/* Monotonic clock in ns. */
uint64_t hesper_now_ns(void);

/* The loader's dispatch key of a dispatchable handle. */
static inline uint64_t hesper_dispatch_key(const void *handle)
{
	return (uint64_t)(uintptr_t) * (void *const *)handle;
}

/* Interns @text (NULL on allocation failure). Names live until the process ends. */
struct hesper_name *hesper_intern(const char *text);

/* True when a sink needs timeline events (trace or HTML report). */
bool hesper_process_wants_trace(void);

/* Registers the exit report once a device exists (so it runs before the driver's own exit handlers). */
void hesper_process_register_exit(void);

/* Registers the exit handler again once the driver has surely set up its own (first harvest). */
void hesper_process_exit_after_driver(void);

/* Writes the report to every sink, once per process. */
void hesper_process_report(void);

/* One line on stderr, prefixed "hesper: ". */
void hesper_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- instance.c / device.c -------------------------------------------------------------- */

struct hesper_instance *hesper_instance_from(const void *dispatchable);
struct hesper_device *hesper_device_from(const void *dispatchable);
struct hesper_queue *hesper_queue_from(VkQueue queue);

/* What Hesper enabled on a device beyond what the program asked for (or found enabled). */
struct hesper_device_additions {
	bool calibrated_timestamps;
	bool timeline;
};

/*
 * Creates the device through @create with Hesper's additions (calibrated timestamps,
 * timeline semaphores) when the device has them; if that fails, exactly as the program
 * asked. @link is the loader's chain element, already pointing at the next layer.
 */
VkResult hesper_create_device(PFN_vkCreateDevice create, VkLayerDeviceCreateInfo *link, struct hesper_instance *inst,
			      VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
			      const VkAllocationCallbacks *allocator, VkDevice *out, struct hesper_device_additions *added);

/* Reads the device and host clocks together (bounded retries); false when the device cannot. */
bool hesper_device_calibrate(struct hesper_device *dev, struct hesper_clock_sync *out);

/* Forgets @dev's queues and Hesper's objects on it; results already harvested. */
void hesper_device_release_queues(struct hesper_device *dev);

/* --- command_buffer.c --------------------------------------------------------------- */

/* The state of @cb, or NULL if Hesper does not know it. */
struct hesper_command_buffer *hesper_command_buffer_from(VkCommandBuffer cb);

/* Forgets every command pool of @dev and its command buffers. */
void hesper_command_pools_release_all(struct hesper_device *dev);

/* --- recording.c ------------------------------------------------------------------------ */

/* A new recording for a command buffer of @family; NULL when memory runs out. */
struct hesper_recording *hesper_recording_create(struct hesper_device *dev, uint32_t family, bool primary,
						 bool can_query);

/* Takes a reference. */
void hesper_recording_ref(struct hesper_recording *rec);

/* Drops a reference; the last one frees the recording and gives its query blocks back. */
void hesper_recording_unref(struct hesper_recording *rec);

/*
 * Reserves @count (1 or 2) consecutive queries in @rec, recording in @cb the reset of
 * each block when it is first used. Returns the first query index, or HESPER_NO_QUERY
 * when no query can be had (counted as dropped by the caller).
 */
uint32_t hesper_recording_take(struct hesper_recording *rec, VkCommandBuffer cb, uint32_t count);

/* The pool and index in it of query @query of @rec. */
void hesper_recording_query(const struct hesper_recording *rec, uint32_t query, VkQueryPool *pool, uint32_t *index);

/* Grows an array of @size-byte elements to hold one more; false when memory runs out. */
static inline bool hesper_reserve_one(void **items, size_t count, size_t *capacity, size_t size)
{
	if (count < *capacity)
		return true;
	size_t grown = *capacity ? *capacity * 2 : 16;
	void *p = realloc(*items, grown * size);
	if (!p)
		return false;
	*items = p;
	*capacity = grown;
	return true;
}

/* Queries in block @i of a recording. */
static inline uint32_t hesper_block_size(uint32_t i)
{
	return HESPER_BLOCK_QUERIES << (i < HESPER_BLOCK_CLASSES ? i : HESPER_BLOCK_CLASSES - 1);
}

/* The index within the recording of the first query of block @i. */
static inline uint32_t hesper_block_start(uint32_t i)
{
	uint32_t geometric = i < HESPER_BLOCK_CLASSES ? i : HESPER_BLOCK_CLASSES - 1;
	uint32_t start = HESPER_BLOCK_QUERIES * ((1u << geometric) - 1);
	return start + (i - geometric) * hesper_block_size(HESPER_BLOCK_CLASSES - 1);
}

/* Notes a run of @rec submitted on @queue; returns the queue of a run still pending elsewhere, or NULL. */
struct hesper_queue *hesper_recording_submitted(struct hesper_recording *rec, struct hesper_queue *queue);

/* Notes that a run of @rec was harvested (or given up). */
void hesper_recording_harvested(struct hesper_recording *rec);

/* A query block of the smallest size for Hesper's own use (reset before use), or NULL. */
struct hesper_query_block *hesper_query_block_take(struct hesper_device *dev);

/* Returns @block, whose queries the device no longer uses, to @dev's free blocks. */
void hesper_query_block_give(struct hesper_device *dev, struct hesper_query_block *block);

/* Gives every free query block of @dev back to the driver. */
void hesper_query_blocks_destroy(struct hesper_device *dev);

/* --- pipeline.c ------------------------------------------------------------------------- */

/* The kernel name of compute pipeline @pipeline on @dev, or NULL when unknown. */
struct hesper_name *hesper_pipeline_kernel(struct hesper_device *dev, VkPipeline pipeline);

/* Forgets every module and pipeline of @dev. */
void hesper_pipelines_release_all(struct hesper_device *dev);

/* --- collector.c ------------------------------------------------------------------------ */

/* Hands a submission to the collector (it owns it from now on). */
void hesper_collector_enqueue(struct hesper_queue *queue, struct hesper_submission *sub);

/* Asks the collector to look for finished work now (the program just waited on something). */
void hesper_collector_nudge(void);

/*
 * Harvests every pending submission of @dev (or of every device when NULL), waiting at
 * most @timeout_ns for work in flight; what does not finish is counted as dropped.
 */
void hesper_collector_flush(struct hesper_device *dev, uint64_t timeout_ns);

/* Stops the collector thread (at exit). */
void hesper_collector_stop(void);

/* --- submit.c --------------------------------------------------------------------------- */

/* Host time spent inside Hesper's submit hooks so far, ns. */
uint64_t hesper_submit_hook_ns(void);

/* Adds host time spent recording (sampled) to the process total. */
void hesper_add_record_hook_ns(uint64_t ns);

/* --- hook prototypes, generated from the command list ----------------------------------- */

VKAPI_ATTR void VKAPI_CALL hesper_DestroyInstance(VkInstance, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateInstance(const VkInstanceCreateInfo *, const VkAllocationCallbacks *,
						     VkInstance *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateDevice(VkPhysicalDevice, const VkDeviceCreateInfo *,
						   const VkAllocationCallbacks *, VkDevice *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyDevice(VkDevice, const VkAllocationCallbacks *);
VKAPI_ATTR void VKAPI_CALL hesper_GetDeviceQueue(VkDevice, uint32_t, uint32_t, VkQueue *);
VKAPI_ATTR void VKAPI_CALL hesper_GetDeviceQueue2(VkDevice, const VkDeviceQueueInfo2 *, VkQueue *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateCommandPool(VkDevice, const VkCommandPoolCreateInfo *,
							const VkAllocationCallbacks *, VkCommandPool *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyCommandPool(VkDevice, VkCommandPool, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_ResetCommandPool(VkDevice, VkCommandPool, VkCommandPoolResetFlags);
VKAPI_ATTR VkResult VKAPI_CALL hesper_AllocateCommandBuffers(VkDevice, const VkCommandBufferAllocateInfo *,
							     VkCommandBuffer *);
VKAPI_ATTR void VKAPI_CALL hesper_FreeCommandBuffers(VkDevice, VkCommandPool, uint32_t, const VkCommandBuffer *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_BeginCommandBuffer(VkCommandBuffer, const VkCommandBufferBeginInfo *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_EndCommandBuffer(VkCommandBuffer);
VKAPI_ATTR VkResult VKAPI_CALL hesper_ResetCommandBuffer(VkCommandBuffer, VkCommandBufferResetFlags);
VKAPI_ATTR void VKAPI_CALL hesper_CmdBindPipeline(VkCommandBuffer, VkPipelineBindPoint, VkPipeline);
VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatch(VkCommandBuffer, uint32_t, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchIndirect(VkCommandBuffer, VkBuffer, VkDeviceSize);
VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchBase(VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
						  uint32_t);
VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchBaseKHR(VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t,
						     uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL hesper_CmdExecuteCommands(VkCommandBuffer, uint32_t, const VkCommandBuffer *);
VKAPI_ATTR void VKAPI_CALL hesper_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer, const VkDebugUtilsLabelEXT *);
VKAPI_ATTR void VKAPI_CALL hesper_CmdEndDebugUtilsLabelEXT(VkCommandBuffer);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateShaderModule(VkDevice, const VkShaderModuleCreateInfo *,
							 const VkAllocationCallbacks *, VkShaderModule *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyShaderModule(VkDevice, VkShaderModule, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateComputePipelines(VkDevice, VkPipelineCache, uint32_t,
							     const VkComputePipelineCreateInfo *,
							     const VkAllocationCallbacks *, VkPipeline *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyPipeline(VkDevice, VkPipeline, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_SetDebugUtilsObjectNameEXT(VkDevice, const VkDebugUtilsObjectNameInfoEXT *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit(VkQueue, uint32_t, const VkSubmitInfo *, VkFence);
VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit2(VkQueue, uint32_t, const VkSubmitInfo2 *, VkFence);
VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit2KHR(VkQueue, uint32_t, const VkSubmitInfo2 *, VkFence);
VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueWaitIdle(VkQueue);
VKAPI_ATTR VkResult VKAPI_CALL hesper_DeviceWaitIdle(VkDevice);
VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitForFences(VkDevice, uint32_t, const VkFence *, VkBool32, uint64_t);
VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitSemaphores(VkDevice, const VkSemaphoreWaitInfo *, uint64_t);
VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitSemaphoresKHR(VkDevice, const VkSemaphoreWaitInfo *, uint64_t);

#define HESPER_WORK_PROTOTYPE(name, params, args) VKAPI_ATTR void VKAPI_CALL hesper_##name params;
#define HESPER_STAMP_PROTOTYPE(name, params, args, top) HESPER_WORK_PROTOTYPE(name, params, args)
HESPER_WORK_COMMANDS(HESPER_WORK_PROTOTYPE)
HESPER_STAMP_COMMANDS(HESPER_STAMP_PROTOTYPE)

#endif
