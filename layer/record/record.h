/*
 * Recording, the face of record/: what Hesper notes and writes while the program
 * records command buffers (command_buffer.c, record_hooks.c): recordings with their
 * dispatches, memory operations, labels and timestamp queries, pipelines and their
 * kernel names, buffers and images (for the bytes a copy moves), indirect dispatches'
 * arguments. Calls state/ and clock/ only.
 */
#ifndef HESPER_RECORD_H
#define HESPER_RECORD_H

#include "command_buffer.h"
#include "indirect.h"
#include "memory_ops.h"
#include "pipeline.h"
#include "recording.h"

#endif
