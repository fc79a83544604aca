/* The `hesper` tool's usage text and its one way of telling bad usage, shared by its subcommands. */
#ifndef HESPER_TOOL_USAGE_H
#define HESPER_TOOL_USAGE_H

#include <stdio.h>

#define HESPER_DEFAULT_PREFIX "hesper-%p"
#define HESPER_DEFAULT_FORMATS "text,json"

/* Prints the usage of every subcommand on @out. */
void hesper_usage_print(FILE *out);

/* Prints "hesper: " and the message on stderr, then returns HESPER_EXIT_USAGE. */
int hesper_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
