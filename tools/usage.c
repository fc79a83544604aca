/* Bad usage of the `hesper` tool: the message, the hint at --help, the exit status. */
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>

#include "commands.h"

int
hesper_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hesper: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (hesper --help for usage)\n", stderr);
	return HESPER_EXIT_USAGE;
}
