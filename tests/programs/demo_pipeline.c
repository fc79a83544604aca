/*
 * demo_pipeline: a small image-processing pipeline, the program scripts/demo profiles.
 *
 * Every frame: a synthetic 256x256 image is blurred twice ([1 2 1] horizontal then
 * vertical), its maximum found, normalized to 0..255, binned into a 64-bin histogram
 * and thresholded into a mask. Kernels are debug-named ("blur_horizontal",
 * "blur_vertical", "reduce_max", "normalize", "histogram"); "threshold" is unnamed and
 * compiled with glslc -g, so Hesper names it from its source file. Each frame is one
 * command buffer, re-recorded, inside debug-utils label regions "blur" and "analyze".
 * The CPU recomputes every frame exactly (integer arithmetic). Env TEST_FRAMES
 * sets the number of frames (default 36, 8 dispatches each).
 * Prints one HESPER-TRUTH line; exits 0 when every result checks out, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_common.h"

#define W 256u
#define H 256u
#define PIXELS (W * H)
#define GROUPS (PIXELS / 64u)
#define BINS 64u
#define DEFAULT_FRAMES 36u

enum { K_BLUR_H, K_BLUR_V, K_REDUCE_MAX, K_NORMALIZE, K_HISTOGRAM, K_THRESHOLD, K_COUNT };

struct kernel_info {
	const char *spv;
	const char *source;
	const char *debug_name; /* NULL: named by Hesper from the SPIR-V */
	unsigned per_frame;     /* dispatches per frame */
};

static const struct kernel_info kernel_infos[K_COUNT] = {
	[K_BLUR_H] = { "blur_h.spv", "blur_h.comp", "blur_horizontal", 2 },
	[K_BLUR_V] = { "blur_v.spv", "blur_v.comp", "blur_vertical", 2 },
	[K_REDUCE_MAX] = { "reduce_max.spv", "reduce_max.comp", "reduce_max", 1 },
	[K_NORMALIZE] = { "normalize.spv", "normalize.comp", "normalize", 1 },
	[K_HISTOGRAM] = { "histogram.spv", "histogram.comp", "histogram", 1 },
	[K_THRESHOLD] = { "threshold_g.spv", "threshold.comp", NULL, 1 },
};

struct app {
	struct vkc_ctx vk;
	VkDescriptorSetLayout set2, set3;
	VkPipelineLayout layout2, layout3;
	VkDescriptorPool pool;
	VkShaderModule modules[K_COUNT];
	VkPipeline pipelines[K_COUNT];
	bool named[K_COUNT];
	bool labels;
	/* img -> tmp -> img2 -> tmp -> img2 (blurred) -> norm -> hist, mask; stats[0] = max */
	struct vkc_buffer img, tmp, img2, stats, norm, hist, mask;
	VkDescriptorSet blur_h_first, blur_h_second, blur_v, reduce_max, normalize, histogram, threshold;
};

/* Pixel (x, y) of frame @frame's synthetic input: a moving gradient plus hashed noise. */
static uint32_t input_pixel(uint32_t frame, uint32_t x, uint32_t y)
{
	uint32_t h = (x * 73856093u) ^ (y * 19349663u) ^ (frame * 83492791u);

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return ((x + y + 4 * frame) % 256 + (h & 63)) & 255;
}

