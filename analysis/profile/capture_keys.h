/*
 * The keys of the JSON summary's "capture" object (the capture window), in the order the
 * writer puts them: the one list the writer (write/report_json.c) and the reader (read/
 * summary_load_run.c) take their keys from, and when each is written.
 * CAPTURE_KEY(member of struct hesper_capture_info, key, kind, when)
 *   kind: TEXT (a string member); U64 (a count or time); STATE ("not opened", "open" or
 *         "closed", from opened and closed); WALL (the window's wall time,
 *         hesper_capture_wall_ns, read back into its end_ns)
 *   when: ALWAYS; OPENED or CLOSED (once the window opened, or closed)
 */
#ifndef HESPER_CAPTURE_KEYS_H
#define HESPER_CAPTURE_KEYS_H

#define HESPER_CAPTURE_KEYS(CAPTURE_KEY)                                     \
	CAPTURE_KEY(start, "start", TEXT, ALWAYS)                            \
	CAPTURE_KEY(stop, "stop", TEXT, ALWAYS)                              \
	CAPTURE_KEY(opened, "state", STATE, ALWAYS)                          \
	CAPTURE_KEY(opened_ns, "opened_ns", U64, OPENED)                     \
	CAPTURE_KEY(closed_ns, "closed_ns", U64, CLOSED)                     \
	CAPTURE_KEY(end_ns, "wall_ns", WALL, ALWAYS)                         \
	CAPTURE_KEY(outside, "dispatches_outside", U64, ALWAYS)              \
	CAPTURE_KEY(submissions_outside, "submissions_outside", U64, ALWAYS) \
	CAPTURE_KEY(memops_outside, "memory_ops_outside", U64, ALWAYS)

#endif
