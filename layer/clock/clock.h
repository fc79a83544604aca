/*
 * Clock mode, the face of clock/: HESPER_MODE=clock times dispatches from inside the
 * kernel with the device clock (VK_KHR_shader_clock), with no timestamp and no barrier
 * between dispatches. Each instrumented dispatch gets a slot in a chunk buffer of its
 * recording, bound at an extra descriptor set Hesper appends to every pipeline layout
 * (docs/timing.md). The SPIR-V rewrite (spirv_clock.h) and the runtime (clock.c, the
 * device's side in clock_device.c) are behind this header. Calls state/ only.
 */
#ifndef HESPER_CLOCK_H
#define HESPER_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "lines.h"
#include "spirv_clock.h"

struct hesper_device;
struct hesper_instance;

/* Slots per chunk buffer (one descriptor set each). */
#define HESPER_CLOCK_CHUNK_SLOTS 1024u

/* A host-visible buffer that Hesper's rewritten kernels write, and the one descriptor set (Hesper's set layout) that binds it. */
struct hesper_clock_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	void *mapped;
	VkDescriptorPool pool;
	VkDescriptorSet *sets; /* set i binds the range from i slot pitches on (hesper_clock_buffer_make) */
};

/* A buffer of clock slots with a descriptor set a slot; recycled per device. */
struct hesper_clock_chunk {
	struct hesper_clock_buffer b;
	struct hesper_clock_chunk *next_free;
};

/* A recording's clock slots: the chunks it took and the slots it used. */
struct hesper_clock_slots {
	struct hesper_clock_chunk **chunks;
	size_t chunk_count, chunk_capacity;
	uint32_t used;
};

/*
 * Device clock ticks to timestamp ticks: ts = ts0 + (clock - clock0) * ts_per_clock, the
 * clock difference taken modulo its width (lavapipe's device clock is 32 bits of
 * nanoseconds: it wraps every 4.3 s).
 */
struct hesper_clock_calibration {
	uint64_t mask; /* the clock's width: 2^32 - 1 or all ones */
	uint64_t clock0;
	double ts0;
	double ts_per_clock;
	double error_ns; /* bound of the mapping's error at calibration */
};

/* A device's clock-mode state (struct hesper_device.clock_mode). */
struct hesper_clock_device {
	VkDescriptorSetLayout set_layout;   /* one STORAGE_BUFFER binding, compute */
	VkDescriptorSetLayout empty_layout; /* padding */
	uint32_t pitch;                     /* bytes between slots in a row: 16, or the offset alignment */
	uint32_t row_words;                 /* 64-bit words from one row to the next (clock_device.c) */
	bool device_local;                  /* chunks live in the device's own memory */
	uint32_t max_sets;
	struct hesper_clock_calibration cal;
	struct hesper_clock_chunk *sink; /* bound where a slot cannot be had; never read */
	struct hesper_clock_chunk *free_chunks;
	uint32_t memory_type;
	const char *lines_why; /* HESPER_LINES: NULL when this device counts lines, else why not */
	bool subgroup_clock;   /* counted blocks read the subgroup clock (else the device clock) */
};

/* Whether @cd's device clock is 32 bits wide, so that its subgroups fold into two lanes each (spirv_clock.h). */
static inline bool hesper_clock_narrow(const struct hesper_clock_device *cd)
{
	return cd->cal.mask != UINT64_MAX;
}

/* The words clock @slots take in a run's result slots, after its queries. */
uint32_t hesper_clock_result_words(const struct hesper_device *dev, const struct hesper_clock_slots *slots);

/* The slots used in chunk @j of @slots. */
uint32_t hesper_clock_chunk_used(const struct hesper_clock_slots *slots, uint32_t j);

/* What Hesper adds to vkCreateDevice for clock mode; kept alive across the call. */
struct hesper_clock_create {
	VkDeviceCreateInfo info;
	VkPhysicalDeviceFeatures features;
	VkPhysicalDeviceShaderClockFeaturesKHR clock;
	VkPhysicalDeviceShaderAtomicInt64Features atomics;
	VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures extended;
	VkBool32 *flipped[8]; /* the program's switches set for the call */
	VkBool32 saved[8];
	uint32_t flipped_count;
	/* HESPER_LINES: NULL when its features were added too, else why not (also when not asked) */
	const char *lines_why;
	bool subgroup_clock; /* and the subgroup clock with them */
	const char **names;
	const char *local_names[64];
};

/*
 * Fills @c with @info changed to enable shaderDeviceClock, shaderInt64 and
 * shaderBufferInt64Atomics (and VK_KHR_shader_clock) when @physical has them all and
 * runs Vulkan 1.2 or later; with HESPER_LINES, also shaderSubgroupExtendedTypes and,
 * where there, shaderSubgroupClock (c->lines_why says when not). Returns NULL and sets
 * c->info (the changed info), or the reason clock mode cannot run on this device
 * (c->info is then a copy of @info).
 */
const char *hesper_clock_create_begin(struct hesper_instance *inst, VkPhysicalDevice physical,
				      const VkDeviceCreateInfo *info, struct hesper_clock_create *c);

/* Restores the program's switches changed by hesper_clock_create_begin and frees @c's memory. */
void hesper_clock_create_end(struct hesper_clock_create *c);

/*
 * Readies clock mode on @dev, created with the features above: its descriptor set
 * layouts, the sink chunk, and the calibration of the device clock against the
 * timestamps of one of its queues (Hesper's own dispatches, before the
 * program has the device; @info is the device's create info). Returns NULL, or why the
 * device falls back to timestamps (its clock-mode state is then freed).
 */
