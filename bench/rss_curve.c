/*
 * rss_curve: the process's resident memory along a long run of tiny dispatches, to show
 * that Hesper's memory stays flat however many dispatches a program makes. Four command
 * buffers of D empty dispatches each are recorded once and submitted round robin (each
 * waits for its own last run) until N dispatches ran; every N/P dispatches the resident
 * set (VmRSS) is printed. Run it alone and under Hesper (bench/rss-curve does both).
 *
 *   rss_curve [N [D [P]]]   N dispatches (default 100,000,000), D per command buffer
 *                           (default 100,000), P points (default 20)
 *
 * Prints one JSON line per point ({"dispatches", "rss_kib", "seconds"}) and a summary
 * line: the growth from the point at 10 % of the run to the end and over the second half,
 * and the least-squares slope from 10 % on, in KiB per 10^7 dispatches.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkbench_vk.h"

#define SLOTS 4

static uint64_t arg_u64(int argc, char **argv, int i, uint64_t fallback)
{
	if (i >= argc)
		return fallback;
	char *end;
	unsigned long long v = strtoull(argv[i], &end, 10);
	if (*end || v == 0) {
		fprintf(stderr, "rss_curve: bad argument '%s' (usage: rss_curve [N [D [P]]])\n", argv[i]);
		exit(1);
	}
	return v;
}

int main(int argc, char **argv)
{
	uint64_t total = arg_u64(argc, argv, 1, 100000000ull);
	uint64_t per = arg_u64(argc, argv, 2, 100000ull);
	uint64_t points = arg_u64(argc, argv, 3, 20);
	if (per > 10000000ull || points > 10000) {
		fprintf(stderr, "rss_curve: D at most 10,000,000 and P at most 10,000\n");
		return 1;
	}
	struct vb_ctx vk;
	struct vb_kernel k;
	struct vb_slot slots[SLOTS];
	bool pending[SLOTS] = {false};
	vb_init(&vk, -1, 1, 1024);
	vb_kernel_create(&vk, &k, VB_KERNEL_EMPTY, vb_own_dir(), "rss_curve_empty", 1);
	for (int s = 0; s < SLOTS; s++) {
		vb_slot_create(&vk, &slots[s], (uint32_t)per, VB_WAY_PLAIN);
		vb_record(&vk, &slots[s], &k, (uint32_t)per, VB_WAY_PLAIN, 0);
	}
	double *xs = calloc(points + 1, sizeof(double)), *ys = calloc(points + 1, sizeof(double));
	if (!xs || !ys)
		return 1;
	size_t n_points = 0;
	uint64_t done = 0, next_point = total / points, submitted = 0;
	double t0 = vb_now_ns();
	for (uint64_t i = 0; submitted < total; i++) {
		struct vb_slot *s = &slots[i % SLOTS];
		if (pending[i % SLOTS]) {
			VB_CHECK(vkWaitForFences(vk.device, 1, &s->fence, VK_TRUE, UINT64_MAX));
			VB_CHECK(vkResetFences(vk.device, 1, &s->fence));
			done += per;
		}
		VkSubmitInfo info = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 1,
			.pCommandBuffers = &s->cmd,
		};
		VB_CHECK(vkQueueSubmit(vk.queues[0], 1, &info, s->fence));
		pending[i % SLOTS] = true;
		submitted += per;
		if (done >= next_point && n_points < points) {
			long kib = vb_rss_kib();
			double secs = (vb_now_ns() - t0) / 1e9;
			printf("{\"dispatches\": %llu, \"rss_kib\": %ld, \"seconds\": %.2f}\n",
			       (unsigned long long)done, kib, secs);
			fflush(stdout);
			xs[n_points] = (double)done;
			ys[n_points] = (double)kib;
			n_points++;
			next_point += total / points;
		}
	}
	VB_CHECK(vkDeviceWaitIdle(vk.device));
	for (int s = 0; s < SLOTS; s++)
		if (pending[s])
			done += per;
	long end_kib = vb_rss_kib();
	printf("{\"dispatches\": %llu, \"rss_kib\": %ld, \"seconds\": %.2f}\n", (unsigned long long)done, end_kib,
	       (vb_now_ns() - t0) / 1e9);
	xs[n_points] = (double)done;
	ys[n_points] = (double)end_kib;
	n_points++;
	/* From the point at 10 % on: warm-up (first compiles, pools filling) is not growth. */
	size_t from = n_points / 10;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, m = (double)(n_points - from);
	for (size_t i = from; i < n_points; i++) {
		sx += xs[i];
		sy += ys[i];
		sxx += xs[i] * xs[i];
		sxy += xs[i] * ys[i];
	}
	double denom = m * sxx - sx * sx;
	double slope = denom > 0 ? (m * sxy - sx * sy) / denom : 0; /* KiB per dispatch */
	/* The second half alone: once every bounded store (the capped timeline) has filled. */
	size_t half = n_points / 2;
	printf("{\"summary\": true, \"dispatches\": %llu, \"per_command_buffer\": %llu, \"rss_start_kib\": %.0f, "
	       "\"rss_end_kib\": %ld, \"growth_kib\": %.0f, \"growth_second_half_kib\": %.0f, "
	       "\"slope_kib_per_1e7\": %.2f, \"seconds\": %.2f}\n",
	       (unsigned long long)done, (unsigned long long)per, ys[from], end_kib, (double)end_kib - ys[from],
	       (double)end_kib - ys[half], slope * 1e7, (vb_now_ns() - t0) / 1e9);
	for (int s = 0; s < SLOTS; s++)
		vb_slot_destroy(&vk, &slots[s]);
	vb_kernel_destroy(&vk, &k);
	vb_finish(&vk);
	free(xs);
	free(ys);
	return 0;
}
