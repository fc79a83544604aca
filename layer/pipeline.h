/* Shader modules and compute pipelines: what each pipeline's dispatches are called. */
#ifndef HESPER_PIPELINE_H
#define HESPER_PIPELINE_H

#include <vulkan/vulkan.h>

#include "process.h"

struct hesper_device;
struct hesper_spirv_info;

struct hesper_module {
	struct hesper_spirv_info *info;
};

struct hesper_pipeline {
	struct hesper_name *_Atomic kernel; /* what dispatches of this pipeline are called */
	struct hesper_name *spirv_kernel;   /* the name from the SPIR-V, kept if the debug name is cleared */
	uint64_t local_size;                /* hesper_local_size_pack of its work-group size; 0 unknown */
};

/* The kernel name of compute pipeline @pipeline on @dev, or NULL when unknown. */
struct hesper_name *hesper_pipeline_kernel(struct hesper_device *dev, VkPipeline pipeline);

/* Forgets every module and pipeline of @dev. */
void hesper_pipelines_release_all(struct hesper_device *dev);

#endif
