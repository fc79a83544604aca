/*
 * Shader modules and compute pipelines: what each kernel is called. A pipeline's name is
 * its debug-utils object name when the program set one, else a name read from its
 * SPIR-V (see spirv.h), so that two kernels never share a row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock/clock.h"
#include "state/state.h"
#include "pipeline.h"
#include "spirv.h"

/* Parses @info's code into a new module record; NULL when memory runs out. */
static struct hesper_module *module_from_code(const VkShaderModuleCreateInfo *info)
{
	struct hesper_module *m = calloc(1, sizeof(*m));
	struct hesper_spirv_info *spirv = calloc(1, sizeof(*spirv));
	if (!m || !spirv) {
		free(m);
		free(spirv);
		return NULL;
	}
	hesper_spirv_parse(info->pCode, info->codeSize, spirv);
	m->info = spirv;
	if (hesper_process()->settings.mode == HESPER_MODE_CLOCK && info->codeSize) {
		m->code = malloc(info->codeSize);
		if (m->code) {
			memcpy(m->code, info->pCode, info->codeSize);
			m->code_size = info->codeSize;
		}
	}
	return m;
}

static void module_free(struct hesper_module *m)
{
	if (!m)
		return;
	free(m->info);
	free(m->code);
	free(m);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *info,
							 const VkAllocationCallbacks *allocator, VkShaderModule *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	VkResult result = dev->next.CreateShaderModule(device, info, allocator, out);
	if (result != VK_SUCCESS)
		return result;
	struct hesper_module *m = module_from_code(info);
	if (!m || hesper_map_put(&dev->modules, (uint64_t)*out, m) != 0)
		module_free(m);
	return result;
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyShaderModule(VkDevice device, VkShaderModule module,
						      const VkAllocationCallbacks *allocator)
{
	struct hesper_device *dev = hesper_device_from(device);
	if (module)
		module_free(hesper_map_remove(&dev->modules, (uint64_t)module));
	dev->next.DestroyShaderModule(device, module, allocator);
}

/* Frees @s (NULL: nothing) and what it owns. */
static void stats_destroy(struct hesper_pipeline_stats *s)
{
	if (s)
		hesper_pipeline_stats_free(s);
	free(s);
}

/* Frees @p (may be NULL), destroys the clock-mode twin Hesper made for it and keeps its lines' counts. */
static void pipeline_free(struct hesper_device *dev, struct hesper_pipeline *p)
{
	if (p && p->clock_counting)
		dev->next.DestroyPipeline(dev->handle, p->clock_counting, NULL);
	if (p && p->lines)
		hesper_lines_pipeline_done(dev, p->lines);
	if (p)
		stats_destroy(p->stats);
	free(p);
}

/* Copies the driver's fixed-size string @from (@max bytes, maybe unterminated) into @to (@size), cut if longer. */
static void copy_driver_string(char *to, size_t size, const char *from, size_t max)
{
	size_t len = strnlen(from, max);
	if (len >= size)
		len = size - 1;
	memcpy(to, from, len);
	to[len] = '\0';
}

/*
 * VkPipelineCreateFlags2CreateInfoKHR (VK_KHR_maintenance5, newer than the headers Hesper
 * builds with): where a pipeline's chain has it, its flags replace the create info's, so
 * the capture flag Hesper adds there would not count; such pipelines keep no statistics.
 */
#define PIPELINE_CREATE_FLAGS_2_CREATE_INFO ((VkStructureType)1000470005)

/* Whether statistics can be asked for in @info's flags (no flags-2 struct in its chain). */
static bool flags_capture(const VkComputePipelineCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
		if (s->sType == PIPELINE_CREATE_FLAGS_2_CREATE_INFO)
			return false;
	return true;
}

/* Most executables of one pipeline looked at for the compute one. */
#define MAX_EXECUTABLES 8

/* The driver's statistics of @pipeline's compute executable; NULL when it gives none or memory runs out. */
static struct hesper_pipeline_stats *read_stats(struct hesper_device *dev, VkPipeline pipeline)
{
	VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipeline};
	VkPipelineExecutablePropertiesKHR props[MAX_EXECUTABLES];
	uint32_t n = MAX_EXECUTABLES, which = 0;
	for (uint32_t i = 0; i < n; i++)
		props[i] = (VkPipelineExecutablePropertiesKHR){
			.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR};
	VkResult r = dev->next.GetPipelineExecutablePropertiesKHR(dev->handle, &pi, &n, props);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n)
		return NULL;
	for (uint32_t i = n; i-- > 0;)
		if (props[i].stages & VK_SHADER_STAGE_COMPUTE_BIT)
			which = i;
	VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
					  .pipeline = pipeline,
					  .executableIndex = which};
	uint32_t count = 0;
	if (dev->next.GetPipelineExecutableStatisticsKHR(dev->handle, &ei, &count, NULL) != VK_SUCCESS)
		return NULL;
	struct hesper_pipeline_stats *out = calloc(1, sizeof(*out));
	VkPipelineExecutableStatisticKHR *got = count ? calloc(count, sizeof(*got)) : NULL;
	if (!out || (count && !got))
		goto fail;
	for (uint32_t i = 0; i < count; i++)
		got[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
	r = count ? dev->next.GetPipelineExecutableStatisticsKHR(dev->handle, &ei, &count, got) : VK_SUCCESS;
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || (count && !(out->stats = calloc(count, sizeof(*out->stats)))))
		goto fail;
	/* The driver's strings are fixed arrays: never trust them to be terminated. */
	copy_driver_string(out->executable, sizeof(out->executable), props[which].name, sizeof(props[which].name));
	out->subgroup_size = props[which].subgroupSize;
	for (uint32_t i = 0; i < count; i++) {
		struct hesper_pipeline_stat *st = &out->stats[out->count];
		copy_driver_string(st->name, sizeof(st->name), got[i].name, sizeof(got[i].name));
		switch (got[i].format) {
		case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
			st->format = HESPER_STAT_BOOL;
			st->value.b = got[i].value.b32;
			break;
		case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
			st->format = HESPER_STAT_INT;
			st->value.i = got[i].value.i64;
			break;
		case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
			st->format = HESPER_STAT_UINT;
			st->value.u = got[i].value.u64;
			break;
		case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
			st->format = HESPER_STAT_FLOAT;
			st->value.f = got[i].value.f64;
			break;
		default:
			continue; /* a format newer than Hesper: left out */
		}
		out->count++;
	}
	free(got);
	return out;
