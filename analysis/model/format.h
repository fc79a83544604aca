/* The duration format every report shares: a unit chosen for readability (format.c). */
#ifndef HESPER_FORMAT_H
#define HESPER_FORMAT_H

#include <stddef.h>

/* Formats @ns into @buf with a unit chosen for readability (ns, µs, ms, s). Returns @buf. */
const char *hesper_format_duration(char *buf, size_t size, double ns);

#endif
