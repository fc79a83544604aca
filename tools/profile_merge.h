/* Merging the profiles of several processes (loaded with summary_load.h) into one. */
#ifndef HESPER_TOOL_PROFILE_MERGE_H
#define HESPER_TOOL_PROFILE_MERGE_H

#include <stddef.h>

#include "profile/profile.h"

/*
 * Adds everything in @from to @into: kernels, regions, devices (one row per model),
 * queues, counters; wall and busy times add up. Returns 0, or -1 when memory runs out.
 */
int hesper_profile_merge(struct hesper_profile *into, const struct hesper_profile *from);

#endif
