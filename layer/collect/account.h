/* Adding a finished submission's results to the profile: the collector's accounting. */
#ifndef HESPER_ACCOUNT_H
#define HESPER_ACCOUNT_H

#include <stdbool.h>

struct hesper_queue;
struct hesper_submission;

/* Adds finished (or abandoned, when @lost) submission @sub of @q to the profile; the caller holds the harvest lock. */
void hesper_account_submission(struct hesper_queue *q, struct hesper_submission *sub, bool lost);

#endif
