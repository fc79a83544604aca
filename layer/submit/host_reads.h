/*
 * The host way (submission.h): a run's timestamps are read from the query pools on the
 * host once its submission has completed. A recording keeps its newest run that is not
 * read yet (hesper_recording.unread); a submit hook that is about to run the recording
 * again takes that run over first, so no run's queries are reset before they were read.
 */
#ifndef HESPER_RUNS_H
#define HESPER_RUNS_H

#include "submission.h"

/*
 * Makes each run of @sub that is its recording's last in @sub the recording's unread run,
 * taking over the run it replaces first: read on the host when that run's submission has
 * completed; else, when it is on @q, listed in @copy (room for sub->run_count) for a copy
 * before the program's batches; else (still running on another queue) both runs are
 * marked in conflict. Returns how many runs were listed. Call before the submit call.
 */
size_t hesper_host_reads_publish(struct hesper_queue *q, struct hesper_submission *sub, struct hesper_run **copy);

/*
 * After the submit call: the @count runs listed by hesper_host_reads_publish are copied once
 * @q's timeline reaches @value when @submitted, and dropped as unavailable otherwise.
 */
void hesper_host_reads_settle(struct hesper_run **copy, size_t count, bool submitted, uint64_t value);

/*
 * For the collector, once @sub's completion signal was reached: whether every run of @sub
 * has its final values in its slots, reading the pools where needed and waiting up to
 * @wait_ns for copies a later batch makes. False: ask again later.
 */
bool hesper_host_reads_collect(struct hesper_queue *q, struct hesper_submission *sub, uint64_t wait_ns);

/* Takes @sub's runs back from their recordings (waiting for a submit hook that holds one). */
void hesper_host_reads_unpublish(struct hesper_submission *sub);

#endif
