/*
 * Collecting, the face of collect/: the collector thread (collector.c) that takes
 * completed submissions, reads their timestamps and hands finished work to the profile,
 * the capture window it applies (capture.c), the device-to-host clock pairing
 * (clock_sync.c), and the hooks of the program's own waits (wait_hooks.c). Calls state/,
 * clock/, record/ and submit/ only.
 */
#ifndef HESPER_COLLECT_H
#define HESPER_COLLECT_H

#include "capture.h"
#include "clock_sync.h"
#include "collector.h"

#endif
