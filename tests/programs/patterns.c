/*
 * patterns: the ways real programs drive Vulkan, one subcommand each, every one with
 * its exact ground truth. Run as `patterns PATTERN [ARG]`; it prints one
 * "HESPER-TRUTH {json}" line on stdout and exits 0 when the GPU did what was asked
 * (1 when it did not; 2 when a Vulkan call failed).
 *
 * Most kernels are the "count" shader: each dispatch is one work group that adds 1 to a
 * counter slot, so the GPU's own counters confirm how many dispatches really ran. Rows
 * are named by debug-utils names (exact), by the source file (count_g.spv, spec_g.spv:
 * "<file>#<hash>") or by a renamed entry point ("kern07#<hash>"); unnamed ones
 * ("main#<hash>") are told apart by their counts, which are distinct within a pattern.
 *
 * Truth keys beyond the kernels: "regions" and "labelled" (kernels_by_label rows) with
 * exact counts, "loose_labels" (labels whose rows are not checked), "region_parents"
 * (label nesting, for total_ns checks), "regions_tight" (labels around back-to-back
 * dispatches alone, whose time in dispatch mode is theirs), "dropped" (exact: 0 but where a command buffer
 * runs on two queues at once, whose shared queries no run can keep),
 * "devices", "queues" (queues the device has), and "volatile": keys that may differ
 * between runs (left out when the runner compares stdout). Patterns with queries of their
 * own add "own_mean_ns" (kernel -> the program's own mean per dispatch, volatile),
 * "pipeline_statistics" and "invocations"; two_families adds "families" (those it used),
 * barriers and barrier_labels "isolated" (dispatches between two compute barriers: clock
 * mode's count) and "clock_edges" (the barrier timestamps clock mode writes for them).
 *
 *   resubmit        one command buffer recorded once, submitted 12 times, every kind of wait
 *   simultaneous    SIMULTANEOUS_USE resubmitted while still running; twice in one submit;
 *                   on two queues when the family has them
 *   secondary       secondaries executed from primaries, repeated ones, re-recorded ones
 *   multisubmit     several batches of several command buffers; vkQueueSubmit2 and 2KHR
 *   lifetimes       reset / free / pool reset / pool destroy right after the fence signals
 *   threads [N [SUBMIT [CHURN [FIRST]]]]  N threads recording and submitting (program's
 *                   mutex around the queue); SUBMIT mixed (default: even threads vkQueueSubmit,
 *                   odd ones vkQueueSubmit2) | submit | submit2; CHURN churn (default: handles
 *                   come and go between rounds) | steady; FIRST threads (default: each queue's
 *                   first submission comes from its thread) | main (from the main thread, before)
 *   dispatch_kinds  vkCmdDispatch, Indirect, Base, BaseKHR
 *   labels          nested debug-utils labels, repeated names, crossing and very deep ones
 *   two_devices     two VkDevices on one physical device, interleaved, one destroyed early
 *   reinstance      instance and device created and destroyed three times
 *   exit_in_flight [cold]  returns from main with work running, nothing destroyed (cold: the
 *                   kernel in flight never ran before)
 *   exit_thread     another thread calls exit(3) while main is blocked in vkWaitForFences
 *   signal MODE     prints "patterns: ready" with work in flight, then blocks for ever;
 *                   MODE default | handler_exit (handler writes a line, _exit(7)) |
 *                   handler_flag (handler sets a flag; main returns 7) | handler_late
 *                   (handler_exit installed after the device was created); the handlers
 *                   are installed for INT, TERM, HUP and QUIT; a line after the ready one
 *                   stays in stdout's buffer
 *   crash SIG MODE  21 dispatches waited for and a busy one in flight, then a line left in
 *                   stdout's buffer and the fault SIG (SEGV: a store to a page it may not
 *                   write; BUS: a read past the end of a mapped empty file; FPE: an integer
 *                   division by zero; ILL: an undefined instruction; ABRT: abort()); MODE
 *                   default | handler (the program's handler, installed before the device:
 *                   writes a line, puts back the default action and raises SIG again) |
 *                   handler_late (the same, installed after the device was created) |
 *                   recover (the handler jumps back: the program waits, dispatches 4 more,
 *                   prints its truth and exits 0)
 *   fork MODE       fork()s after profiling began; the child leaves with exit() (MODE exit)
 *                   or is killed by SIGTERM (MODE term); it must end, and not report
 *   many_pipelines [N]  N pipelines of one module (specialization constants): one kernel
 *   many_modules [N]    N modules that differ (entry point renamed): N kernels
 *   same_name       two pipelines of two modules (count.spv, and count_g.spv with debug info:
 *                   more words) under one debug name: one kernel, 3 dispatches on the first
 *                   pipeline and 5 on the second ("stats_sets": their dispatches, first bound first)
 *   barriers        8 dispatches with a compute barrier between each two, then one after a
 *                   barrier that changes an image's layout ("chain": the 7 a barrier leaves idle)
 *   barrier_labels  8 dispatches, each with a compute barrier before and after it and a debug
 *                   label of its own between them, as ggml labels its ops ("isolated": all 8)
 *   million [N]     N empty dispatches (default 1000000) in 4 command buffers
 *   exhaust         600 dispatches in a few command buffers (run with HESPER_MAX_QUERIES)
 *   own_queries     the program times each of its dispatches itself (TOP/BOTTOM timestamp pair,
 *                   barrier after): 2 rounds of 60 over 3 kernels, the pool reset in the command
 *                   buffer, then on the host; results read with WAIT, WITH_AVAILABILITY and
 *                   vkCmdCopyQueryPoolResults, which must agree
 *   pipeline_stats  a pipeline-statistics query (compute shader invocations) around dispatches
 *   two_families    queues of two compute families (else two queues, else one) submitting at
 *                   once, chained by a timeline semaphore
 *   submit2_semaphores  vkQueueSubmit2 with binary and timeline semaphores, no fence; the host
 *                   waits with vkWaitSemaphores
 *   shapes          two kernels dispatched with several work-group counts, directly and
 *                   indirectly, inside and outside debug labels: the rows HESPER_GROUP_BY=shape
 *                   and =label make ("by_shape", "by_shape_unread": indirect counts not read
 *                   back, "by_label"), each with its exact count
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vk_common.h"

#define SLOTS 256u       /* counter slots */
#define BUSY_N 4096u     /* invocations of a busy dispatch */
#define CALIB_ITERS 200u /* busy loop length of the calibration run */

/* --- ground truth ------------------------------------------------------------------- */

static struct {
	char *kernels, *regions, *labelled, *extra;
	size_t nk, nr, nl, ne;
} truth;

/* Appends printf-formatted text to *@buf (grown as needed). */
static void __attribute__((format(printf, 2, 3))) append(char **buf, const char *fmt, ...)
{
	va_list ap;
	size_t old = *buf ? strlen(*buf) : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = realloc(*buf, old + (size_t)n + 1);
	if (!p)
		vkc_fail("out of memory");
	va_start(ap, fmt);
	vsnprintf(p + old, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*buf = p;
}

enum naming { DEBUG_NAMED, SOURCE_NAMED, UNNAMED };

/*
 * One kernel row: @name is the debug name (DEBUG_NAMED), the label before "#<hash>"
 * (SOURCE_NAMED: a source file or an entry point) or only informative (UNNAMED).
 * @timed < 0: every dispatch is timed.
 */
static void truth_kernel(enum naming how, const char *name, uint64_t count, int64_t timed)
{
	append(&truth.kernels,
	       "%s{\"spv\":\"%s\",\"source\":%s%s%s,\"debug_name\":%s%s%s,\"source_named\":%s,"
	       "\"count\":%llu,\"timed\":%lld,\"own_mean_ns\":null}",
	       truth.nk++ ? "," : "", name, how == SOURCE_NAMED ? "\"" : "", how == SOURCE_NAMED ? name : "null",
	       how == SOURCE_NAMED ? "\"" : "", how == DEBUG_NAMED ? "\"" : "", how == DEBUG_NAMED ? name : "null",
	       how == DEBUG_NAMED ? "\"" : "", how == SOURCE_NAMED ? "true" : "false", (unsigned long long)count,
	       (long long)(timed < 0 ? (int64_t)count : timed));
}

static void truth_region(const char *name, uint64_t count)
{
	append(&truth.regions, "%s{\"name\":\"%s\",\"count\":%llu}", truth.nr++ ? "," : "", name,
	       (unsigned long long)count);
}

static void truth_labelled(const char *label, const char *kernel, uint64_t count)
{
	append(&truth.labelled, "%s{\"name\":\"%s/%s\",\"count\":%llu}", truth.nl++ ? "," : "", label, kernel,
	       (unsigned long long)count);
}

/* A top-level key with a raw JSON value. */
static void __attribute__((format(printf, 2, 3))) truth_key(const char *key, const char *fmt, ...)
{
	char value[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	append(&truth.extra, ",\"%s\":%s", key, value);
	truth.ne++;
}

static void truth_print(const char *pattern)
{
	printf("HESPER-TRUTH {\"program\":\"patterns\",\"pattern\":\"%s\",\"kernels\":[%s],\"regions\":[%s],"
	       "\"labelled\":[%s]%s,\"validation_expected_clean\":true}\n",
	       pattern, truth.kernels ? truth.kernels : "", truth.regions ? truth.regions : "",
	       truth.labelled ? truth.labelled : "", truth.extra ? truth.extra : "");
	fflush(stdout);
}

/* --- Vulkan scaffolding shared by the patterns ---------------------------------------- */

struct pat {
	struct vkc_ctx vk;
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkDescriptorPool dpool;
	VkDescriptorSet counters_set, busy_set;
	struct vkc_buffer counters, busy, indirect;
	VkShaderModule count_mod, count_g_mod, busy_mod;
	VkPipeline busy_pipe;
	uint32_t busy_iters;    /* for the calibrated busy dispatch */
	uint64_t busy_runs;     /* busy dispatches recorded and submitted */
	uint64_t expect[SLOTS]; /* dispatches expected per counter slot */
	int errors;
};

struct push {
	uint32_t a, n;
};

/* Creates the pipeline of entry @entry of @module (with @spec and @flags), named @debug when given. */
static VkPipeline make_pipeline(struct pat *p, VkShaderModule module, const char *entry,
				const VkSpecializationInfo *spec, VkPipelineCreateFlags flags, const char *debug)
{
	VkPipeline pipe = vkc_compute_pipeline_entry(&p->vk, p->layout, module, entry, spec, flags);

	if (debug && !vkc_name_pipeline(&p->vk, pipe, debug))
		vkc_fail("VK_EXT_debug_utils is needed to name pipelines");
	return pipe;
}

/* Everything but the instance and device: buffers, layouts, the common modules. */
static void pat_resources(struct pat *p)
{
	vkc_buffer_create(&p->vk, &p->counters, SLOTS * 4, 0);
	vkc_buffer_create(&p->vk, &p->busy, BUSY_N * 4, 0);
	vkc_buffer_create(&p->vk, &p->indirect, 4 * sizeof(VkDispatchIndirectCommand),
			  VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
	VkDispatchIndirectCommand *ind = p->indirect.map;
	for (int i = 0; i < 4; i++)
		ind[i] = (VkDispatchIndirectCommand){ 1, 1, 1 };
	p->dsl = vkc_set_layout(&p->vk, 1);
	p->layout = vkc_pipeline_layout(&p->vk, p->dsl, sizeof(struct push));
	p->dpool = vkc_descriptor_pool(&p->vk, 4, 4);
	struct vkc_buffer *c[] = { &p->counters }, *b[] = { &p->busy };
	p->counters_set = vkc_descriptor_set(&p->vk, p->dpool, p->dsl, c, 1);
	p->busy_set = vkc_descriptor_set(&p->vk, p->dpool, p->dsl, b, 1);
	p->count_mod = vkc_shader_module(&p->vk, "count.spv");
	p->count_g_mod = vkc_shader_module(&p->vk, "count_g.spv");
	p->busy_mod = vkc_shader_module(&p->vk, "busy.spv");
	p->busy_pipe = make_pipeline(p, p->busy_mod, "main", NULL, 0, NULL);
}

static void pat_init(struct pat *p, const char *name, const struct vkc_options *opts)
{
	memset(p, 0, sizeof(*p));
	vkc_init_opts(&p->vk, name, opts);
	pat_resources(p);
}

/* Destroys what pat_resources made (not the device). */
static void pat_release(struct pat *p)
{
	VkDevice d = p->vk.device;

	VKC_CHECK(vkDeviceWaitIdle(d));
	vkDestroyPipeline(d, p->busy_pipe, NULL);
	vkDestroyShaderModule(d, p->count_mod, NULL);
	vkDestroyShaderModule(d, p->count_g_mod, NULL);
	vkDestroyShaderModule(d, p->busy_mod, NULL);
	vkDestroyDescriptorPool(d, p->dpool, NULL);
	vkDestroyPipelineLayout(d, p->layout, NULL);
	vkDestroyDescriptorSetLayout(d, p->dsl, NULL);
	vkc_buffer_destroy(&p->vk, &p->counters);
	vkc_buffer_destroy(&p->vk, &p->busy);
	vkc_buffer_destroy(&p->vk, &p->indirect);
}

/* Destroys @fence (unless VK_NULL_HANDLE) and the @n pipelines of @pipes. */
static void destroy_objects(struct pat *p, VkFence fence, const VkPipeline *pipes, size_t n)
{
	if (fence != VK_NULL_HANDLE)
		vkDestroyFence(p->vk.device, fence, NULL);
	for (size_t i = 0; i < n; i++)
		vkDestroyPipeline(p->vk.device, pipes[i], NULL);
}

/* The end of a pattern that ran to completion: destroy_objects, pat_release, vkc_finish. Returns 0. */
static int pat_done(struct pat *p, VkFence fence, const VkPipeline *pipes, size_t n)
{
	destroy_objects(p, fence, pipes, n);
	pat_release(p);
	vkc_finish(&p->vk);
	return 0;
}

/* Binds @pipe and @set and pushes @pc: what every dispatch of the patterns needs. */
static void bind(struct pat *p, VkCommandBuffer cb, VkPipeline pipe, VkDescriptorSet set, struct push pc)
{
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &set, 0, NULL);
	vkCmdPushConstants(cb, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
}

enum how { DIRECT, INDIRECT, BASE, BASE_KHR };

static PFN_vkCmdDispatchBaseKHR dispatch_base_khr;

/* Records one one-group dispatch of @pipe counting into @slot, the way @how says. */
static void rec_count_how(struct pat *p, VkCommandBuffer cb, VkPipeline pipe, uint32_t slot, enum how how)
{
	bind(p, cb, pipe, p->counters_set, (struct push){ slot, 0 });
	switch (how) {
	case DIRECT:
		vkCmdDispatch(cb, 1, 1, 1);
		break;
	case INDIRECT:
		vkCmdDispatchIndirect(cb, p->indirect.buffer, (slot % 4) * sizeof(VkDispatchIndirectCommand));
		break;
	case BASE:
		vkCmdDispatchBase(cb, slot % 7, 0, 0, 1, 1, 1);
		break;
	case BASE_KHR:
		dispatch_base_khr(cb, slot % 5, 0, 0, 1, 1, 1);
		break;
	}
}

/* @n dispatches of @pipe into @slot. */
static void rec_count(struct pat *p, VkCommandBuffer cb, VkPipeline pipe, uint32_t slot, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		rec_count_how(p, cb, pipe, slot, DIRECT);
}

/* One busy dispatch of @iters loop steps. */
static void rec_busy(struct pat *p, VkCommandBuffer cb, uint32_t iters)
{
	bind(p, cb, p->busy_pipe, p->busy_set, (struct push){ iters, BUSY_N });
	vkCmdDispatch(cb, BUSY_N / 64, 1, 1);
}

static void begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags)
{
	vkc_begin(cb, flags);
}

/* Ends @cb after a barrier that makes its writes visible to the host. */
static void end(VkCommandBuffer cb)
{
	vkc_barrier(cb);
	vkc_end(cb);
}

/* Records @cb (begun with @flags) as nothing but @n dispatches of @pipe into @slot. */
static void record_counts(struct pat *p, VkCommandBuffer cb, VkCommandBufferUsageFlags flags, VkPipeline pipe,
			  uint32_t slot, uint32_t n)
{
	begin(cb, flags);
	rec_count(p, cb, pipe, slot, n);
	end(cb);
}

static void submit(VkQueue q, const VkCommandBuffer *cbs, uint32_t n, VkFence fence)
{
	VkSubmitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = n,
		.pCommandBuffers = cbs,
	};
	VKC_CHECK(vkQueueSubmit(q, 1, &info, fence));
}

/*
 * Sets p->busy_iters so that one busy dispatch takes about @ms milliseconds (one
 * calibration dispatch, counted in busy_runs).
 */
static void calibrate_busy(struct pat *p, double ms)
{
	struct vkc_timer t;
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence f = vkc_fence(&p->vk);
	double ns;

	vkc_timer_create(&p->vk, &t, 1);
	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	vkc_timer_reset(cb, &t, 0, 1);
	rec_busy(p, cb, CALIB_ITERS); /* also compiles the shader, so the measurement is pessimistic */
	vkc_timer_mark(cb, &t, 0, false);
	rec_busy(p, cb, CALIB_ITERS);
	vkc_timer_mark(cb, &t, 0, true);
	end(cb);
	vkc_submit_wait(&p->vk, cb, f);
	p->busy_runs += 2;
	vkc_timer_read(&p->vk, &t, 0, 1, &ns);
	double iters = ns > 0 ? (double)CALIB_ITERS * ms * 1e6 / ns : 1e6;
	p->busy_iters = iters < 1 ? 1 : iters > 5e7 ? 50000000u : (uint32_t)iters;
	vkc_timer_destroy(&p->vk, &t);
	vkFreeCommandBuffers(p->vk.device, p->vk.cmd_pool, 1, &cb);
	vkDestroyFence(p->vk.device, f, NULL);
}

/* Compares every counter slot with what was expected; mismatches are errors. */
static void verify_counters(struct pat *p, const char *what)
{
	const uint32_t *c = p->counters.map;

	for (uint32_t s = 0; s < SLOTS; s++) {
		if (c[s] != p->expect[s]) {
			printf("patterns: %s: counter %u is %u, want %llu\n", what, s, c[s],
			       (unsigned long long)p->expect[s]);
			p->errors++;
		}
	}
}

/* The busy row (unnamed: "main#<hash>"). */
static void truth_busy(const struct pat *p, int64_t timed)
{
	if (p->busy_runs)
		truth_kernel(UNNAMED, "busy.spv", p->busy_runs, timed);
}

static PFN_vkVoidFunction device_proc(struct pat *p, const char *name)
{
	PFN_vkVoidFunction f = vkGetDeviceProcAddr(p->vk.device, name);
	if (!f)
		vkc_fail("%s is not available", name);
	return f;
}

/* A timeline semaphore at 0. */
static VkSemaphore timeline_semaphore(struct pat *p)
{
	VkSemaphoreTypeCreateInfo type = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
	};
	VkSemaphoreCreateInfo info = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type };
	VkSemaphore s;

	VKC_CHECK(vkCreateSemaphore(p->vk.device, &info, NULL, &s));
	return s;
}

