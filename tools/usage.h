/* The `hesper` tool's one way of telling bad usage, shared by its subcommands. */
#ifndef HESPER_TOOL_USAGE_H
#define HESPER_TOOL_USAGE_H

/* Prints "hesper: " and the message on stderr, then returns HESPER_EXIT_USAGE. */
int hesper_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
