/*
 * The keys of a device of the JSON summary ("devices"), in the order the writer puts them:
 * the one list the writer (write/report_json.c) and the reader (read/
 * summary_load_devices.c) take their keys from, and when each is written.
 * DEVICE_KEY(member of struct hesper_device_info, key, kind, when)
 *   kind: TEXT (a string member), REAL (a double), U64, U32, MODEL (the occupancy model,
 *         an object of its own: write/report_json_stats.c, read/summary_load_devices.c)
 *   when: ALWAYS; SET (a string written when not empty); CLOCK_KNOWN (clock mode's timing
 *         said, and the calibration's error known: >= 0, read back as -1 when absent);
 *         CLOCK_RATE (clock mode's timing said, and the rate known: > 0); FINDINGS
 *         (written only with the findings' numbers: a live run, or a summary of one)
 */
#ifndef HESPER_DEVICE_KEYS_H
#define HESPER_DEVICE_KEYS_H

#define HESPER_DEVICE_KEYS(DEVICE_KEY)                                         \
	DEVICE_KEY(name, "name", TEXT, ALWAYS)                                 \
	DEVICE_KEY(driver, "driver", TEXT, ALWAYS)                             \
	DEVICE_KEY(timestamp_period_ns, "timestamp_period_ns", REAL, ALWAYS)   \
	DEVICE_KEY(copy, "copy", TEXT, SET)                                    \
	DEVICE_KEY(timing, "timing", TEXT, SET)                                \
	DEVICE_KEY(clock_error_ns, "clock_error_ns", REAL, CLOCK_KNOWN)        \
	DEVICE_KEY(clock_ticks_per_us, "clock_ticks_per_us", REAL, CLOCK_RATE) \
	DEVICE_KEY(pipeline_stats, "pipeline_stats", TEXT, SET)                \
	DEVICE_KEY(occupancy, "occupancy_model", MODEL, ALWAYS)                \
	DEVICE_KEY(dispatch_cost_ns, "dispatch_cost_ns", U64, FINDINGS)        \
	DEVICE_KEY(timestamp_cost_ns, "timestamp_cost_ns", U64, FINDINGS)      \
	DEVICE_KEY(compute_units, "compute_units", U32, FINDINGS)

#endif
