/*
 * Clock mode's barrier timestamps. A dispatch that the program itself isolates, with a
 * barrier making compute wait for compute right before it and right after it, already
 * runs alone on the GPU: timestamps written after the barrier before it and before the
 * barrier after it cost no overlap, and hold what the shader clock cannot see, the launch
 * before its first work group and the drain after its last. Such a dispatch is timed by
 * them, as in dispatch mode; any other keeps its work-group span from the shader clock
 * (HESPER_CLOCK_ISOLATED, docs/timing.md#clock-mode).
 */
#ifndef HESPER_CLOCK_EDGES_H
#define HESPER_CLOCK_EDGES_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

struct hesper_recording;

/* Whether a barrier from @src to @dst stages makes compute wait for earlier compute. */
bool hesper_stages_order_compute(VkPipelineStageFlags src, VkPipelineStageFlags dst);

/* Whether any barrier of @d makes compute wait for earlier compute. */
bool hesper_dependency_orders_compute(const VkDependencyInfo *d);

/*
 * For a clock-timed dispatch about to be recorded in @rec on @cb: when the last command
 * was a compute barrier, returns the query of the timestamp that opens the dispatch: the
 * closing one of the timed work before it when only barriers that move no image stand
 * between (rec->last_end, as dispatch mode chains), else one written here. Else (or with
 * no query to be had) HESPER_NO_QUERY.
 */
uint32_t hesper_clock_edge_open(struct hesper_recording *rec, VkCommandBuffer cb);

/*
 * Before a compute barrier is recorded in @rec on @cb: when the last command was a
 * clock-timed dispatch opened by a barrier timestamp, writes its closing timestamp, marks
 * its record closed and leaves the timestamp as rec->last_end for the next one to open from.
 */
void hesper_clock_edge_close(struct hesper_recording *rec, VkCommandBuffer cb);

#endif
