/*
 * Buffers and images as created (vkCreateBuffer, vkCreateImage), and the bytes moved by
 * each memory operation. An image copy or clear moves texel size x texels: the size is
 * known for uncompressed single-plane formats; compressed, multi-planar and combined
 * depth-stencil formats count as unsized (0 bytes) rather than a guess.
 */
#include "memory_ops.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "state/state.h"
#include "indirect.h"

uint32_t hesper_format_texel_bytes(VkFormat f)
{
	if (f == VK_FORMAT_R4G4_UNORM_PACK8)
		return 1;
	if (f >= VK_FORMAT_R4G4B4A4_UNORM_PACK16 && f <= VK_FORMAT_A1R5G5B5_UNORM_PACK16)
		return 2;
	if (f >= VK_FORMAT_R8_UNORM && f <= VK_FORMAT_R8_SRGB)
		return 1;
	if (f >= VK_FORMAT_R8G8_UNORM && f <= VK_FORMAT_R8G8_SRGB)
		return 2;
	if (f >= VK_FORMAT_R8G8B8_UNORM && f <= VK_FORMAT_B8G8R8_SRGB)
		return 3;
	if (f >= VK_FORMAT_R8G8B8A8_UNORM && f <= VK_FORMAT_A2B10G10R10_SINT_PACK32)
		return 4;
	if (f >= VK_FORMAT_R16_UNORM && f <= VK_FORMAT_R16_SFLOAT)
		return 2;
	if (f >= VK_FORMAT_R16G16_UNORM && f <= VK_FORMAT_R16G16_SFLOAT)
		return 4;
	if (f >= VK_FORMAT_R16G16B16_UNORM && f <= VK_FORMAT_R16G16B16_SFLOAT)
		return 6;
	if (f >= VK_FORMAT_R16G16B16A16_UNORM && f <= VK_FORMAT_R16G16B16A16_SFLOAT)
		return 8;
	if (f >= VK_FORMAT_R32_UINT && f <= VK_FORMAT_R32_SFLOAT)
		return 4;
	if (f >= VK_FORMAT_R32G32_UINT && f <= VK_FORMAT_R32G32_SFLOAT)
		return 8;
	if (f >= VK_FORMAT_R32G32B32_UINT && f <= VK_FORMAT_R32G32B32_SFLOAT)
		return 12;
	if (f >= VK_FORMAT_R32G32B32A32_UINT && f <= VK_FORMAT_R32G32B32A32_SFLOAT)
		return 16;
	if (f >= VK_FORMAT_R64_UINT && f <= VK_FORMAT_R64_SFLOAT)
		return 8;
	if (f >= VK_FORMAT_R64G64_UINT && f <= VK_FORMAT_R64G64_SFLOAT)
		return 16;
	if (f >= VK_FORMAT_R64G64B64_UINT && f <= VK_FORMAT_R64G64B64_SFLOAT)
		return 24;
	if (f >= VK_FORMAT_R64G64B64A64_UINT && f <= VK_FORMAT_R64G64B64A64_SFLOAT)
		return 32;
	switch (f) {
	case VK_FORMAT_B10G11R11_UFLOAT_PACK32:
	case VK_FORMAT_E5B9G9R9_UFLOAT_PACK32:
	case VK_FORMAT_X8_D24_UNORM_PACK32:
	case VK_FORMAT_D32_SFLOAT:
		return 4;
	case VK_FORMAT_D16_UNORM:
		return 2;
	case VK_FORMAT_S8_UINT:
		return 1;
	default:
		return 0;
	}
}

struct hesper_op_size hesper_size_known(uint64_t bytes)
{
	return (struct hesper_op_size){.bytes = bytes, .sized = true};
}

struct hesper_op_size hesper_size_buffer_copies(uint32_t n, const VkBufferCopy *r)
{
	uint64_t bytes = 0;
	for (uint32_t i = 0; r && i < n; i++)
		bytes += r[i].size;
	return hesper_size_known(bytes);
}

struct hesper_op_size hesper_size_buffer_copies2(const VkCopyBufferInfo2 *info)
{
	uint64_t bytes = 0;
	for (uint32_t i = 0; info && info->pRegions && i < info->regionCount; i++)
		bytes += info->pRegions[i].size;
	return hesper_size_known(bytes);
}

bool hesper_buffer_info(struct hesper_device *dev, VkBuffer buffer, struct hesper_buffer_info *out)
{
	/* A buffer in use by a command being recorded cannot be destroyed meanwhile (valid usage). */
	const struct hesper_buffer_info *b = hesper_map_get(&dev->buffers, (uint64_t)buffer);
	if (!b)
		return false;
	*out = *b;
	return true;
}