/* Waits until @timeline reaches @value. */
static void wait_timeline(struct pat *p, VkSemaphore timeline, uint64_t value)
{
	VkSemaphoreWaitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1,
		.pSemaphores = &timeline,
		.pValues = &value,
	};
	VKC_CHECK(vkWaitSemaphores(p->vk.device, &info, UINT64_MAX));
}

/* Features most patterns enable: timeline semaphores and synchronization2. */
static VkPhysicalDeviceVulkan13Features features13 = {
	.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
	.synchronization2 = VK_TRUE,
};
static VkPhysicalDeviceVulkan12Features features12 = {
	.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	.pNext = &features13,
	.timelineSemaphore = VK_TRUE,
};

/* --- 1. recorded once, submitted many times ----------------------------------------- */

#define RESUBMITS 12u

static int p_resubmit(struct pat *p)
{
	pat_init(p, "patterns-resubmit", &(struct vkc_options){ .device_pnext = &features12 });
	VkPipeline named = make_pipeline(p, p->count_mod, "main", NULL, 0, "resubmit_named");
	VkPipeline source = make_pipeline(p, p->count_g_mod, "main", NULL, 0, NULL);
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);
	VkSemaphore timeline = timeline_semaphore(p);
	uint64_t value = 0;

	begin(cb, 0);
	rec_count(p, cb, named, 0, 2);
	rec_count(p, cb, source, 1, 3);
	rec_busy(p, cb, 50);
	end(cb);
	for (uint32_t r = 0; r < RESUBMITS; r++) {
		VkTimelineSemaphoreSubmitInfo tinfo = {
			.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
			.signalSemaphoreValueCount = 1,
			.pSignalSemaphoreValues = &(uint64_t){ value + 1 },
		};
		VkSubmitInfo info = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 1,
			.pCommandBuffers = &cb,
		};
		switch (r % 5) {
		case 0: /* fence */
			VKC_CHECK(vkQueueSubmit(p->vk.queue, 1, &info, fence));
			vkc_wait_fence(&p->vk, fence);
			break;
		case 1:
			VKC_CHECK(vkQueueSubmit(p->vk.queue, 1, &info, VK_NULL_HANDLE));
			VKC_CHECK(vkQueueWaitIdle(p->vk.queue));
			break;
		case 2:
			VKC_CHECK(vkQueueSubmit(p->vk.queue, 1, &info, VK_NULL_HANDLE));
			VKC_CHECK(vkDeviceWaitIdle(p->vk.device));
			break;
		case 3: { /* timeline semaphore (the program's pNext must survive) */
			info.pNext = &tinfo;
			info.signalSemaphoreCount = 1;
			info.pSignalSemaphores = &timeline;
			VKC_CHECK(vkQueueSubmit(p->vk.queue, 1, &info, VK_NULL_HANDLE));
			value++;
			wait_timeline(p, timeline, value);
			break;
		}
		case 4: { /* polled, never waited on: nothing nudges Hesper's collector */
			VKC_CHECK(vkQueueSubmit(p->vk.queue, 1, &info, fence));
			VkResult res;
			while ((res = vkGetFenceStatus(p->vk.device, fence)) == VK_NOT_READY)
				usleep(200);
			VKC_CHECK(res);
			VKC_CHECK(vkResetFences(p->vk.device, 1, &fence));
			break;
		}
		}
	}
	p->busy_runs += RESUBMITS;
	p->expect[0] = 2 * RESUBMITS;
	p->expect[1] = 3 * RESUBMITS;
	verify_counters(p, "resubmit");
	truth_kernel(DEBUG_NAMED, "resubmit_named", 2 * RESUBMITS, -1);
	truth_kernel(SOURCE_NAMED, "count.comp", 3 * RESUBMITS, -1);
	truth_busy(p, -1);
	truth_key("dropped", "0");

	vkDestroySemaphore(p->vk.device, timeline, NULL);
	return pat_done(p, fence, (VkPipeline[]){ named, source }, 2);
}

/* --- 2. SIMULTANEOUS_USE, resubmitted while running; several queues ------------------- */

#define SIMUL_SUBMITS 6u

static int p_simultaneous(struct pat *p)
{
	pat_init(p, "patterns-simultaneous", &(struct vkc_options){ .queue_count = 2 });
	VkPipeline k = make_pipeline(p, p->count_mod, "main", NULL, 0, "simul_count");
	VkCommandBuffer s = vkc_command_buffer(&p->vk);
	VkFence f[SIMUL_SUBMITS + 4];
	uint32_t overlaps = 0, runs = 0, timed_runs = 0;

	calibrate_busy(p, 40.0);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		f[i] = vkc_fence(&p->vk);
	begin(s, VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT);
	rec_busy(p, s, p->busy_iters);
	rec_count(p, s, k, 0, 2);
	end(s);

	/* Back to back: each submission starts while the one before still runs. */
	for (uint32_t i = 0; i < SIMUL_SUBMITS; i++) {
		if (i > 0 && vkGetFenceStatus(p->vk.device, f[i - 1]) == VK_NOT_READY)
			overlaps++;
		submit(p->vk.queue, &s, 1, f[i]);
	}
	runs += SIMUL_SUBMITS;
	timed_runs += SIMUL_SUBMITS;
	/* Twice in one batch, then once in each of two batches of one call: Hesper copies between, all timed. */
	VkCommandBuffer twice[2] = { s, s };
	submit(p->vk.queue, twice, 2, f[SIMUL_SUBMITS]);
	VkSubmitInfo two[2] = {
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &s },
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &s },
	};
	VKC_CHECK(vkQueueSubmit(p->vk.queue, 2, two, f[SIMUL_SUBMITS + 1]));
	runs += 4;
	timed_runs += 4;
	VKC_CHECK(vkWaitForFences(p->vk.device, SIMUL_SUBMITS + 2, f, VK_TRUE, UINT64_MAX));

	/* On two queues at once, when the family has two. */
	if (p->vk.queue_count >= 2) {
		submit(p->vk.queues[0], &s, 1, f[SIMUL_SUBMITS + 2]);
		submit(p->vk.queues[1], &s, 1, f[SIMUL_SUBMITS + 3]);
		VKC_CHECK(vkWaitForFences(p->vk.device, 2, &f[SIMUL_SUBMITS + 2], VK_TRUE, UINT64_MAX));
		/* Both runs wrote the same queries at once: Hesper counts them and drops their times. */
		runs += 2;
	}
	p->busy_runs += runs;
	p->expect[0] = 2 * runs;
	verify_counters(p, "simultaneous");
	truth_kernel(DEBUG_NAMED, "simul_count", 2 * runs, 2 * timed_runs);
	truth_busy(p, (int64_t)(p->busy_runs - (runs - timed_runs)));
	truth_key("dropped", "%u", 3 * (runs - timed_runs));
	truth_key("queues", "%u", p->vk.queue_count);
	truth_key("overlapped", "%s", overlaps > 0 ? "true" : "false");
	truth_key("volatile", "[\"overlapped\"]");

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		vkDestroyFence(p->vk.device, f[i], NULL);
	return pat_done(p, VK_NULL_HANDLE, &k, 1);
}

/* --- 3. secondary command buffers ------------------------------------------------------ */

static VkCommandBuffer secondary(struct pat *p)
{
	return vkc_command_buffer_from(&p->vk, p->vk.cmd_pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
}

static void begin_secondary(VkCommandBuffer cb)
{
	VkCommandBufferInheritanceInfo inherit = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
	VkCommandBufferBeginInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
		.pInheritanceInfo = &inherit,
	};
	VKC_CHECK(vkBeginCommandBuffer(cb, &info));
}

/* Records secondary @cb as nothing but @n dispatches of @pipe into @slot. */
static void record_secondary(struct pat *p, VkCommandBuffer cb, VkPipeline pipe, uint32_t slot, uint32_t n)
{
	begin_secondary(cb);
	rec_count(p, cb, pipe, slot, n);
	vkc_end(cb);
}

static int p_secondary(struct pat *p)
{
	pat_init(p, "patterns-secondary", NULL);
	VkDevice d = p->vk.device;
	VkPipeline prim = make_pipeline(p, p->count_mod, "main", NULL, 0, "sec_primary");
	VkPipeline ka = make_pipeline(p, p->count_mod, "main", NULL, 0, "sec_a");
	VkPipeline kb = make_pipeline(p, p->count_mod, "main", NULL, 0, "sec_b");
	VkPipeline kc = make_pipeline(p, p->count_g_mod, "main", NULL, 0, "sec_c");
	VkCommandBuffer s1 = secondary(p), s2 = secondary(p), s3 = secondary(p);
	VkCommandBuffer pa = vkc_command_buffer(&p->vk), pb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);

	record_secondary(p, s1, ka, 1, 2);
	record_secondary(p, s2, kb, 2, 1);
	record_secondary(p, s3, kc, 3, 3);

	/* pa: prim, [s1], prim, [s2 s1], [s3 s3 s3] */
	begin(pa, 0);
	rec_count(p, pa, prim, 0, 1);
	vkCmdExecuteCommands(pa, 1, &s1);
	rec_count(p, pa, prim, 0, 1);
	VkCommandBuffer two[2] = { s2, s1 }, three[3] = { s3, s3, s3 };
	vkCmdExecuteCommands(pa, 2, two);
	vkCmdExecuteCommands(pa, 3, three);
	end(pa);
	/* pb: [s2], prim */
	begin(pb, 0);
	vkCmdExecuteCommands(pb, 1, &s2);
	rec_count(p, pb, prim, 0, 1);
	end(pb);

	vkc_submit_wait(&p->vk, pa, fence);
	vkc_submit_wait(&p->vk, pa, fence);
	VkCommandBuffer both[2] = { pa, pb };
	submit(p->vk.queue, both, 2, fence);
	vkc_wait_fence(&p->vk, fence);

	/* s1 re-recorded (one dispatch now) and executed once from a re-recorded pb. */
	record_secondary(p, s1, ka, 1, 1);
	begin(pb, 0);
	vkCmdExecuteCommands(pb, 1, &s1);
	rec_count(p, pb, prim, 0, 1);
	end(pb);
	vkc_submit_wait(&p->vk, pb, fence);

	p->expect[0] = 8;
	p->expect[1] = 13;
	p->expect[2] = 4;
	p->expect[3] = 27;
	verify_counters(p, "secondary");
	truth_kernel(DEBUG_NAMED, "sec_primary", 8, 8);
	truth_kernel(DEBUG_NAMED, "sec_a", 13, 13);
	truth_kernel(DEBUG_NAMED, "sec_b", 4, 4);
	truth_kernel(DEBUG_NAMED, "sec_c", 27, 27);
	truth_key("dropped", "0");

	VkCommandBuffer all[5] = { s1, s2, s3, pa, pb };
	vkFreeCommandBuffers(d, p->vk.cmd_pool, 5, all);
	return pat_done(p, fence, (VkPipeline[]){ prim, ka, kb, kc }, 4);
}

/* --- 4. batches, vkQueueSubmit2, vkQueueSubmit2KHR ------------------------------------- */

static VkSemaphore binary_semaphore(struct pat *p)
{
	VkSemaphore s;
	VkSemaphoreCreateInfo info = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	VKC_CHECK(vkCreateSemaphore(p->vk.device, &info, NULL, &s));
	return s;
}

/* A vkQueueSubmit2 call through @fn: 2 batches of 2 command buffers (2 dispatches each). */
static void submit2_round(struct pat *p, PFN_vkQueueSubmit2 fn, VkPipeline k, uint32_t slot, VkCommandBuffer *cbs,
			  VkSemaphore timeline, uint64_t value)
{
	VkSemaphore between = binary_semaphore(p);
	VkCommandBufferSubmitInfo cbi[4];

	for (int i = 0; i < 4; i++) {
		record_counts(p, cbs[i], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k, slot, 2);
		cbi[i] = (VkCommandBufferSubmitInfo){ .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
						      .commandBuffer = cbs[i] };
	}
	VkSemaphoreSubmitInfo signal_between = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
		.semaphore = between,
		.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
	};
	VkSemaphoreSubmitInfo signal_timeline = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
		.semaphore = timeline,
		.value = value,
		.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
	};
	VkSubmitInfo2 batches[2] = {
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
		  .commandBufferInfoCount = 2,
		  .pCommandBufferInfos = cbi,
		  .signalSemaphoreInfoCount = 1,
		  .pSignalSemaphoreInfos = &signal_between },
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
		  .waitSemaphoreInfoCount = 1,
		  .pWaitSemaphoreInfos = &signal_between,
		  .commandBufferInfoCount = 2,
		  .pCommandBufferInfos = cbi + 2,
		  .signalSemaphoreInfoCount = 1,
		  .pSignalSemaphoreInfos = &signal_timeline },
	};
	VKC_CHECK(fn(p->vk.queue, 2, batches, VK_NULL_HANDLE));
	wait_timeline(p, timeline, value);
	vkDestroySemaphore(p->vk.device, between, NULL);
}

