/* Spare arrays of recordings (recording_spares.h). */
#include "recording_spares.h"

#include <pthread.h>

static struct {
	pthread_mutex_t lock;
	struct hesper_recording_arrays sets[HESPER_RECORDING_SPARES];
	unsigned count;
} spares = {.lock = PTHREAD_MUTEX_INITIALIZER};

bool hesper_recording_spares_keep(const struct hesper_recording_arrays *a)
{
	/* A one-off large recording must not pin its memory for the rest of the run. */
	if (a->bytes > HESPER_RECORDING_SPARE_BYTES || (!a->work && !a->regions && !a->blocks && !a->secondaries))
		return false;
	pthread_mutex_lock(&spares.lock);
	bool kept = spares.count < HESPER_RECORDING_SPARES;
	if (kept)
		spares.sets[spares.count++] = *a;
	pthread_mutex_unlock(&spares.lock);
	return kept;
}

void hesper_recording_spares_take(struct hesper_recording_arrays *a)
{
	pthread_mutex_lock(&spares.lock);
	*a = spares.count ? spares.sets[--spares.count] : (struct hesper_recording_arrays){0};
	pthread_mutex_unlock(&spares.lock);
}
