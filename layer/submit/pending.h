/*
 * The queues' pending submissions and the collector's doorbell: the submit hooks hand
 * each submission over here, the collector (collect/) takes them in order once they
 * completed, and the program's waits ring the bell so it looks sooner.
 */
#ifndef HESPER_PENDING_H
#define HESPER_PENDING_H

#include <stdbool.h>

struct hesper_queue;
struct hesper_submission;

/* Appends @sub to @queue's pending list (the collector owns it from now on) and rings the bell when needed. */
void hesper_pending_push(struct hesper_queue *queue, struct hesper_submission *sub);

/* The oldest pending submission of @queue, or NULL. */
struct hesper_submission *hesper_pending_head(struct hesper_queue *queue);

/* Removes @sub, the oldest pending submission, from @queue's list. */
void hesper_pending_pop(struct hesper_queue *queue, struct hesper_submission *sub);

/* Empties @queue's pending list and returns it, oldest first (linked by next). */
struct hesper_submission *hesper_pending_take_all(struct hesper_queue *queue);

/* Asks the collector to look for finished work now (the program just waited on something). */
void hesper_pending_nudge(void);

/*
 * The collector thread's pause after a pass that left nothing pending (@pending false:
 * a nap while submissions keep coming, else a long sleep only the bell ends early) or
 * none at all. Returns false once hesper_pending_close was called.
 */
bool hesper_pending_rest(bool pending);

/* Tells the collector thread to stop at its next rest, and wakes it. */
void hesper_pending_close(void);

#endif