fail:
	free(got);
	stats_destroy(out);
	return NULL;
}

uint8_t hesper_pipeline_stats_set(struct hesper_device *dev, struct hesper_pipeline *p, struct hesper_name *kernel)
{
	if (!p || !p->stats)
		return 0;
	if (atomic_load_explicit(&p->stats_name, memory_order_acquire) == kernel)
		return atomic_load_explicit(&p->stats_set, memory_order_relaxed);
	/* First bound under this name: its statistics join the report, as a set of their own or one alike. */
	struct hesper_pipeline_stats named = *p->stats;
	named.kernel = kernel->text;
	/* With its device and work-group size, the reports reckon its occupancy from them. */
	named.device = dev->profile_device;
	if (p->local_size != HESPER_LOCAL_SIZE_VARIES)
		hesper_local_size_unpack(p->local_size, named.local_size);
	int variant = hesper_process_note_pipeline_stats(&named);
	uint8_t set = variant >= 0 && variant < UINT8_MAX ? (uint8_t)(variant + 1) : 0;
	atomic_store_explicit(&p->stats_set, set, memory_order_relaxed);
	atomic_store_explicit(&p->stats_name, kernel, memory_order_release);
	return set;
}

/* The module code given inline in @stage's chain (maintenance5 style), or NULL. */
static const VkShaderModuleCreateInfo *inline_module(const VkPipelineShaderStageCreateInfo *stage)
{
	for (const VkBaseInStructure *s = stage->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO)
			return (const VkShaderModuleCreateInfo *)s;
	return NULL;
}

