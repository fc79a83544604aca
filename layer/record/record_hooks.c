/*
 * The hooks of commands recorded into a command buffer: pipelines bound, dispatches and
 * the timestamps Hesper writes around them, and the work it does not time (debug labels:
 * label_hooks.c; secondaries executed: execute_hooks.c).
 */
#include <stdlib.h>
#include <string.h>

#include "clock/clock.h"
#include "barrier_images.h"
#include "clock_edges.h"
#include "command_buffer.h"
#include "state/state.h"
#include "indirect.h"
#include "memory_ops.h"
#include "pipeline.h"
#include "recording.h"
#include "record_hooks.h"

VKAPI_ATTR void VKAPI_CALL hesper_CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint point, VkPipeline pipeline)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	struct hesper_device *dev = s ? s->dev : hesper_device_from(cb);
	HESPER_HOOK_CALL_DOWN(t, dev->next.CmdBindPipeline(cb, point, pipeline));
	if (s && point == VK_PIPELINE_BIND_POINT_COMPUTE) {
		/* One lookup of the pipeline for all that a bind notes. */
		struct hesper_pipeline *p = hesper_pipeline_find(s->dev, pipeline);
		s->bound_kernel = hesper_pipeline_kernel(p);
		s->bound_pipeline = pipeline;
		const char *why = NULL;
		s->clock_counting = VK_NULL_HANDLE;
		s->clock_layout = s->dev->clock_mode ? hesper_pipeline_clock(p, &s->clock_set, &s->clock_counting, &why)
						     : VK_NULL_HANDLE;
		struct hesper_name *k = s->bound_kernel;
		s->lines = hesper_pipeline_lines(p);
		VkPipeline twin = s->lines ? hesper_lines_twin(s->lines) : VK_NULL_HANDLE;
		if (twin && hesper_lines_chosen(k)) {
			/* chosen by the name it has now: its counted twin runs instead, timed by timestamps */
			s->dev->next.CmdBindPipeline(cb, point, twin);
			s->clock_layout = VK_NULL_HANDLE;
			s->clock_counting = VK_NULL_HANDLE;
			why = HESPER_LINES_NOTE;
		} else if (twin) {
			s->lines = NULL;
		}
		if (why && k && !atomic_exchange_explicit(&k->clock_noted, true, memory_order_relaxed))
			hesper_process_note_clock_fallback(k->text, why);
		s->bound_stats_set = s->dev->pipeline_stats && k ? hesper_pipeline_stats_set(s->dev, p, k) : 0;
	}
	hesper_hook_pause(t);
}

/* The path of the innermost open debug label of @rec, or NULL. */
static struct hesper_name *innermost_label(const struct hesper_recording *rec)
{
	if (!rec->label_depth || rec->label_depth > HESPER_MAX_LABEL_DEPTH)
		return NULL;
	uint32_t region = rec->open_regions[rec->label_depth - 1];
	return region == HESPER_NO_REGION ? NULL : rec->regions[region].path;
}

/* Whether this dispatch of @kernel gets timestamps under HESPER_MODE and HESPER_SAMPLE. */
bool hesper_record_sampled(struct hesper_name *kernel)
{
	struct hesper_process *p = hesper_process();
	const struct hesper_settings *set = &p->settings;
	/* Clock mode: what reaches here cannot be timed by the clock and gets timestamps. */
	if (set->mode == HESPER_MODE_SUBMIT || atomic_load_explicit(&p->capture_closed, memory_order_relaxed))
		return false; /* past the capture window: recordings from now on run outside it */
	if (set->sample_every <= 1 || !kernel)
		return true;
	/* Every N-th recorded dispatch of each kernel, the first always, so rare kernels are seen. */
	return atomic_fetch_add_explicit(&kernel->recorded, 1, memory_order_relaxed) % set->sample_every == 0;
}

/*
 * Whether dispatch @next repeats @run: same kernel, label and grid, and either both
 * untimed (both dropped or neither) or @next chained to the repeat's last closing timestamp
 * with the query right after it. A loop of one kernel then takes one record, not one per
 * dispatch.
 */
