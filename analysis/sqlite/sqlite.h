/* The face of analysis/sqlite/: the sqlite: database sink (the hesper_sqlite library). */
#ifndef HESPER_ANALYSIS_SQLITE_H
#define HESPER_ANALYSIS_SQLITE_H

#include "report_sqlite.h"

#endif
