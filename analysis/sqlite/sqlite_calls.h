/*
 * The SQLite calls of the database sink, loaded when a database is first opened.
 *
 * libhesper.so is preloaded into every process of a session (shells, compilers, the
 * program's children), so it does not link libsqlite3: a process that never asks for
 * sqlite:PATH never loads it, and a program that carries its own SQLite keeps it to
 * itself, since these calls are looked up in the library loaded here, never globally.
 * report_sqlite.c and report_sqlite_summary.c include this header after <sqlite3.h> and calls SQLite by its usual
 * names, which the macros below turn into calls through the loaded table.
 */
#ifndef HESPER_SQLITE_CALLS_H
#define HESPER_SQLITE_CALLS_H

#include <sqlite3.h>
#include <stddef.h>

/* The SQLite library loaded (Debian's libsqlite3-0). */
#define HESPER_SQLITE_LIBRARY "libsqlite3.so.0"

/* clang-format off */
#define HESPER_SQLITE_CALLS(CALL)                                                  \
	CALL(bind_double) CALL(bind_int64) CALL(bind_text) CALL(clear_bindings)    \
	CALL(close) CALL(errmsg) CALL(exec) CALL(finalize) CALL(free) CALL(open_v2) \
	CALL(prepare_v2) CALL(prepare_v3) CALL(reset) CALL(step)
/* clang-format on */

struct hesper_sqlite_calls {
#define HESPER_SQLITE_POINTER(name) __typeof__(sqlite3_##name) *name;
	HESPER_SQLITE_CALLS(HESPER_SQLITE_POINTER)
#undef HESPER_SQLITE_POINTER
};

/* The loaded calls; valid once hesper_sqlite_load() returned 0. */
extern struct hesper_sqlite_calls hesper_sqlite_calls;

/* Loads SQLite once per process (thread-safe); 0, or -1 with a one-line reason in @why. */
int hesper_sqlite_load(char *why, size_t size);

#ifndef HESPER_SQLITE_CALLS_IMPLEMENTATION
#define sqlite3_bind_double (hesper_sqlite_calls.bind_double)
#define sqlite3_bind_int64 (hesper_sqlite_calls.bind_int64)
#define sqlite3_bind_text (hesper_sqlite_calls.bind_text)
#define sqlite3_clear_bindings (hesper_sqlite_calls.clear_bindings)
#define sqlite3_close (hesper_sqlite_calls.close)
#define sqlite3_errmsg (hesper_sqlite_calls.errmsg)
#define sqlite3_exec (hesper_sqlite_calls.exec)
#define sqlite3_finalize (hesper_sqlite_calls.finalize)
#define sqlite3_free (hesper_sqlite_calls.free)
#define sqlite3_open_v2 (hesper_sqlite_calls.open_v2)
#define sqlite3_prepare_v2 (hesper_sqlite_calls.prepare_v2)
#define sqlite3_prepare_v3 (hesper_sqlite_calls.prepare_v3)
#define sqlite3_reset (hesper_sqlite_calls.reset)
#define sqlite3_step (hesper_sqlite_calls.step)
#endif

#endif
