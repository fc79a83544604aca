/*
 * Whether a program's barrier makes the GPU do work of its own. A barrier right after a
 * timed dispatch's closing timestamp has nothing left to wait for (that timestamp is
 * written once all earlier work finished), so the next dispatch may open from the same
 * timestamp across it: one timestamp per dispatch instead of two, which on NVIDIA's
 * driver is most of what timing barrier-separated dispatches costs (docs/timing.md,
 * "Barrier-separated dispatches"). Only an image's layout transition or queue-family
 * transfer works on the GPU; such a barrier ends the chain.
 */
#ifndef HESPER_BARRIER_IMAGES_H
#define HESPER_BARRIER_IMAGES_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

/* Whether any of the @count image barriers at @images changes a layout or a queue family. */
bool hesper_barriers_move_images(uint32_t count, const VkImageMemoryBarrier *images);

/* The same for the image barriers of @d (NULL: none). */
bool hesper_dependency_moves_images(const VkDependencyInfo *d);

#endif