static bool image_info(struct hesper_device *dev, VkImage image, struct hesper_image_info *out)
{
	const struct hesper_image_info *i = hesper_map_get(&dev->images, (uint64_t)image);
	if (!i)
		return false;
	*out = *i;
	return true;
}

struct hesper_op_size hesper_size_fill(struct hesper_device *dev, VkBuffer buffer, VkDeviceSize offset,
				       VkDeviceSize size)
{
	if (size != VK_WHOLE_SIZE)
		return hesper_size_known(size);
	struct hesper_buffer_info b;
	if (!hesper_buffer_info(dev, buffer, &b) || offset > b.size)
		return (struct hesper_op_size){0};
	return hesper_size_known((b.size - offset) & ~(VkDeviceSize)3);
}

/* Layers of @sub in @image: VK_REMAINING_ARRAY_LAYERS (maintenance5) is the rest of the image's. */
static uint64_t layers_of(const struct hesper_image_info *image, const VkImageSubresourceLayers *sub)
{
	if (sub->layerCount != VK_REMAINING_ARRAY_LAYERS)
		return sub->layerCount;
	return image->array_layers > sub->baseArrayLayer ? image->array_layers - sub->baseArrayLayer : 0;
}

/* Texel bytes x @extent x layers; unsized when the format's texel size is unknown. */
static struct hesper_op_size region_size(const struct hesper_image_info *image, VkExtent3D extent,
					 const VkImageSubresourceLayers *sub)
{
	uint32_t texel = hesper_format_texel_bytes(image->format);
	if (!texel)
		return (struct hesper_op_size){0};
	return hesper_size_known((uint64_t)texel * extent.width * extent.height * extent.depth * layers_of(image, sub));
}

/* Adds @part to @sum: a total is sized only when every part is. */
static void add_size(struct hesper_op_size *sum, struct hesper_op_size part)
{
	sum->bytes += part.bytes;
	sum->sized = sum->sized && part.sized;
	if (!sum->sized)
		sum->bytes = 0;
}

/*
 * The bytes of @n regions at @regions, @stride bytes apart, of image @image_handle; each
 * region's extent and subresource layers at @extent_at and @layers_at within it. The four
 * region structs of the copy commands differ only in those places.
 */
static struct hesper_op_size sum_regions(struct hesper_device *dev, VkImage image_handle, const void *regions,
					 uint32_t n, size_t stride, size_t extent_at, size_t layers_at)
{
	struct hesper_image_info image;
	struct hesper_op_size sum = hesper_size_known(0);
	if (!image_info(dev, image_handle, &image))
		return (struct hesper_op_size){0};
	for (uint32_t i = 0; regions && i < n; i++) {
		const char *r = (const char *)regions + (size_t)i * stride;
		VkExtent3D extent;
		VkImageSubresourceLayers layers;
		memcpy(&extent, r + extent_at, sizeof(extent));
		memcpy(&layers, r + layers_at, sizeof(layers));
		add_size(&sum, region_size(&image, extent, &layers));
	}
	return sum;
}

#define SUM_REGIONS(dev, image, regions, n, type, extent, layers) \
	sum_regions((dev), (image), (regions), (n), sizeof(type), offsetof(type, extent), offsetof(type, layers))

struct hesper_op_size hesper_size_image_copies(struct hesper_device *dev, VkImage src, uint32_t n, const VkImageCopy *r)
{
	return SUM_REGIONS(dev, src, r, n, VkImageCopy, extent, srcSubresource);
}

struct hesper_op_size hesper_size_image_copies2(struct hesper_device *dev, const VkCopyImageInfo2 *info)
{
	if (!info)
		return (struct hesper_op_size){0};
	return SUM_REGIONS(dev, info->srcImage, info->pRegions, info->regionCount, VkImageCopy2, extent,
			   srcSubresource);
}

struct hesper_op_size hesper_size_buffer_image_copies(struct hesper_device *dev, VkImage image_handle, uint32_t n,
						      const VkBufferImageCopy *r)
{
	return SUM_REGIONS(dev, image_handle, r, n, VkBufferImageCopy, imageExtent, imageSubresource);
}

struct hesper_op_size hesper_size_buffer_image_copies2(struct hesper_device *dev, VkImage image_handle, uint32_t n,
						       const VkBufferImageCopy2 *r)
{
	return SUM_REGIONS(dev, image_handle, r, n, VkBufferImageCopy2, imageExtent, imageSubresource);
}

/* @size at mip level @level (never below 1). */
static uint64_t mip_extent(uint32_t size, uint32_t level)
{
	uint64_t s = level < 32 ? size >> level : 0;
	return s ? s : 1;
}

