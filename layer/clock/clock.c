/*
 * Clock mode at run time (see clock.h): the chunk buffers of clock slots and binding a slot
 * before each dispatch, turning device-clock values into timestamp ticks, and a pipeline
 * made from a rewritten module (the pipelines themselves: clock_pipelines.c).
 *
 * A slot holds (~earliest start, latest end): both folded with atomicMax, so an unused
 * slot is all zeros and one vkCmdFillBuffer after each run's copy readies a chunk for the
 * next run (copies.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "state/state.h"
#include "spirv_clock.h"

uint32_t hesper_clock_chunk_used(const struct hesper_clock_slots *slots, uint32_t j)
{
	uint32_t used = slots->used - j * HESPER_CLOCK_CHUNK_SLOTS;
	return used > HESPER_CLOCK_CHUNK_SLOTS ? HESPER_CLOCK_CHUNK_SLOTS : used;
}

uint32_t hesper_clock_result_words(const struct hesper_device *dev, const struct hesper_clock_slots *slots)
{
	/* every chunk but the last is full */
	return slots->used * HESPER_CLOCK_ROWS * (dev->clock_mode->pitch / 8);
}

uint32_t hesper_clock_slot_word(const struct hesper_device *dev, uint32_t queries,
				const struct hesper_clock_slots *slots, uint32_t slot, uint32_t row)
{
	uint32_t j = slot / HESPER_CLOCK_CHUNK_SLOTS, entry = dev->clock_mode->pitch / 8;
	uint32_t chunk = queries + j * HESPER_CLOCK_CHUNK_SLOTS * HESPER_CLOCK_ROWS * entry;
	return chunk + (row * hesper_clock_chunk_used(slots, j) + slot % HESPER_CLOCK_CHUNK_SLOTS) * entry;
}

void hesper_clock_read_slots(const struct hesper_device *dev, struct hesper_clock_slots *slots, uint32_t queries,
			     uint64_t *results)
{
	const struct hesper_clock_device *cd = dev->clock_mode;
	size_t row = (size_t)cd->row_words * 8;
	for (size_t j = 0; j < slots->chunk_count; j++) {
		uint32_t used = hesper_clock_chunk_used(slots, (uint32_t)j);
		size_t bytes = (size_t)used * cd->pitch;
		uint64_t *to = results +
			       hesper_clock_slot_word(dev, queries, slots, (uint32_t)j * HESPER_CLOCK_CHUNK_SLOTS, 0);
		char *from = slots->chunks[j]->b.mapped;
		for (uint32_t r = 0; r < HESPER_CLOCK_ROWS; r++)
			hesper_device_memory_take((char *)to + r * bytes, from + r * row, bytes);
	}
}

/* The signed distance from @from to @to on a clock of width @mask. */
static double clock_distance(uint64_t from, uint64_t to, uint64_t mask)
{
	uint64_t d = (to - from) & mask;
	return d > mask / 2 ? -(double)((from - to) & mask) : (double)d;
}

uint64_t hesper_clock_to_ticks(const struct hesper_device *dev, uint64_t clock, uint64_t anchor)
{
	const struct hesper_clock_calibration *cal = &dev->clock_mode->cal;
	/* the clock's reading at @anchor, by the calibration */
	double since = ((double)anchor - cal->ts0) / cal->ts_per_clock;
	uint64_t at_anchor = cal->clock0 + (uint64_t)(int64_t)llround(since);
	double ts = (double)anchor +
		    clock_distance(at_anchor & cal->mask, clock & cal->mask, cal->mask) * cal->ts_per_clock;
	return ts <= 0 ? 0 : (uint64_t)llround(ts);
}

uint32_t hesper_clock_memory_type(const struct hesper_device *dev, uint32_t allowed)
{
	const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	const VkMemoryPropertyFlags wanted[] = {host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, host};
	for (size_t w = 0; w < 2; w++)
		for (uint32_t i = 0; i < dev->memory.memoryTypeCount; i++)
			if ((allowed & (1u << i)) &&
			    (dev->memory.memoryTypes[i].propertyFlags & wanted[w]) == wanted[w])
				return i;
	return UINT32_MAX;
}

void hesper_clock_buffer_free(struct hesper_device *dev, struct hesper_clock_buffer *b)
{
	VkDevice d = dev->handle;
	if (b->pool)
		dev->next.DestroyDescriptorPool(d, b->pool, NULL); /* and the sets from it */
	free(b->sets);
	if (b->memory) {
		if (b->mapped)
			dev->next.UnmapMemory(d, b->memory);
		dev->next.FreeMemory(d, b->memory, NULL);
	}
	if (b->buffer)
		dev->next.DestroyBuffer(d, b->buffer, NULL);
	*b = (struct hesper_clock_buffer){0};
}

