/* The face of analysis/write/: one writer per format (write/html/ the HTML page), and the tracks' names they show. */
#ifndef HESPER_ANALYSIS_WRITE_H
#define HESPER_ANALYSIS_WRITE_H

#include "report.h"
#include "trace_names.h"

#endif
