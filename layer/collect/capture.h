/*
 * The capture window (HESPER_START, HESPER_STOP): which runs of dispatches are timed.
 * Outside it dispatches are counted, not timed. The collector decides per run of a
 * recording, in the order it accounts for them; the record hooks stop writing
 * timestamps once the window has closed for good.
 */
#ifndef HESPER_CAPTURE_H
#define HESPER_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

struct hesper_capture_info;
struct hesper_recording;

/* The dispatches of one run inside the window: positions [from, to) in its recording. */
struct hesper_capture_span {
	uint64_t from, to;
};

/* True when a window was asked for (else every run is wholly inside). */
bool hesper_capture_set(void);

/*
 * The part of @rec's run, submitted at host time @host_ns, inside the window, moving the
 * window on: it opens at HESPER_START's time (checked per submission) or at the run's
 * first region of the start label, and closes at HESPER_STOP's time (per submission) or
 * at the end of the N-th run of the stop label begun inside it. @opened_at is set to the
 * index of the region that opened the window in this run, else UINT32_MAX. Called by the
 * collector with the process lock held, once per run, in the order runs are accounted.
 */
struct hesper_capture_span hesper_capture_run(const struct hesper_recording *rec, uint64_t host_ns,
					      uint32_t *opened_at);

/*
 * Whether the window is open for a submission made at host time @host_ns that runs no
 * recording, moving the time bounds on (true when no window was asked for). Process lock held.
 */
bool hesper_capture_open_at(uint64_t host_ns);

/* Counts @dispatches and @memops (memory operations) that ran outside the window. Process lock held. */
void hesper_capture_count_outside(uint64_t dispatches, uint64_t memops);

/* Counts a submit call with nothing inside the window (@inside false) as outside it. Process lock held. */
void hesper_capture_count_submission(bool inside);

/* Notes that GPU work inside the window ended at host time @host_ns. Process lock held. */
void hesper_capture_note_end(uint64_t host_ns);

/* The window as the report states it, into @out. Process lock held. */
void hesper_capture_describe(struct hesper_capture_info *out);

#endif
