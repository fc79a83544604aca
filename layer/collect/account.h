/* Adding a finished submission's results to the profile: the collector's accounting. */
#ifndef HESPER_ACCOUNT_H
#define HESPER_ACCOUNT_H

#include <stdbool.h>

struct hesper_queue;
struct hesper_submission;

/* Why a submission is accounted without its results, if it is. */
enum hesper_abandon {
	HESPER_ABANDON_NONE,        /* finished: its results are read */
	HESPER_ABANDON_DEVICE_LOST, /* its device was lost */
	HESPER_ABANDON_OUT_OF_TIME, /* still running when the wait at exit or vkDestroyDevice ran out */
};

/*
 * Adds finished submission @sub of @q to the profile, or one abandoned as @abandon says
 * (its dispatches then counted as dropped for that cause); the caller holds the harvest lock.
 */
void hesper_account_submission(struct hesper_queue *q, struct hesper_submission *sub, enum hesper_abandon abandon);

#endif
