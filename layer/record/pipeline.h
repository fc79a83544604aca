/* Shader modules and compute pipelines: what each pipeline's dispatches are called. */
#ifndef HESPER_PIPELINE_H
#define HESPER_PIPELINE_H

#include <vulkan/vulkan.h>

#include "state/state.h"

struct hesper_device;
struct hesper_lines_pipeline;
struct hesper_spirv_info;

struct hesper_module {
	struct hesper_spirv_info *info;
	void *code; /* clock mode: a copy of the SPIR-V, to instrument */
	size_t code_size;
};

struct hesper_pipeline {
	struct hesper_name *_Atomic kernel;  /* what dispatches of this pipeline are called */
	struct hesper_name *spirv_kernel;    /* the name from the SPIR-V, kept if the debug name is cleared */
	uint64_t local_size;                 /* hesper_local_size_pack of its work-group size; 0 unknown */
	VkPipelineLayout clock_layout;       /* clock mode: its layout when instrumented, else VK_NULL_HANDLE */
	uint32_t clock_set;                  /* Hesper's set index in that layout */
	VkPipeline clock_counting;           /* and its twin reporting group counts, for indirect
					       dispatches (Hesper's; VK_NULL_HANDLE when none) */
	const char *clock_why;               /* clock mode, not instrumented: why (a fixed string) */
	struct hesper_lines_pipeline *lines; /* HESPER_LINES: its blocks' counters (clock/lines.h), or NULL */
	struct hesper_pipeline_stats *stats; /* its compute executable's statistics (kernel unset); NULL none */
	/* the set the statistics were put in the report as, under the name @stats_name (NULL: not yet) */
	struct hesper_name *_Atomic stats_name;
	_Atomic uint8_t stats_set;
};

/* What Hesper knows of compute pipeline @pipeline on @dev (one lookup; the bind hook's), or NULL when unknown. */
struct hesper_pipeline *hesper_pipeline_find(struct hesper_device *dev, VkPipeline pipeline);

/* The kernel name of pipeline @p (NULL: unknown), or NULL when unknown. */
struct hesper_name *hesper_pipeline_kernel(struct hesper_pipeline *p);

/*
 * Whether pipeline @p (NULL: unknown) was instrumented for clock mode: its layout, Hesper's
 * set index in it and its group-counting twin (*@counting, possibly VK_NULL_HANDLE);
 * VK_NULL_HANDLE when not, with *@why (NULL when unknown).
 */
VkPipelineLayout hesper_pipeline_clock(const struct hesper_pipeline *p, uint32_t *set, VkPipeline *counting,
				       const char **why);

/* The counters of pipeline @p (NULL: unknown) when HESPER_LINES counts its blocks, else NULL. */
struct hesper_lines_pipeline *hesper_pipeline_lines(const struct hesper_pipeline *p);

/*
 * The set of pipeline statistics the dispatches of pipeline @p (NULL: unknown) on @dev count
 * in (1 + its variant among the sets of @kernel, the name its dispatches have now), its
 * statistics put in the report the first time; 0 when it has none, or past 255 sets of one
 * name. Two atomic loads once noted.
 */
uint8_t hesper_pipeline_stats_set(struct hesper_device *dev, struct hesper_pipeline *p, struct hesper_name *kernel);

/* Forgets every module and pipeline of @dev. */
void hesper_pipelines_release_all(struct hesper_device *dev);

#endif
