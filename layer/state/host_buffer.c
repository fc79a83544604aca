/* Buffers Hesper owns in host-visible, coherent memory. */
#include "objects.h"
#include "host_buffer.h"

/*
 * A memory type for the buffer: host visible and coherent (the specification promises one
 * for buffers), cached where the device has it. Coherent memory lets the collector write
 * values it read on the host into the same slots GPU copies write. UINT32_MAX if none.
 */
static uint32_t pick_memory_type(const struct hesper_device *dev, uint32_t allowed)
{
	static const VkMemoryPropertyFlags wanted[] = {
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT |
			VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	};
	for (size_t w = 0; w < sizeof(wanted) / sizeof(wanted[0]); w++) {
		for (uint32_t i = 0; i < dev->memory.memoryTypeCount; i++) {
			VkMemoryPropertyFlags flags = dev->memory.memoryTypes[i].propertyFlags;
			if ((allowed & (1u << i)) && (flags & wanted[w]) == wanted[w])
				return i;
		}
	}
	return UINT32_MAX;
}

void hesper_host_buffer_destroy(struct hesper_device *dev, struct hesper_host_buffer *b)
{
	if (b->memory) {
		if (b->mapped)
			dev->next.UnmapMemory(dev->handle, b->memory);
		dev->next.FreeMemory(dev->handle, b->memory, NULL);
	}
	if (b->buffer)
		dev->next.DestroyBuffer(dev->handle, b->buffer, NULL);
	*b = (struct hesper_host_buffer){0};
}

int hesper_host_buffer_create(struct hesper_device *dev, uint32_t slots, struct hesper_host_buffer *out)
{
	*out = (struct hesper_host_buffer){0};
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = (VkDeviceSize)slots * sizeof(uint64_t),
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	if (dev->next.CreateBuffer(dev->handle, &info, NULL, &out->buffer) != VK_SUCCESS) {
		out->buffer = VK_NULL_HANDLE;
		goto fail;
	}
	VkMemoryRequirements req;
	dev->next.GetBufferMemoryRequirements(dev->handle, out->buffer, &req);
	uint32_t type = pick_memory_type(dev, req.memoryTypeBits);
	if (type == UINT32_MAX)
		goto fail;
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = type,
	};
	if (dev->next.AllocateMemory(dev->handle, &alloc, NULL, &out->memory) != VK_SUCCESS) {
		out->memory = VK_NULL_HANDLE;
		goto fail;
	}
	void *mapped = NULL;
	if (dev->next.BindBufferMemory(dev->handle, out->buffer, out->memory, 0) != VK_SUCCESS ||
	    dev->next.MapMemory(dev->handle, out->memory, 0, VK_WHOLE_SIZE, 0, &mapped) != VK_SUCCESS)
		goto fail;
	out->mapped = mapped;
	out->slots = slots;
	return 0;
fail:
	hesper_host_buffer_destroy(dev, out);
	return -1;
}
