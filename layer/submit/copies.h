/*
 * Hesper's own Vulkan objects per submission record: the results buffer every run's
 * timestamps end up in, and the command buffers that copy them there on the GPU
 * (always with VK_QUERY_RESULT_WAIT_BIT; see submission.h for when each is used).
 */
#ifndef HESPER_COPIES_H
#define HESPER_COPIES_H

#include "submission.h"

/* Notes that a submission on @q needs @slots result slots (the queue's largest need sizes its records). */
void hesper_copies_note_need(struct hesper_queue *q, uint32_t slots);

/*
 * Makes @sub's results buffer hold at least @slots, sized by hesper_result_slots for its
 * queue's largest need, all marked unwritten; 0 on success.
 */
int hesper_copies_reserve(struct hesper_device *dev, struct hesper_submission *sub, uint32_t slots);

/* Marks the first @count result slots of @kit unwritten again. */
void hesper_copies_mark_unwritten(struct hesper_copy_kit *kit, uint32_t count);

/* Frees @sub's results buffer. */
void hesper_copies_free_buffer(struct hesper_device *dev, struct hesper_submission *sub);

/*
 * Creates @sub's completion signal (timeline or fence) and, @with_cb, its command buffer,
 * on first use; 0 on success. The host way needs the command buffer only for a copy
 * before the program's batches, which makes it then.
 */
int hesper_copies_prepare_objects(struct hesper_queue *q, struct hesper_submission *sub, bool with_cb);

/*
 * Readies sub->after_cb, the copy after the program's batches: of every run's queries
 * (@queries, the wait way) and of the runs saved in primaries' shadow buffers, reusing a
 * recorded one that copies exactly that where it can. Leaves it VK_NULL_HANDLE when there
 * is nothing to copy. 0 on success.
 */
int hesper_copies_record_after(struct hesper_queue *q, struct hesper_submission *sub, bool queries);

/* Records into @sub's command buffer copies of @count earlier runs into their own submissions' slots; 0 on success. */
int hesper_copies_record_before(struct hesper_queue *q, struct hesper_submission *sub, struct hesper_run *const *runs,
				size_t count);

/* Records the command buffer of each of @sub's insertions; 0 on success. */
int hesper_copies_record_insertions(struct hesper_queue *q, struct hesper_submission *sub);

#endif
