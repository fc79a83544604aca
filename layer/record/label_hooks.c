/*
 * The hooks of debug-utils labels in a command buffer: each label a region of the
 * recording under the path of the labels open around it, timed by a timestamp where it
 * opens and one where it closes (or, in a primary in clock mode, by the dispatches
 * recorded inside it).
 *
 * A label runs no GPU work. Where it opens or closes right after the closing timestamp of
 * timed work, with nothing recorded between, that timestamp marks the same point of the
 * queue, and the label takes it rather than writing its own; a dispatch right after a label
 * opens from the label's timestamp as it would from a dispatch's. ggml labels every op, so
 * its ops, each between barriers, took four timestamps each (a pair of the label's, a pair
 * of the dispatch's) and now take two, the same two points.
 */
#include <stdlib.h>
#include <string.h>

#include "command_buffer.h"
#include "record_hooks.h"
#include "recording.h"
#include "state/state.h"

/*
 * The interned path of label @label opened inside the label path @parent (NULL: at the top):
 * "parent<SEP>label", the separators in @label made '?' so the path splits back into its
 * labels. NULL when memory runs out.
 */
static struct hesper_name *label_path(const struct hesper_name *parent, const char *label)
{
	size_t head = parent ? strlen(parent->text) + 1 : 0, len = strlen(label);
	char *text = malloc(head + len + 1);
	if (!text)
		return NULL;
	if (parent) {
		memcpy(text, parent->text, head - 1);
		text[head - 1] = HESPER_LABEL_PATH_SEP;
	}
	for (size_t i = 0; i < len; i++)
		text[head + i] = label[i] == HESPER_LABEL_PATH_SEP || label[i] == HESPER_LABEL_KERNEL_SEP ? '?'
													  : label[i];
	text[head + len] = '\0';
	struct hesper_name *name = hesper_intern(text);
	free(text);
	return name;
}

/*
 * The interned names of label @text opened inside the label path @parent: its own
 * (*@name) and its path (*@path), either NULL when memory runs out. A program labels the
 * same ops in every command buffer it records (llama.cpp every op of every token): a small
 * cache per thread answers those without the name table's lock, the path's allocation or
 * its lookup.
 */
static void label_names(const struct hesper_name *parent, const char *text, struct hesper_name **name,
			struct hesper_name **path)
{
	static _Thread_local struct {
		const struct hesper_name *parent;
		uint64_t hash;
		struct hesper_name *name, *path;
	} cache[1024]; /* 32 KiB a recording thread: llama.cpp opens about 400 distinct labels a token */
	uint64_t h = 14695981039346656037ull ^ (uint64_t)(uintptr_t)parent;
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	size_t slot = (size_t)(h ^ h >> 32) % (sizeof(cache) / sizeof(cache[0]));
	if (cache[slot].name && cache[slot].parent == parent && cache[slot].hash == h &&
	    strcmp(cache[slot].name->text, text) == 0) {
		*name = cache[slot].name;
		*path = cache[slot].path;
		return;
	}
	*name = hesper_intern(text);
	*path = *name ? label_path(parent, text) : NULL;
	if (*name && *path) {
		cache[slot].parent = parent;
		cache[slot].hash = h;
		cache[slot].name = *name;
		cache[slot].path = *path;
	}
}

/* Whether @dev gives labels a pair of timestamps of their own (clock mode: its secondaries' labels). */
static bool own_pairs(const struct hesper_device *dev)
{
	return dev->clock_mode != NULL;
}

/*
 * Whether a label of @rec (NULL: a command buffer Hesper does not record) on @dev writes
 * timestamps of its own, which then stand between the work before and after it: clock
 * mode's labels of secondaries. A primary's labels in clock mode write nothing, so a
 * dispatch between compute barriers stays isolated inside one (ggml labels every op).
 */
static bool stands_between(const struct hesper_device *dev, const struct hesper_recording *rec)
{
	return own_pairs(dev) && !(rec && rec->primary);
}

/*
 * A timestamp of a label's own at this point of @cb at @stage, which the next dispatch then
 * opens from as from a dispatch's closing one; its query, or HESPER_NO_QUERY when none is left.
 */
static uint32_t label_stamp(struct hesper_recording *rec, VkCommandBuffer cb, VkPipelineStageFlagBits stage)
{
	uint32_t q = hesper_recording_take(rec, cb, 1);
	if (q == HESPER_NO_QUERY)
		return q;
	hesper_recording_write_timestamp(rec, cb, stage, q);
	rec->last_end = q;
	rec->after_program_top = false;
	return q;
}

/* The timestamp where a label opens in @rec at this point of @cb: the closing one of the timed work just before, else its own. */
static uint32_t label_open(struct hesper_recording *rec, VkCommandBuffer cb)
{
	if (rec->last_end != HESPER_NO_QUERY)
		return rec->last_end;
	return label_stamp(rec, cb, rec->after_program_top ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : HESPER_START_STAGE);
}

