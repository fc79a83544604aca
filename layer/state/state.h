/*
 * The ground floor, the face of state/: what every stage shares, and calls nothing
 * above it. The process (settings, interned names, the profile, the log, the host's
 * clock), Hesper's state of the program's instances, devices and queues and the maps that
 * find it by handle, the dispatch tables and hook prototypes generated from the one list
 * of commands (commands.h), query blocks and host-visible buffers, reading device memory
 * mapped write-combined, the program threads' waits, and the queue of timeline events for
 * the sinks.
 */
#ifndef HESPER_STATE_H
#define HESPER_STATE_H

#include "device_memory_copy.h"
#include "events.h"
#include "hook_time.h"
#include "hooks.h"
#include "host_buffer.h"
#include "object_map.h"
#include "objects.h"
#include "process.h"
#include "query_blocks.h"
#include "settings.h"
#include "util.h"
#include "waits.h"

#endif
