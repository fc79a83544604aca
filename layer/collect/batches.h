/*
 * Batches: the GPU span of each VkSubmitInfo of a submission, from the first command
 * buffer's start to the last one's end, and each queue's idle gaps between batches,
 * split by what the submitting thread did meanwhile (the gap findings).
 */
#ifndef HESPER_BATCHES_H
#define HESPER_BATCHES_H

#include <stdbool.h>
#include <stdint.h>

struct hesper_profile;
struct hesper_queue;
struct hesper_submission;

/* Per-batch GPU span, built while walking a submission's runs. */
struct batch_span {
	uint32_t batch;
	bool any;
	uint64_t start, end; /* extended ticks */
	uint64_t raw_start;  /* the raw tick of the start, for placing it on the host clock */
};

/* Adds @span (when any) of @sub on @q to the profile and the timeline (@trace), and empties it. */
void hesper_close_span(struct hesper_profile *p, struct batch_span *span, struct hesper_queue *q,
		       const struct hesper_submission *sub, bool trace);

#endif
