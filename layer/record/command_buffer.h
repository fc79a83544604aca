/* Command pools and command buffers as Hesper tracks them: each one's current recording. */
#ifndef HESPER_COMMAND_BUFFER_H
#define HESPER_COMMAND_BUFFER_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "recording.h"

struct hesper_device;
struct hesper_command_buffer;
struct hesper_lines_pipeline;

struct hesper_command_pool {
	VkCommandPool handle;
	uint32_t family;
	bool protected_pool;
	struct hesper_command_buffer *buffers; /* doubly linked through pool_prev/pool_next */
};

struct hesper_command_buffer {
	VkCommandBuffer handle;
	struct hesper_device *dev;
	struct hesper_command_pool *pool;
	bool primary;
	struct hesper_recording *rec;        /* current recording, NULL before the first begin */
	struct hesper_name *bound_kernel;    /* compute pipeline bound now */
	VkPipeline bound_pipeline;           /* its handle */
	uint8_t bound_stats_set;             /* its pipeline's statistics set (hesper_pipeline_stats_set), 0 none */
	VkPipelineLayout clock_layout;       /* and, when it is instrumented (clock mode), its layout */
	uint32_t clock_set;                  /* and Hesper's set index in it */
	VkPipeline clock_counting;           /* and its group-counting twin (pipeline.h), or VK_NULL_HANDLE */
	struct hesper_lines_pipeline *lines; /* and its blocks' counters (HESPER_LINES), or NULL */
	bool lines_counted;                  /* a dispatch of this recording counted its blocks */
	struct hesper_command_buffer *pool_prev, *pool_next;
};

/* The state of @cb, or NULL if Hesper does not know it. */
struct hesper_command_buffer *hesper_command_buffer_from(VkCommandBuffer cb);

/* Forgets every command pool of @dev and its command buffers. */
void hesper_command_pools_release_all(struct hesper_device *dev);

#endif