static bool continues_repeat(const struct hesper_work_record *run, const struct hesper_work_record *next)
{
	if (run->kernel != next->kernel || run->label != next->label || run->dropped != next->dropped ||
	    run->clock != next->clock || memcmp(run->groups, next->groups, sizeof(run->groups)) != 0 ||
	    run->repeat == HESPER_MAX_REPEAT || run->memop != next->memop || run->bytes != next->bytes ||
	    run->stats_set != next->stats_set)
		return false;
	if (run->clock) { /* consecutive clock slots, and barrier timestamps in consecutive pairs or none */
		bool slots = run->start == HESPER_NO_QUERY ? next->start == HESPER_NO_QUERY
							   : next->start == run->start + run->repeat;
		bool edges = run->end == HESPER_NO_QUERY ? next->end == HESPER_NO_QUERY
							 : run->closed && next->end == run->end + run->repeat;
		return slots && edges;
	}
	if (run->start == HESPER_NO_QUERY || next->start == HESPER_NO_QUERY)
		return run->start == next->start;
	uint32_t last_end = run->end + run->repeat - 1;
	return next->start == last_end && next->end == last_end + 1;
}

/*
 * Records work @next (its kind and size filled in) about to be issued on @cb into @rec,
 * opening its timing when @timed; returns its closing query (or HESPER_NO_QUERY).
 */
static uint32_t record_work(struct hesper_recording *rec, VkCommandBuffer cb, struct hesper_work_record *next,
			    bool timed)
{
	uint32_t start = HESPER_NO_QUERY, end = HESPER_NO_QUERY;
	bool dropped = false;
	uint32_t closing; /* the query dispatch_end writes */
	if (next->clock) {
		/*
		 * Clock mode: the slot dispatch_begin bound at Hesper's set, and the barrier
		 * timestamp that opened it, if one did (clock_edges.h); no barrier of Hesper's.
		 */
		start = next->start;
		end = next->end;
		dropped = start == HESPER_NO_QUERY;
	} else if (timed) {
		/* Right after a timed dispatch, its closing timestamp opens this one (HESPER_START_STAGE). */
		bool chained = rec->last_end != HESPER_NO_QUERY;
		uint32_t first = hesper_recording_take(rec, cb, chained ? 1 : 2);
		dropped = first == HESPER_NO_QUERY;
		if (!dropped) {
			start = chained ? rec->last_end : first;
			end = chained ? first : first + 1;
			if (!chained)
				hesper_recording_write_timestamp(
					rec, cb,
					rec->after_program_top ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : HESPER_START_STAGE,
					start);
		}
	}
	closing = next->clock ? HESPER_NO_QUERY : end;
	next->start = start;
	next->end = end;
	next->repeat = 1;
	next->dropped = dropped;
	next->closed = 0;
	/* Work now: a barrier next closes this clock dispatch's pair when it was kept (below). */
	rec->after_compute_barrier = false;
	rec->open_edge = HESPER_NO_QUERY;
	if (rec->work_count && continues_repeat(&rec->work[rec->work_count - 1], next)) {
		rec->work[rec->work_count - 1].repeat++;
		rec->work[rec->work_count - 1].closed = 0;
		rec->dispatch_total += !next->memop;
	} else if (hesper_reserve_one((void **)&rec->work, rec->work_count, &rec->work_capacity, sizeof(*rec->work))) {
		rec->work[rec->work_count++] = *next;
		rec->dispatch_total += !next->memop;
	} else {
		rec->lost_dispatches += !next->memop;
		return closing; /* the closing timestamp is still written, so no query taken stays unwritten */
	}
	if (next->clock)
		rec->open_edge = end;
	return closing;
}

/*
 * Records a dispatch about to be issued on @cb and opens its timing; returns its closing
 * query (or HESPER_NO_QUERY). @args: an indirect one's argument slot (indirect.h), or 0.
 * @timed: whether it is timed, decided already (0, 1), or -1 to decide here.
 */
