/* Buffers Hesper owns in host-visible, coherent memory: results and shadow copies. */
#ifndef HESPER_HOST_BUFFER_H
#define HESPER_HOST_BUFFER_H

#include <stdint.h>

#include <vulkan/vulkan.h>

struct hesper_device;

/* A buffer of Hesper's in host-visible, coherent memory (host_buffer.h). */
struct hesper_host_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	uint64_t *mapped;
	uint32_t slots; /* 64-bit slots it holds */
};

/* Creates a mapped buffer of @slots 64-bit slots for transfers to and from it; 0 on success. */
int hesper_host_buffer_create(struct hesper_device *dev, uint32_t slots, struct hesper_host_buffer *out);

/* Destroys @b (no-op when empty) and empties it. */
void hesper_host_buffer_destroy(struct hesper_device *dev, struct hesper_host_buffer *b);

#endif
