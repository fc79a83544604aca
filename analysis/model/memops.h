/*
 * Memory operations: copies, fills, updates and clears recorded into command buffers,
 * one row per kind of operation (the 2 and KHR variants of a command count as their
 * kind). Each row counts the operations, keeps the durations of the timed ones like a
 * kernel row, and the bytes they moved; bytes over time gives GB/s.
 */
#ifndef HESPER_MEMOPS_H
#define HESPER_MEMOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_table.h"

enum hesper_memop_kind {
	HESPER_MEMOP_COPY_BUFFER,          /* vkCmdCopyBuffer, vkCmdCopyBuffer2(KHR) */
	HESPER_MEMOP_COPY_IMAGE,           /* vkCmdCopyImage, vkCmdCopyImage2(KHR) */
	HESPER_MEMOP_COPY_BUFFER_TO_IMAGE, /* vkCmdCopyBufferToImage, vkCmdCopyBufferToImage2(KHR) */
	HESPER_MEMOP_COPY_IMAGE_TO_BUFFER, /* vkCmdCopyImageToBuffer, vkCmdCopyImageToBuffer2(KHR) */
	HESPER_MEMOP_FILL_BUFFER,          /* vkCmdFillBuffer */
	HESPER_MEMOP_UPDATE_BUFFER,        /* vkCmdUpdateBuffer */
	HESPER_MEMOP_CLEAR_COLOR_IMAGE,    /* vkCmdClearColorImage */
	HESPER_MEMOP_KINDS
};

/* One kind of memory operation. */
struct hesper_memop_row {
	struct hesper_kernel k; /* name (static, not owned), operations counted, durations of the timed ones */
	uint64_t bytes;         /* bytes moved by all operations counted */
	uint64_t timed_bytes;   /* bytes moved by the timed ones (the GB/s numerator) */
	uint64_t unsized;       /* operations whose bytes are unknown (counted with 0 bytes) */
	double best_gbps;       /* highest GB/s of a single timed operation with bytes and time; 0 if none */
	uint64_t best_bytes;    /* the bytes that operation moved */
};

struct hesper_memops {
	struct hesper_memop_row rows[HESPER_MEMOP_KINDS];
};

/* The report name of @kind ("copy_buffer", "fill_buffer", ...), or NULL when out of range. */
const char *hesper_memop_name(enum hesper_memop_kind kind);

/* The kind named @name (hesper_memop_name), or HESPER_MEMOP_KINDS when none is. */
enum hesper_memop_kind hesper_memop_kind_of(const char *name);

/* Makes @m empty, each row named after its kind. */
void hesper_memops_init(struct hesper_memops *m);

/* Frees what @m's rows hold. */
void hesper_memops_free(struct hesper_memops *m);

/* Records one timed operation of @row moving @bytes (@sized: the bytes are known) in @ns. */
void hesper_memop_record(struct hesper_memop_row *row, uint64_t bytes, bool sized, uint64_t ns);

/* Records @n untimed operations of @row, each moving @bytes (@sized: known). */
void hesper_memop_count_untimed(struct hesper_memop_row *row, uint64_t n, uint64_t bytes, bool sized);

/* Mean GB/s of @row's timed operations: timed bytes over their summed time; 0 when none was timed. */
double hesper_memop_mean_gbps(const struct hesper_memop_row *row);

/* Adds every row of @from to @into (counts, bytes and durations add up; the best GB/s is the larger). */
void hesper_memops_merge(struct hesper_memops *into, const struct hesper_memops *from);

/* The total operations counted over every kind of @m. */
uint64_t hesper_memops_count(const struct hesper_memops *m);

/*
 * The statistics of one kind, for analyses such as findings: operations counted, timed,
 * their summed time, bytes moved (all, timed), and the best single-operation GB/s.
 */
struct hesper_memop_stats {
	const char *name;
	uint64_t count, timed, unsized;
	uint64_t timed_ns, bytes, timed_bytes;
	double mean_gbps, best_gbps;
	uint64_t best_bytes; /* moved by the operation of best_gbps */
};

/* The statistics of @kind in @m (all zero but the name when none ran). */
struct hesper_memop_stats hesper_memop_stats(const struct hesper_memops *m, enum hesper_memop_kind kind);

#endif
