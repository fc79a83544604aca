/*
 * Why a dispatch meant to be timed was not (a dropped dispatch): the causes the layer tells
 * apart, their keys in the JSON summary ("dropped_causes") and their words in the text
 * report. One table (drop_causes.c), so the writers and the reader agree.
 */
#ifndef HESPER_DROP_CAUSES_H
#define HESPER_DROP_CAUSES_H

#include <stdbool.h>
#include <stddef.h>

enum hesper_drop_cause {
	HESPER_DROP_UNKNOWN,       /* a cause not told apart (what a zeroed struct hesper_work says) */
	HESPER_DROP_NO_QUERY,      /* no timestamp query to spare: HESPER_MAX_QUERIES, or a pool not made */
	HESPER_DROP_NO_TIMESTAMPS, /* recorded where no timestamp can be written (family, protected pool, ...) */
	HESPER_DROP_NO_CLOCK_SLOT, /* clock mode: no clock slot could be had */
	HESPER_DROP_CLOCK_EMPTY,   /* clock mode: no work group wrote its slot */
	HESPER_DROP_NOT_COPIED,    /* its values were not copied back */
	HESPER_DROP_UNAVAILABLE,   /* a timestamp never became available */
	HESPER_DROP_TWO_QUEUES,    /* ran on two queues at once: the runs shared their queries */
	HESPER_DROP_OVERWRITTEN,   /* ran again in its command buffer before its timestamps could be copied */
	HESPER_DROP_OTHER_FAMILY,  /* recorded for another queue family than the one it ran on */
	HESPER_DROP_NOT_FOLLOWED,  /* Hesper could not add the copy of its results to the submission */
	HESPER_DROP_UNFINISHED,    /* still running when Hesper stopped waiting (HESPER_EXIT_TIMEOUT_MS) */
	HESPER_DROP_DEVICE_LOST,   /* its device was lost */
	HESPER_DROP_MEMORY,        /* Hesper ran out of memory recording it */
	HESPER_DROP_CAUSES,        /* the number of causes */
};

/* The JSON key of @cause ("no_query"); NULL out of range. */
const char *hesper_drop_cause_key(enum hesper_drop_cause cause);

/* What @cause means, for the text report ("no timestamp query to spare ..."); NULL out of range. */
const char *hesper_drop_cause_text(enum hesper_drop_cause cause);

/* The cause whose JSON key is the @len bytes at @key into *@cause; false when none is. */
bool hesper_drop_cause_named(const char *key, size_t len, enum hesper_drop_cause *cause);

#endif
