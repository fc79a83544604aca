/*
 * vkBeginCommandBuffer, vkEndCommandBuffer and vkResetCommandBuffer: where a command
 * buffer's recording begins (a new one; the old one stays with its submissions) and ends.
 * Each primary gets a timestamp pair around its whole body, for submission and queue busy
 * time; labels still open at its end are closed there.
 */
#include "command_buffer.h"
#include "record_hooks.h"
#include "recording.h"
#include "state/state.h"

/* True when @info makes a secondary continue a render pass, where no query may be reset. */
static bool continues_render_pass(const VkCommandBufferBeginInfo *info)
{
	return info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT;
}

/* A new recording of @s begun on @cb with @info. */
static void begin_recording(struct hesper_command_buffer *s, VkCommandBuffer cb, const VkCommandBufferBeginInfo *info)
{
	struct hesper_device *dev = s->dev;
	/* Beginning implicitly resets: the old recording belongs to its submissions now. */
	hesper_recording_unref(s->rec);
	s->bound_kernel = NULL;
	s->clock_layout = VK_NULL_HANDLE;
	s->lines = NULL;
	s->lines_counted = false;
	uint32_t family = s->pool ? s->pool->family : UINT32_MAX;
	bool timed_family = family < dev->family_count && dev->families[family].timed;
	bool can_query = timed_family && s->pool && !s->pool->protected_pool &&
			 !(!s->primary && continues_render_pass(info));
	s->rec = hesper_recording_create(dev, family, s->primary, can_query);
	if (!s->rec)
		return; /* counted nowhere: the report's dispatch count will miss these */
	s->rec->command_buffer = (uint64_t)(uintptr_t)cb;
	if (s->primary) {
		uint32_t q = hesper_recording_take(s->rec, cb, 2);
		if (q != HESPER_NO_QUERY) {
			s->rec->cb_query = q;
			hesper_recording_write_timestamp(s->rec, cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, q);
		}
	}
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	struct hesper_device *dev = s ? s->dev : hesper_device_from(cb);
	/* For the gap findings: when this thread was recording (one clock read per command buffer). */
	if (s)
		hesper_waits_begin_recording(hesper_now_ns());
	VkResult result;
	HESPER_HOOK_CALL_DOWN(t, result = dev->next.BeginCommandBuffer(cb, info));
	if (s && result == VK_SUCCESS)
		begin_recording(s, cb, info);
	hesper_hook_pause(t);
	return result;
}

/*
 * Clock mode, host way: the kernels' atomics into the clock slots made visible to the
 * host, which reads the slots once Hesper's signal after the batch is reached (a signal
 * alone makes device writes available, not visible to the host). No device stage waits
 * on it. The same for the counters of blocks (HESPER_LINES), read when a report is written.
 */
static void clock_writes_to_host(struct hesper_device *dev, VkCommandBuffer cb)
{
	VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				   .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
				   .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
	dev->next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
				     &to_host, 0, NULL, 0, NULL);
}

/* Ends the recording of @s on @cb: its open labels closed, its closing timestamp written. */
static void end_recording(struct hesper_command_buffer *s, VkCommandBuffer cb)
{
	struct hesper_recording *rec = s->rec;
	if (rec) {
		/* Labels still open end here, so every query taken is written. */
		uint32_t open = rec->label_depth < HESPER_MAX_LABEL_DEPTH ? rec->label_depth : HESPER_MAX_LABEL_DEPTH;
		for (uint32_t i = open; i-- > 0;) {
			if (rec->open_regions[i] == HESPER_NO_REGION)
				continue;
			hesper_label_close(s, cb, &rec->regions[rec->open_regions[i]]);
		}
		rec->label_depth = 0;
		if ((rec->clock.chunk_count && s->dev->copy_way == HESPER_WAY_HOST) || s->lines_counted)
			clock_writes_to_host(s->dev, cb);
		if (rec->cb_query != HESPER_NO_QUERY)
			hesper_recording_write_timestamp(rec, cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
							 rec->cb_query + 1);
	}
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_EndCommandBuffer(VkCommandBuffer cb)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	struct hesper_device *dev = s ? s->dev : hesper_device_from(cb);
	if (s)
		end_recording(s, cb);
	VkResult result;
	HESPER_HOOK_CALL_DOWN(t, result = dev->next.EndCommandBuffer(cb));
	if (s)
		hesper_waits_end_recording(hesper_now_ns());
	hesper_hook_pause(t);
	return result;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	struct hesper_device *dev = s ? s->dev : hesper_device_from(cb);
	if (s) {
		hesper_recording_unref(s->rec);
		s->rec = NULL;
	}
	hesper_hook_pause(t);
	return dev->next.ResetCommandBuffer(cb, flags);
}