/* The value @stage's VkSpecializationInfo (@ctx) gives specialization constant @id, if it does. */
static bool specialized(void *ctx, uint32_t id, uint32_t *value)
{
	const VkSpecializationInfo *spec = ctx;
	for (uint32_t i = 0; spec && spec->pMapEntries && spec->pData && i < spec->mapEntryCount; i++) {
		const VkSpecializationMapEntry *m = &spec->pMapEntries[i];
		if (m->constantID != id || m->size != sizeof(uint32_t) || m->offset + sizeof(uint32_t) > spec->dataSize)
			continue;
		memcpy(value, (const char *)spec->pData + m->offset, sizeof(uint32_t));
		return true;
	}
	return false;
}

/* The packed work-group size of compute stage @stage from module @info (hesper_local_size_pack; 0 unknown). */
static uint64_t stage_local_size(const struct hesper_spirv_info *info, const VkPipelineShaderStageCreateInfo *stage,
				 const char *entry)
{
	uint32_t size[3];
	if (!hesper_spirv_local_size(info, entry, specialized, (void *)stage->pSpecializationInfo, size))
		return 0;
	return hesper_local_size_pack(size);
}

/* The interned SPIR-V kernel name of compute stage @stage; *@local_size gets its packed work-group size. */
static struct hesper_name *stage_kernel(struct hesper_device *dev, const VkPipelineShaderStageCreateInfo *stage,
					uint64_t *local_size)
{
	char name[2 * HESPER_SPIRV_NAME_MAX + 32];
	const char *entry = stage->pName ? stage->pName : "main";
	struct hesper_module *m = stage->module ? hesper_map_get(&dev->modules, (uint64_t)stage->module) : NULL;
	const VkShaderModuleCreateInfo *code = stage->module ? NULL : inline_module(stage);
	if (m) {
		hesper_spirv_kernel_name(m->info, entry, name, sizeof(name));
		*local_size = stage_local_size(m->info, stage, entry);
	} else if (code) {
		struct hesper_spirv_info *info = calloc(1, sizeof(*info));
		if (!info)
			return NULL;
		hesper_spirv_parse(code->pCode, code->codeSize, info);
		hesper_spirv_kernel_name(info, entry, name, sizeof(name));
		*local_size = stage_local_size(info, stage, entry);
		free(info);
	} else {
		/* A module Hesper never saw (e.g. given by identifier): name it by entry point alone. */
		snprintf(name, sizeof(name), "%s#unknown", entry);
	}
	return hesper_intern(name);
}

/* What clock mode made of each pipeline of one vkCreateComputePipelines call. */
struct clocked {
	struct hesper_name **kernels;         /* each one's kernel name, known before it is made */
	const char **why;                     /* not instrumented for clock mode: why */
	uint32_t *sets;                       /* Hesper's set index in its layout */
	VkPipeline *counting;                 /* its group-counting twin */
	struct hesper_lines_pipeline **lines; /* HESPER_LINES: its counters */
};

/*
 * Clock mode: each pipeline made one at a time, instrumented where it can be (clock.c),
 * else as the program asked, timed with timestamps; @clocked gets each one's layout and set.
 */
static VkResult create_clocked(struct hesper_device *dev, VkPipelineCache cache, uint32_t count,
			       const VkComputePipelineCreateInfo *infos, const VkAllocationCallbacks *allocator,
			       VkPipeline *out, struct clocked *clocked)
{
	const char **why = clocked->why;
	VkResult result = VK_SUCCESS;
	for (uint32_t i = 0; i < count; i++)
		out[i] = VK_NULL_HANDLE; /* those after an early return stay null, as the driver would leave them */
	for (uint32_t i = 0; i < count; i++) {
		const VkPipelineShaderStageCreateInfo *stage = &infos[i].stage;
		struct hesper_module *m = stage->module ? hesper_map_get(&dev->modules, (uint64_t)stage->module) : NULL;
		out[i] = VK_NULL_HANDLE;
		why[i] = hesper_clock_create_pipeline(dev, cache, &infos[i], m ? m->code : NULL, m ? m->code_size : 0,
						      allocator, clocked->kernels[i], &out[i], &clocked->sets[i],
						      &clocked->counting[i], &clocked->lines[i]);
		if (!why[i] || clocked->lines[i])
			continue;
		VkComputePipelineCreateInfo one = infos[i];
		if (one.basePipelineIndex >= 0) {
			one.basePipelineHandle = (uint32_t)one.basePipelineIndex < i ? out[one.basePipelineIndex]
										     : VK_NULL_HANDLE;
			one.basePipelineIndex = -1;
		}
		VkResult r = dev->next.CreateComputePipelines(dev->handle, cache, 1, &one, allocator, &out[i]);
		if (r != VK_SUCCESS) {
			out[i] = VK_NULL_HANDLE;
			result = r;
			if (infos[i].flags & VK_PIPELINE_CREATE_EARLY_RETURN_ON_FAILURE_BIT)
				break;
		}
	}
	return result;
}

