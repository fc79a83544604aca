/*
 * What the parts of the sink list (sinks.h) share: the names of the sink kinds
 * (sinks_kinds.c), used by the parser and by the writers' error lines, and the database
 * refresh of sinks_database.c, which the writers call like any other sink's write. The
 * parts call downwards only: sinks_parse.c and sinks_write.c use sinks_kinds.c and
 * sinks_database.c, which call neither.
 */
#ifndef HESPER_SINKS_PARTS_H
#define HESPER_SINKS_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sinks.h"

/* sinks_kinds.c ------------------------------------------------------------------------ */

/* The name of @kind as HESPER_REPORT spells it ("stdout", "json", ...); "?" for none. */
const char *hesper_sink_kind_name(enum hesper_sink_kind kind);

/* The kind that takes a PATH named by the @len bytes at @name ("json", "JSON", ...) into *@kind; false when none is. */
bool hesper_sink_kind_named(const char *name, size_t len, enum hesper_sink_kind *kind);

/* sinks_database.c --------------------------------------------------------------------- */

/* Refreshes the summary tables of sqlite sink @s of @list from @p; 0, or -1 (told once on @err). */
int hesper_sinks_write_database(const struct hesper_sink_list *list, struct hesper_sink *s,
				const struct hesper_profile *p, FILE *err);

#endif