static uint32_t dispatch_begin_as(struct hesper_command_buffer *s, VkCommandBuffer cb, uint32_t x, uint32_t y,
				  uint32_t z, uint64_t args, int timed)
{
	struct hesper_recording *rec = s->rec;
	if (s->lines) { /* bound at each dispatch: a set the program binds since may have disturbed it */
		hesper_lines_bind(s->dev, cb, s->lines);
		s->lines_counted = true;
	}
	if (!rec) {
		if (s->clock_layout) /* the instrumented kernel needs its buffer all the same */
			hesper_clock_bind_sink(s->dev, cb, s->clock_layout, s->clock_set);
		return HESPER_NO_QUERY;
	}
	struct hesper_work_record next = {
		.kernel = s->bound_kernel,
		.label = innermost_label(rec),
		.stats_set = s->bound_stats_set,
		.groups = {x, y, z},
		.args = args,
	};
	if (s->clock_layout && !rec->primary) {
		/*
		 * A secondary's slots would need a copy per execution: its dispatches get
		 * timestamps (record_work), the kernel's buffer bound all the same.
		 */
		hesper_clock_bind_sink(s->dev, cb, s->clock_layout, s->clock_set);
		if (s->bound_kernel &&
		    !atomic_exchange_explicit(&s->bound_kernel->clock_noted, true, memory_order_relaxed))
			hesper_process_note_clock_fallback(s->bound_kernel->text,
							   "dispatched from a secondary command buffer");
	}
	if (s->clock_layout && rec->primary) {
		next.clock = 1;
		next.start = hesper_clock_bind_slot(rec->dev, &rec->clock, cb, s->clock_layout, s->clock_set);
		next.end = next.start != HESPER_NO_QUERY ? hesper_clock_edge_open(rec, cb) : HESPER_NO_QUERY;
	}
	return record_work(rec, cb, &next, timed < 0 ? hesper_record_sampled(s->bound_kernel) : timed);
}

/* Records a direct dispatch about to be issued on @cb (see dispatch_begin_as). */
static uint32_t dispatch_begin(struct hesper_command_buffer *s, VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z)
{
	return dispatch_begin_as(s, cb, x, y, z, 0, -1);
}

/*
 * Records a memory operation of @kind moving @size about to be issued on @cb; timed
 * whenever dispatches are (HESPER_MODE=dispatch; HESPER_SAMPLE applies to kernels only).
 * Returns its closing query (or HESPER_NO_QUERY).
 */
static uint32_t memop_begin(struct hesper_command_buffer *s, VkCommandBuffer cb, enum hesper_memop_kind kind,
			    struct hesper_op_size size)
{
	struct hesper_work_record next = {
		.memop = 1,
		.op = {.kind = kind, .sized = size.sized},
		.bytes = size.bytes,
	};
	return record_work(s->rec, cb, &next, hesper_process()->settings.mode == HESPER_MODE_DISPATCH);
}

/*
 * Notes what the last GPU command recorded in @s was: a timed dispatch closed by query
 * @last_end, or else (HESPER_NO_QUERY) work Hesper does not time, the program's own
 * TOP_OF_PIPE timestamp when @program_top. The next timed dispatch opens accordingly.
 */
static void note_last_command(struct hesper_command_buffer *s, uint32_t last_end, bool program_top)
{
	if (s && s->rec) {
		s->rec->last_end = last_end;
		s->rec->after_program_top = program_top;
	}
}

/*
 * The closing timestamp a barrier leaves the next timed work to open from (@s's last_end;
 * HESPER_NO_QUERY when there is none). A program's own TOP_OF_PIPE timestamp before the
 * barrier is no longer right before that work: the barrier forgets it either way.
 */
static uint32_t chain_end(const struct hesper_command_buffer *s)
{
	return s && s->rec ? s->rec->last_end : HESPER_NO_QUERY;
}

/* Writes the closing timestamp @end taken by dispatch_begin (HESPER_NO_QUERY: untimed). */
static void dispatch_end(struct hesper_command_buffer *s, VkCommandBuffer cb, uint32_t end)
{
	if (end != HESPER_NO_QUERY)
		hesper_recording_write_timestamp(s->rec, cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, end);
	note_last_command(s, end, false);
}

