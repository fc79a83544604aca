/*
 * The face of analysis/model/: the numbers of one kernel, one operation, one setting
 * (events, statistics, the kernel table, launch shapes, overlap, occupancy, formats). It
 * needs no other stage of analysis/.
 */
#ifndef HESPER_ANALYSIS_MODEL_H
#define HESPER_ANALYSIS_MODEL_H

#include "drop_causes.h"
#include "event.h"
#include "findings_settings.h"
#include "c_numbers.h"
#include "format.h"
#include "histogram.h"
#include "hot_lines.h"
#include "kernel_table.h"
#include "launch_shapes.h"
#include "memops.h"
#include "occupancy.h"
#include "overlap.h"
#include "pipeline_stats.h"
#include "row_keys.h"
#include "row_names.h"
#include "settings_text.h"
#include "stats.h"
#include "utf8.h"

#endif
