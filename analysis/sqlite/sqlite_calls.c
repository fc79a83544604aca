/* Loading SQLite for the database sink (see sqlite_calls.h). */
#define HESPER_SQLITE_CALLS_IMPLEMENTATION
#include "sqlite_calls.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct hesper_sqlite_calls hesper_sqlite_calls;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[200];

static void
load(void)
{
	/* RTLD_LOCAL: SQLite's symbols stay out of the program's global scope. */
	void *lib = dlopen(HESPER_SQLITE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

	if (!lib) {
		snprintf(load_error, sizeof(load_error), "cannot load %s (Debian package libsqlite3-0)",
			 HESPER_SQLITE_LIBRARY);
		return;
	}
#define HESPER_SQLITE_LOOKUP(name)                                                             \
	if (!missing && !(*(void **)&hesper_sqlite_calls.name = dlsym(lib, "sqlite3_" #name))) \
		missing = "sqlite3_" #name;
	HESPER_SQLITE_CALLS(HESPER_SQLITE_LOOKUP)
#undef HESPER_SQLITE_LOOKUP
	if (missing) {
		/* Kept loaded: other threads may have seen a partly filled table. */
		snprintf(load_error, sizeof(load_error), "%s lacks %s (SQLite too old)", HESPER_SQLITE_LIBRARY,
			 missing);
		memset(&hesper_sqlite_calls, 0, sizeof(hesper_sqlite_calls));
	}
}

int
hesper_sqlite_load(char *why, size_t size)
{
	pthread_once(&load_once, load);
	if (!load_error[0])
		return 0;
	snprintf(why, size, "%s", load_error);
	return -1;
}
