/* The causes of dropped dispatches: their JSON keys and their words (drop_causes.h). */
#include "drop_causes.h"

#include <string.h>

static const struct {
	const char *key, *text;
} causes[HESPER_DROP_CAUSES] = {
	[HESPER_DROP_UNKNOWN] = {"unknown", "for a cause Hesper did not tell apart"},
	[HESPER_DROP_NO_QUERY] = {"no_query",
				  "no timestamp query to spare (HESPER_MAX_QUERIES reached, or a query pool could "
				  "not be created)"},
	[HESPER_DROP_NO_TIMESTAMPS] = {"no_timestamps",
				       "recorded where no timestamp can be written (a queue family without "
				       "timestamps, a protected command pool, a secondary inside a render pass)"},
	[HESPER_DROP_NO_CLOCK_SLOT] = {"no_clock_slot", "clock mode: no clock slot could be had for them"},
	[HESPER_DROP_CLOCK_EMPTY] = {"clock_slot_empty", "clock mode: no work group wrote their clock slot"},
	[HESPER_DROP_NOT_COPIED] = {"not_copied", "their values were not copied back"},
	[HESPER_DROP_UNAVAILABLE] = {"unavailable", "a timestamp never became available"},
	[HESPER_DROP_TWO_QUEUES] = {"two_queues", "ran on two queues at once, sharing their queries"},
	[HESPER_DROP_OVERWRITTEN] = {"overwritten",
				     "ran again in the same command buffer before their timestamps could be copied"},
	[HESPER_DROP_OTHER_FAMILY] = {"other_family", "recorded for another queue family than the one they ran on"},
	[HESPER_DROP_NOT_FOLLOWED] = {"not_followed",
				      "Hesper could not add the copy of their results to the submission"},
	[HESPER_DROP_UNFINISHED] = {"unfinished", "still running when Hesper stopped waiting (HESPER_EXIT_TIMEOUT_MS)"},
	[HESPER_DROP_DEVICE_LOST] = {"device_lost", "their device was lost"},
	[HESPER_DROP_MEMORY] = {"out_of_memory", "Hesper ran out of memory recording them"},
};

const char *
hesper_drop_cause_key(enum hesper_drop_cause cause)
{
	return (unsigned)cause < HESPER_DROP_CAUSES ? causes[cause].key : NULL;
}

const char *
hesper_drop_cause_text(enum hesper_drop_cause cause)
{
	return (unsigned)cause < HESPER_DROP_CAUSES ? causes[cause].text : NULL;
}

bool
hesper_drop_cause_named(const char *key, size_t len, enum hesper_drop_cause *cause)
{
	for (unsigned i = 0; i < HESPER_DROP_CAUSES; i++) {
		if (strlen(causes[i].key) == len && memcmp(causes[i].key, key, len) == 0) {
			*cause = (enum hesper_drop_cause)i;
			return true;
		}
	}
	return false;
}