void hesper_label_close(struct hesper_command_buffer *s, VkCommandBuffer cb, struct hesper_region_record *r)
{
	struct hesper_recording *rec = s->rec;
	if (r->query == HESPER_NO_QUERY)
		return;
	if (own_pairs(s->dev)) {
		hesper_recording_write_timestamp(rec, cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->end_query);
		return;
	}
	/* Timed work closed since it opened, nothing after: that work's closing timestamp. */
	if (rec->last_end != HESPER_NO_QUERY && rec->last_end != r->query) {
		r->end_query = rec->last_end;
		return;
	}
	r->end_query = label_stamp(rec, cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
}

/* Opens label @label in the recording of @s (on @cb of @dev) as a region. */
static void open_label(struct hesper_command_buffer *s, struct hesper_device *dev, VkCommandBuffer cb,
		       const VkDebugUtilsLabelEXT *label)
{
	struct hesper_recording *rec = s->rec;
	if (rec->label_depth++ >= HESPER_MAX_LABEL_DEPTH)
		return; /* deeper labels are counted by depth only */
	rec->open_regions[rec->label_depth - 1] = HESPER_NO_REGION;
	const char *text = label && label->pLabelName ? label->pLabelName : "";
	/* The enclosing label's path (rec->label_depth is at least 1 here). */
	uint32_t outer = rec->label_depth > 1 ? rec->open_regions[rec->label_depth - 2] : HESPER_NO_REGION;
	struct hesper_name *name, *path;
	label_names(outer == HESPER_NO_REGION ? NULL : rec->regions[outer].path, text, &name, &path);
	if (!name || !path ||
	    !hesper_reserve_one((void **)&rec->regions, rec->region_count, &rec->region_capacity,
				sizeof(*rec->regions)))
		return; /* the depth still counts, so the matching end stays matched */
	/* Clock mode times a primary's labels by their dispatches (recording.h). */
	bool clock = dev->clock_mode && rec->primary, timed = hesper_record_sampled(NULL);
	uint32_t q = HESPER_NO_QUERY, end = HESPER_NO_QUERY;
	if (!clock && timed && own_pairs(dev)) {
		q = hesper_recording_take(rec, cb, 2);
		end = q != HESPER_NO_QUERY ? q + 1 : q;
		if (q != HESPER_NO_QUERY)
			hesper_recording_write_timestamp(rec, cb, HESPER_START_STAGE, q);
	} else if (!clock && timed) {
		q = label_open(rec, cb);
	}
	rec->open_regions[rec->label_depth - 1] = (uint32_t)rec->region_count;
	rec->regions[rec->region_count++] = (struct hesper_region_record){.label = name,
									  .path = path,
									  .query = q,
									  .end_query = end,
									  .begin_at = rec->dispatch_total,
									  .end_at = HESPER_REGION_OPEN,
									  .clock = clock && timed};
}

VKAPI_ATTR void VKAPI_CALL hesper_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer cb, const VkDebugUtilsLabelEXT *label)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	struct hesper_device *dev = s ? s->dev : hesper_device_from(cb);
	if (dev->next.CmdBeginDebugUtilsLabelEXT) /* NULL: see debug_utils_fallback */
		HESPER_HOOK_CALL_DOWN(t, dev->next.CmdBeginDebugUtilsLabelEXT(cb, label));
	if (stands_between(dev, s ? s->rec : NULL))
		hesper_record_busy_again(s);
	if (s && s->rec)
		open_label(s, dev, cb, label);
	hesper_hook_pause(t);
}

VKAPI_ATTR void VKAPI_CALL hesper_CmdEndDebugUtilsLabelEXT(VkCommandBuffer cb)
{
	uint64_t t = hesper_hook_start();
	struct hesper_command_buffer *s = hesper_command_buffer_from(cb);
	struct hesper_device *dev = s ? s->dev : hesper_device_from(cb);
	struct hesper_recording *rec = s ? s->rec : NULL;
	/* A label opened in another command buffer ends here unseen (depth 0): nothing to close. */
	if (stands_between(dev, rec))
		hesper_record_busy_again(s);
	if (rec && rec->label_depth > 0) {
		uint32_t depth = --rec->label_depth;
		if (depth < HESPER_MAX_LABEL_DEPTH && rec->open_regions[depth] != HESPER_NO_REGION) {
			struct hesper_region_record *r = &rec->regions[rec->open_regions[depth]];
			r->end_at = rec->dispatch_total;
			hesper_label_close(s, cb, r);
		}
	}
	hesper_hook_pause(t);
	if (dev->next.CmdEndDebugUtilsLabelEXT)
		dev->next.CmdEndDebugUtilsLabelEXT(cb);
}