static int p_multisubmit(struct pat *p)
{
	const char *ext[] = { VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME };
	pat_init(p, "patterns-multisubmit",
		 &(struct vkc_options){
			 .device_pnext = &features12, .device_extensions = ext, .device_extension_count = 1 });
	VkDevice d = p->vk.device;
	VkPipeline k1 = make_pipeline(p, p->count_mod, "main", NULL, 0, "ms_submit");
	VkPipeline k2 = make_pipeline(p, p->count_mod, "main", NULL, 0, "ms_submit2");
	VkPipeline k3 = make_pipeline(p, p->count_mod, "main", NULL, 0, "ms_submit2khr");
	VkCommandBuffer cbs[9];
	VkFence fence = vkc_fence(&p->vk);
	VkSemaphore sem[2] = { binary_semaphore(p), binary_semaphore(p) };

	for (int i = 0; i < 9; i++)
		cbs[i] = vkc_command_buffer(&p->vk);
	/* vkQueueSubmit: 3 batches of 3 command buffers (1, 2, 3 dispatches), chained by semaphores, and an empty batch. */
	for (int i = 0; i < 9; i++)
		record_counts(p, cbs[i], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k1, 0, 1 + (uint32_t)i % 3);
	VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
	VkSubmitInfo batches[4] = {
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		  .commandBufferCount = 3,
		  .pCommandBuffers = cbs,
		  .signalSemaphoreCount = 1,
		  .pSignalSemaphores = &sem[0] },
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		  .waitSemaphoreCount = 1,
		  .pWaitSemaphores = &sem[0],
		  .pWaitDstStageMask = &stage,
		  .commandBufferCount = 3,
		  .pCommandBuffers = cbs + 3,
		  .signalSemaphoreCount = 1,
		  .pSignalSemaphores = &sem[1] },
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		  .waitSemaphoreCount = 1,
		  .pWaitSemaphores = &sem[1],
		  .pWaitDstStageMask = &stage,
		  .commandBufferCount = 3,
		  .pCommandBuffers = cbs + 6 },
		{ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO },
	};
	VKC_CHECK(vkQueueSubmit(p->vk.queue, 4, batches, fence));
	vkc_wait_fence(&p->vk, fence);
	/* A submission of nothing but a fence. */
	VKC_CHECK(vkQueueSubmit(p->vk.queue, 0, NULL, fence));
	vkc_wait_fence(&p->vk, fence);

	VkSemaphore timeline = timeline_semaphore(p);
	submit2_round(p, vkQueueSubmit2, k2, 1, cbs, timeline, 1);
	submit2_round(p, (PFN_vkQueueSubmit2)device_proc(p, "vkQueueSubmit2KHR"), k3, 2, cbs + 4, timeline, 2);

	p->expect[0] = 18;
	p->expect[1] = 8;
	p->expect[2] = 8;
	verify_counters(p, "multisubmit");
	truth_kernel(DEBUG_NAMED, "ms_submit", 18, -1);
	truth_kernel(DEBUG_NAMED, "ms_submit2", 8, -1);
	truth_kernel(DEBUG_NAMED, "ms_submit2khr", 8, -1);
	truth_key("dropped", "0");

	vkDestroySemaphore(d, timeline, NULL);
	vkDestroySemaphore(d, sem[0], NULL);
	vkDestroySemaphore(d, sem[1], NULL);
	return pat_done(p, fence, (VkPipeline[]){ k1, k2, k3 }, 3);
}

/* --- 5. command buffers and pools going away right after their fence -------------------- */

#define LIFE_ROUNDS 15u

static VkCommandPool command_pool(struct pat *p, VkCommandPoolCreateFlags flags)
{
	VkCommandPool pool;
	VkCommandPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = flags,
		.queueFamilyIndex = p->vk.queue_family,
	};
	VKC_CHECK(vkCreateCommandPool(p->vk.device, &info, NULL, &pool));
	return pool;
}

static VkCommandBuffer command_buffer_from(struct pat *p, VkCommandPool pool)
{
	return vkc_command_buffer_from(&p->vk, pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
}

static int p_lifetimes(struct pat *p)
{
	pat_init(p, "patterns-lifetimes", NULL);
	VkDevice d = p->vk.device;
	const char *names[] = { "lt_reset",        "lt_free",     "lt_pool_reset",
				"lt_pool_destroy", "lt_rerecord", "lt_waitidle_free" };
	const uint32_t per_round[] = { 2, 2, 3, 1, 3, 2 };
	VkPipeline k[6];
	VkFence fence = vkc_fence(&p->vk);
	VkCommandBuffer reset_cb = vkc_command_buffer(&p->vk), again_cb = vkc_command_buffer(&p->vk);
	VkCommandPool plain_pool = command_pool(p, 0);
	VkCommandBuffer pooled = command_buffer_from(p, plain_pool);

	for (int i = 0; i < 6; i++)
		k[i] = make_pipeline(p, p->count_mod, "main", NULL, 0, names[i]);
	for (uint32_t r = 0; r < LIFE_ROUNDS; r++) {
		/* reset right after the fence */
		record_counts(p, reset_cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k[0], 0, 2);
		vkc_submit_wait(&p->vk, reset_cb, fence);
		VKC_CHECK(vkResetCommandBuffer(reset_cb, 0));

		/* freed right after the fence (its handle may come back for the next one) */
		VkCommandBuffer freed = vkc_command_buffer(&p->vk);
		record_counts(p, freed, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k[1], 1, 2);
		vkc_submit_wait(&p->vk, freed, fence);
		vkFreeCommandBuffers(d, p->vk.cmd_pool, 1, &freed);

		/* pool reset right after the fence */
		record_counts(p, pooled, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k[2], 2, 3);
		vkc_submit_wait(&p->vk, pooled, fence);
		VKC_CHECK(vkResetCommandPool(d, plain_pool, 0));

		/* pool destroyed right after the fence */
		VkCommandPool doomed = command_pool(p, VK_COMMAND_POOL_CREATE_TRANSIENT_BIT);
		VkCommandBuffer dcb = command_buffer_from(p, doomed);
		record_counts(p, dcb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k[3], 3, 1);
		vkc_submit_wait(&p->vk, dcb, fence);
		vkDestroyCommandPool(d, doomed, NULL);

		/* re-recorded right after the fence and submitted again */
		record_counts(p, again_cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k[4], 4, 1);
		vkc_submit_wait(&p->vk, again_cb, fence);
		record_counts(p, again_cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k[4], 4, 2);
		vkc_submit_wait(&p->vk, again_cb, fence);

		/* a pipeline destroyed right after the fence; the next one (maybe the same handle) named otherwise */
		VkPipeline gen = make_pipeline(p, p->count_mod, "main", NULL, 0,
					       r % 2 ? "lt_pipe_odd" : "lt_pipe_even");
		record_counts(p, reset_cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, gen, 6 + r % 2, 1 + r % 2);
		vkc_submit_wait(&p->vk, reset_cb, fence);
		vkDestroyPipeline(d, gen, NULL);

		/* waited with vkQueueWaitIdle, then freed */
		VkCommandBuffer idle = vkc_command_buffer(&p->vk);
		record_counts(p, idle, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k[5], 5, 2);
		submit(p->vk.queue, &idle, 1, VK_NULL_HANDLE);
		VKC_CHECK(vkQueueWaitIdle(p->vk.queue));
		vkFreeCommandBuffers(d, p->vk.cmd_pool, 1, &idle);
	}
	for (int i = 0; i < 6; i++) {
		p->expect[i] = per_round[i] * LIFE_ROUNDS;
		truth_kernel(DEBUG_NAMED, names[i], per_round[i] * LIFE_ROUNDS, -1);
	}
	p->expect[6] = (LIFE_ROUNDS + 1) / 2;
	p->expect[7] = 2 * (LIFE_ROUNDS / 2);
	truth_kernel(DEBUG_NAMED, "lt_pipe_even", p->expect[6], -1);
	truth_kernel(DEBUG_NAMED, "lt_pipe_odd", p->expect[7], -1);
	verify_counters(p, "lifetimes");
	truth_key("dropped", "0");

	vkDestroyCommandPool(d, plain_pool, NULL);
	return pat_done(p, fence, k, 6);
}

/* --- 6. threads ---------------------------------------------------------------------- */

#define THREAD_ROUNDS 25u
#define MAX_THREADS 16

enum thread_submit { THREAD_SUBMIT_MIXED, THREAD_SUBMIT_1, THREAD_SUBMIT_2 };

struct worker {
	struct pat *p;
	int index;
	enum thread_submit how;
	bool churn;
	VkPipeline shared;
	pthread_mutex_t *queue_lock;
	VkQueue queue;
	int errors;
};

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	struct pat *p = w->p;
	VkDevice d = p->vk.device;
	char name[32];

	snprintf(name, sizeof(name), "thread_%d", w->index);
	/* Named as real programs name their workers: a profiler's trace can show it by name. */
	char thread_name[16];
	snprintf(thread_name, sizeof(thread_name), "hsp-worker-%d", w->index);
	pthread_setname_np(pthread_self(), thread_name);
	VkPipeline own = make_pipeline(p, p->count_mod, "main", NULL, 0, name);
	VkCommandPool pool = command_pool(p, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
	VkCommandBuffer cb = command_buffer_from(p, pool);
	VkFence fence = vkc_fence(&p->vk);

	for (uint32_t r = 0; r < THREAD_ROUNDS; r++) {
		/*
		 * Handles come and go while the other threads record and submit: every other round
		 * a fresh command buffer, every fifth a fresh pool, every third a pool reset.
		 */
		if (!w->churn) {
			/* the same command buffer, re-recorded */
		} else if (r % 5 == 4) {
			vkDestroyCommandPool(d, pool, NULL);
			pool = command_pool(p, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
			cb = command_buffer_from(p, pool);
		} else if (r % 3 == 2) {
			VKC_CHECK(vkResetCommandPool(d, pool, 0));
		} else if (r % 2 == 1) {
			vkFreeCommandBuffers(d, pool, 1, &cb);
			cb = command_buffer_from(p, pool);
		}
		begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
		rec_count(p, cb, own, 1 + (uint32_t)w->index, 2);
		rec_count(p, cb, w->shared, 0, 1);
		end(cb);
		pthread_mutex_lock(w->queue_lock);
		bool first_form = w->how == THREAD_SUBMIT_MIXED ? w->index % 2 == 0 : w->how == THREAD_SUBMIT_1;
		if (first_form) {
			submit(w->queue, &cb, 1, fence);
		} else {
			VkCommandBufferSubmitInfo cbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
							  .commandBuffer = cb };
			VkSubmitInfo2 info = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
					       .commandBufferInfoCount = 1,
					       .pCommandBufferInfos = &cbi };
			VKC_CHECK(vkQueueSubmit2(w->queue, 1, &info, fence));
		}
		pthread_mutex_unlock(w->queue_lock);
		vkc_wait_fence(&p->vk, fence);
	}
	vkDestroyFence(d, fence, NULL);
	vkDestroyCommandPool(d, pool, NULL);
	vkDestroyPipeline(d, own, NULL);
	return NULL;
}

static int p_threads(struct pat *p, int nthreads, enum thread_submit how, bool churn, bool main_first)
{
	pat_init(p, "patterns-threads",
		 &(struct vkc_options){ .device_pnext = &features12, .queue_count = (uint32_t)nthreads });
	struct worker w[MAX_THREADS];
	pthread_t t[MAX_THREADS];
	pthread_mutex_t locks[8];
	VkPipeline shared = make_pipeline(p, p->count_mod, "main", NULL, 0, NULL);

	for (uint32_t q = 0; q < p->vk.queue_count; q++) {
		pthread_mutex_init(&locks[q], NULL);
		if (!main_first)
			continue;
		VkCommandBuffer cb = vkc_command_buffer(&p->vk);
		VkFence fence = vkc_fence(&p->vk);
		record_counts(p, cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, shared, 0, 1);
		submit(p->vk.queues[q], &cb, 1, fence);
		vkc_wait_fence(&p->vk, fence);
		vkDestroyFence(p->vk.device, fence, NULL);
		vkFreeCommandBuffers(p->vk.device, p->vk.cmd_pool, 1, &cb);
	}
	uint32_t first_runs = main_first ? p->vk.queue_count : 0;
	for (int i = 0; i < nthreads; i++) {
		uint32_t q = (uint32_t)i % p->vk.queue_count;
		w[i] = (struct worker){ .p = p,
					.index = i,
					.how = how,
					.churn = churn,
					.shared = shared,
					.queue_lock = &locks[q],
					.queue = p->vk.queues[q] };
		if (pthread_create(&t[i], NULL, thread_main, &w[i]) != 0)
			vkc_fail("pthread_create failed");
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);

	p->expect[0] = (uint64_t)nthreads * THREAD_ROUNDS + first_runs;
	for (int i = 0; i < nthreads; i++) {
		char name[32];
		snprintf(name, sizeof(name), "thread_%d", i);
		p->expect[1 + i] = 2 * THREAD_ROUNDS;
		truth_kernel(DEBUG_NAMED, name, 2 * THREAD_ROUNDS, -1);
	}
	truth_kernel(UNNAMED, "count.spv", (uint64_t)nthreads * THREAD_ROUNDS + first_runs, -1);
	verify_counters(p, "threads");
	truth_key("dropped", "0");
	truth_key("queues", "%u", p->vk.queue_count);

	return pat_done(p, VK_NULL_HANDLE, &shared, 1);
}

/* --- 7. dispatch kinds, debug labels --------------------------------------------------- */

static int p_dispatch_kinds(struct pat *p)
{
	const char *iext[] = { VK_KHR_DEVICE_GROUP_CREATION_EXTENSION_NAME };
	const char *dext[] = { VK_KHR_DEVICE_GROUP_EXTENSION_NAME };
	pat_init(p, "patterns-dispatch-kinds",
		 &(struct vkc_options){ .instance_extensions = iext,
					.instance_extension_count = 1,
					.device_extensions = dext,
					.device_extension_count = 1 });
	const char *names[] = { "dk_direct", "dk_indirect", "dk_base", "dk_base_khr" };
	VkPipeline k[4];
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);

	dispatch_base_khr = (PFN_vkCmdDispatchBaseKHR)device_proc(p, "vkCmdDispatchBaseKHR");
	for (int i = 0; i < 4; i++)
		k[i] = make_pipeline(p, p->count_mod, "main", NULL,
				     i >= BASE ? VK_PIPELINE_CREATE_DISPATCH_BASE_BIT : 0, names[i]);
	begin(cb, 0);
	for (uint32_t how = DIRECT; how <= BASE_KHR; how++)
		for (uint32_t n = 0; n < 3 + how; n++)
			rec_count_how(p, cb, k[how], how, (enum how)how);
	end(cb);
	vkc_submit_wait(&p->vk, cb, fence);
	vkc_submit_wait(&p->vk, cb, fence);
	for (uint32_t how = DIRECT; how <= BASE_KHR; how++) {
		p->expect[how] = 2 * (3 + how);
		truth_kernel(DEBUG_NAMED, names[how], 2 * (3 + how), -1);
	}
	verify_counters(p, "dispatch_kinds");
	truth_key("dropped", "0");

	return pat_done(p, fence, k, 4);
}

#define LABEL_SUBMITS 3u
#define DEEP_LABELS 40

