/*
 * Retiring a submission record once its results were accounted for (or given up): its
 * runs taken back from their recordings (host_reads.h), the recordings released, its
 * result slots marked unwritten, the record kept for the queue's next submission.
 */
#ifndef HESPER_RETIRE_H
#define HESPER_RETIRE_H

struct hesper_queue;
struct hesper_submission;

/* Drops @sub's references to its recordings (noting them harvested when they were submitted). */
void hesper_submission_release_recordings(struct hesper_submission *sub);

/*
 * Unreferences the recordings of @sub, marks the result slots it used unwritten again and
 * puts it on @queue's free list for reuse. Call once nothing can write them any more.
 */
void hesper_submission_recycle(struct hesper_queue *queue, struct hesper_submission *sub);

#endif
