/*
 * Clock mode's pipelines (see clock.h): pipeline layouts with Hesper's set appended where
 * the device's limits leave room for its storage buffer, and for
 * each compute pipeline its instrumented copy, its group-counting twin, or HESPER_LINES's
 * counted one (lines.c) where its kernel is chosen.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "clock.h"
#include "lines.h"
#include "spirv_clock.h"
#include "state/state.h"

/* What Hesper knows of a pipeline layout in clock mode (struct hesper_device.layouts). */
struct clock_layout {
	uint32_t set;    /* Hesper's set index, or UINT32_MAX */
	const char *why; /* when UINT32_MAX: why not */
};

/* What a descriptor set layout holds that Hesper's set adds to (struct hesper_device.set_layouts). */
struct set_layout_load {
	uint64_t storage;           /* storage buffers, any stage */
	uint64_t compute_storage;   /* storage buffers the compute stage sees */
	uint64_t compute_resources; /* what maxPerStageResources counts, the compute stage's */
	bool after_bind;            /* made for update after bind: other limits apply, not checked */
};

static bool is_storage_buffer(VkDescriptorType t)
{
	return t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
}

/* Whether maxPerStageResources counts descriptors of type @t. */
static bool is_resource(VkDescriptorType t)
{
	switch (t) {
	case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
	case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
	case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
	case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
	case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
	case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
	case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
		return true;
	default:
		return false;
	}
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateDescriptorSetLayout(VkDevice device,
								const VkDescriptorSetLayoutCreateInfo *info,
								const VkAllocationCallbacks *allocator,
								VkDescriptorSetLayout *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	VkResult result = dev->next.CreateDescriptorSetLayout(device, info, allocator, out);
	if (result != VK_SUCCESS || !dev->clock_mode)
		return result;
	struct set_layout_load *load = calloc(1, sizeof(*load));
	if (!load)
		return result; /* unknown to Hesper: layouts with it are not checked */
	load->after_bind = info->flags & VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
	for (uint32_t i = 0; i < info->bindingCount; i++) {
		const VkDescriptorSetLayoutBinding *b = &info->pBindings[i];
		bool compute = b->stageFlags & VK_SHADER_STAGE_COMPUTE_BIT;
		if (is_storage_buffer(b->descriptorType)) {
			load->storage += b->descriptorCount;
			load->compute_storage += compute ? b->descriptorCount : 0;
		}
		if (is_resource(b->descriptorType))
			load->compute_resources += compute ? b->descriptorCount : 0;
	}
	if (hesper_map_put(&dev->set_layouts, (uint64_t)*out, load) != 0)
		free(load);
	return result;
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyDescriptorSetLayout(VkDevice device, VkDescriptorSetLayout layout,
							     const VkAllocationCallbacks *allocator)
{
	struct hesper_device *dev = hesper_device_from(device);
	if (layout)
		free(hesper_map_remove(&dev->set_layouts, (uint64_t)layout));
	dev->next.DestroyDescriptorSetLayout(device, layout, allocator);
}

/*
 * Why the layout of @info, with Hesper's storage buffer added, would pass one of the
 * device's limits on the descriptors of a pipeline layout, or NULL. NULL also when one of
 * its set layouts is not known to Hesper or is made for update after bind (whose own
 * limits are not checked).
 */
static const char *no_room(struct hesper_device *dev, const VkPipelineLayoutCreateInfo *info)
{
	uint64_t storage = 1, compute_storage = 1, compute_resources = 1; /* Hesper's buffer */
	for (uint32_t i = 0; i < info->setLayoutCount; i++) {
		if (!info->pSetLayouts[i])
			continue; /* a hole left for a pipeline library */
		const struct set_layout_load *load = hesper_map_get(&dev->set_layouts, (uint64_t)info->pSetLayouts[i]);
		if (!load || load->after_bind)
			return NULL;
		storage += load->storage;
		compute_storage += load->compute_storage;
		compute_resources += load->compute_resources;
	}
	const VkPhysicalDeviceLimits *limits = &dev->props.limits;
	if (storage > limits->maxDescriptorSetStorageBuffers ||
	    compute_storage > limits->maxPerStageDescriptorStorageBuffers)
		return "the pipeline layout uses every storage buffer the device allows";
	if (compute_resources > limits->maxPerStageResources)
		return "the pipeline layout uses every resource the device allows a shader stage";
	return NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreatePipelineLayout(VkDevice device, const VkPipelineLayoutCreateInfo *info,
							   const VkAllocationCallbacks *allocator,
							   VkPipelineLayout *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	struct hesper_clock_device *cd = dev->clock_mode;
	if (!cd)
		return dev->next.CreatePipelineLayout(device, info, allocator, out);
	struct clock_layout *l = malloc(sizeof(*l));
	uint32_t n = info->setLayoutCount;
	VkResult result = VK_ERROR_UNKNOWN;
	const char *full = n + 1 <= cd->max_sets ? no_room(dev, info) : "no free descriptor set in the pipeline layout";
	if (l && !full) {
		VkDescriptorSetLayout *sets = malloc((n + 1) * sizeof(*sets));
		if (sets) {
			for (uint32_t i = 0; i < n; i++)
				sets[i] = info->pSetLayouts[i];
			sets[n] = cd->set_layout;
			VkPipelineLayoutCreateInfo changed = *info;
			changed.setLayoutCount = n + 1;
			changed.pSetLayouts = sets;
			result = dev->next.CreatePipelineLayout(device, &changed, allocator, out);
			free(sets);
		}
		*l = (struct clock_layout){.set = n};
	} else if (l) {
		*l = (struct clock_layout){.set = UINT32_MAX, .why = full};
	}
	if (result != VK_SUCCESS) {
		if (l && l->set != UINT32_MAX)
			*l = (struct clock_layout){.set = UINT32_MAX,
						   .why = "the layout with Hesper's set could not be made"};
		result = dev->next.CreatePipelineLayout(device, info, allocator, out);
	}
	if (result != VK_SUCCESS || !l || hesper_map_put(&dev->layouts, (uint64_t)*out, l) != 0)
		free(l);
	return result;
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyPipelineLayout(VkDevice device, VkPipelineLayout layout,
							const VkAllocationCallbacks *allocator)
{
	struct hesper_device *dev = hesper_device_from(device);
	if (layout)
		free(hesper_map_remove(&dev->layouts, (uint64_t)layout));
	dev->next.DestroyPipelineLayout(device, layout, allocator);
}

void hesper_clock_release_layouts(struct hesper_device *dev)
{
	hesper_map_free_values(&dev->layouts);
	hesper_map_free_values(&dev->set_layouts);
}

/* Hesper's set index in @layout, or UINT32_MAX with *@why. */
static uint32_t layout_set(struct hesper_device *dev, VkPipelineLayout layout, const char **why)
{
	struct clock_layout *l = hesper_map_get(&dev->layouts, (uint64_t)layout);
	if (!l) {
		*why = "a pipeline layout made before clock mode was ready";
		return UINT32_MAX;
	}
	*why = l->why;
	return l->set;
}

/*
 * One instrumented copy of pipeline @info at Hesper's set @set, with work group (0, 0, 0)
 * folding in its group counts when @group_counts; NULL and the pipeline in *@out, or why not.
 */
static const char *create_instrumented(struct hesper_device *dev, VkPipelineCache cache,
				       const VkComputePipelineCreateInfo *info, const void *code, size_t size,
				       const VkAllocationCallbacks *allocator, uint32_t set, bool group_counts,
				       VkPipeline *out)
{
	uint32_t *words = NULL;
	size_t count = 0;
	const char *why = NULL;
	struct hesper_clock_target target = {.entry = info->stage.pName ? info->stage.pName : "main",
					     .set = set,
					     .binding = 0,
					     .group_counts = group_counts,
					     .row_words = dev->clock_mode->row_words,
					     .narrow_clock = hesper_clock_narrow(dev->clock_mode)};
	*out = VK_NULL_HANDLE;
	if (hesper_spirv_clock_instrument(code, size, &target, &words, &count, &why) != 0)
		return why;
	why = hesper_clock_make_pipeline(dev, cache, info, words, count, allocator, out);
	free(words);
	return why;
}

const char *hesper_clock_create_pipeline(struct hesper_device *dev, VkPipelineCache cache,
					 const VkComputePipelineCreateInfo *info, const void *code, size_t size,
					 const VkAllocationCallbacks *allocator, struct hesper_name *kernel,
					 VkPipeline *out, uint32_t *set, VkPipeline *counting,
					 struct hesper_lines_pipeline **lines)
{
	const char *why = NULL;
	*counting = VK_NULL_HANDLE;
	*lines = NULL;
	uint32_t hesper_set = layout_set(dev, info->layout, &why);
	if (hesper_set == UINT32_MAX)
		return why;
	*set = hesper_set;
	if (!code)
		return "its shader module was given inline or by identifier";
	if (hesper_lines_chosen(kernel)) {
		why = hesper_lines_create_pipeline(dev, cache, info, code, size, allocator, hesper_set, kernel, out,
						   lines);
		if (!why)
			return HESPER_LINES_NOTE;
		if (!dev->clock_mode->lines_why) /* else said once for the device */
			hesper_log("HESPER_LINES: the lines of %s are not counted: %s", kernel->text, why);
	}
	why = create_instrumented(dev, cache, info, code, size, allocator, hesper_set, false, out);
	/* A name it may be given later can choose it: a counted twin beside it (lines.h). */
	VkPipeline twin = VK_NULL_HANDLE;
	if (!why && kernel && hesper_lines_names_given() && !dev->clock_mode->lines_why &&
	    !hesper_lines_create_pipeline(dev, cache, info, code, size, NULL, hesper_set, kernel, &twin, lines))
		hesper_lines_set_twin(*lines, twin);
	/* Without its twin, the pipeline's indirect dispatches keep unknown counts (clock.h). */
	if (!why && create_instrumented(dev, cache, info, code, size, NULL, hesper_set, true, counting))
		*counting = VK_NULL_HANDLE;
	return why;
}