/* Creates buffers, layouts, pipelines (named where the table says) and descriptor sets. */
static void setup(struct app *a)
{
	struct vkc_buffer *bufs[] = { &a->img, &a->tmp, &a->img2, &a->norm, &a->mask };

	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		vkc_buffer_create(&a->vk, bufs[i], PIXELS * 4, 0);
	vkc_buffer_create(&a->vk, &a->stats, 16, 0);
	vkc_buffer_create(&a->vk, &a->hist, BINS * 4, 0);

	a->set2 = vkc_set_layout(&a->vk, 2);
	a->set3 = vkc_set_layout(&a->vk, 3);
	a->layout2 = vkc_pipeline_layout(&a->vk, a->set2, 8);
	a->layout3 = vkc_pipeline_layout(&a->vk, a->set3, 8);
	a->pool = vkc_descriptor_pool(&a->vk, 8, 16);

	for (int k = 0; k < K_COUNT; k++) {
		a->modules[k] = vkc_shader_module(&a->vk, kernel_infos[k].spv);
		a->pipelines[k] = vkc_compute_pipeline(&a->vk, k == K_NORMALIZE ? a->layout3 : a->layout2,
						       a->modules[k], 0);
		if (kernel_infos[k].debug_name)
			a->named[k] = vkc_name_pipeline(&a->vk, a->pipelines[k], kernel_infos[k].debug_name);
	}

	struct vkc_buffer *bh1[] = { &a->img, &a->tmp }, *bh2[] = { &a->img2, &a->tmp };
	struct vkc_buffer *bv[] = { &a->tmp, &a->img2 }, *rm[] = { &a->img2, &a->stats };
	struct vkc_buffer *nz[] = { &a->img2, &a->stats, &a->norm }, *hg[] = { &a->norm, &a->hist };
	struct vkc_buffer *th[] = { &a->norm, &a->mask };
	a->blur_h_first = vkc_descriptor_set(&a->vk, a->pool, a->set2, bh1, 2);
	a->blur_h_second = vkc_descriptor_set(&a->vk, a->pool, a->set2, bh2, 2);
	a->blur_v = vkc_descriptor_set(&a->vk, a->pool, a->set2, bv, 2);
	a->reduce_max = vkc_descriptor_set(&a->vk, a->pool, a->set2, rm, 2);
	a->normalize = vkc_descriptor_set(&a->vk, a->pool, a->set3, nz, 3);
	a->histogram = vkc_descriptor_set(&a->vk, a->pool, a->set2, hg, 2);
	a->threshold = vkc_descriptor_set(&a->vk, a->pool, a->set2, th, 2);
}

/* Destroys everything setup() created. */
static void teardown(struct app *a)
{
	VkDevice dev = a->vk.device;
	struct vkc_buffer *bufs[] = { &a->img, &a->tmp, &a->img2, &a->norm, &a->mask, &a->stats, &a->hist };

	for (int k = 0; k < K_COUNT; k++) {
		vkDestroyPipeline(dev, a->pipelines[k], NULL);
		vkDestroyShaderModule(dev, a->modules[k], NULL);
	}
	vkDestroyDescriptorPool(dev, a->pool, NULL);
	vkDestroyPipelineLayout(dev, a->layout2, NULL);
	vkDestroyPipelineLayout(dev, a->layout3, NULL);
	vkDestroyDescriptorSetLayout(dev, a->set2, NULL);
	vkDestroyDescriptorSetLayout(dev, a->set3, NULL);
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		vkc_buffer_destroy(&a->vk, bufs[i]);
}

/* Records one dispatch of kernel @k over the image with descriptor set @set, then a barrier. */
static void dispatch(struct app *a, VkCommandBuffer cmd, int k, VkDescriptorSet set)
{
	uint32_t push[2] = { W, H };
	VkPipelineLayout layout = k == K_NORMALIZE ? a->layout3 : a->layout2;

	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, a->pipelines[k]);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
	vkCmdDispatch(cmd, GROUPS, 1, 1);
	vkc_barrier(cmd);
}

/* Records one frame's work into @cmd (reset and re-recorded every frame). */
static void record_frame(struct app *a, VkCommandBuffer cmd)
{
	vkc_begin(cmd, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	a->labels = vkc_label_begin(&a->vk, cmd, "blur");
	dispatch(a, cmd, K_BLUR_H, a->blur_h_first);
	dispatch(a, cmd, K_BLUR_V, a->blur_v);
	dispatch(a, cmd, K_BLUR_H, a->blur_h_second);
	dispatch(a, cmd, K_BLUR_V, a->blur_v);
	vkc_label_end(&a->vk, cmd);

	vkc_label_begin(&a->vk, cmd, "analyze");
	vkCmdFillBuffer(cmd, a->stats.buffer, 0, VK_WHOLE_SIZE, 0);
	vkCmdFillBuffer(cmd, a->hist.buffer, 0, VK_WHOLE_SIZE, 0);
	vkc_barrier(cmd);
	dispatch(a, cmd, K_REDUCE_MAX, a->reduce_max);
	dispatch(a, cmd, K_NORMALIZE, a->normalize);
	dispatch(a, cmd, K_HISTOGRAM, a->histogram);
	dispatch(a, cmd, K_THRESHOLD, a->threshold);
	vkc_label_end(&a->vk, cmd);
	vkc_end(cmd);
}

/* [1 2 1] / 4 blur of @src into @dst along x (@dx = 1) or y (@dx = 0), as the shaders do. */
static void cpu_blur(const uint32_t *src, uint32_t *dst, int dx)
{
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++) {
			uint32_t i = y * W + x, lo, hi;

			if (dx) {
				lo = src[y * W + (x > 0 ? x - 1 : 0)];
				hi = src[y * W + (x + 1 < W ? x + 1 : W - 1)];
			} else {
				lo = src[(y > 0 ? y - 1 : 0) * W + x];
				hi = src[(y + 1 < H ? y + 1 : H - 1) * W + x];
			}
			dst[i] = (lo + 2 * src[i] + hi + 2) >> 2;
		}
}

