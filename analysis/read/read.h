/* The face of analysis/read/: Hesper's JSON files read back into a profile. */
#ifndef HESPER_ANALYSIS_READ_H
#define HESPER_ANALYSIS_READ_H

#include "json_file.h"
#include "summary_load.h"

#endif
