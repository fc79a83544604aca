/*
 * Per-line hot spots at run time (HESPER_LINES, clock mode): the chosen kernels' pipelines
 * made from a copy of their SPIR-V whose blocks count their clock ticks and executions
 * (spirv_blocks.h) into a buffer of the pipeline's, bound at Hesper's set before each of
 * their dispatches; the counts read when the pipeline goes and when a report is written,
 * and attributed to source lines (spirv_lines.h, analysis's hot lines). Such pipelines
 * are timed with timestamps, as clock mode's fallbacks are.
 */
#ifndef HESPER_LINES_H
#define HESPER_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include <vulkan/vulkan.h>

struct hesper_device;
struct hesper_name;
struct hesper_profile;
struct hesper_lines_pipeline;

/* What a pipeline whose lines are counted is noted as, among clock mode's fallbacks. */
#define HESPER_LINES_NOTE "its lines are counted (HESPER_LINES)"

/* Whether HESPER_LINES names kernel @kernel (or is "*"); the answer kept on the name, as the list never changes. */
bool hesper_lines_chosen(struct hesper_name *kernel);

/*
 * Whether HESPER_LINES names kernels (not only "*"): a pipeline whose name is not among
 * them when it is made gets a counted twin, bound instead of it when a name it is given
 * later (vkSetDebugUtilsObjectNameEXT) is among them.
 */
bool hesper_lines_names_given(void);

/*
 * Notes whether clock-mode device @dev counts lines: @why NULL when its features are on
 * (reading the subgroup clock when @subgroup_clock), else why not, said once per device
 * when HESPER_LINES is set.
 */
void hesper_lines_device_ready(struct hesper_device *dev, const char *why, bool subgroup_clock);

/*
 * Creates compute pipeline @info (module code @code, @size bytes) from a copy whose blocks
 * count into a buffer of its own at Hesper's set @set of its layout, for kernel @kernel.
 * Returns NULL with the pipeline in *@out and its counters in *@lines, or why it could not
 * (the caller makes it as clock mode would).
 */
const char *hesper_lines_create_pipeline(struct hesper_device *dev, VkPipelineCache cache,
					 const VkComputePipelineCreateInfo *info, const void *code, size_t size,
					 const VkAllocationCallbacks *allocator, uint32_t set,
					 struct hesper_name *kernel, VkPipeline *out,
					 struct hesper_lines_pipeline **lines);

/* Makes @twin (Hesper's) the counted pipeline of @lines, bound in place of the program's own when chosen. */
void hesper_lines_set_twin(struct hesper_lines_pipeline *lines, VkPipeline twin);

/* The counted twin of @lines, or VK_NULL_HANDLE when the program's pipeline is the counted one. */
VkPipeline hesper_lines_twin(const struct hesper_lines_pipeline *lines);

/* The pipeline of @lines is called @kernel from now on. */
void hesper_lines_rename(struct hesper_lines_pipeline *lines, struct hesper_name *kernel);

/* Binds the counters of @lines in @cb for the next dispatch of its pipeline (with its layout); its counts are reported from now on. */
void hesper_lines_bind(struct hesper_device *dev, VkCommandBuffer cb, struct hesper_lines_pipeline *lines);

/*
 * The pipeline of @lines on @dev is destroyed (so none of its work is pending): its counts
 * are kept on the host for the reports, its buffer and twin are destroyed.
 */
void hesper_lines_pipeline_done(struct hesper_device *dev, struct hesper_lines_pipeline *lines);

/* Puts every counted kernel's hot lines so far into @profile (its lock held). */
void hesper_lines_report(struct hesper_profile *profile);

#endif