struct hesper_op_size hesper_size_clear(struct hesper_device *dev, VkImage image_handle, uint32_t n,
					const VkImageSubresourceRange *r)
{
	struct hesper_image_info image;
	if (!image_info(dev, image_handle, &image))
		return (struct hesper_op_size){0};
	uint32_t texel = hesper_format_texel_bytes(image.format);
	if (!texel)
		return (struct hesper_op_size){0};
	uint64_t bytes = 0;
	for (uint32_t i = 0; r && i < n; i++) {
		uint32_t levels = r[i].levelCount == VK_REMAINING_MIP_LEVELS
					  ? (image.mip_levels > r[i].baseMipLevel ? image.mip_levels - r[i].baseMipLevel
										  : 0)
					  : r[i].levelCount;
		uint32_t layers = r[i].layerCount == VK_REMAINING_ARRAY_LAYERS
					  ? (image.array_layers > r[i].baseArrayLayer
						     ? image.array_layers - r[i].baseArrayLayer
						     : 0)
					  : r[i].layerCount;
		for (uint32_t l = r[i].baseMipLevel; l < r[i].baseMipLevel + levels; l++)
			bytes += texel * mip_extent(image.extent.width, l) * mip_extent(image.extent.height, l) *
				 mip_extent(image.extent.depth, l) * layers;
	}
	return hesper_size_known(bytes);
}

/* VK_KHR_maintenance5's, for headers older than it. */
#ifndef VK_KHR_maintenance5
#define VK_STRUCTURE_TYPE_BUFFER_USAGE_FLAGS_2_CREATE_INFO_KHR ((VkStructureType)1000470006)
#endif

/*
 * Whether Hesper adds TRANSFER_SRC to a buffer created with @info so it can read indirect
 * arguments from it: an indirect buffer, when arguments are read back at all, and not
 * one whose usage comes from a VkBufferUsageFlags2CreateInfoKHR (maintenance5), which
 * replaces info->usage and is left as the program gave it.
 */
static bool readable_for_indirect(const VkBufferCreateInfo *info)
{
	if (!(info->usage & VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT) || !hesper_indirect_wanted())
		return false;
	for (const VkBaseInStructure *p = info->pNext; p; p = p->pNext)
		if (p->sType == VK_STRUCTURE_TYPE_BUFFER_USAGE_FLAGS_2_CREATE_INFO_KHR)
			return false;
	return true;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateBuffer(VkDevice device, const VkBufferCreateInfo *info,
						   const VkAllocationCallbacks *allocator, VkBuffer *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	bool readable = (info->usage & VK_BUFFER_USAGE_TRANSFER_SRC_BIT) != 0;
	VkResult result = VK_ERROR_UNKNOWN;
	if (!readable && readable_for_indirect(info)) {
		/* Indirect arguments Hesper reads back with a copy (indirect.h): a changed copy of the info. */
		VkBufferCreateInfo changed = *info;
		changed.usage |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
		result = dev->next.CreateBuffer(device, &changed, allocator, out);
		readable = result == VK_SUCCESS;
	}
	if (result != VK_SUCCESS)
		result = dev->next.CreateBuffer(device, info, allocator, out);
	if (result != VK_SUCCESS)
		return result;
	struct hesper_buffer_info *b = malloc(sizeof(*b));
	if (b)
		*b = (struct hesper_buffer_info){
			.size = info->size, .usage = info->usage, .transfer_readable = readable};
	/* Out of memory: the buffer stays unknown, and a whole-size fill of it unsized. */
	if (b && hesper_map_put(&dev->buffers, (uint64_t)*out, b) != 0)
		free(b);
	return result;
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyBuffer(VkDevice device, VkBuffer buffer,
						const VkAllocationCallbacks *allocator)
{
	struct hesper_device *dev = hesper_device_from(device);
	if (buffer)
		free(hesper_map_remove(&dev->buffers, (uint64_t)buffer));
	dev->next.DestroyBuffer(device, buffer, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateImage(VkDevice device, const VkImageCreateInfo *info,
						  const VkAllocationCallbacks *allocator, VkImage *out)
{
	struct hesper_device *dev = hesper_device_from(device);
	VkResult result = dev->next.CreateImage(device, info, allocator, out);
	if (result != VK_SUCCESS)
		return result;
	struct hesper_image_info *i = malloc(sizeof(*i));
	if (i)
		*i = (struct hesper_image_info){
			.format = info->format,
			.extent = info->extent,
			.mip_levels = info->mipLevels,
			.array_layers = info->arrayLayers,
		};
	if (i && hesper_map_put(&dev->images, (uint64_t)*out, i) != 0)
		free(i);
	return result;
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks *allocator)
{
	struct hesper_device *dev = hesper_device_from(device);
	if (image)
		free(hesper_map_remove(&dev->images, (uint64_t)image));
	dev->next.DestroyImage(device, image, allocator);
}

void hesper_resources_release_all(struct hesper_device *dev)
{
	hesper_map_free_values(&dev->buffers);
	hesper_map_free_values(&dev->images);
}