/*
 * Notes that the GPU may be busy with work Hesper does not time (see HESPER_WORK_COMMANDS):
 * the next timed dispatch opens its own pair, and no clock dispatch is isolated across it.
 */
void hesper_record_busy_again(struct hesper_command_buffer *s)
{
	note_last_command(s, HESPER_NO_QUERY, false);
	if (s && s->rec) {
		s->rec->after_compute_barrier = false;
		s->rec->open_edge = HESPER_NO_QUERY;
	}
}

/*
 * The hooks of HESPER_WORK_COMMANDS (busy again) and HESPER_STAMP_COMMANDS: note the
 * command, call down. The program's own timestamps run no work between a dispatch and a
 * barrier: clock mode's barrier timestamps stay where they were across them.
 */
#define HESPER_WORK_HOOK(name, params, args)                                                \
	VKAPI_ATTR void VKAPI_CALL hesper_##name params                                     \
	{                                                                                   \
		uint64_t t_ = hesper_hook_start();                                          \
		struct hesper_command_buffer *state_ = hesper_command_buffer_from(cb);      \
		hesper_record_busy_again(state_);                                           \
		struct hesper_device *dev_ = state_ ? state_->dev : hesper_device_from(cb); \
		hesper_hook_pause(t_);                                                      \
		dev_->next.name args;                                                       \
	}
#define HESPER_STAMP_HOOK(name, params, args, program_top)                                  \
	VKAPI_ATTR void VKAPI_CALL hesper_##name params                                     \
	{                                                                                   \
		uint64_t t_ = hesper_hook_start();                                          \
		struct hesper_command_buffer *state_ = hesper_command_buffer_from(cb);      \
		note_last_command(state_, HESPER_NO_QUERY, program_top);                    \
		struct hesper_device *dev_ = state_ ? state_->dev : hesper_device_from(cb); \
		hesper_hook_pause(t_);                                                      \
		dev_->next.name args;                                                       \
	}
HESPER_WORK_COMMANDS(HESPER_WORK_HOOK)
HESPER_STAMP_COMMANDS(HESPER_STAMP_HOOK)

/*
 * The hooks of HESPER_BARRIER_COMMANDS. A barrier that moves no image keeps the last timed
 * work's closing timestamp as the next one's opening (barrier_images.h); any other is
 * untimed work, as above. In clock mode a barrier that makes compute wait for compute
 * first closes the clock dispatch just before it, then lets the next one open after it
 * (clock_edges.h), from that closing timestamp where the barrier moves no image; any
 * other barrier leaves that state as it was (it holds no compute back).
 */
#define HESPER_BARRIER_HOOK(name, params, args, orders_compute, moves_images)                           \
	VKAPI_ATTR void VKAPI_CALL hesper_##name params                                                 \
	{                                                                                               \
		uint64_t t_ = hesper_hook_start();                                                      \
		struct hesper_command_buffer *state_ = hesper_command_buffer_from(cb);                  \
		struct hesper_device *dev_ = state_ ? state_->dev : hesper_device_from(cb);             \
		bool compute_ = state_ && state_->rec && dev_->clock_mode && (orders_compute);          \
		if (compute_)                                                                           \
			hesper_clock_edge_close(state_->rec, cb);                                       \
		note_last_command(state_, (moves_images) ? HESPER_NO_QUERY : chain_end(state_), false); \
		hesper_hook_pause(t_);                                                                  \
		dev_->next.name args;                                                                   \
		if (compute_) {                                                                         \
			state_->rec->after_compute_barrier = true;                                      \
			state_->rec->open_edge = HESPER_NO_QUERY;                                       \
		}                                                                                       \
	}
HESPER_BARRIER_COMMANDS(HESPER_BARRIER_HOOK)

/*
 * The hooks of HESPER_MEMORY_COMMANDS: record the operation and its size, timed like a
 * dispatch. The size is worked out only for command buffers Hesper records.
 */
