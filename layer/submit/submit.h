/*
 * Submitting, the face of submit/: what Hesper does around the program's vkQueueSubmit
 * calls (submit.c): a submission record per call, with a run per recording executed,
 * the GPU copies that bring their timestamps out (copies.c) or the host reads that do
 * (host_reads.c), and the hand-over to the collector (pending.h). Calls state/, clock/
 * and record/ only.
 */
#ifndef HESPER_SUBMIT_H
#define HESPER_SUBMIT_H

#include "host_reads.h"
#include "pending.h"
#include "retire.h"
#include "submission.h"

#endif