static int p_labels(struct pat *p)
{
	pat_init(p, "patterns-labels", NULL);
	struct vkc_ctx *vk = &p->vk;
	VkPipeline kk = make_pipeline(p, p->count_mod, "main", NULL, 0, "lbl_k");
	VkPipeline km = make_pipeline(p, p->count_mod, "main", NULL, 0, "lbl_m");
	VkCommandBuffer cb = vkc_command_buffer(vk), x = vkc_command_buffer(vk), y = vkc_command_buffer(vk);
	VkCommandBuffer deep = vkc_command_buffer(vk);
	VkFence fence = vkc_fence(vk);
	char name[32];

	if (!vk->has_debug_utils)
		vkc_fail("VK_EXT_debug_utils is needed");
	begin(cb, 0);
	vkc_label_begin(vk, cb, "frame");
	rec_count(p, cb, kk, 0, 1);
	vkc_label_begin(vk, cb, "pass_a");
	rec_count(p, cb, kk, 0, 3);
	vkc_label_end(vk, cb);
	vkc_label_begin(vk, cb, "pass_b");
	vkc_label_begin(vk, cb, "inner");
	rec_count(p, cb, kk, 0, 2);
	rec_count(p, cb, km, 1, 1);
	vkc_label_end(vk, cb);
	rec_count(p, cb, km, 1, 1);
	vkc_label_end(vk, cb);
	vkc_label_begin(vk, cb, "pass_a");
	rec_count(p, cb, kk, 0, 1);
	vkc_label_end(vk, cb);
	vkc_label_end(vk, cb);
	rec_count(p, cb, kk, 0, 1);
	end(cb);
	for (uint32_t i = 0; i < LABEL_SUBMITS; i++)
		vkc_submit_wait(vk, cb, fence);

	/* A label opened in one command buffer and closed in the next of the same batch. */
	begin(x, 0);
	vkc_label_begin(vk, x, "crossing");
	rec_count(p, x, km, 1, 1);
	end(x);
	begin(y, 0);
	rec_count(p, y, km, 1, 1);
	vkc_label_end(vk, y);
	end(y);
	VkCommandBuffer xy[2] = { x, y };
	submit(vk->queue, xy, 2, fence);
	vkc_wait_fence(vk, fence);

	/* Labels nested deeper than any fixed limit. */
	begin(deep, 0);
	for (int i = 0; i < DEEP_LABELS; i++) {
		snprintf(name, sizeof(name), "deep_%d", i);
		vkc_label_begin(vk, deep, name);
	}
	rec_count(p, deep, kk, 0, 1);
	for (int i = 0; i < DEEP_LABELS; i++)
		vkc_label_end(vk, deep);
	end(deep);
	vkc_submit_wait(vk, deep, fence);

	uint64_t k_count = 8 * LABEL_SUBMITS + 1, m_count = 2 * LABEL_SUBMITS + 2;
	p->expect[0] = k_count;
	p->expect[1] = m_count;
	verify_counters(p, "labels");
	truth_kernel(DEBUG_NAMED, "lbl_k", k_count, -1);
	truth_kernel(DEBUG_NAMED, "lbl_m", m_count, -1);
	truth_region("frame", LABEL_SUBMITS);
	truth_region("pass_a", 2 * LABEL_SUBMITS);
	truth_region("pass_b", LABEL_SUBMITS);
	truth_region("inner", LABEL_SUBMITS);
	truth_region("crossing", 1);
	truth_region("deep_0", 1);
	truth_region("deep_31", 1);
	truth_labelled("frame", "lbl_k", LABEL_SUBMITS);
	truth_labelled("pass_a", "lbl_k", 4 * LABEL_SUBMITS);
	truth_labelled("inner", "lbl_k", 2 * LABEL_SUBMITS);
	truth_labelled("inner", "lbl_m", LABEL_SUBMITS);
	truth_labelled("pass_b", "lbl_m", LABEL_SUBMITS);
	/* Where the crossing label's second dispatch and the deepest dispatch land is not specified. */
	truth_key("loose_labels", "[\"crossing\",\"deep_*\"]");
	truth_key("region_parents", "{\"pass_a\":\"frame\",\"pass_b\":\"frame\",\"inner\":\"pass_b\"}");
	/* Labels around back-to-back dispatches alone: in dispatch mode each shares its dispatches' timestamps. */
	truth_key("regions_tight", "[\"frame\",\"pass_a\",\"pass_b\",\"inner\"]");
	/* The labels as a tree: each path with its instances and the kernels that ran directly in it. */
	truth_key("region_tree",
		  "[{\"path\":[\"frame\"],\"count\":%u,\"kernels\":{\"lbl_k\":%u}},"
		  "{\"path\":[\"frame\",\"pass_a\"],\"count\":%u,\"kernels\":{\"lbl_k\":%u}},"
		  "{\"path\":[\"frame\",\"pass_b\"],\"count\":%u,\"kernels\":{\"lbl_m\":%u}},"
		  "{\"path\":[\"frame\",\"pass_b\",\"inner\"],\"count\":%u,\"kernels\":{\"lbl_k\":%u,\"lbl_m\":%u}}]",
		  LABEL_SUBMITS, LABEL_SUBMITS, 2 * LABEL_SUBMITS, 4 * LABEL_SUBMITS, LABEL_SUBMITS, LABEL_SUBMITS,
		  LABEL_SUBMITS, 2 * LABEL_SUBMITS, LABEL_SUBMITS);
	truth_key("dropped", "0");

	return pat_done(p, fence, (VkPipeline[]){ kk, km }, 2);
}

/* --- 8. two devices; an instance made again -------------------------------------------- */

#define TWO_DEV_ROUNDS 5u

static void two_dev_round(struct pat *p, VkCommandBuffer cb, VkPipeline own, uint32_t own_n, VkPipeline shared,
			  VkPipeline same, VkFence fence)
{
	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	rec_count(p, cb, own, 0, own_n);
	rec_count(p, cb, shared, 1, 1);
	rec_count(p, cb, same, 2, 1);
	end(cb);
	submit(p->vk.queue, &cb, 1, fence);
}

static int p_two_devices(struct pat *p)
{
	struct pat *b = calloc(1, sizeof(*b));
	struct vkc_options opts = { .no_volk_device = true };

	if (!b)
		vkc_fail("out of memory");
	pat_init(p, "patterns-two-devices", &opts);
	vkc_init_device(&b->vk, &p->vk, &opts);
	pat_resources(b);
	VkPipeline a_own = make_pipeline(p, p->count_mod, "main", NULL, 0, "dev_a");
	VkPipeline a_shared = make_pipeline(p, p->count_mod, "main", NULL, 0, NULL);
	VkPipeline a_same = make_pipeline(p, p->count_mod, "main", NULL, 0, "same_name");
	VkPipeline b_own = make_pipeline(b, b->count_mod, "main", NULL, 0, "dev_b");
	VkPipeline b_shared = make_pipeline(b, b->count_mod, "main", NULL, 0, NULL);
	VkPipeline b_same = make_pipeline(b, b->count_mod, "main", NULL, 0, "same_name");
	VkCommandBuffer acb = vkc_command_buffer(&p->vk), bcb = vkc_command_buffer(&b->vk);
	VkFence af = vkc_fence(&p->vk), bf = vkc_fence(&b->vk);

	for (uint32_t r = 0; r < TWO_DEV_ROUNDS; r++) {
		two_dev_round(p, acb, a_own, 2, a_shared, a_same, af);
		two_dev_round(b, bcb, b_own, 3, b_shared, b_same, bf);
		vkc_wait_fence(&p->vk, af);
		vkc_wait_fence(&b->vk, bf);
	}
	b->expect[0] = 3 * TWO_DEV_ROUNDS;
	b->expect[1] = b->expect[2] = TWO_DEV_ROUNDS;
	verify_counters(b, "two_devices (b)");
	p->errors += b->errors;

	/* Device b goes away while a has work in flight; a goes on. */
	two_dev_round(p, acb, a_own, 2, a_shared, a_same, af);
	destroy_objects(b, bf, (VkPipeline[]){ b_own, b_shared, b_same }, 3);
	pat_release(b);
	vkc_finish_device(&b->vk);
	vkc_wait_fence(&p->vk, af);
	for (uint32_t r = 0; r < 2; r++) {
		two_dev_round(p, acb, a_own, 2, a_shared, a_same, af);
		vkc_wait_fence(&p->vk, af);
	}
	uint32_t a_rounds = TWO_DEV_ROUNDS + 3;
	p->expect[0] = 2 * a_rounds;
	p->expect[1] = p->expect[2] = a_rounds;
	verify_counters(p, "two_devices (a)");
	truth_kernel(DEBUG_NAMED, "dev_a", 2 * a_rounds, -1);
	truth_kernel(DEBUG_NAMED, "dev_b", 3 * TWO_DEV_ROUNDS, -1);
	truth_kernel(DEBUG_NAMED, "same_name", a_rounds + TWO_DEV_ROUNDS, -1);
	truth_kernel(UNNAMED, "count.spv", a_rounds + TWO_DEV_ROUNDS, -1);
	truth_key("dropped", "0");
	truth_key("devices", "2");

	free(b);
	return pat_done(p, af, (VkPipeline[]){ a_own, a_shared, a_same }, 3);
}

#define INSTANCES 3u

static int p_reinstance(struct pat *p)
{
	int errors = 0;

	for (uint32_t i = 0; i < INSTANCES; i++) {
		pat_init(p, "patterns-reinstance", NULL);
		VkPipeline named = make_pipeline(p, p->count_mod, "main", NULL, 0, "reinst_k");
		VkPipeline plain = make_pipeline(p, p->count_mod, "main", NULL, 0, NULL);
		VkCommandBuffer cb = vkc_command_buffer(&p->vk);
		VkFence fence = vkc_fence(&p->vk);
		begin(cb, 0);
		rec_count(p, cb, named, 0, 2);
		rec_count(p, cb, plain, 1, 1);
		end(cb);
		for (int r = 0; r < 4; r++)
			vkc_submit_wait(&p->vk, cb, fence);
		p->expect[0] = 8;
		p->expect[1] = 4;
		verify_counters(p, "reinstance");
		errors += p->errors;
		pat_done(p, fence, (VkPipeline[]){ named, plain }, 2);
	}
	p->errors = errors;
	truth_kernel(DEBUG_NAMED, "reinst_k", 8 * INSTANCES, -1);
	truth_kernel(UNNAMED, "count.spv", 4 * INSTANCES, -1);
	truth_key("dropped", "0");
	truth_key("devices", "%u", INSTANCES);
	return 0;
}

/* --- 9. exits with work in flight, signals ------------------------------------------------ */

/* Records and submits (no wait) a busy dispatch of about @ms and @n counts of @k. */
static void in_flight(struct pat *p, VkPipeline k, uint32_t n, double ms, VkFence fence)
{
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);

	calibrate_busy(p, ms);
	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	rec_busy(p, cb, p->busy_iters);
	rec_count(p, cb, k, 0, n);
	end(cb);
	submit(p->vk.queue, &cb, 1, fence);
	p->busy_runs++;
}

/*
 * @cold: the counting kernel runs for the first time in the submission left in flight.
 * lavapipe compiles a shader on its first run, on its queue thread, and its compiler
 * (LLVM) may already be torn down by exit handlers when Hesper's runs: that work may
 * never finish, so its dispatches may be dropped (after HESPER_EXIT_TIMEOUT_MS).
 */
static int p_exit_in_flight(struct pat *p, bool cold)
{
	pat_init(p, "patterns-exit-in-flight", NULL);
	VkPipeline k = make_pipeline(p, p->count_mod, "main", NULL, 0, "inflight_k");
	uint32_t warm = 0;

	if (!cold) {
		VkCommandBuffer cb = vkc_command_buffer(&p->vk);
		VkFence fence = vkc_fence(&p->vk);
		record_counts(p, cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, k, 0, 1);
		vkc_submit_wait(&p->vk, cb, fence);
		warm = 1;
	}
	in_flight(p, k, 3, 300.0, VK_NULL_HANDLE);
	truth_kernel(DEBUG_NAMED, "inflight_k", 3 + warm, -1);
	truth_busy(p, -1);
	truth_key("dropped", "%s", cold ? "null" : "0");
	truth_print(cold ? "exit_in_flight_cold" : "exit_in_flight");
	return 0; /* nothing waited for, nothing destroyed */
}

static struct pat *exit_pat;
static VkPipeline exit_kernel;
static pthread_mutex_t exit_lock = PTHREAD_MUTEX_INITIALIZER;

static void *exit_thread_main(void *arg)
{
	struct pat *p = exit_pat;
	VkCommandBuffer cb;
	VkFence fence;

	(void)arg;
	pthread_mutex_lock(&exit_lock); /* main is blocked in vkWaitForFences once this is free */
	pthread_mutex_unlock(&exit_lock);
	usleep(50000);
	cb = vkc_command_buffer(&p->vk);
	fence = vkc_fence(&p->vk);
	record_counts(p, cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, exit_kernel, 0, 5);
	vkc_submit_wait(&p->vk, cb, fence);
	in_flight(p, exit_kernel, 2, 200.0, VK_NULL_HANDLE);
	truth_kernel(DEBUG_NAMED, "exit_thread_k", 7, -1);
	truth_busy(p, -1);
	truth_key("dropped", "0");
	truth_key("exit_code", "3");
	truth_print("exit_thread");
	exit(3);
}

static int p_exit_thread(struct pat *p)
{
	pthread_t t;
	VkFence never;

	pat_init(p, "patterns-exit-thread", NULL);
	exit_pat = p;
	exit_kernel = make_pipeline(p, p->count_mod, "main", NULL, 0, "exit_thread_k");
	never = vkc_fence(&p->vk);
	pthread_mutex_lock(&exit_lock);
	if (pthread_create(&t, NULL, exit_thread_main, NULL) != 0)
		vkc_fail("pthread_create failed");
	pthread_mutex_unlock(&exit_lock);
	/* Never signaled: the other thread ends the process. */
	VKC_CHECK(vkWaitForFences(p->vk.device, 1, &never, VK_TRUE, UINT64_MAX));
	printf("patterns: the never-signaled fence signaled\n");
	return 1;
}

static volatile sig_atomic_t got_signal;

static void handler_exit(int sig)
{
	static const char line[] = "patterns: handler ran\n";
	(void)sig;
	ssize_t n = write(STDOUT_FILENO, line, sizeof(line) - 1);
	(void)n;
	_exit(7);
}

static void handler_flag(int sig)
{
	got_signal = sig;
}

static void install(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
}

static int p_signal(struct pat *p, const char *mode)
{
	bool flag = strcmp(mode, "handler_flag") == 0;

	if (strcmp(mode, "handler_exit") == 0)
		install(handler_exit);
	else if (flag)
		install(handler_flag);
	else if (strcmp(mode, "default") != 0 && strcmp(mode, "handler_late") != 0)
		vkc_fail("signal: unknown mode '%s'", mode);
	pat_init(p, "patterns-signal", NULL);
	if (strcmp(mode, "handler_late") == 0)
		install(handler_exit);
	VkPipeline k = make_pipeline(p, p->count_mod, "main", NULL, 0, "sig_k");
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk), never = vkc_fence(&p->vk);

	record_counts(p, cb, 0, k, 0, 4);
	for (int r = 0; r < 5; r++)
		vkc_submit_wait(&p->vk, cb, fence);
	in_flight(p, k, 1, 300.0, fence);
	truth_kernel(DEBUG_NAMED, "sig_k", 21, -1);
	truth_busy(p, -1);
	truth_key("exit_code", "%s", strcmp(mode, "default") == 0 ? "null" : "7");
	truth_print("signal");
	printf("patterns: ready\n");
	fflush(stdout);
	/* Left in stdout's buffer: lost if the signal kills the process, with Hesper as without it. */
	printf("patterns: waiting for the signal\n");
	while (!got_signal) {
		VkResult r = vkWaitForFences(p->vk.device, 1, &never, VK_TRUE, flag ? 10000000ull : UINT64_MAX);
		if (r != VK_TIMEOUT)
			VKC_CHECK(r);
	}
	printf("patterns: signal %d seen, leaving\n", (int)got_signal);
	return 7; /* leaves without destroying anything, like many programs do on ^C */
}

