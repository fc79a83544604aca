/*
 * What Hesper knows of the program's buffers and images (size, usage, format, extent),
 * kept from their creation, and the bytes each memory operation moves, worked out from
 * its arguments when it is recorded.
 */
#ifndef HESPER_MEMORY_OPS_H
#define HESPER_MEMORY_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "analysis.h"

struct hesper_device;

struct hesper_buffer_info {
	VkDeviceSize size;
	VkBufferUsageFlags usage; /* as the program asked */
	bool transfer_readable;   /* a transfer may read it: the program asked, or Hesper added it */
};

struct hesper_image_info {
	VkFormat format;
	VkExtent3D extent;
	uint32_t mip_levels, array_layers;
};

/* The bytes one memory operation moves, and whether they are known. */
struct hesper_op_size {
	uint64_t bytes; /* 0 when unknown */
	bool sized;
};

/* The bytes per texel of uncompressed single-plane colour, depth or stencil format @format; 0 when unknown. */
uint32_t hesper_format_texel_bytes(VkFormat format);

/* A size of @bytes, known. */
struct hesper_op_size hesper_size_known(uint64_t bytes);

/* Sum of the region sizes of a buffer-to-buffer copy. */
struct hesper_op_size hesper_size_buffer_copies(uint32_t n, const VkBufferCopy *r);

/* Sum of the region sizes of a vkCmdCopyBuffer2 copy. */
struct hesper_op_size hesper_size_buffer_copies2(const VkCopyBufferInfo2 *info);

/* Bytes of a fill of @size at @offset in @buffer (VK_WHOLE_SIZE: to the end, rounded down to 4). */
struct hesper_op_size hesper_size_fill(struct hesper_device *dev, VkBuffer buffer, VkDeviceSize offset,
				       VkDeviceSize size);

/* Texel bytes x extent x layers of image-to-image copy regions, in the format of source @src. */
struct hesper_op_size hesper_size_image_copies(struct hesper_device *dev, VkImage src, uint32_t n,
					       const VkImageCopy *r);

/* As hesper_size_image_copies, for vkCmdCopyImage2. */
struct hesper_op_size hesper_size_image_copies2(struct hesper_device *dev, const VkCopyImageInfo2 *info);

/* Texel bytes x extent x layers of buffer/image copy regions of @image. */
struct hesper_op_size hesper_size_buffer_image_copies(struct hesper_device *dev, VkImage image, uint32_t n,
						      const VkBufferImageCopy *r);

/* As hesper_size_buffer_image_copies, for the 2 variants' regions. */
struct hesper_op_size hesper_size_buffer_image_copies2(struct hesper_device *dev, VkImage image, uint32_t n,
						       const VkBufferImageCopy2 *r);

/* Texel bytes x texels of every mip level and layer in the ranges cleared in @image. */
struct hesper_op_size hesper_size_clear(struct hesper_device *dev, VkImage image, uint32_t n,
					const VkImageSubresourceRange *r);

/* The creation info of @buffer on @dev, copied into @out; false when unknown. */
bool hesper_buffer_info(struct hesper_device *dev, VkBuffer buffer, struct hesper_buffer_info *out);

/* Forgets every buffer and image of @dev. */
void hesper_resources_release_all(struct hesper_device *dev);

#endif
