/*
 * What the layer sees of analysis/: the faces of the stages it hands its results to (the
 * numbers, the timeline, the profile, the findings, the writers, the sinks, the database).
 * The layer includes no other header of analysis/ (scripts/check-floors).
 */
#ifndef HESPER_ANALYSIS_H
#define HESPER_ANALYSIS_H

#include "model/model.h"
#include "timeline/timeline.h"
#include "profile/profile.h"
#include "findings/findings.h"
#include "write/write.h"
#include "sinks/sinks.h"
#include "sqlite/sqlite.h"

#endif