/* The faults "crash" makes, by name. */
static const struct {
	const char *name;
	int sig;
} crash_signals[] = {
	{ "SEGV", SIGSEGV }, { "BUS", SIGBUS }, { "FPE", SIGFPE }, { "ILL", SIGILL }, { "ABRT", SIGABRT },
};

static sigjmp_buf crash_back;
static volatile sig_atomic_t crash_recovers;

/* The program's own handler, as crash reporters have one: says so, then lets the signal end the process. */
static void crash_handler(int sig)
{
	static const char line[] = "patterns: handler ran\n";
	ssize_t n = write(STDOUT_FILENO, line, sizeof(line) - 1);
	(void)n;
	if (crash_recovers)
		siglongjmp(crash_back, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Makes the fault @sig as a program's bug would; where the machine makes no such fault (an
 * integer division by zero on Arm), sends it. Not sanitized: the fault itself is wanted.
 */
__attribute__((noinline, no_sanitize_address, no_sanitize_undefined)) static void crash_with(int sig)
{
	volatile char *page = MAP_FAILED;
	int fd;

	switch (sig) {
	case SIGSEGV:
		page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page != MAP_FAILED)
			page[0] = 1;
		break;
	case SIGBUS:
		/* An empty file: its mapped page has nothing behind it. */
		fd = memfd_create("patterns-bus", 0);
		if (fd >= 0)
			page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (page != MAP_FAILED)
			(void)page[0];
		break;
	case SIGFPE: {
		volatile int zero = 0, one = 1, quotient;
		quotient = one / zero;
		(void)quotient;
		break;
	}
	case SIGILL:
#if defined(__x86_64__) || defined(__i386__)
		__asm__ volatile("ud2");
#endif
		break;
	case SIGABRT:
		abort();
	}
	raise(sig);
}

/* Makes the fault @sig; returns (true) only when the program's handler jumped back (recover). */
static bool crash_and_come_back(int sig)
{
	if (sigsetjmp(crash_back, 1) != 0)
		return true;
	crash_with(sig);
	return false;
}

static void install_crash_handler(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crash_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static int p_crash(struct pat *p, const char *name, const char *mode)
{
	int sig = 0;

	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		if (strcmp(name, crash_signals[i].name) == 0)
			sig = crash_signals[i].sig;
	if (!sig)
		vkc_fail("crash: unknown signal '%s' (SEGV, BUS, FPE, ILL or ABRT)", name);
	crash_recovers = strcmp(mode, "recover") == 0;
	if (strcmp(mode, "handler") == 0 || crash_recovers)
		install_crash_handler(sig);
	else if (strcmp(mode, "default") != 0 && strcmp(mode, "handler_late") != 0)
		vkc_fail("crash: unknown mode '%s'", mode);
	pat_init(p, "patterns-crash", NULL);
	if (strcmp(mode, "handler_late") == 0)
		install_crash_handler(sig);
	VkPipeline k = make_pipeline(p, p->count_mod, "main", NULL, 0, "crash_k");
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);

	record_counts(p, cb, 0, k, 0, 4);
	for (int r = 0; r < 5; r++)
		vkc_submit_wait(&p->vk, cb, fence);
	in_flight(p, k, 1, 300.0, fence);
	if (!crash_recovers) {
		truth_kernel(DEBUG_NAMED, "crash_k", 21, -1);
		truth_busy(p, -1);
		truth_key("exit_code", "null");
		truth_print("crash");
	}
	/* Left in stdout's buffer: lost with the process, with Hesper as without it. */
	printf("patterns: crashing with SIG%s\n", name);
	if (!crash_and_come_back(sig))
		vkc_fail("crash: SIG%s did not end the process", name);
	vkc_wait_fence(&p->vk, fence);
	vkc_submit_wait(&p->vk, cb, fence);
	truth_kernel(DEBUG_NAMED, "crash_k", 25, -1);
	truth_busy(p, -1);
	truth_key("dropped", "0");
	truth_print("crash");
	printf("patterns: recovered from SIG%s\n", name);
	return 0; /* leaves without destroying anything */
}

/*
 * fork(): the child (a copy of a process that profiles) does no Vulkan. @how "exit": it
 * leaves with exit(), running the exit handlers it inherited; "term": it waits until the
 * parent sends SIGTERM, which must kill it. Either way it must end within seconds (the
 * parent gives it 10, then kills it and fails), and the parent goes on to an exact report.
 */
static int p_fork(struct pat *p, const char *how)
{
	bool term = strcmp(how, "term") == 0;
	if (!term && strcmp(how, "exit") != 0)
		vkc_fail("fork: unknown mode '%s'", how);
	pat_init(p, "patterns-fork", NULL);
	VkPipeline k = make_pipeline(p, p->count_mod, "main", NULL, 0, "fork_k");
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);
	int status = 0, waited_ms = 0;
	pid_t got;

	record_counts(p, cb, 0, k, 0, 3);
	vkc_submit_wait(&p->vk, cb, fence);
	fflush(stdout);
	pid_t child = fork();
	if (child < 0)
		vkc_fail("fork failed");
	if (child == 0) {
		if (term)
			for (;;)
				pause();
		exit(0);
	}
	if (term) {
		usleep(100000);
		kill(child, SIGTERM);
	}
	while ((got = waitpid(child, &status, WNOHANG)) == 0 && waited_ms < 10000) {
		usleep(10000);
		waited_ms += 10;
	}
	if (got == 0) {
		printf("patterns: fork: the child did not end within 10 s\n");
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		p->errors++;
	} else if (term ? !WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM
			: !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("patterns: fork: the child ended with status 0x%x\n", status);
		p->errors++;
	}
	vkc_submit_wait(&p->vk, cb, fence);
	p->expect[0] = 6;
	verify_counters(p, "fork");
	truth_kernel(DEBUG_NAMED, "fork_k", 6, -1);
	truth_key("dropped", "0");

	return pat_done(p, fence, &k, 1);
}

/* --- 10. many pipelines, many modules, a million dispatches ----------------------------- */

#define PIPELINE_BATCH 100u

static int p_many_pipelines(struct pat *p, uint32_t n)
{
	pat_init(p, "patterns-many-pipelines", NULL);
	VkDevice d = p->vk.device;
	VkShaderModule spec = vkc_shader_module(&p->vk, "spec_g.spv");
	VkPipeline *pipes = calloc(n, sizeof(*pipes));
	uint32_t *slots = calloc(n, sizeof(*slots));
	VkSpecializationInfo *specs = calloc(PIPELINE_BATCH, sizeof(*specs));
	VkComputePipelineCreateInfo *infos = calloc(PIPELINE_BATCH, sizeof(*infos));
	VkSpecializationMapEntry entry = { .constantID = 0, .offset = 0, .size = 4 };
	uint64_t named = 0, unnamed = 0;

	if (!pipes || !slots || !specs || !infos)
		vkc_fail("out of memory");
	/* Created PIPELINE_BATCH per call; the module is destroyed as soon as they exist. */
	for (uint32_t first = 0; first < n; first += PIPELINE_BATCH) {
		uint32_t count = n - first < PIPELINE_BATCH ? n - first : PIPELINE_BATCH;
		for (uint32_t i = 0; i < count; i++) {
			slots[first + i] = (first + i) % 64;
			specs[i] = (VkSpecializationInfo){
				.mapEntryCount = 1, .pMapEntries = &entry, .dataSize = 4, .pData = &slots[first + i]
			};
			infos[i] = (VkComputePipelineCreateInfo){
				.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
				.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
					   .stage = VK_SHADER_STAGE_COMPUTE_BIT,
					   .module = spec,
					   .pName = "main",
					   .pSpecializationInfo = &specs[i] },
				.layout = p->layout,
			};
		}
		VKC_CHECK(vkCreateComputePipelines(d, VK_NULL_HANDLE, count, infos, NULL, pipes + first));
	}
	vkDestroyShaderModule(d, spec, NULL);
	if (!vkc_name_pipeline(&p->vk, pipes[7], "spec_named"))
		vkc_fail("VK_EXT_debug_utils is needed");

	/* The first 64 pipelines (every counter slot), pipeline 7 and the last ones again. */
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);
	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t times = i < 64 ? 1 : 0;
		if (i == 7)
			times = 5;
		if (i + 3 >= n)
			times += 2;
		for (uint32_t t = 0; t < times; t++) {
			vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipes[i]);
			vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->counters_set,
						0, NULL);
			vkCmdDispatch(cb, 1, 1, 1);
		}
		p->expect[slots[i]] += times;
		if (i == 7)
			named += times;
		else
			unnamed += times;
	}
	end(cb);
	vkc_submit_wait(&p->vk, cb, fence);
	verify_counters(p, "many_pipelines");
	truth_kernel(SOURCE_NAMED, "spec.comp", unnamed, -1);
	truth_kernel(DEBUG_NAMED, "spec_named", named, -1);
	truth_key("pipelines", "%u", n);
	truth_key("dropped", "0");

	pat_done(p, fence, pipes, n);
	free(pipes);
	free(slots);
	free(specs);
	free(infos);
	return 0;
}

/* Reads the file of @spv_name from the shader directory. */
static uint32_t *read_spv(const char *spv_name, size_t *size)
{
	const char *dir = getenv("TEST_SPV_DIR");
	char path[4096];
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : HESPER_SPV_DIR, spv_name);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0)
		vkc_fail("cannot read %s", path);
	uint32_t *code = malloc((size_t)len);
	if (!code || fread(code, 1, (size_t)len, f) != (size_t)len)
		vkc_fail("cannot read %s", path);
	fclose(f);
	*size = (size_t)len;
	return code;
}

/* Renames the entry point "main" of @code in place to @name (at most 7 bytes: same word count). */
static void rename_entry(uint32_t *code, size_t size, const char *name)
{
	size_t words = size / 4;
	for (size_t i = 5; i < words;) {
		uint32_t op = code[i] & 0xffff, len = code[i] >> 16;
		if (len == 0)
			break;
		if (op == 15 && i + 3 < words && memcmp(&code[i + 3], "main\0\0\0", 8) == 0) { /* OpEntryPoint */
			char padded[8] = { 0 };
			memcpy(padded, name, strlen(name) < 7 ? strlen(name) : 7);
			memcpy(&code[i + 3], padded, 8);
			return;
		}
		i += len;
	}
	vkc_fail("no entry point \"main\" to rename");
}

static int p_many_modules(struct pat *p, uint32_t n)
{
	pat_init(p, "patterns-many-modules", NULL);
	VkDevice d = p->vk.device;
	size_t size;
	uint32_t *base = read_spv("count.spv", &size);
	uint32_t *code = malloc(size);
	VkPipeline *pipes = calloc(n + 1, sizeof(*pipes));
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);
	char name[16];

	if (!code || !pipes)
		vkc_fail("out of memory");
	if (n > SLOTS || n > 100)
		vkc_fail("many_modules: at most 100");
	for (uint32_t i = 0; i <= n; i++) {
		/* The last one is kern00 again, from a module of its own: the same kernel. */
		snprintf(name, sizeof(name), "kern%02u", i % n);
		memcpy(code, base, size);
		rename_entry(code, size, name);
		VkShaderModuleCreateInfo info = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
						  .codeSize = size,
						  .pCode = code };
		VkShaderModule m;
		VKC_CHECK(vkCreateShaderModule(d, &info, NULL, &m));
		pipes[i] = make_pipeline(p, m, name, NULL, 0, NULL);
		vkDestroyShaderModule(d, m, NULL);
	}
	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	for (uint32_t i = 0; i <= n; i++) {
		rec_count(p, cb, pipes[i], i % n, i < n ? i + 1 : 2);
		p->expect[i % n] += i < n ? i + 1 : 2;
	}
	end(cb);
	vkc_submit_wait(&p->vk, cb, fence);
	verify_counters(p, "many_modules");
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "kern%02u", i);
		truth_kernel(SOURCE_NAMED, name, p->expect[i], -1);
	}
	truth_key("dropped", "0");

	pat_done(p, fence, pipes, n + 1);
	free(pipes);
	free(code);
	free(base);
	return 0;
}

static int p_same_name(struct pat *p)
{
	pat_init(p, "patterns-same-name", NULL);
	VkPipeline first = make_pipeline(p, p->count_mod, "main", NULL, 0, "twin_named");
	VkPipeline second = make_pipeline(p, p->count_g_mod, "main", NULL, 0, "twin_named");
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);

	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	rec_count(p, cb, first, 0, 3);
	rec_count(p, cb, second, 1, 5);
	end(cb);
	vkc_submit_wait(&p->vk, cb, fence);
	p->expect[0] = 3;
	p->expect[1] = 5;
	verify_counters(p, "same_name");
	truth_kernel(DEBUG_NAMED, "twin_named", 8, -1);
	truth_key("stats_sets", "[3, 5]");
	truth_key("dropped", "0");
	return pat_done(p, fence, (VkPipeline[]){ first, second }, 2);
}

/* --- barriers: dispatches that program barriers separate ---------------------------- */

#define BARRIER_CHAIN 8u

/* A barrier making compute wait for earlier compute; with @image, it also moves @image to GENERAL. */
static void chain_barrier(VkCommandBuffer cb, VkImage image)
{
	VkMemoryBarrier m = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
			      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT };
	VkImageMemoryBarrier im = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
				    .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
				    .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
				    .newLayout = VK_IMAGE_LAYOUT_GENERAL,
				    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				    .image = image,
				    .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &m,
			     0, NULL, image ? 1 : 0, image ? &im : NULL);
}

/* A small storage image with memory of its own, for a barrier that changes its layout. */
static VkImage barrier_image(struct pat *p, VkDeviceMemory *memory)
{
	VkDevice d = p->vk.device;
	VkImageCreateInfo info = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
				   .imageType = VK_IMAGE_TYPE_2D,
				   .format = VK_FORMAT_R32_UINT,
				   .extent = { 4, 4, 1 },
				   .mipLevels = 1,
				   .arrayLayers = 1,
				   .samples = VK_SAMPLE_COUNT_1_BIT,
				   .tiling = VK_IMAGE_TILING_OPTIMAL,
				   .usage = VK_IMAGE_USAGE_STORAGE_BIT,
				   .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED };
	VkImage image;
	VKC_CHECK(vkCreateImage(d, &info, NULL, &image));
	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(d, image, &req);
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
				    .allocationSize = req.size,
				    .memoryTypeIndex = vkc_memory_type(&p->vk, req.memoryTypeBits, 0) };
	VKC_CHECK(vkAllocateMemory(d, &ai, NULL, memory));
	VKC_CHECK(vkBindImageMemory(d, image, *memory, 0));
	return image;
}

/*
 * BARRIER_CHAIN dispatches with a compute barrier between each two, then one after a barrier
 * that changes an image's layout. The truth's "chain" is the number of dispatches a barrier
 * before them leaves nothing to do on the GPU (the runner checks, in dispatch mode, that they
 * open from the closing timestamp of the dispatch before them: one timestamp each).
 */
