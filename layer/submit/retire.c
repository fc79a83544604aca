/* Retiring submission records (see retire.h). */
#include "retire.h"

#include "host_reads.h"
#include "record/record.h"
#include "state/state.h"
#include "submission.h"

void hesper_submission_release_recordings(struct hesper_submission *sub)
{
	hesper_host_reads_unpublish(sub);
	for (size_t i = 0; i < sub->run_count; i++) {
		if (sub->submitted)
			hesper_recording_harvested(sub->runs[i].rec);
		hesper_recording_unref(sub->runs[i].rec);
	}
	sub->run_count = 0;
	sub->submitted = false;
}

void hesper_submission_recycle(struct hesper_queue *queue, struct hesper_submission *sub)
{
	hesper_submission_release_recordings(sub);
	hesper_submission_keep(queue, sub);
}