const char *hesper_clock_device_init(struct hesper_device *dev, const VkDeviceCreateInfo *info);

/*
 * Makes @b: @size zeroed bytes of storage buffer (with @usage besides), mapped, and @sets
 * descriptor sets, set i binding @range bytes from i slot pitches on. Returns 0, or -1
 * with what was made freed.
 */
int hesper_clock_buffer_make(struct hesper_device *dev, VkDeviceSize size, VkBufferUsageFlags usage, VkDeviceSize range,
			     uint32_t sets, struct hesper_clock_buffer *b);

/* Destroys what @b holds and leaves it empty. */
void hesper_clock_buffer_free(struct hesper_device *dev, struct hesper_clock_buffer *b);

/*
 * A new chunk of zeroed slots with the descriptor sets of its first @sets slots
 * (HESPER_CLOCK_CHUNK_SLOTS for a recording's, 1 for the sink); NULL on failure.
 */
struct hesper_clock_chunk *hesper_clock_chunk_new(struct hesper_device *dev, uint32_t sets);

/* Destroys chunk @c. */
void hesper_clock_chunk_free(struct hesper_device *dev, struct hesper_clock_chunk *c);

/* Forgets what Hesper knew of @dev's pipeline and descriptor set layouts. */
void hesper_clock_release_layouts(struct hesper_device *dev);

/* Frees @dev's clock-mode objects. */
void hesper_clock_device_release(struct hesper_device *dev);

/*
 * Takes the next of a primary recording's clock @slots, binding the slot's set of its
 * chunk at @set of @layout in @cb. Returns the slot number, or UINT32_MAX
 * when none can be had (the sink is bound then, so the kernel still has its buffer).
 */
uint32_t hesper_clock_bind_slot(struct hesper_device *dev, struct hesper_clock_slots *slots, VkCommandBuffer cb,
				VkPipelineLayout layout, uint32_t set);

/* Binds the sink chunk (a dispatch that cannot be timed by clock, e.g. in a secondary). */
void hesper_clock_bind_sink(struct hesper_device *dev, VkCommandBuffer cb, VkPipelineLayout layout, uint32_t set);

/* Gives the chunks of a recording's @slots back to @dev (their memory cleared for reuse). */
void hesper_clock_release_chunks(struct hesper_device *dev, struct hesper_clock_slots *slots);

/*
 * The result word of lane @row's entry (row HESPER_CLOCK_LANES: the group counts) of clock
 * slot @slot of a recording with @queries queries and clock @slots, from the run's first
 * slot. A run's results hold each chunk as its rows, each cut to the chunk's used slots.
 */
uint32_t hesper_clock_slot_word(const struct hesper_device *dev, uint32_t queries,
				const struct hesper_clock_slots *slots, uint32_t slot, uint32_t row);

/*
 * The host way's read of a run's clock slots: copies the used entries of each chunk of
 * @slots into @results (the run's first result word; its @queries queries before them),
 * laid out as the GPU copy lays them out (hesper_clock_slot_word), and clears them for
 * the recording's next run. Only once the run's submission has completed and before the
 * recording runs again; its command buffer made the kernels' writes visible to the host.
 */
void hesper_clock_read_slots(const struct hesper_device *dev, struct hesper_clock_slots *slots, uint32_t queries,
			     uint64_t *results);

/*
 * A device clock value as timestamp ticks of @dev, placed relative to @anchor: a timestamp
 * (ticks) taken close to it, such as its command buffer's start, so that a clock that
 * wrapped since the calibration still lands right (within half the clock's period).
 */
uint64_t hesper_clock_to_ticks(const struct hesper_device *dev, uint64_t clock, uint64_t anchor);

/* A memory type of @dev among @allowed for Hesper's buffers: host visible and coherent, device local where it can be. */
uint32_t hesper_clock_memory_type(const struct hesper_device *dev, uint32_t allowed);

/*
 * Creates compute pipeline @info from the @count words of SPIR-V at @words instead of its
 * module. Returns NULL and the pipeline in *@out, or why not (*@out VK_NULL_HANDLE).
 */
const char *hesper_clock_make_pipeline(struct hesper_device *dev, VkPipelineCache cache,
				       const VkComputePipelineCreateInfo *info, const uint32_t *words, size_t count,
				       const VkAllocationCallbacks *allocator, VkPipeline *out);

/*
 * Creates an instrumented copy of compute pipeline @info (module code @code, @size bytes),
 * @code NULL when Hesper has no SPIR-V for it. Returns NULL, the pipeline in *@out and
 * Hesper's set index in its layout in *@set, or why it could not (the caller then creates
 * the original). *@counting gets its twin whose work group (0, 0, 0) also reports the
 * dispatch's group counts, bound for indirect dispatches only (NumWorkgroups costs every
 * dispatch that reads it), or VK_NULL_HANDLE when it could not be made. When HESPER_LINES
 * chooses @kernel, its blocks are counted instead where they can be (lines.h): then
 * *@lines gets its counters and HESPER_LINES_NOTE is returned with the pipeline made.
 */
const char *hesper_clock_create_pipeline(struct hesper_device *dev, VkPipelineCache cache,
					 const VkComputePipelineCreateInfo *info, const void *code, size_t size,
					 const VkAllocationCallbacks *allocator, struct hesper_name *kernel,
					 VkPipeline *out, uint32_t *set, VkPipeline *counting,
					 struct hesper_lines_pipeline **lines);

#endif
