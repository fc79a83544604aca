/*
 * memops: a known set of memory operations (buffer and image copies, fills, updates and
 * clears, the 2 variants too, a whole-size fill) and dispatches of known shapes (direct,
 * with a base, indirect from a buffer made with TRANSFER_SRC and from one Hesper adds it to), in one
 * submission. Prints its ground truth, the count and bytes of each operation kind and
 * each kernel's shapes, as one "HESPER-TRUTH {json}" line (tests/e2e/run_memops.py).
 */
#include <stdio.h>
#include <string.h>

#include "vk_common.h"

#define IMAGE_W 64
#define IMAGE_H 32
#define IMAGE_LAYERS 2
#define TEXEL 4 /* VK_FORMAT_R8G8B8A8_UNORM */
#define SRC_SIZE 65536
#define DST_SIZE 65550 /* not a multiple of 4: a whole-size fill rounds down */
#define FILL_OFFSET 8

enum {
	COPY_BUFFER,
	COPY_IMAGE,
	COPY_BUFFER_TO_IMAGE,
	COPY_IMAGE_TO_BUFFER,
	FILL_BUFFER,
	UPDATE_BUFFER,
	CLEAR_COLOR_IMAGE,
	KINDS
};
static const char *const kind_names[KINDS] = {
	"copy_buffer", "copy_image",    "copy_buffer_to_image", "copy_image_to_buffer",
	"fill_buffer", "update_buffer", "clear_color_image",
};
static unsigned long long truth_count[KINDS], truth_bytes[KINDS];

/* Notes one operation of @kind moving @bytes, as the program asked for it. */
static void did(int kind, unsigned long long bytes)
{
	truth_count[kind]++;
	truth_bytes[kind] += bytes;
}

static uint32_t memory_type(const struct vkc_ctx *ctx, uint32_t bits)
{
	for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++)
		if ((bits & (1u << i)) &&
		    (ctx->mem_props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
			return i;
	for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++)
		if (bits & (1u << i))
			return i;
	vkc_fail("no memory type for the image");
}

static void image_create(struct vkc_ctx *ctx, VkImage *image, VkDeviceMemory *memory)
{
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = { IMAGE_W, IMAGE_H, 1 },
		.mipLevels = 1,
		.arrayLayers = IMAGE_LAYERS,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkMemoryRequirements req;
	VKC_CHECK(vkCreateImage(ctx->device, &info, NULL, image));
	vkGetImageMemoryRequirements(ctx->device, *image, &req);
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = memory_type(ctx, req.memoryTypeBits),
	};
	VKC_CHECK(vkAllocateMemory(ctx->device, &alloc, NULL, memory));
	VKC_CHECK(vkBindImageMemory(ctx->device, *image, *memory, 0));
}

/* A barrier between transfers (and to and from compute), moving @image (if any) from layout @from to @to. */
static void barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to)
{
	VkMemoryBarrier mem = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
				 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
				 VK_ACCESS_INDIRECT_COMMAND_READ_BIT,
	};
	VkImageMemoryBarrier img = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = image,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, IMAGE_LAYERS },
	};
	VkPipelineStageFlags stages = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
				      VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
	vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &mem, 0, NULL, image ? 1 : 0, &img);
}

