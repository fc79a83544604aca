/*
 * The formats every report shares: durations with a unit chosen for readability, and a
 * finding's numbers as a reader wants them (format.c).
 */
#ifndef HESPER_FORMAT_H
#define HESPER_FORMAT_H

#include <stddef.h>

/* Formats @ns into @buf with a unit chosen for readability (ns, µs, ms, s). Returns @buf. */
const char *hesper_format_duration(char *buf, size_t size, double ns);

/*
 * Formats a finding's number @key = @value into @buf for a reader: its key without the
 * unit, words apart, and the value in that unit ("idle_ns" 43829000 as "idle 43.83 ms",
 * "idle_share" 0.365 as "idle share 36.5%", "bytes" 9792 as "bytes 9.792 kB", "mean_gbps"
 * as "mean 0.0122 GB/s", counts as whole numbers). The JSON keeps the key and exact value.
 * Returns @buf.
 */
const char *hesper_format_finding_number(char *buf, size_t size, const char *key, double value);

#endif
