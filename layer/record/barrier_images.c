/* Whether a program's barrier works on the GPU beyond waiting (barrier_images.h). */
#include "barrier_images.h"

bool hesper_barriers_move_images(uint32_t count, const VkImageMemoryBarrier *images)
{
	for (uint32_t i = 0; images && i < count; i++)
		if (images[i].oldLayout != images[i].newLayout ||
		    images[i].srcQueueFamilyIndex != images[i].dstQueueFamilyIndex)
			return true;
	return false;
}

bool hesper_dependency_moves_images(const VkDependencyInfo *d)
{
	for (uint32_t i = 0; d && d->pImageMemoryBarriers && i < d->imageMemoryBarrierCount; i++) {
		const VkImageMemoryBarrier2 *b = &d->pImageMemoryBarriers[i];
		if (b->oldLayout != b->newLayout || b->srcQueueFamilyIndex != b->dstQueueFamilyIndex)
			return true;
	}
	return false;
}
