/*
 * Clock mode's accounting of a run (account.c calls it): the clock-timed dispatches read from
 * their slots, held per submission and handed to the profile with their shares of the time
 * they ran at once, and where each ran (for the labels timed by their dispatches).
 */
#ifndef HESPER_ACCOUNT_CLOCK_H
#define HESPER_ACCOUNT_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "record/record.h"
#include "state/state.h"
#include "submit/submit.h"

struct clock_kind;
struct clock_done;

/* A submission's held clock-timed dispatches, in the order they were read. */
struct clock_held {
	struct clock_kind *kinds;
	size_t kind_count, kind_cap;
	struct clock_done *done;
	size_t count, cap;
};

/* Of a record's clock-timed dispatches, those that came back empty, to be counted as dropped. */
struct clock_empty {
	uint64_t unwritten;  /* no work group wrote the slot */
	uint64_t not_copied; /* the copy of the slot did not happen */
};

/* Where one dispatch of a run ran, in timestamp ticks (masked), for the regions around it. */
struct clock_place {
	uint64_t start, end;
	bool timed;
};

/*
 * Clock mode, one run: the anchor its next dispatch's readings are placed at (clock_anchor
 * at first, then each dispatch's start in turn, so that a 32-bit clock's readings land
 * right however long the command buffer runs; into_run catches one placed a period off),
 * and, when the run has labels, where each dispatch ran.
 */
struct clock_places {
	uint64_t anchor;
	struct clock_place *at; /* by the dispatch's position in the run; NULL when not kept */
	uint64_t count;
};

/*
 * Counts @held's dispatches in the profile, each with its share of the time it ran at once
 * with others of the submission (its whole span when memory runs out), and empties @held.
 */
void hesper_clock_hand_over(struct hesper_profile *p, const struct hesper_queue *q, struct clock_held *held);

/* Where a run's clock values are placed first (clock.h): its command buffer's start, else the calibration. */
uint64_t hesper_clock_anchor(const struct hesper_device *dev, const struct hesper_recording *rec, const uint64_t *ts);

/* Notes where the dispatch at @pos ran, and makes its start the anchor of the next. */
void hesper_clock_place(struct clock_places *places, uint64_t pos, uint64_t start, uint64_t end);

/*
 * Reads the clock-timed dispatches [@lo, @hi) of record @d (slots from @ts, NULL: none came
 * back) as @w of @kernel into @held (counted at once when memory runs out); adds those that
 * came back empty to @empty, and where each ran to @places (@pos: the record's first
 * dispatch's position in the run). For an indirect dispatch (@d's groups 0 0 0) the
 * work-group counts its slot holds are its launch shape.
 */
void hesper_account_clock(struct hesper_profile *p, struct hesper_queue *q, const struct hesper_submission *sub,
			  const struct hesper_recording *rec, const struct hesper_work_record *d, uint64_t lo,
			  uint64_t hi, const uint64_t *ts, const struct hesper_work *w, struct hesper_name *kernel,
			  struct clock_held *held, bool trace, struct clock_empty *empty, struct clock_places *places,
			  uint64_t pos);

/*
 * A clock-timed region's interval: from the earliest start to the latest end of the timed
 * dispatches recorded between its begin and its end, as @places holds them. False when none
 * of them has a time (the region is then counted, not timed).
 */
bool hesper_clock_region(const struct hesper_queue *q, const struct hesper_region_record *r,
			 const struct clock_places *places, uint64_t *start, uint64_t *end);

#endif