/*
 * Makes @count pipelines of @infos into @out: one at a time and instrumented where they can
 * be when @ok (create_clocked, into @c), else in one call down (c->why, when there, saying
 * that clock mode had no memory).
 */
static VkResult create_all(struct hesper_device *dev, VkPipelineCache cache, uint32_t count,
			   const VkComputePipelineCreateInfo *infos, const VkAllocationCallbacks *allocator,
			   VkPipeline *out, bool ok, struct clocked *c)
{
	if (ok)
		return create_clocked(dev, cache, count, infos, allocator, out, c);
	VkResult result = dev->next.CreateComputePipelines(dev->handle, cache, count, infos, allocator, out);
	for (uint32_t i = 0; c->why && i < count; i++)
		c->why[i] = "out of memory";
	return result;
}

/* Frees what @c holds. */
static void clocked_free(struct clocked *c)
{
	free(c->kernels);
	free(c->why);
	free(c->sets);
	free(c->counting);
	free(c->lines);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
							     const VkComputePipelineCreateInfo *infos,
							     const VkAllocationCallbacks *allocator, VkPipeline *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	struct clocked c = {0};
	VkComputePipelineCreateInfo *capturing = NULL;
	const VkComputePipelineCreateInfo *asked = infos;
	VkResult result;
	/* Statistics are kept only for pipelines made asking for them: the program's infos, flag added. */
	if (dev->pipeline_stats && count && (capturing = malloc(count * sizeof(*capturing)))) {
		memcpy(capturing, infos, count * sizeof(*capturing));
		for (uint32_t i = 0; i < count; i++)
			capturing[i].flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
		infos = capturing;
	}
	uint64_t *local_sizes = count ? calloc(count, sizeof(*local_sizes)) : NULL;
	/* The names first: HESPER_LINES chooses pipelines by them (NULL where memory ran out). */
	if (local_sizes && (c.kernels = calloc(count, sizeof(*c.kernels))))
		for (uint32_t i = 0; i < count; i++)
			c.kernels[i] = stage_kernel(dev, &infos[i].stage, &local_sizes[i]);
	bool clocked = dev->clock_mode && count && c.kernels && (c.why = calloc(count, sizeof(*c.why))) &&
		       (c.sets = calloc(count, sizeof(*c.sets))) && (c.counting = calloc(count, sizeof(*c.counting))) &&
		       (c.lines = calloc(count, sizeof(*c.lines)));
	result = create_all(dev, cache, count, infos, allocator, out, clocked, &c);
	if (capturing && result < 0) {
		/* Never let the statistics be why a pipeline fails: again, as the program asked. */
		for (uint32_t i = 0; i < count; i++) {
			if (out[i])
				dev->next.DestroyPipeline(dev->handle, out[i], allocator);
			if (c.counting && c.counting[i])
				dev->next.DestroyPipeline(dev->handle, c.counting[i], NULL);
			if (c.lines && c.lines[i])
				hesper_lines_pipeline_done(dev, c.lines[i]);
		}
		free(capturing);
		capturing = NULL;
		infos = asked;
		result = create_all(dev, cache, count, infos, allocator, out, clocked, &c);
	}
	/* Even on failure the pipelines that were made are returned (the others are null). */
	for (uint32_t i = 0; i < count; i++) {
		if (!out[i])
			continue;
		struct hesper_pipeline *p = calloc(1, sizeof(*p));
		if (!p) {
			if (c.counting && c.counting[i])
				dev->next.DestroyPipeline(dev->handle, c.counting[i], NULL);
			if (c.lines && c.lines[i])
				hesper_lines_pipeline_done(dev, c.lines[i]);
			continue;
		}
		if (c.kernels) {
			p->spirv_kernel = c.kernels[i];
			p->local_size = local_sizes[i];
		} else {
			p->spirv_kernel = stage_kernel(dev, &infos[i].stage, &p->local_size);
		}
		hesper_name_note_local_size(p->spirv_kernel, p->local_size);
		atomic_init(&p->kernel, p->spirv_kernel);
		if (c.counting && !c.why[i]) {
			p->clock_layout = infos[i].layout;
			p->clock_set = c.sets[i];
			p->clock_counting = c.counting[i];
		} else if (c.why) {
			/* noted in the report when first bound, under the name it has then */
			p->clock_why = c.why[i];
		}
		p->lines = c.lines ? c.lines[i] : NULL;
		if (capturing && flags_capture(&infos[i]))
			p->stats = read_stats(dev, out[i]);
		if (!p->spirv_kernel || hesper_map_put(&dev->pipelines, (uint64_t)out[i], p) != 0)
			pipeline_free(dev, p);
	}
	free(capturing);
	free(local_sizes);
	clocked_free(&c);
	return result;
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyPipeline(VkDevice device, VkPipeline pipeline,
						  const VkAllocationCallbacks *allocator)
{
	struct hesper_device *dev = hesper_device_from(device);
	if (pipeline)
		pipeline_free(dev, hesper_map_remove(&dev->pipelines, (uint64_t)pipeline));
	dev->next.DestroyPipeline(device, pipeline, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_SetDebugUtilsObjectNameEXT(VkDevice device,
								 const VkDebugUtilsObjectNameInfoEXT *info)
{
	struct hesper_device *dev = hesper_device_from(device);
	if (info && info->objectType == VK_OBJECT_TYPE_PIPELINE) {
		struct hesper_pipeline *p = hesper_map_get(&dev->pipelines, info->objectHandle);
		if (p) {
			bool named = info->pObjectName && info->pObjectName[0];
			struct hesper_name *name = named ? hesper_intern(info->pObjectName) : p->spirv_kernel;
			if (name) { /* atomic: command buffers on other threads read it */
				hesper_name_note_local_size(name, p->local_size);
				atomic_store_explicit(&p->kernel, name, memory_order_release);
				if (p->lines)
					hesper_lines_rename(p->lines, name);
			}
		}
	}
	/* NULL when the program did not enable VK_EXT_debug_utils (see debug_utils_fallback) */
	return dev->next.SetDebugUtilsObjectNameEXT ? dev->next.SetDebugUtilsObjectNameEXT(device, info) : VK_SUCCESS;
}

struct hesper_pipeline *hesper_pipeline_find(struct hesper_device *dev, VkPipeline pipeline)
{
	return hesper_map_get(&dev->pipelines, (uint64_t)pipeline);
}

struct hesper_name *hesper_pipeline_kernel(struct hesper_pipeline *p)
{
	return p ? atomic_load_explicit(&p->kernel, memory_order_acquire) : NULL;
}

VkPipelineLayout hesper_pipeline_clock(const struct hesper_pipeline *p, uint32_t *set, VkPipeline *counting,
				       const char **why)
{
	*why = p ? p->clock_why : NULL;
	*counting = VK_NULL_HANDLE;
	if (!p)
		return VK_NULL_HANDLE;
	*set = p->clock_set;
	*counting = p->clock_counting;
	return p->clock_layout;
}

struct hesper_lines_pipeline *hesper_pipeline_lines(const struct hesper_pipeline *p)
{
	return p ? p->lines : NULL;
}

static int free_module(void *value, void *ctx)
{
	(void)ctx;
	module_free(value);
	return 1;
}

static int free_pipeline(void *value, void *ctx)
{
	pipeline_free(ctx, value);
	return 1;
}

void hesper_pipelines_release_all(struct hesper_device *dev)
{
	hesper_map_remove_if(&dev->modules, free_module, NULL);
	hesper_map_remove_if(&dev->pipelines, free_pipeline, dev);
}
