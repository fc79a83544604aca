/*
 * The keys of an entry of the JSON summary's "findings", in the order the writer puts them:
 * the one list the writer (write/report_json_stats.c) and the reader (read/
 * summary_load_run.c) take their keys from, and the reader its checks.
 * FINDING_KEY(member of struct hesper_finding, key, kind)
 *   KIND:    the finding's kind by name; an entry of a kind Hesper does not know is skipped
 *   U64:     a count or time
 *   NUMBERS: the finding's numbers by name; names Hesper does not know are skipped
 *   ABOUT:   what it is about, an array of one string
 *   TEXT:    a string
 *   GAPS:    a gpu_idle finding's largest gaps (profile/gap_keys.h), kept with its queue;
 *            written only for one
 */
#ifndef HESPER_FINDING_KEYS_H
#define HESPER_FINDING_KEYS_H

#define HESPER_FINDING_KEYS(FINDING_KEY)                       \
	FINDING_KEY(kind, "kind", KIND)                        \
	FINDING_KEY(time_at_stake_ns, "time_at_stake_ns", U64) \
	FINDING_KEY(numbers, "numbers", NUMBERS)               \
	FINDING_KEY(about, "about", ABOUT)                     \
	FINDING_KEY(advice, "advice", TEXT)                    \
	FINDING_KEY(queue, "gaps", GAPS)

#endif