static int p_barriers(struct pat *p)
{
	pat_init(p, "patterns-barriers", NULL);
	VkPipeline k = make_pipeline(p, p->count_mod, "main", NULL, 0, "bar_k");
	VkDeviceMemory memory;
	VkImage image = barrier_image(p, &memory);
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);

	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	for (uint32_t i = 0; i < BARRIER_CHAIN; i++) {
		if (i)
			chain_barrier(cb, VK_NULL_HANDLE);
		rec_count(p, cb, k, 0, 1);
	}
	chain_barrier(cb, image);
	rec_count(p, cb, k, 0, 1);
	end(cb);
	vkc_submit_wait(&p->vk, cb, fence);
	p->expect[0] = BARRIER_CHAIN + 1;
	verify_counters(p, "barriers");
	truth_kernel(DEBUG_NAMED, "bar_k", BARRIER_CHAIN + 1, -1);
	truth_key("chain", "%u", BARRIER_CHAIN - 1);
	/*
	 * Clock mode: all but the first isolated (end's barrier holds compute back too); the
	 * second opens the chain of barrier timestamps, the image's barrier ends it, so the
	 * last opens one of its own.
	 */
	truth_key("isolated", "%u", BARRIER_CHAIN);
	truth_key("clock_edges", "%u", BARRIER_CHAIN + 2);
	truth_key("dropped", "0");
	vkDestroyImage(p->vk.device, image, NULL);
	vkFreeMemory(p->vk.device, memory, NULL);
	return pat_done(p, fence, (VkPipeline[]){ k }, 1);
}

/*
 * BARRIER_CHAIN dispatches that the program isolates with a compute barrier right before and
 * right after each, every one inside a debug label of its own that opens after the barrier
 * before it and closes before the barrier after it (ggml's order with its debug markers).
 * A label of a primary writes nothing in clock mode, so it must not end the isolation: the
 * truth's "isolated" counts all of them, timed so with HESPER_CLOCK_ISOLATED=barriers (none
 * by default, span).
 */
static int p_barrier_labels(struct pat *p)
{
	pat_init(p, "patterns-barrier_labels", NULL);
	VkPipeline k = make_pipeline(p, p->count_mod, "main", NULL, 0, "lbar_k");
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);

	if (!p->vk.has_debug_utils)
		vkc_fail("VK_EXT_debug_utils is needed");
	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	for (uint32_t i = 0; i < BARRIER_CHAIN; i++) {
		chain_barrier(cb, VK_NULL_HANDLE);
		vkc_label_begin(&p->vk, cb, "op");
		rec_count(p, cb, k, 0, 1);
		vkc_label_end(&p->vk, cb);
	}
	chain_barrier(cb, VK_NULL_HANDLE);
	end(cb);
	vkc_submit_wait(&p->vk, cb, fence);
	p->expect[0] = BARRIER_CHAIN;
	verify_counters(p, "barrier_labels");
	truth_kernel(DEBUG_NAMED, "lbar_k", BARRIER_CHAIN, -1);
	truth_region("op", BARRIER_CHAIN);
	truth_labelled("op", "lbar_k", BARRIER_CHAIN);
	truth_key("isolated", "%u", BARRIER_CHAIN);
	/* Clock mode's barrier timestamps: the first opens, each closing one opens the next. */
	truth_key("clock_edges", "%u", BARRIER_CHAIN + 1);
	truth_key("dropped", "0");
	return pat_done(p, fence, (VkPipeline[]){ k }, 1);
}

static int p_million(struct pat *p, uint32_t n)
{
	pat_init(p, "patterns-million", NULL);
	VkDevice d = p->vk.device;
	VkShaderModule m = vkc_shader_module(&p->vk, "empty.spv");
	VkPipeline empty = make_pipeline(p, m, "main", NULL, 0, NULL);
	VkPipeline marker = make_pipeline(p, p->count_mod, "main", NULL, 0, "million_marker");
	VkCommandBuffer cbs[4];
	VkFence fence = vkc_fence(&p->vk);
	uint32_t done = 0;

	for (int c = 0; c < 4; c++) {
		uint32_t share = c < 3 ? n / 4 : n - 3 * (n / 4);
		cbs[c] = vkc_command_buffer(&p->vk);
		begin(cbs[c], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
		vkCmdBindPipeline(cbs[c], VK_PIPELINE_BIND_POINT_COMPUTE, empty);
		for (uint32_t i = 0; i < share; i++)
			vkCmdDispatch(cbs[c], 1, 1, 1);
		rec_count(p, cbs[c], marker, 0, 1); /* the GPU confirms each command buffer ran to its end */
		end(cbs[c]);
		done += share;
	}
	/* Two submissions of two command buffers each. */
	submit(p->vk.queue, cbs, 2, fence);
	vkc_wait_fence(&p->vk, fence);
	submit(p->vk.queue, cbs + 2, 2, fence);
	vkc_wait_fence(&p->vk, fence);
	p->expect[0] = 4;
	verify_counters(p, "million");
	truth_kernel(UNNAMED, "empty.spv", done, -1);
	truth_kernel(DEBUG_NAMED, "million_marker", 4, -1);
	truth_key("dropped", "0");

	vkFreeCommandBuffers(d, p->vk.cmd_pool, 4, cbs);
	vkDestroyShaderModule(d, m, NULL); /* allowed once its pipelines exist */
	return pat_done(p, fence, (VkPipeline[]){ empty, marker }, 2);
}

/* --- 11. many queries (for HESPER_MAX_QUERIES) -------------------------------------------- */

static int p_exhaust(struct pat *p)
{
	pat_init(p, "patterns-exhaust", NULL);
	VkDevice d = p->vk.device;
	VkPipeline k = make_pipeline(p, p->count_mod, "main", NULL, 0, "ex_k");
	VkPipeline k2 = make_pipeline(p, p->count_g_mod, "main", NULL, 0, NULL);
	VkCommandBuffer cbs[4];
	VkFence fence = vkc_fence(&p->vk);

	for (int c = 0; c < 4; c++) {
		cbs[c] = vkc_command_buffer(&p->vk);
		begin(cbs[c], 0);
		rec_count(p, cbs[c], k, 0, 150);
		rec_count(p, cbs[c], k2, 1, 10);
		end(cbs[c]);
	}
	/* All four pending at once, then each again alone after the others were waited for. */
	submit(p->vk.queue, cbs, 4, fence);
	vkc_wait_fence(&p->vk, fence);
	for (int c = 0; c < 4; c++)
		vkc_submit_wait(&p->vk, cbs[c], fence);
	/* And fresh recordings once the old ones are gone. */
	vkFreeCommandBuffers(d, p->vk.cmd_pool, 4, cbs);
	VkCommandBuffer late = vkc_command_buffer(&p->vk);
	record_counts(p, late, 0, k, 0, 20);
	vkc_submit_wait(&p->vk, late, fence);

	p->expect[0] = 8 * 150 + 20;
	p->expect[1] = 8 * 10;
	verify_counters(p, "exhaust");
	truth_kernel(DEBUG_NAMED, "ex_k", p->expect[0], -1);
	truth_kernel(SOURCE_NAMED, "count.comp", p->expect[1], -1);
	truth_key("dropped", "0");

	return pat_done(p, fence, (VkPipeline[]){ k, k2 }, 2);
}

/* --- 12. programs that use queries themselves; two queue families; submit2 semaphores ---- */

#define COUNT_LOCAL 64u          /* local_size_x of count.comp */
#define OQ_TARGET_NS 2e6         /* about how long one own_queries dispatch runs (calibrated) */
#define OQ_CALIB_STEPS 3u        /* calibration dispatches after the one that compiles */
#define OQ_MAX_GROUPS (1u << 24) /* so the counters stay far below 2^32 */
#define OQ_KERNELS 3
#define OQ_DISPATCHES 60u /* per round */
#define OQ_QUERIES (2 * OQ_DISPATCHES)
#define OQ_ROUNDS 2u /* reset in the command buffer, then on the host */

/* One dispatch of @groups work groups of the count kernel @pipe: counters[@slot] grows by @groups. */
static void rec_groups(struct pat *p, VkCommandBuffer cb, VkPipeline pipe, uint32_t slot, uint32_t groups)
{
	bind(p, cb, pipe, p->counters_set, (struct push){ slot, 0 });
	vkCmdDispatch(cb, groups, 1, 1);
}

/* Compute-to-compute memory barrier: the next dispatch sees this one's counter writes. */
static void compute_barrier(VkCommandBuffer cb)
{
	VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b,
			     0, NULL, 0, NULL);
}

/* A query pool of @n queries of @type (@stats: the pipeline statistics it counts). */
static VkQueryPool query_pool(struct pat *p, VkQueryType type, uint32_t n, VkQueryPipelineStatisticFlags stats)
{
	VkQueryPool pool;
	VkQueryPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = type,
		.queryCount = n,
		.pipelineStatistics = stats,
	};
	VKC_CHECK(vkCreateQueryPool(p->vk.device, &info, NULL, &pool));
	return pool;
}

/* The pipeline of @spv_name with its entry point renamed from "main" to @entry (at most 7 bytes). */
static VkPipeline renamed_pipeline(struct pat *p, const char *spv_name, const char *entry)
{
	size_t size;
	uint32_t *code = read_spv(spv_name, &size);
	VkShaderModule m;

	rename_entry(code, size, entry);
	VkShaderModuleCreateInfo info = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
					  .codeSize = size,
					  .pCode = code };
	VKC_CHECK(vkCreateShaderModule(p->vk.device, &info, NULL, &m));
	VkPipeline pipe = make_pipeline(p, m, entry, NULL, 0, NULL);
	vkDestroyShaderModule(p->vk.device, m, NULL);
	free(code);
	return pipe;
}

/* One kernel of own_queries: what the program's own timestamp pairs measured of it. */
struct oq_kernel {
	const char *name; /* truth name: debug name or "<source>#" label */
	enum naming how;
	uint32_t per_round; /* dispatches per round, counting into slot = its index */
	VkPipeline pipe;
	double ns; /* sum of its pairs' durations */
	uint64_t pairs;
};

/* The work groups of one own_queries dispatch: x * y of them, each adding 1 to its counter. */
struct groups {
	uint32_t x, y;
};

/* About @n work groups (1 to OQ_MAX_GROUPS), x within the smallest maxComputeWorkGroupCount allowed. */
static struct groups groups_of(double n)
{
	uint32_t want = n < 1 ? 1 : n > OQ_MAX_GROUPS ? OQ_MAX_GROUPS : (uint32_t)n;
	struct groups g = { .x = want < 65535 ? want : 65535 };

	g.y = want / g.x;
	return g;
}

/*
 * Sizes own_queries' dispatches to about OQ_TARGET_NS on this device (a fixed size is either
 * too short on a GPU or far too long on lavapipe under AddressSanitizer): one dispatch of
 * @calib compiles it, then OQ_CALIB_STEPS dispatches, each sized from the one before (time per
 * group is not constant), count into @slot. A fixed number of dispatches: the truth is exact.
 */
static struct groups oq_calibrate(struct pat *p, VkPipeline calib, uint32_t slot)
{
	struct vkc_timer t;
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence f = vkc_fence(&p->vk);
	struct groups g = { 1, 1 };
	double ns;

	vkc_timer_create(&p->vk, &t, 1);
	for (uint32_t step = 0; step <= OQ_CALIB_STEPS; step++) {
		begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
		vkc_timer_reset(cb, &t, 0, 1);
		bind(p, cb, calib, p->counters_set, (struct push){ slot, 0 });
		vkc_timer_mark(cb, &t, 0, false);
		vkCmdDispatch(cb, g.x, g.y, 1);
		vkc_timer_mark(cb, &t, 0, true);
		end(cb);
		vkc_submit_wait(&p->vk, cb, f);
		vkc_timer_read(&p->vk, &t, 0, 1, &ns);
		p->expect[slot] += (uint64_t)g.x * g.y;
		/* After the compile, from 64 groups on; a busy CPU only makes them fewer. */
		double n = (double)g.x * g.y;
		g = groups_of(step == 0 ? 64 : ns > 0 ? n * OQ_TARGET_NS / ns : OQ_MAX_GROUPS);
	}
	vkc_timer_destroy(&p->vk, &t);
	vkFreeCommandBuffers(p->vk.device, p->vk.cmd_pool, 1, &cb);
	vkDestroyFence(p->vk.device, f, NULL);
	return g;
}

/*
 * Records one own_queries round into @cb: OQ_DISPATCHES dispatches of @g, the kernels taking
 * turns, each between its own TOP_OF_PIPE / BOTTOM_OF_PIPE pair and followed by a barrier;
 * @order gets the kernel of each pair. @reset_in_cb: the pool is reset here (else the host
 * reset it).
 */
static void oq_record(struct pat *p, VkCommandBuffer cb, VkQueryPool pool, const struct oq_kernel *k, struct groups g,
		      bool reset_in_cb, uint8_t *order)
{
	uint32_t left[OQ_KERNELS], d = 0;

	begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
	if (reset_in_cb)
		vkCmdResetQueryPool(cb, pool, 0, OQ_QUERIES);
	for (int i = 0; i < OQ_KERNELS; i++)
		left[i] = k[i].per_round;
	while (d < OQ_DISPATCHES) {
		for (uint32_t i = 0; i < OQ_KERNELS && d < OQ_DISPATCHES; i++) {
			if (!left[i])
				continue;
			left[i]--;
			bind(p, cb, k[i].pipe, p->counters_set, (struct push){ i, 0 });
			vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 2 * d);
			vkCmdDispatch(cb, g.x, g.y, 1);
			vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2 * d + 1);
			compute_barrier(cb);
			order[d++] = (uint8_t)i;
		}
	}
	end(cb);
}

/*
 * Reads the round's OQ_QUERIES results into @ticks (host, WAIT_BIT), again with
 * WITH_AVAILABILITY_BIT and through the GPU (@copy_cb: vkCmdCopyQueryPoolResults into
 * @copied); any disagreement or unavailable query is an error.
 */