/* Recomputes frame @frame on the CPU from @input and compares; returns the number of mismatches. */
static int verify_frame(const struct app *a, uint32_t frame, const uint32_t *input, uint32_t *scratch)
{
	uint32_t *tmp = scratch, *img2 = scratch + PIXELS, hist[BINS] = { 0 }, max = 0;
	const uint32_t *norm = a->norm.map, *mask = a->mask.map, *ghist = a->hist.map;
	int errors = 0;

	cpu_blur(input, tmp, 1);
	cpu_blur(tmp, img2, 0);
	cpu_blur(img2, tmp, 1);
	cpu_blur(tmp, img2, 0);
	for (uint32_t i = 0; i < PIXELS; i++)
		max = img2[i] > max ? img2[i] : max;
	if (((const uint32_t *)a->stats.map)[0] != max && errors++ == 0)
		printf("demo_pipeline: frame %u: max %u, want %u\n", frame, ((const uint32_t *)a->stats.map)[0], max);
	for (uint32_t i = 0; i < PIXELS; i++) {
		uint32_t n = img2[i] * 255 / (max ? max : 1);

		hist[n >> 2]++;
		if (norm[i] != n && errors++ == 0)
			printf("demo_pipeline: frame %u: norm[%u] = %u, want %u\n", frame, i, norm[i], n);
		if (mask[i] != (n > 127) && errors++ == 0)
			printf("demo_pipeline: frame %u: mask[%u] = %u, want %u\n", frame, i, mask[i], n > 127);
	}
	for (uint32_t b = 0; b < BINS; b++)
		if (ghist[b] != hist[b] && errors++ == 0)
			printf("demo_pipeline: frame %u: hist[%u] = %u, want %u\n", frame, b, ghist[b], hist[b]);
	return errors;
}

int main(void)
{
	struct app a;
	uint32_t frames = vkc_env_u32("TEST_FRAMES", DEFAULT_FRAMES), dispatches = 0;
	uint32_t *input = malloc(PIXELS * sizeof(uint32_t)), *scratch = malloc(2 * PIXELS * sizeof(uint32_t));
	int errors = 0;

	if (!input || !scratch)
		vkc_fail("out of memory");
	memset(&a, 0, sizeof(a));
	vkc_init(&a.vk, "demo_pipeline");
	setup(&a);

	VkCommandBuffer cmd = vkc_command_buffer(&a.vk);
	VkFence fence = vkc_fence(&a.vk);
	for (uint32_t f = 0; f < frames; f++) {
		for (uint32_t y = 0; y < H; y++)
			for (uint32_t x = 0; x < W; x++)
				input[y * W + x] = input_pixel(f, x, y);
		memcpy(a.img.map, input, PIXELS * sizeof(uint32_t));
		record_frame(&a, cmd);
		vkc_submit_wait(&a.vk, cmd, fence);
		for (int k = 0; k < K_COUNT; k++)
			dispatches += kernel_infos[k].per_frame;
		errors += verify_frame(&a, f, input, scratch);
	}
	vkDestroyFence(a.vk.device, fence, NULL);
	vkFreeCommandBuffers(a.vk.device, a.vk.cmd_pool, 1, &cmd);

	vkc_truth_begin("demo_pipeline");
	for (int k = 0; k < K_COUNT; k++)
		vkc_truth_kernel(kernel_infos[k].spv, kernel_infos[k].source,
				 a.named[k] ? kernel_infos[k].debug_name : NULL, !kernel_infos[k].debug_name,
				 (uint64_t)kernel_infos[k].per_frame * frames, -1);
	if (a.labels) {
		vkc_truth_region("blur", frames);
		vkc_truth_region("analyze", frames);
	}
	vkc_truth_end(!vkc_provoke_validation());

	printf("demo_pipeline: %u frames, %u dispatches, %s\n", frames, dispatches,
	       errors ? "WRONG RESULTS" : "results ok");
	teardown(&a);
	vkc_finish(&a.vk);
	free(input);
	free(scratch);
	return errors ? 1 : 0;
}
