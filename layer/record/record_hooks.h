/*
 * What the hooks of recorded commands share (record_hooks.c, label_hooks.c,
 * execute_hooks.c): when a dispatch is timed, and noting work Hesper does not time.
 */
#ifndef HESPER_RECORD_HOOKS_H
#define HESPER_RECORD_HOOKS_H

#include <stdbool.h>

#include "command_buffer.h"
#include "state/state.h"

/*
 * The stage of the timestamp that opens a dispatch's (or label's) pair. BOTTOM_OF_PIPE is
 * written once all earlier work in the queue has finished, so the interval up to the
 * closing BOTTOM_OF_PIPE timestamp holds this dispatch alone: work that overlapped it is
 * never counted twice, and a dispatch timed among untimed ones (HESPER_SAMPLE) does not
 * absorb the tail of the work before it. Right after the closing timestamp of the
 * previous timed dispatch, with no GPU work recorded between, the queue has just drained
 * at that very timestamp: the dispatch starts from it and writes no opening timestamp of
 * its own. Back-to-back dispatches then cost one timestamp each instead of two, in GPU
 * time, queries and submit time (NVIDIA's vkQueueSubmit grows with the timestamps in a
 * command buffer). Right after the program's own TOP_OF_PIPE timestamp the opening one
 * is TOP_OF_PIPE too (HESPER_STAMP_COMMANDS).
 */
#define HESPER_START_STAGE VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT

/* Whether this dispatch of @kernel (NULL: a label) gets timestamps under HESPER_MODE and HESPER_SAMPLE. */
bool hesper_record_sampled(struct hesper_name *kernel);

/*
 * Notes that the GPU may be busy with work Hesper does not time (see HESPER_WORK_COMMANDS):
 * the next timed dispatch opens its own pair, and no clock dispatch is isolated across it.
 */
void hesper_record_busy_again(struct hesper_command_buffer *s);

/*
 * Writes or finds the closing timestamp of open region @r of @s's recording in @cb (labels
 * still open at vkEndCommandBuffer end there), into r->end_query.
 */
void hesper_label_close(struct hesper_command_buffer *s, VkCommandBuffer cb, struct hesper_region_record *r);

#endif