static void oq_read(struct pat *p, VkQueryPool pool, VkCommandBuffer copy_cb, struct vkc_buffer *copied, VkFence fence,
		    uint64_t *ticks, uint32_t round)
{
	uint64_t avail[2 * OQ_QUERIES];
	const uint64_t *gpu = copied->map;
	uint32_t bad = 0;

	VKC_CHECK(vkGetQueryPoolResults(p->vk.device, pool, 0, OQ_QUERIES, OQ_QUERIES * sizeof(uint64_t), ticks,
					sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
	VkResult r = vkGetQueryPoolResults(p->vk.device, pool, 0, OQ_QUERIES, sizeof(avail), avail,
					   2 * sizeof(uint64_t),
					   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
	if (r != VK_SUCCESS) {
		printf("patterns: own_queries: round %u: the availability read returned %d\n", round, (int)r);
		p->errors++;
	}
	memset(copied->map, 0xff, OQ_QUERIES * sizeof(uint64_t)); /* no stale value can pass */
	vkc_submit_wait(&p->vk, copy_cb, fence);
	for (uint32_t q = 0; q < OQ_QUERIES; q++)
		if (!avail[2 * q + 1] || avail[2 * q] != ticks[q] || gpu[q] != ticks[q])
			bad++;
	if (bad) {
		printf("patterns: own_queries: round %u: %u of %u queries disagree between the three reads "
		       "(or are unavailable)\n",
		       round, bad, OQ_QUERIES);
		p->errors++;
	}
}

/* Adds each pair's duration (masked to timestampValidBits) to its kernel; one ending before it starts is an error. */
static void oq_account(struct pat *p, const uint64_t *ticks, const uint8_t *order, struct oq_kernel *k, uint32_t round)
{
	uint32_t bits = p->vk.timestamp_valid_bits;
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;

	for (uint32_t d = 0; d < OQ_DISPATCHES; d++) {
		uint64_t s = ticks[2 * d] & mask, e = ticks[2 * d + 1] & mask, delta = (e - s) & mask;
		/* With fewer than 64 bits a pair may wrap: a "negative" delta is one in the upper half. */
		if (bits >= 64 ? e < s : delta > mask >> 1) {
			printf("patterns: own_queries: round %u, dispatch %u: its pair ends (%llu) before it starts "
			       "(%llu)\n",
			       round, d, (unsigned long long)e, (unsigned long long)s);
			p->errors++;
			continue;
		}
		k[order[d]].ns += (double)delta * p->vk.props.limits.timestampPeriod;
		k[order[d]].pairs++;
	}
}

/* Core 1.2 features for own_queries: host query reset besides features12's. */
static VkPhysicalDeviceVulkan12Features oq_features12 = {
	.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	.pNext = &features13,
	.timelineSemaphore = VK_TRUE,
	.hostQueryReset = VK_TRUE,
};

/*
 * The program times every dispatch of its three kernels itself (Hesper's interval sits inside
 * each pair). Its pairs cover exactly the dispatches Hesper times, the first of each kernel
 * (lavapipe's compile) included, so the two means are over the same dispatches. A fourth
 * pipeline (unnamed: "main#<hash>", 1 + OQ_CALIB_STEPS dispatches) sizes the dispatches first.
 */
static int p_own_queries(struct pat *p)
{
	pat_init(p, "patterns-own-queries", &(struct vkc_options){ .device_pnext = &oq_features12 });
	VkDevice d = p->vk.device;
	VkPipeline calib = make_pipeline(p, p->count_mod, "main", NULL, 0, NULL);
	struct groups g = oq_calibrate(p, calib, OQ_KERNELS);
	struct oq_kernel k[OQ_KERNELS] = {
		{ "oq_named", DEBUG_NAMED, 24, make_pipeline(p, p->count_mod, "main", NULL, 0, "oq_named"), 0, 0 },
		{ "count.comp", SOURCE_NAMED, 20, make_pipeline(p, p->count_g_mod, "main", NULL, 0, NULL), 0, 0 },
		{ "oq_kern", SOURCE_NAMED, 16, renamed_pipeline(p, "count.spv", "oq_kern"), 0, 0 },
	};
	VkQueryPool pool = query_pool(p, VK_QUERY_TYPE_TIMESTAMP, OQ_QUERIES, 0);
	VkCommandBuffer cb = vkc_command_buffer(&p->vk), copy_cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);
	struct vkc_buffer copied;
	uint64_t ticks[OQ_QUERIES];
	uint8_t order[OQ_DISPATCHES];

	if (p->vk.timestamp_valid_bits == 0)
		vkc_fail("own_queries: queue family %u has no timestamps", p->vk.queue_family);
	vkc_buffer_create(&p->vk, &copied, OQ_QUERIES * sizeof(uint64_t), 0);
	/* The GPU's copy of the results, recorded once, submitted each round. */
	begin(copy_cb, 0);
	vkCmdCopyQueryPoolResults(copy_cb, pool, 0, OQ_QUERIES, copied.buffer, 0, sizeof(uint64_t),
				  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
	end(copy_cb);
	for (uint32_t r = 0; r < OQ_ROUNDS; r++) {
		if (r > 0)
			vkResetQueryPool(d, pool, 0, OQ_QUERIES); /* the fence said the last round is done */
		oq_record(p, cb, pool, k, g, r == 0, order);
		vkc_submit_wait(&p->vk, cb, fence);
		oq_read(p, pool, copy_cb, &copied, fence, ticks, r);
		oq_account(p, ticks, order, k, r);
	}
	char means[512] = "";
	for (int i = 0; i < OQ_KERNELS; i++) {
		p->expect[i] = (uint64_t)OQ_ROUNDS * k[i].per_round * g.x * g.y;
		truth_kernel(k[i].how, k[i].name, OQ_ROUNDS * k[i].per_round, -1);
		size_t used = strlen(means);
		snprintf(means + used, sizeof(means) - used, "%s\"%s\":%.1f", i ? "," : "", k[i].name,
			 k[i].pairs ? k[i].ns / (double)k[i].pairs : 0.0);
	}
	verify_counters(p, "own_queries");
	truth_kernel(UNNAMED, "count.spv", 1 + OQ_CALIB_STEPS, -1);
	truth_key("dropped", "0");
	truth_key("own_mean_ns", "{%s}", means);
	truth_key("volatile", "[\"own_mean_ns\"]");

	vkDestroyQueryPool(d, pool, NULL);
	vkc_buffer_destroy(&p->vk, &copied);
	return pat_done(p, fence, (VkPipeline[]){ k[0].pipe, k[1].pipe, k[2].pipe, calib }, OQ_KERNELS + 1);
}

#define PS_SUBMITS 3u

/* Reads the two invocation counts of @pool and compares them with @want; a difference is an error. */
static void ps_check(struct pat *p, VkQueryPool pool, const uint64_t *want, uint32_t submit_no)
{
	uint64_t got[2];

	VKC_CHECK(vkGetQueryPoolResults(p->vk.device, pool, 0, 2, sizeof(got), got, sizeof(uint64_t),
					VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
	for (int q = 0; q < 2; q++) {
		if (got[q] != want[q]) {
			printf("patterns: pipeline_stats: submission %u, query %d: %llu compute invocations, "
			       "want %llu\n",
			       submit_no, q, (unsigned long long)got[q], (unsigned long long)want[q]);
			p->errors++;
		}
	}
}

/*
 * A pipeline-statistics query (compute shader invocations) around two groups of dispatches,
 * a dispatch outside both: the counts must be what was dispatched, under Hesper too. Without
 * the feature the dispatches run unmeasured and the truth says so. Each query ends after a
 * barrier: on NVIDIA's driver 580 (H200), without one, the indirect dispatch's 64 invocations
 * were missing from the count of 43 of 60 resubmissions (never from the first submission, never
 * under Hesper, whose timestamps drain each dispatch); with it, from none of 60.
 */
static int p_pipeline_stats(struct pat *p)
{
	VkPhysicalDeviceFeatures want_features = { .pipelineStatisticsQuery = VK_TRUE };
	pat_init(p, "patterns-pipeline-stats", &(struct vkc_options){ .features = &want_features });
	bool have = p->vk.features.pipelineStatisticsQuery;
	VkPipeline named = make_pipeline(p, p->count_mod, "main", NULL, 0, "ps_named");
	VkPipeline source = make_pipeline(p, p->count_g_mod, "main", NULL, 0, NULL);
	VkQueryPool pool = have ? query_pool(p, VK_QUERY_TYPE_PIPELINE_STATISTICS, 2,
					     VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT)
				: VK_NULL_HANDLE;
	VkCommandBuffer cb = vkc_command_buffer(&p->vk);
	VkFence fence = vkc_fence(&p->vk);
	const uint64_t want[2] = { (3 + 5 + 4 + 1) * COUNT_LOCAL, (7 + 2) * COUNT_LOCAL };

	begin(cb, 0);
	if (have)
		vkCmdResetQueryPool(cb, pool, 0, 2);
	rec_groups(p, cb, source, 1, 1); /* outside both queries */
	if (have)
		vkCmdBeginQuery(cb, pool, 0, 0);
	rec_groups(p, cb, named, 0, 3);
	rec_groups(p, cb, named, 0, 5);
	vkCmdDispatch(cb, 2, 2, 1);                       /* 4 groups, same bindings */
	vkCmdDispatchIndirect(cb, p->indirect.buffer, 0); /* 1 group */
	compute_barrier(cb);                              /* see the comment above */
	if (have) {
		vkCmdEndQuery(cb, pool, 0);
		vkCmdBeginQuery(cb, pool, 1, 0);
	}
	rec_groups(p, cb, source, 1, 7);
	rec_groups(p, cb, source, 1, 2);
	compute_barrier(cb);
	if (have)
		vkCmdEndQuery(cb, pool, 1);
	end(cb);
	for (uint32_t s = 0; s < PS_SUBMITS; s++) {
		vkc_submit_wait(&p->vk, cb, fence);
		if (have)
			ps_check(p, pool, want, s);
	}
	p->expect[0] = PS_SUBMITS * (3 + 5 + 4 + 1);
	p->expect[1] = PS_SUBMITS * (1 + 7 + 2);
	verify_counters(p, "pipeline_stats");
	truth_kernel(DEBUG_NAMED, "ps_named", 4 * PS_SUBMITS, -1);
	truth_kernel(SOURCE_NAMED, "count.comp", 3 * PS_SUBMITS, -1);
	truth_key("dropped", "0");
	truth_key("pipeline_statistics", "%s", have ? "true" : "false");
	if (have)
		truth_key("invocations", "[%llu,%llu]", (unsigned long long)want[0], (unsigned long long)want[1]);
	else
		truth_key("invocations", "null");

	if (have)
		vkDestroyQueryPool(p->vk.device, pool, NULL);
	return pat_done(p, fence, (VkPipeline[]){ named, source }, 2);
}

#define TF_ROUNDS 4u
#define TF_GROUPS 2048u /* queue A's dispatches are long, so queue B's submission waits */

/* A resettable command pool of queue family @family. */
static VkCommandPool family_pool(struct pat *p, uint32_t family)
{
	VkCommandPool pool;
	VkCommandPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = family,
	};
	VKC_CHECK(vkCreateCommandPool(p->vk.device, &info, NULL, &pool));
	return pool;
}

/* vkQueueSubmit of @cb to @q, waiting for @timeline >= @wait (0: no wait), then signalling @signal. */
static void submit_timeline(VkQueue q, VkCommandBuffer cb, VkSemaphore timeline, uint64_t wait, uint64_t signal)
{
	VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
	VkTimelineSemaphoreSubmitInfo values = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.waitSemaphoreValueCount = wait ? 1 : 0,
		.pWaitSemaphoreValues = &wait,
		.signalSemaphoreValueCount = 1,
		.pSignalSemaphoreValues = &signal,
	};
	VkSubmitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = &values,
		.waitSemaphoreCount = wait ? 1 : 0,
		.pWaitSemaphores = &timeline,
		.pWaitDstStageMask = &stage,
		.commandBufferCount = 1,
		.pCommandBuffers = &cb,
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &timeline,
	};
	VKC_CHECK(vkQueueSubmit(q, 1, &info, VK_NULL_HANDLE));
}

/* Counter @slot of @buf against @want; a difference is an error. */
static void verify_slot(struct pat *p, const struct vkc_buffer *buf, uint32_t slot, uint64_t want, const char *what)
{
	uint32_t got = ((const uint32_t *)buf->map)[slot];

	if (got != want) {
		printf("patterns: %s: counter %u is %u, want %llu\n", what, slot, got, (unsigned long long)want);
		p->errors++;
	}
}

/*
 * Queue A (the compute family) and queue B (another compute family with timestamps, else a
 * second queue of A's family, else A's queue itself) submit at once, chained by one timeline
 * semaphore: A's round r signals 2r+1, B's waits for it and signals 2r+2, A's next waits for
 * that. Every signalling submission is made before the one waiting for it. B counts into a
 * buffer of its own (exclusive to its family).
 */
static int p_two_families(struct pat *p)
{
	pat_init(p, "patterns-two-families",
		 &(struct vkc_options){ .device_pnext = &features12, .queue_count = 2, .other_family = true });
	struct vkc_ctx *vk = &p->vk;
	bool two = vk->other_family != UINT32_MAX;
	VkQueue qa = vk->queue, qb = two ? vk->other_queue : vk->queues[vk->queue_count - 1];
	VkCommandPool pool_b = two ? family_pool(p, vk->other_family) : vk->cmd_pool;
	VkPipeline ka = make_pipeline(p, p->count_mod, "main", NULL, 0, "fam_a");
	VkPipeline kb = make_pipeline(p, p->count_mod, "main", NULL, 0, "fam_b");
	VkPipeline both = make_pipeline(p, p->count_g_mod, "main", NULL, 0, NULL);
	VkSemaphore timeline = timeline_semaphore(p);
	VkCommandBuffer a[TF_ROUNDS], b[TF_ROUNDS];
	struct vkc_buffer bcount;

	vkc_buffer_create(vk, &bcount, SLOTS * 4, 0);
	struct vkc_buffer *bset_bufs[] = { &bcount };
	VkDescriptorSet bset = vkc_descriptor_set(vk, p->dpool, p->dsl, bset_bufs, 1);
	for (uint32_t r = 0; r < TF_ROUNDS; r++) {
		a[r] = vkc_command_buffer(vk);
		begin(a[r], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
		rec_groups(p, a[r], ka, 0, TF_GROUPS);
		vkc_barrier(a[r]);
		rec_groups(p, a[r], ka, 0, TF_GROUPS);
		rec_count(p, a[r], both, 1, 1);
		end(a[r]);
		b[r] = command_buffer_from(p, pool_b);
		begin(b[r], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
		for (int i = 0; i < 3; i++) {
			bind(p, b[r], kb, bset, (struct push){ 0, 0 });
			vkCmdDispatch(b[r], 1, 1, 1);
		}
		bind(p, b[r], both, bset, (struct push){ 1, 0 });
		vkCmdDispatch(b[r], 1, 1, 1);
		end(b[r]);
	}
	for (uint32_t r = 0; r < TF_ROUNDS; r++) {
		submit_timeline(qa, a[r], timeline, 2 * r, 2 * r + 1);
		submit_timeline(qb, b[r], timeline, 2 * r + 1, 2 * r + 2);
	}
	wait_timeline(p, timeline, 2 * TF_ROUNDS);

	p->expect[0] = (uint64_t)TF_ROUNDS * 2 * TF_GROUPS;
	p->expect[1] = TF_ROUNDS;
	verify_counters(p, "two_families (queue A)");
	verify_slot(p, &bcount, 0, 3 * TF_ROUNDS, "two_families (queue B)");
	verify_slot(p, &bcount, 1, TF_ROUNDS, "two_families (queue B)");
	truth_kernel(DEBUG_NAMED, "fam_a", 2 * TF_ROUNDS, -1);
	truth_kernel(DEBUG_NAMED, "fam_b", 3 * TF_ROUNDS, -1);
	truth_kernel(SOURCE_NAMED, "count.comp", 2 * TF_ROUNDS, -1);
	truth_key("dropped", "0");
	truth_key("families", "%u", two ? 2u : 1u);
	truth_key("queues", "%u", qa != qb ? 2u : 1u);

	VKC_CHECK(vkDeviceWaitIdle(vk->device));
	if (two)
		vkDestroyCommandPool(vk->device, pool_b, NULL);
	vkDestroySemaphore(vk->device, timeline, NULL);
	vkc_buffer_destroy(vk, &bcount);
	return pat_done(p, VK_NULL_HANDLE, (VkPipeline[]){ ka, kb, both }, 3);
}

#define S2_ROUNDS 3u

/* A wait or signal entry of vkQueueSubmit2: @sem (a timeline at @value; binary: 0) at @stage. */
static VkSemaphoreSubmitInfo sem_at(VkSemaphore sem, uint64_t value, VkPipelineStageFlags2 stage)
{
	return (VkSemaphoreSubmitInfo){
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = sem, .value = value, .stageMask = stage
	};
}

/* A VkSubmitInfo2 of @ncb command buffers @cbi with @nw waits and @ns signals. */
static VkSubmitInfo2 batch2(const VkSemaphoreSubmitInfo *w, uint32_t nw, const VkCommandBufferSubmitInfo *cbi,
			    uint32_t ncb, const VkSemaphoreSubmitInfo *s, uint32_t ns)
{
	return (VkSubmitInfo2){ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
				.waitSemaphoreInfoCount = nw,
				.pWaitSemaphoreInfos = w,
				.commandBufferInfoCount = ncb,
				.pCommandBufferInfos = cbi,
				.signalSemaphoreInfoCount = ns,
				.pSignalSemaphoreInfos = s };
}

/* Host wait through vkWaitSemaphores for @n semaphores at @values (@any: the first one reached). */
static void wait_semaphores(struct pat *p, const VkSemaphore *sems, const uint64_t *values, uint32_t n, bool any)
{
	VkSemaphoreWaitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.flags = any ? VK_SEMAPHORE_WAIT_ANY_BIT : 0,
		.semaphoreCount = n,
		.pSemaphores = sems,
		.pValues = values,
	};
	VKC_CHECK(vkWaitSemaphores(p->vk.device, &info, UINT64_MAX));
}

/* The value of timeline @sem against @want; a difference is an error. */
static void check_timeline(struct pat *p, VkSemaphore sem, uint64_t want, const char *name)
{
	uint64_t got;

	VKC_CHECK(vkGetSemaphoreCounterValue(p->vk.device, sem, &got));
	if (got != want) {
		printf("patterns: submit2_semaphores: timeline %s is at %llu, want %llu\n", name,
		       (unsigned long long)got, (unsigned long long)want);
		p->errors++;
	}
}

/*
 * One round of submit2_semaphores: four vkQueueSubmit2 calls chained by binary semaphores b0,
 * b1 and timelines t (base+1..base+4) and t2 (2r+1, 2r+2); no fence; the host waits with
 * vkWaitSemaphores (once for either of two values, once for both).
 */
static void s2_round(struct pat *p, const VkCommandBufferSubmitInfo *cbi, const VkSemaphore *bin, VkSemaphore t,
		     VkSemaphore t2, uint32_t r)
{
	const VkPipelineStageFlags2 all = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
				    cs = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
	uint64_t base = 4ull * r;
	VkQueue q = p->vk.queue;

	/* 1: cb0; waits for t2 at the last round's value (already reached) from the second round on. */
	VkSemaphoreSubmitInfo w1 = sem_at(t2, 2ull * r, cs);
	VkSemaphoreSubmitInfo s1[2] = { sem_at(bin[0], 0, all), sem_at(t, base + 1, cs) };
	VkSubmitInfo2 c1 = batch2(&w1, r ? 1 : 0, cbi, 1, s1, 2);
	VKC_CHECK(vkQueueSubmit2(q, 1, &c1, VK_NULL_HANDLE));
	/* 2: two batches, cb1, then cb2 + cb3, chained by b1. */
	VkSemaphoreSubmitInfo w2a[2] = { sem_at(bin[0], 0, cs), sem_at(t, base + 1, cs) };
	VkSemaphoreSubmitInfo s2a[2] = { sem_at(t, base + 2, all), sem_at(bin[1], 0, all) };
	VkSemaphoreSubmitInfo w2b = sem_at(bin[1], 0, cs);
	VkSemaphoreSubmitInfo s2b[2] = { sem_at(t, base + 3, all), sem_at(t2, 2ull * r + 1, all) };
	VkSubmitInfo2 c2[2] = { batch2(w2a, 2, cbi + 1, 1, s2a, 2), batch2(&w2b, 1, cbi + 2, 2, s2b, 2) };
	VKC_CHECK(vkQueueSubmit2(q, 2, c2, VK_NULL_HANDLE));
	/* 3: cb4 after both timelines. */
	VkSemaphoreSubmitInfo w3[2] = { sem_at(t, base + 3, cs), sem_at(t2, 2ull * r + 1, cs) };
	VkSemaphoreSubmitInfo s3 = sem_at(t, base + 4, all);
	VkSubmitInfo2 c3 = batch2(w3, 2, cbi + 4, 1, &s3, 1);
	VKC_CHECK(vkQueueSubmit2(q, 1, &c3, VK_NULL_HANDLE));
	/* 4: semaphores only, no command buffer. */
	VkSemaphoreSubmitInfo w4 = sem_at(t, base + 4, all), s4 = sem_at(t2, 2ull * r + 2, all);
	VkSubmitInfo2 c4 = batch2(&w4, 1, NULL, 0, &s4, 1);
	VKC_CHECK(vkQueueSubmit2(q, 1, &c4, VK_NULL_HANDLE));

	VkSemaphore sems[2] = { t, t2 };
	uint64_t any[2] = { base + 4, UINT64_MAX - 1 }, all_values[2] = { base + 4, 2ull * r + 2 };
	wait_semaphores(p, sems, any, 2, true);
	wait_semaphores(p, sems, all_values, 2, false);
	check_timeline(p, t, base + 4, "t");
	check_timeline(p, t2, 2ull * r + 2, "t2");
}

static int p_submit2_semaphores(struct pat *p)
{
	pat_init(p, "patterns-submit2-semaphores", &(struct vkc_options){ .device_pnext = &features12 });
	VkDevice d = p->vk.device;
	VkPipeline k[3] = { make_pipeline(p, p->count_mod, "main", NULL, 0, "s2_a"),
			    make_pipeline(p, p->count_mod, "main", NULL, 0, "s2_b"),
			    make_pipeline(p, p->count_mod, "main", NULL, 0, "s2_c") };
	/* cb0: a a; cb1: b b b; cb2: a; cb3: c c c c; cb4: b c */
	const uint32_t plan[5][2][2] = {
		{ { 0, 2 } }, { { 1, 3 } }, { { 0, 1 } }, { { 2, 4 } }, { { 1, 1 }, { 2, 1 } }
	};
	VkCommandBufferSubmitInfo cbi[5];
	VkSemaphore bin[2] = { binary_semaphore(p), binary_semaphore(p) };
	VkSemaphore t = timeline_semaphore(p), t2 = timeline_semaphore(p);

	for (int i = 0; i < 5; i++) {
		VkCommandBuffer cb = vkc_command_buffer(&p->vk);
		begin(cb, 0);
		for (int j = 0; j < 2; j++)
			rec_count(p, cb, k[plan[i][j][0]], plan[i][j][0], plan[i][j][1]);
		end(cb);
		cbi[i] = (VkCommandBufferSubmitInfo){ .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
						      .commandBuffer = cb };
	}
	for (uint32_t r = 0; r < S2_ROUNDS; r++)
		s2_round(p, cbi, bin, t, t2, r);

	p->expect[0] = 3 * S2_ROUNDS;
	p->expect[1] = 4 * S2_ROUNDS;
	p->expect[2] = 5 * S2_ROUNDS;
	verify_counters(p, "submit2_semaphores");
	truth_kernel(DEBUG_NAMED, "s2_a", 3 * S2_ROUNDS, -1);
	truth_kernel(DEBUG_NAMED, "s2_b", 4 * S2_ROUNDS, -1);
	truth_kernel(DEBUG_NAMED, "s2_c", 5 * S2_ROUNDS, -1);
	truth_key("dropped", "0");

	for (int i = 0; i < 2; i++)
		vkDestroySemaphore(d, bin[i], NULL);
	vkDestroySemaphore(d, t, NULL);
	vkDestroySemaphore(d, t2, NULL);
	return pat_done(p, VK_NULL_HANDLE, k, 3);
}

/* --- main ---------------------------------------------------------------------------- */

static uint32_t arg_u32(int argc, char **argv, uint32_t fallback)
{
	if (argc < 3)
		return fallback;
	char *end;
	errno = 0;
	unsigned long v = strtoul(argv[2], &end, 10);
	if (errno || *end || v == 0 || v > UINT32_MAX)
		vkc_fail("bad count '%s'", argv[2]);
	return (uint32_t)v;
}

/* --- HESPER_GROUP_BY's rows ---------------------------------------------------------- */

#define SHAPE_SUBMITS 3u

/* A row of one of the groupings' truth: "name" and exact "count". */
static void truth_row(char **list, const char *name, uint64_t count)
{
	append(list, "%s{\"name\":\"%s\",\"count\":%llu}", *list ? "," : "", name, (unsigned long long)count);
}

/* One dispatch of @pipe counting into @slot, @x by @y by @z work groups. */
static void rec_shape(struct pat *p, VkCommandBuffer cb, VkPipeline pipe, uint32_t slot, uint32_t x, uint32_t y,
		      uint32_t z)
{
	bind(p, cb, pipe, p->counters_set, (struct push){ slot, 0 });
	vkCmdDispatch(cb, x, y, z);
}

static int p_shapes(struct pat *p)
{
	pat_init(p, "patterns-shapes", NULL);
	struct vkc_ctx *vk = &p->vk;
	VkPipeline a = make_pipeline(p, p->count_mod, "main", NULL, 0, "shp_a");
	VkPipeline b = make_pipeline(p, p->count_mod, "main", NULL, 0, "shp_b");
	VkCommandBuffer cb = vkc_command_buffer(vk);
	VkFence fence = vkc_fence(vk);
	char *by_shape = NULL, *unread = NULL, *by_label = NULL;

	if (!vk->has_debug_utils)
		vkc_fail("VK_EXT_debug_utils is needed");
	/* Entry 3 (slot 7's) of the indirect arguments: 2 x 2 x 1 work groups. */
	((VkDispatchIndirectCommand *)p->indirect.map)[3] = (VkDispatchIndirectCommand){ 2, 2, 1 };
	begin(cb, 0);
	rec_count(p, cb, a, 0, 3);            /* shp_a 1x1x1, outside any label */
	rec_count_how(p, cb, a, 4, INDIRECT); /* shp_a, indirect: 1x1x1 */
	vkc_label_begin(vk, cb, "pass");
	rec_shape(p, cb, a, 1, 4, 1, 1);
	rec_shape(p, cb, a, 1, 4, 1, 1);
	rec_shape(p, cb, a, 2, 2, 3, 1);
	rec_count(p, cb, b, 3, 2); /* shp_b 1x1x1 */
	vkc_label_end(vk, cb);
	vkc_label_begin(vk, cb, "post");
	rec_count_how(p, cb, b, 7, INDIRECT); /* shp_b, indirect: 2x2x1 */
	vkc_label_end(vk, cb);
	end(cb);
	for (uint32_t i = 0; i < SHAPE_SUBMITS; i++)
		vkc_submit_wait(vk, cb, fence);

	const uint32_t n = SHAPE_SUBMITS;
	p->expect[0] = 3 * n;
	p->expect[4] = n;
	p->expect[1] = 2 * 4 * n;
	p->expect[2] = 6 * n;
	p->expect[3] = 2 * n;
	p->expect[7] = 4 * n;
	verify_counters(p, "shapes");
	truth_kernel(DEBUG_NAMED, "shp_a", 7 * n, -1);
	truth_kernel(DEBUG_NAMED, "shp_b", 3 * n, -1);
	truth_region("pass", n);
	truth_region("post", n);
	truth_labelled("pass", "shp_a", 3 * n);
	truth_labelled("pass", "shp_b", 2 * n);
	truth_labelled("post", "shp_b", n);
	truth_row(&by_shape, "shp_a [1\u00d71\u00d71]", 4 * n);
	truth_row(&by_shape, "shp_a [4\u00d71\u00d71]", 2 * n);
	truth_row(&by_shape, "shp_a [2\u00d73\u00d71]", n);
	truth_row(&by_shape, "shp_b [1\u00d71\u00d71]", 2 * n);
	truth_row(&by_shape, "shp_b [2\u00d72\u00d71]", n);
	truth_row(&unread, "shp_a [1\u00d71\u00d71]", 3 * n);
	truth_row(&unread, "shp_a [?]", n);
	truth_row(&unread, "shp_a [4\u00d71\u00d71]", 2 * n);
	truth_row(&unread, "shp_a [2\u00d73\u00d71]", n);
	truth_row(&unread, "shp_b [1\u00d71\u00d71]", 2 * n);
	truth_row(&unread, "shp_b [?]", n);
	truth_row(&by_label, "shp_a", 4 * n);
	truth_row(&by_label, "pass/shp_a", 3 * n);
	truth_row(&by_label, "pass/shp_b", 2 * n);
	truth_row(&by_label, "post/shp_b", n);
	truth_key("by_shape", "[%s]", by_shape);
	truth_key("by_shape_unread", "[%s]", unread);
	truth_key("by_label", "[%s]", by_label);
	truth_key("dropped", "0");
	free(by_shape);
	free(unread);
	free(by_label);

	return pat_done(p, fence, (VkPipeline[]){ a, b }, 2);
}

int main(int argc, char **argv)
{
	static struct pat p;
	const char *name = argc > 1 ? argv[1] : "";
	int rc;

	if (!strcmp(name, "resubmit"))
		rc = p_resubmit(&p);
	else if (!strcmp(name, "simultaneous"))
		rc = p_simultaneous(&p);
	else if (!strcmp(name, "secondary"))
		rc = p_secondary(&p);
	else if (!strcmp(name, "multisubmit"))
		rc = p_multisubmit(&p);
	else if (!strcmp(name, "lifetimes"))
		rc = p_lifetimes(&p);
	else if (!strcmp(name, "threads")) {
		uint32_t n = arg_u32(argc, argv, 4);
		const char *form = argc > 3 ? argv[3] : "mixed", *churn = argc > 4 ? argv[4] : "churn";
		const char *first = argc > 5 ? argv[5] : "threads";
		enum thread_submit how = THREAD_SUBMIT_MIXED;
		if (n > MAX_THREADS)
			vkc_fail("threads: at most %d", MAX_THREADS);
		if (!strcmp(form, "submit"))
			how = THREAD_SUBMIT_1;
		else if (!strcmp(form, "submit2"))
			how = THREAD_SUBMIT_2;
		else if (strcmp(form, "mixed"))
			vkc_fail("threads: SUBMIT is mixed, submit or submit2, not '%s'", form);
		if (strcmp(churn, "churn") && strcmp(churn, "steady"))
			vkc_fail("threads: CHURN is churn or steady, not '%s'", churn);
		if (strcmp(first, "threads") && strcmp(first, "main"))
			vkc_fail("threads: FIRST is threads or main, not '%s'", first);
		rc = p_threads(&p, (int)n, how, !strcmp(churn, "churn"), !strcmp(first, "main"));
	} else if (!strcmp(name, "dispatch_kinds"))
		rc = p_dispatch_kinds(&p);
	else if (!strcmp(name, "labels"))
		rc = p_labels(&p);
	else if (!strcmp(name, "two_devices"))
		rc = p_two_devices(&p);
	else if (!strcmp(name, "reinstance"))
		rc = p_reinstance(&p);
	else if (!strcmp(name, "exit_in_flight"))
		return p_exit_in_flight(&p, argc > 2 && !strcmp(argv[2], "cold"));
	else if (!strcmp(name, "exit_thread"))
		return p_exit_thread(&p);
	else if (!strcmp(name, "signal"))
		return p_signal(&p, argc > 2 ? argv[2] : "default");
	else if (!strcmp(name, "crash"))
		return p_crash(&p, argc > 2 ? argv[2] : "", argc > 3 ? argv[3] : "default");
	else if (!strcmp(name, "fork"))
		rc = p_fork(&p, argc > 2 ? argv[2] : "exit");
	else if (!strcmp(name, "many_pipelines"))
		rc = p_many_pipelines(&p, arg_u32(argc, argv, 10000));
	else if (!strcmp(name, "many_modules"))
		rc = p_many_modules(&p, arg_u32(argc, argv, 50));
	else if (!strcmp(name, "barriers"))
		rc = p_barriers(&p);
	else if (!strcmp(name, "barrier_labels"))
		rc = p_barrier_labels(&p);
	else if (!strcmp(name, "same_name"))
		rc = p_same_name(&p);
	else if (!strcmp(name, "million"))
		rc = p_million(&p, arg_u32(argc, argv, 1000000));
	else if (!strcmp(name, "exhaust"))
		rc = p_exhaust(&p);
	else if (!strcmp(name, "own_queries"))
		rc = p_own_queries(&p);
	else if (!strcmp(name, "pipeline_stats"))
		rc = p_pipeline_stats(&p);
	else if (!strcmp(name, "two_families"))
		rc = p_two_families(&p);
	else if (!strcmp(name, "submit2_semaphores"))
		rc = p_submit2_semaphores(&p);
	else if (!strcmp(name, "shapes"))
		rc = p_shapes(&p);
	else
		vkc_fail("usage: patterns PATTERN [ARG] (see the comment at the top of patterns.c)");
	truth_print(name);
	printf("patterns: %s: %s\n", name, p.errors ? "WRONG RESULTS" : "results ok");
	return rc ? rc : p.errors ? 1 : 0;
}