static void record_memops(VkCommandBuffer cmd, struct vkc_buffer *src, struct vkc_buffer *dst, VkImage a, VkImage b)
{
	/* Buffer copies: three identical ones (one run), then a vkCmdCopyBuffer2. */
	VkBufferCopy regions[2] = { { 0, 0, 1000 }, { 4096, 8192, 3000 } };
	for (int i = 0; i < 3; i++) {
		vkCmdCopyBuffer(cmd, src->buffer, dst->buffer, 2, regions);
		did(COPY_BUFFER, 1000 + 3000);
	}
	barrier(cmd, VK_NULL_HANDLE, 0, 0);
	VkBufferCopy2 region2 = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_COPY_2, .srcOffset = 256, .dstOffset = 0, .size = 2048
	};
	VkCopyBufferInfo2 copy2 = {
		.sType = VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2,
		.srcBuffer = src->buffer,
		.dstBuffer = dst->buffer,
		.regionCount = 1,
		.pRegions = &region2,
	};
	vkCmdCopyBuffer2(cmd, &copy2);
	did(COPY_BUFFER, 2048);
	barrier(cmd, VK_NULL_HANDLE, 0, 0);

	vkCmdFillBuffer(cmd, dst->buffer, 0, 4096, 0x01020304u);
	did(FILL_BUFFER, 4096);
	barrier(cmd, VK_NULL_HANDLE, 0, 0);
	vkCmdFillBuffer(cmd, dst->buffer, FILL_OFFSET, VK_WHOLE_SIZE, 0);
	did(FILL_BUFFER, (DST_SIZE - FILL_OFFSET) / 4 * 4);
	barrier(cmd, VK_NULL_HANDLE, 0, 0);
	static const uint32_t words[64] = { 1, 2, 3 };
	vkCmdUpdateBuffer(cmd, dst->buffer, 512, sizeof(words), words);
	did(UPDATE_BUFFER, sizeof(words));

	barrier(cmd, a, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
	barrier(cmd, b, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
	VkClearColorValue color = { .float32 = { 0.25f, 0.5f, 0.75f, 1.0f } };
	VkImageSubresourceRange all = { VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0,
					VK_REMAINING_ARRAY_LAYERS };
	vkCmdClearColorImage(cmd, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &all);
	did(CLEAR_COLOR_IMAGE, (unsigned long long)IMAGE_W * IMAGE_H * IMAGE_LAYERS * TEXEL);
	barrier(cmd, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);

	VkBufferImageCopy to_image = {
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageExtent = { IMAGE_W, IMAGE_H, 1 },
	};
	vkCmdCopyBufferToImage(cmd, src->buffer, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &to_image);
	did(COPY_BUFFER_TO_IMAGE, IMAGE_W * IMAGE_H * TEXEL);
	VkBufferImageCopy2 to_image2 = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_IMAGE_COPY_2,
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1 },
		.imageExtent = { 32, 16, 1 },
	};
	VkCopyBufferToImageInfo2 to_info2 = {
		.sType = VK_STRUCTURE_TYPE_COPY_BUFFER_TO_IMAGE_INFO_2,
		.srcBuffer = src->buffer,
		.dstImage = a,
		.dstImageLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		.regionCount = 1,
		.pRegions = &to_image2,
	};
	vkCmdCopyBufferToImage2(cmd, &to_info2);
	did(COPY_BUFFER_TO_IMAGE, 32 * 16 * TEXEL);
	barrier(cmd, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);

	VkImageCopy image_copy = {
		.srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 2 },
		.dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 2 },
		.extent = { 16, 16, 1 },
	};
	vkCmdCopyImage(cmd, a, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, b, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
		       &image_copy);
	did(COPY_IMAGE, 16 * 16 * 2 * TEXEL);
	barrier(cmd, VK_NULL_HANDLE, 0, 0);
	VkImageCopy2 image_copy2 = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_COPY_2,
		.srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1 },
		.dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.extent = { IMAGE_W, IMAGE_H, 1 },
	};
	VkCopyImageInfo2 image_info2 = {
		.sType = VK_STRUCTURE_TYPE_COPY_IMAGE_INFO_2,
		.srcImage = a,
		.srcImageLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		.dstImage = b,
		.dstImageLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		.regionCount = 1,
		.pRegions = &image_copy2,
	};
	vkCmdCopyImage2(cmd, &image_info2);
	did(COPY_IMAGE, IMAGE_W * IMAGE_H * TEXEL);

	VkBufferImageCopy to_buffer = {
		.bufferOffset = 0,
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageExtent = { IMAGE_W, IMAGE_H, 1 },
	};
	vkCmdCopyImageToBuffer(cmd, a, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst->buffer, 1, &to_buffer);
	did(COPY_IMAGE_TO_BUFFER, IMAGE_W * IMAGE_H * TEXEL);
	VkBufferImageCopy2 to_buffer2 = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_IMAGE_COPY_2,
		.bufferOffset = 32768,
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1 },
		.imageExtent = { 8, 8, 1 },
	};
	VkCopyImageToBufferInfo2 to_buffer_info2 = {
		.sType = VK_STRUCTURE_TYPE_COPY_IMAGE_TO_BUFFER_INFO_2,
		.srcImage = a,
		.srcImageLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		.dstBuffer = dst->buffer,
		.regionCount = 1,
		.pRegions = &to_buffer2,
	};
	vkCmdCopyImageToBuffer2(cmd, &to_buffer_info2);
	did(COPY_IMAGE_TO_BUFFER, 8 * 8 * TEXEL);
	barrier(cmd, VK_NULL_HANDLE, 0, 0);
}

