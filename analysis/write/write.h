/*
 * The face of analysis/write/: one writer per format (write/html/ the HTML page), the tracks'
 * names they show, and the hot lines' source listing.
 */
#ifndef HESPER_ANALYSIS_WRITE_H
#define HESPER_ANALYSIS_WRITE_H

#include "report.h"
#include "source_listing.h"
#include "trace_names.h"

#endif