/*
 * Makes @b's @count descriptor sets from a pool of their own, set i binding @range bytes
 * of its buffer from i slot pitches on. Plain storage-buffer descriptors, one a slot,
 * rather than one dynamic descriptor and an offset at each bind: a kernel reaching
 * Hesper's buffer through a dynamic descriptor ran 20,000 one-group dispatches at 277 ns
 * each on an H100 against 162 ns through a plain one (plain 161; docs/timing.md).
 */
static int make_sets(struct hesper_device *dev, VkDeviceSize range, uint32_t count, struct hesper_clock_buffer *b)
{
	struct hesper_clock_device *cd = dev->clock_mode;
	VkDevice d = dev->handle;
	int rc = -1;
	VkDescriptorSetLayout *layouts = malloc(count * sizeof(*layouts));
	VkDescriptorBufferInfo *bufs = malloc(count * sizeof(*bufs));
	VkWriteDescriptorSet *writes = malloc(count * sizeof(*writes));
	b->sets = calloc(count, sizeof(*b->sets));
	if (!layouts || !bufs || !writes || !b->sets)
		goto out;
	VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = count};
	VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
					 .maxSets = count,
					 .poolSizeCount = 1,
					 .pPoolSizes = &ps};
	if (dev->next.CreateDescriptorPool(d, &pi, NULL, &b->pool) != VK_SUCCESS) {
		b->pool = VK_NULL_HANDLE;
		goto out;
	}
	for (uint32_t i = 0; i < count; i++)
		layouts[i] = cd->set_layout;
	VkDescriptorSetAllocateInfo si = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
					  .descriptorPool = b->pool,
					  .descriptorSetCount = count,
					  .pSetLayouts = layouts};
	if (dev->next.AllocateDescriptorSets(d, &si, b->sets) != VK_SUCCESS)
		goto out;
	/* Descriptor sets are dispatchable-free handles: no loader data needed. */
	for (uint32_t i = 0; i < count; i++) {
		bufs[i] = (VkDescriptorBufferInfo){
			.buffer = b->buffer, .offset = (VkDeviceSize)i * cd->pitch, .range = range};
		writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
						   .dstSet = b->sets[i],
						   .dstBinding = 0,
						   .descriptorCount = 1,
						   .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
						   .pBufferInfo = &bufs[i]};
	}
	dev->next.UpdateDescriptorSets(d, count, writes, 0, NULL);
	rc = 0;
out:
	free(layouts);
	free(bufs);
	free(writes);
	return rc;
}

int hesper_clock_buffer_make(struct hesper_device *dev, VkDeviceSize size, VkBufferUsageFlags usage, VkDeviceSize range,
			     uint32_t sets, struct hesper_clock_buffer *b)
{
	struct hesper_clock_device *cd = dev->clock_mode;
	VkDevice d = dev->handle;
	*b = (struct hesper_clock_buffer){0};
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				 .size = size,
				 .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | usage,
				 .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
	if (dev->next.CreateBuffer(d, &bi, NULL, &b->buffer) != VK_SUCCESS) {
		b->buffer = VK_NULL_HANDLE;
		goto fail;
	}
	VkMemoryRequirements req;
	dev->next.GetBufferMemoryRequirements(d, b->buffer, &req);
	VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
				   .allocationSize = req.size,
				   .memoryTypeIndex = hesper_clock_memory_type(dev, req.memoryTypeBits)};
	if (ai.memoryTypeIndex != UINT32_MAX)
		cd->device_local = dev->memory.memoryTypes[ai.memoryTypeIndex].propertyFlags &
				   VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
	if (ai.memoryTypeIndex == UINT32_MAX || dev->next.AllocateMemory(d, &ai, NULL, &b->memory) != VK_SUCCESS) {
		b->memory = VK_NULL_HANDLE;
		goto fail;
	}
	if (dev->next.BindBufferMemory(d, b->buffer, b->memory, 0) != VK_SUCCESS ||
	    dev->next.MapMemory(d, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped) != VK_SUCCESS) {
		b->mapped = NULL;
		goto fail;
	}
	memset(b->mapped, 0, (size_t)size);
	if (make_sets(dev, range, sets, b) != 0)
		goto fail;
	return 0;
fail:
	hesper_clock_buffer_free(dev, b);
	return -1;
}

void hesper_clock_chunk_free(struct hesper_device *dev, struct hesper_clock_chunk *c)
{
	hesper_clock_buffer_free(dev, &c->b);
	free(c);
}

struct hesper_clock_chunk *hesper_clock_chunk_new(struct hesper_device *dev, uint32_t sets)
{
	const struct hesper_clock_device *cd = dev->clock_mode;
	struct hesper_clock_chunk *c = calloc(1, sizeof(*c));
	/* the descriptor reaches from a slot's entry in row 0 to its entry in the last row */
	if (c && hesper_clock_buffer_make(dev, (VkDeviceSize)HESPER_CLOCK_ROWS * cd->row_words * 8,
					  VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
					  (VkDeviceSize)HESPER_CLOCK_LANES * cd->row_words * 8 + 2 * sizeof(uint64_t),
					  sets, &c->b) != 0) {
		free(c);
		c = NULL;
	}
	return c;
}