int main(void)
{
	struct vkc_ctx ctx;
	vkc_init(&ctx, "memops");
	struct vkc_buffer src, dst, out, readable, opaque;
	vkc_buffer_create(&ctx, &src, SRC_SIZE, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
	vkc_buffer_create(&ctx, &dst, DST_SIZE, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
	vkc_buffer_create(&ctx, &out, 256, 0);
	/* Indirect arguments: one buffer Hesper may copy from (TRANSFER_SRC), one it adds TRANSFER_SRC to. */
	vkc_buffer_create(&ctx, &readable, 16, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
	vkc_buffer_create(&ctx, &opaque, 16, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
	((uint32_t *)readable.map)[0] = 4;
	((uint32_t *)readable.map)[1] = 1;
	((uint32_t *)readable.map)[2] = 1;
	((uint32_t *)opaque.map)[0] = 5;
	((uint32_t *)opaque.map)[1] = 1;
	((uint32_t *)opaque.map)[2] = 1;
	for (uint32_t i = 0; i < SRC_SIZE / 4; i++)
		((uint32_t *)src.map)[i] = i;
	VkImage a, b;
	VkDeviceMemory a_mem, b_mem;
	image_create(&ctx, &a, &a_mem);
	image_create(&ctx, &b, &b_mem);

	VkShaderModule shape = vkc_shader_module(&ctx, "shape.spv");
	VkShaderModule shape_spec = vkc_shader_module(&ctx, "shape_spec.spv");
	VkDescriptorSetLayout set_layout = vkc_set_layout(&ctx, 1);
	VkPipelineLayout layout = vkc_pipeline_layout(&ctx, set_layout, 0);
	VkDescriptorPool pool = vkc_descriptor_pool(&ctx, 1, 1);
	struct vkc_buffer *bufs[1] = { &out };
	VkDescriptorSet set = vkc_descriptor_set(&ctx, pool, set_layout, bufs, 1);
	VkPipeline shape_pipe = vkc_compute_pipeline(&ctx, layout, shape, VK_PIPELINE_CREATE_DISPATCH_BASE_BIT);
	uint32_t spec_x = 16;
	VkSpecializationMapEntry entry = { .constantID = 0, .offset = 0, .size = sizeof(spec_x) };
	VkSpecializationInfo spec = {
		.mapEntryCount = 1, .pMapEntries = &entry, .dataSize = sizeof(spec_x), .pData = &spec_x
	};
	VkPipeline spec_pipe = vkc_compute_pipeline_entry(&ctx, layout, shape_spec, "main", &spec, 0);

	VkCommandBuffer cmd = vkc_command_buffer(&ctx);
	vkc_begin(cmd, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	record_memops(cmd, &src, &dst, a, b);

	/* shape: 5 x (3,2,1), 2 x (7,1,1), 1 x (2,2,2) with a base, indirect (4,1,1) and (5,1,1), both read back. */
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, shape_pipe);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	for (int i = 0; i < 5; i++)
		vkCmdDispatch(cmd, 3, 2, 1);
	for (int i = 0; i < 2; i++)
		vkCmdDispatch(cmd, 7, 1, 1);
	vkCmdDispatchBase(cmd, 1, 0, 0, 2, 2, 2);
	vkCmdDispatchIndirect(cmd, readable.buffer, 0);
	vkCmdDispatchIndirect(cmd, opaque.buffer, 0);
	/* shape_spec: 3 x (1,1,9). */
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, spec_pipe);
	for (int i = 0; i < 3; i++)
		vkCmdDispatch(cmd, 1, 1, 9);
	vkc_end(cmd);
	VkFence fence = vkc_fence(&ctx);
	vkc_submit_wait(&ctx, cmd, fence);

	printf("memops: %u %u\n", ((uint32_t *)dst.map)[0], ((uint32_t *)out.map)[0]);
	printf("HESPER-TRUTH {\"program\":\"memops\",\"memory_operations\":{");
	for (int k = 0; k < KINDS; k++)
		printf("%s\"%s\":{\"count\":%llu,\"bytes\":%llu}", k ? "," : "", kind_names[k], truth_count[k],
		       truth_bytes[k]);
	printf("},\"shapes\":{"
	       "\"shape\":{\"count\":10,\"local_size\":[8,4,2],\"min\":[4,1,1],\"max\":[2,2,2],"
	       "\"most_common\":[3,2,1],\"most_common_count\":5,\"indirect\":2,\"unknown\":0},"
	       "\"shape_spec\":{\"count\":3,\"local_size\":[16,2,1],\"min\":[1,1,9],\"max\":[1,1,9],"
	       "\"most_common\":[1,1,9],\"most_common_count\":3,\"indirect\":0,\"unknown\":0}},"
	       "\"validation_expected_clean\":true}\n");

	vkDestroyFence(ctx.device, fence, NULL);
	vkDestroyPipeline(ctx.device, shape_pipe, NULL);
	vkDestroyPipeline(ctx.device, spec_pipe, NULL);
	vkDestroyDescriptorPool(ctx.device, pool, NULL);
	vkDestroyPipelineLayout(ctx.device, layout, NULL);
	vkDestroyDescriptorSetLayout(ctx.device, set_layout, NULL);
	vkDestroyShaderModule(ctx.device, shape, NULL);
	vkDestroyShaderModule(ctx.device, shape_spec, NULL);
	vkDestroyImage(ctx.device, a, NULL);
	vkDestroyImage(ctx.device, b, NULL);
	vkFreeMemory(ctx.device, a_mem, NULL);
	vkFreeMemory(ctx.device, b_mem, NULL);
	vkc_buffer_destroy(&ctx, &src);
	vkc_buffer_destroy(&ctx, &dst);
	vkc_buffer_destroy(&ctx, &out);
	vkc_buffer_destroy(&ctx, &readable);
	vkc_buffer_destroy(&ctx, &opaque);
	vkc_finish(&ctx);
	return 0;
}
