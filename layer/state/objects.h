/*
 * Instances, devices and queues as Hesper knows them: the next layer's entry points,
 * what the physical device can do, the queues' pending and recycled submissions, the
 * clock pairing for timelines, and the per-device maps of Hesper's other objects.
 */
#ifndef HESPER_DEVICE_H
#define HESPER_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dispatch.h"
#include "object_map.h"
#include "query_blocks.h"

struct hesper_submission;
struct hesper_clock_device;

/* How a device's timestamps reach Hesper's results (HESPER_COPY; submission.h says more). */
enum hesper_copy_way {
	HESPER_WAY_WAIT, /* a GPU copy after each submission, waiting per query */
	HESPER_WAY_HOST, /* read on the host once the submission completed */
};

struct hesper_instance {
	VkInstance handle;
	struct hesper_instance_table next;
	uint32_t api_version;
};

struct hesper_queue_family {
	VkQueueFamilyProperties props;
	uint64_t tick_mask; /* timestampValidBits as a mask */
	bool timed;         /* has valid bits and graphics or compute */
};

/* Round trips a queue holds until the collector says whether their submissions were in the capture window. */
#define HESPER_TRIPS_PENDING 16

struct hesper_queue {
	VkQueue handle;
	struct hesper_device *dev;
	uint32_t family;
	uint32_t index;
	uint32_t profile_queue; /* index of the queue's row in the profile */
	pthread_mutex_t lock;   /* guards the two lists and the round trips noted (below) */
	struct hesper_submission *pending_head, *pending_tail;
	unsigned pending_count; /* submissions on the pending list */
	unsigned pending_peak;  /* the most there have been */
	struct hesper_submission *free_list;
	unsigned free_count;     /* records on the free list */
	atomic_uint result_peak; /* the most result slots one submission on the queue needed */
	VkCommandPool pool;      /* Hesper's; used only inside the app's queue submits */
	VkSemaphore timeline;    /* Hesper's; signalled by its copy batch */
	uint64_t timeline_value; /* last value submitted for signalling */
	uint64_t submit_index;
	/* For the round-trip finding (waits.h): a submit call not yet covered by a wait, its number and its fence. */
	atomic_bool unwaited;
	atomic_uint_fast64_t unwaited_index;
	atomic_uint_fast64_t last_fence;
	/*
	 * Round trips, counted for the capture window's submissions only (waits.h), under @lock:
	 * the submission accounted last (its number + 1, 0 none) and whether any of it was
	 * inside; the submissions waited for and not yet counted, by number, oldest first, and
	 * those past the list's room.
	 */
	uint64_t accounted_next;
	bool accounted_inside;
	uint64_t trips_pending[HESPER_TRIPS_PENDING];
	unsigned trip_count;
	uint64_t trips_overflow;
	/* Collector-only: extending ticks to 64 bits and the union of busy intervals. */
	bool seen_tick;
	uint64_t last_raw, last_ext, busy_end;
	/* Collector-only: the GPU span of timed batches so far, for the idle gaps between them. */
	bool batch_seen;
	uint64_t batch_first, batch_end; /* extended ticks */
	struct hesper_queue *next_in_device;
};

/* A pair of simultaneous device and host clock readings, for placing GPU times on the host's clock. */
struct hesper_clock_sync {
	bool valid;
	bool calibrated; /* from calibrated timestamps; else anchored at a submit */
	uint64_t device_ticks;
	uint64_t host_ns;  /* CLOCK_MONOTONIC */
	double error_ns;   /* bound of the pairing error; negative when unknown */
	uint64_t taken_at; /* host time of the reading, for recalibration */
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
	uint32_t profile_device;        /* index of the device in the profile */
	bool calibrated_timestamps;     /* VK_EXT_calibrated_timestamps is enabled */
	bool timeline;                  /* timeline semaphores are enabled: Hesper signals its own */
	bool pipeline_stats;            /* pipelines are made to keep their statistics, read at creation */
	struct hesper_clock_sync clock; /* collector-only after creation */

	pthread_mutex_t lock; /* guards free_blocks and queues */
	struct hesper_query_block *free_blocks[HESPER_BLOCK_CLASSES];
	uint64_t queries_made; /* queries in blocks made, bounded by HESPER_MAX_QUERIES */
	struct hesper_queue *queues;
	struct hesper_map pools;       /* VkCommandPool -> struct hesper_command_pool */
	struct hesper_map modules;     /* VkShaderModule -> struct hesper_module */
	struct hesper_map pipelines;   /* VkPipeline -> struct hesper_pipeline */
	struct hesper_map buffers;     /* VkBuffer -> struct hesper_buffer_info (memory_ops.h) */
	struct hesper_map images;      /* VkImage -> struct hesper_image_info (memory_ops.h) */
	struct hesper_map layouts;     /* clock mode: VkPipelineLayout -> Hesper's set in it (clock.c) */
	struct hesper_map set_layouts; /* clock mode: VkDescriptorSetLayout -> what it holds (clock_pipelines.c) */
	struct hesper_clock_device *clock_mode; /* HESPER_MODE=clock state; NULL: timestamps only */
	struct hesper_args_chunk *free_args;    /* argument chunks to reuse (indirect.h), guarded by lock */
	const char *clock_fallback;             /* HESPER_MODE=clock and no clock_mode: why not */
	atomic_int collector_users;             /* collector waits in progress on this device */
	atomic_bool closing;
	atomic_bool lost;              /* said once, when a wait first reports the device lost */
	enum hesper_copy_way copy_way; /* how timestamps reach the results (submission.h) */
	uint32_t compute_units;        /* SMs or CUs when the driver tells; 0 unknown */
	struct hesper_device *next_in_process;
};

/* Hesper's state of the instance that @dispatchable (an instance or physical device) belongs to, or NULL. */
struct hesper_instance *hesper_instance_from(const void *dispatchable);

/* Hesper's state of the device that @dispatchable (a device, queue or command buffer) belongs to, or NULL. */
struct hesper_device *hesper_device_from(const void *dispatchable);

/* Hesper's state of @queue, or NULL when it was never fetched through the device. */
struct hesper_queue *hesper_queue_from(VkQueue queue);

#endif
