/* The signals HESPER_REPORT_SIGNAL accepts. */
#ifndef HESPER_SETTINGS_SIGNAL_H
#define HESPER_SETTINGS_SIGNAL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The signal named by the @len bytes at @text (USR1, SIGUSR1, RTMIN+2, RTMAX-1; any case)
 * or numbered by them into *@out, when it is one a user may pick; false otherwise.
 */
bool hesper_settings_signal(const char *text, size_t len, int *out);

#endif
