/*
 * The face of analysis/timeline/: the events on the timeline (the bounded trace, its
 * spool, tracks and lanes, flows). It needs no other stage of analysis/.
 */
#ifndef HESPER_ANALYSIS_TIMELINE_H
#define HESPER_ANALYSIS_TIMELINE_H

#include "trace.h"
#include "trace_flows.h"
#include "trace_layout.h"
#include "trace_spool.h"

#endif
