/*
 * The SQLite database sink (sqlite:PATH), schema "hesper-sqlite" version 1 (docs/formats.md):
 * one database per run, every timeline event streamed into it in one transaction per
 * harvested batch, the summary tables refreshed at each report. Kept out of the public
 * analysis library so that its users never need libsqlite3.
 */
#ifndef HESPER_REPORT_SQLITE_H
#define HESPER_REPORT_SQLITE_H

#include <sqlite3.h>
#include <stddef.h>

#include "sinks/sinks.h"

#define HESPER_SQLITE_SCHEMA_NAME "hesper-sqlite"
#define HESPER_SQLITE_SCHEMA_VERSION 3

/* The operations for struct hesper_sink_list.database. */
extern const struct hesper_database_ops hesper_sqlite_database;

/* Creates the tables and indexes of the schema in the empty database @db; 0, or -1 with a reason in @why. */
int hesper_sqlite_create_schema(sqlite3 *db, char *why, size_t size);

#endif