#define HESPER_MEMORY_HOOK(name, params, args, kind, size)                                                   \
	VKAPI_ATTR void VKAPI_CALL hesper_##name params                                                      \
	{                                                                                                    \
		uint64_t t_ = hesper_hook_start();                                                           \
		struct hesper_command_buffer *state_ = hesper_command_buffer_from(cb);                       \
		struct hesper_device *dev_ = state_ ? state_->dev : hesper_device_from(cb);                  \
		uint32_t q_ = state_ && state_->rec ? memop_begin(state_, cb, kind, size) : HESPER_NO_QUERY; \
		HESPER_HOOK_CALL_DOWN(t_, dev_->next.name args);                                             \
		if (state_)                                                                                  \
			dispatch_end(state_, cb, q_);                                                        \
		hesper_hook_pause(t_);                                                                       \
	}
HESPER_MEMORY_COMMANDS(HESPER_MEMORY_HOOK)

VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	if (!s) {
		struct hesper_device *dev = hesper_device_from(cb);
		hesper_hook_pause(t);
		dev->next.CmdDispatch(cb, x, y, z);
		return;
	}
	uint32_t q = dispatch_begin(s, cb, x, y, z);
	HESPER_HOOK_CALL_DOWN(t, s->dev->next.CmdDispatch(cb, x, y, z));
	dispatch_end(s, cb, q);
	hesper_hook_pause(t);
}

VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchIndirect(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	if (!s) {
		struct hesper_device *dev = hesper_device_from(cb);
		hesper_hook_pause(t);
		dev->next.CmdDispatchIndirect(cb, buffer, offset);
		return;
	}
	/*
	 * The group counts live in GPU memory: a timed one of a primary gets them copied
	 * right before it (indirect.h), its timing opened after the copy. Not in clock mode
	 * (no barrier goes between its dispatches) nor for secondaries (a copy per
	 * execution would be needed): unknown there.
	 */
	struct hesper_recording *rec = s->rec;
	uint64_t args = 0;
	int timed = -1;
	if (rec && rec->primary && rec->can_query && !s->clock_layout && hesper_indirect_wanted()) {
		timed = hesper_record_sampled(s->bound_kernel);
		if (timed)
			args = hesper_indirect_copy_args(rec, cb, buffer, offset);
		if (args)
			hesper_record_busy_again(s); /* the copy is not this dispatch's time: it opens its own */
	}
	/*
	 * Clock mode: the pipeline's twin whose kernel also reports its group counts runs
	 * this one dispatch (same layout, so the program's sets and push constants stay
	 * bound), then the program's pipeline is bound again.
	 */
	bool twin = s->clock_layout && s->clock_counting && rec && rec->primary;
	if (twin)
		s->dev->next.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s->clock_counting);
	uint32_t q = dispatch_begin_as(s, cb, 0, 0, 0, args, timed);
	HESPER_HOOK_CALL_DOWN(t, s->dev->next.CmdDispatchIndirect(cb, buffer, offset));
	if (twin)
		s->dev->next.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s->bound_pipeline);
	dispatch_end(s, cb, q);
	hesper_hook_pause(t);
}

/* vkCmdDispatchBase or (@khr) its KHR alias, which may reach the next layer by either name. */
static void dispatch_base(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x, uint32_t y, uint32_t z,
			  bool khr)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	struct hesper_device *dev = s ? s->dev : hesper_device_from(cb);
	PFN_vkCmdDispatchBase next = khr ? dev->next.CmdDispatchBaseKHR : dev->next.CmdDispatchBase;
	uint32_t q = s ? dispatch_begin(s, cb, x, y, z) : HESPER_NO_QUERY;
	HESPER_HOOK_CALL_DOWN(t, next(cb, bx, by, bz, x, y, z));
	if (s)
		dispatch_end(s, cb, q);
	hesper_hook_pause(t);
}

VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x,
						  uint32_t y, uint32_t z)
{
	dispatch_base(cb, bx, by, bz, x, y, z, false);
}

VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchBaseKHR(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz,
						     uint32_t x, uint32_t y, uint32_t z)
{
	dispatch_base(cb, bx, by, bz, x, y, z, true);
}