/* A chunk from @dev's free list, or a new one, timed as a recording hook's rare work (hook_time.h). */
static struct hesper_clock_chunk *take_chunk(struct hesper_device *dev)
{
	struct hesper_clock_device *cd = dev->clock_mode;
	uint64_t begun = hesper_now_ns();
	pthread_mutex_lock(&dev->lock);
	struct hesper_clock_chunk *c = cd->free_chunks;
	if (c)
		cd->free_chunks = c->next_free;
	pthread_mutex_unlock(&dev->lock);
	if (!c)
		c = hesper_clock_chunk_new(dev, HESPER_CLOCK_CHUNK_SLOTS); /* with its 1,024 sets */
	hesper_hook_rare_end(begun);
	return c;
}

void hesper_clock_release_chunks(struct hesper_device *dev, struct hesper_clock_slots *slots)
{
	for (uint32_t i = 0; i < slots->chunk_count; i++) {
		struct hesper_clock_chunk *c = slots->chunks[i];
		/*
		 * Every run was harvested: nothing on the GPU touches it any more. Each run's copy
		 * cleared its slots already; the slots used are cleared again for a run that had
		 * none (a failed submission), and only those: the memory may sit across PCIe.
		 */
		size_t used = (size_t)hesper_clock_chunk_used(slots, (uint32_t)i) * dev->clock_mode->pitch;
		size_t row = (size_t)dev->clock_mode->row_words * 8;
		for (uint32_t r = 0; r < HESPER_CLOCK_ROWS; r++)
			memset((char *)c->b.mapped + r * row, 0, used);
		pthread_mutex_lock(&dev->lock);
		c->next_free = dev->clock_mode->free_chunks;
		dev->clock_mode->free_chunks = c;
		pthread_mutex_unlock(&dev->lock);
	}
	free(slots->chunks);
	slots->chunks = NULL;
	slots->chunk_count = slots->chunk_capacity = 0;
}

void hesper_clock_bind_sink(struct hesper_device *dev, VkCommandBuffer cb, VkPipelineLayout layout, uint32_t set)
{
	dev->next.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, set, 1,
					&dev->clock_mode->sink->b.sets[0], 0, NULL);
}

uint32_t hesper_clock_bind_slot(struct hesper_device *dev, struct hesper_clock_slots *slots, VkCommandBuffer cb,
				VkPipelineLayout layout, uint32_t set)
{
	if (slots->used % HESPER_CLOCK_CHUNK_SLOTS == 0) {
		/* the last chunk is full (or there is none) */
		struct hesper_clock_chunk *c = NULL;
		if (slots->used / HESPER_CLOCK_CHUNK_SLOTS >= 4096 ||
		    !hesper_reserve_one((void **)&slots->chunks, slots->chunk_count, &slots->chunk_capacity,
					sizeof(*slots->chunks)) ||
		    !(c = take_chunk(dev))) {
			hesper_clock_bind_sink(dev, cb, layout, set);
			return UINT32_MAX;
		}
		slots->chunks[slots->chunk_count++] = c;
	}
	uint32_t slot = slots->used++;
	struct hesper_clock_chunk *c = slots->chunks[slot / HESPER_CLOCK_CHUNK_SLOTS];
	dev->next.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, set, 1,
					&c->b.sets[slot % HESPER_CLOCK_CHUNK_SLOTS], 0, NULL);
	return slot;
}

const char *hesper_clock_make_pipeline(struct hesper_device *dev, VkPipelineCache cache,
				       const VkComputePipelineCreateInfo *info, const uint32_t *words, size_t count,
				       const VkAllocationCallbacks *allocator, VkPipeline *out)
{
	VkShaderModuleCreateInfo mi = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = count * 4, .pCode = words};
	VkShaderModule module = VK_NULL_HANDLE;
	const char *why = "the instrumented shader module was refused";
	*out = VK_NULL_HANDLE;
	if (dev->next.CreateShaderModule(dev->handle, &mi, NULL, &module) == VK_SUCCESS) {
		VkComputePipelineCreateInfo changed = *info;
		changed.stage.module = module;
		if (changed.basePipelineIndex >= 0) {
			/* made one at a time: a base given by index is not there */
			changed.flags &= ~(VkPipelineCreateFlags)VK_PIPELINE_CREATE_DERIVATIVE_BIT;
			changed.basePipelineIndex = -1;
		}
		VkResult r = dev->next.CreateComputePipelines(dev->handle, cache, 1, &changed, allocator, out);
		why = r == VK_SUCCESS ? NULL : "the instrumented pipeline was refused";
		if (r != VK_SUCCESS)
			*out = VK_NULL_HANDLE;
		dev->next.DestroyShaderModule(dev->handle, module, NULL);
	}
	return why;
}
