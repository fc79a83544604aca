/*
 * Per-name statistics in a hash table: one row per kernel (or per label region).
 * Lookups are O(1) on average; the table grows by doubling.
 */
#ifndef HESPER_KERNEL_TABLE_H
#define HESPER_KERNEL_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "launch_shapes.h"
#include "stats.h"

struct hesper_kernel {
	char *name;                         /* owned, NUL-terminated, any bytes but NUL */
	uint64_t count;                     /* executions counted (timed or not) */
	struct hesper_stats timed;          /* durations of the executions that were timed: in clock mode, spans */
	uint64_t share_ns;                  /* the timed executions' shares of the GPU time (overlap.h), saturating */
	struct hesper_launch_shapes shapes; /* work-group counts and size (kernel rows only; else zero) */
	/*
	 * Kernel rows: 1 + the variant of the pipeline statistics every one of its dispatches ran
	 * with (pipeline_stats.h); 0 none known, HESPER_STATS_SETS_SEVERAL when they differ.
	 */
	uint32_t stats_set;
};

#define HESPER_STATS_SETS_SEVERAL UINT32_MAX

struct hesper_kernel_table;

/* A new empty table, or NULL when memory runs out. */
struct hesper_kernel_table *hesper_kernel_table_create(void);

/* Frees the table, its rows and their names. NULL is allowed. */
void hesper_kernel_table_destroy(struct hesper_kernel_table *t);

/* The row named @name, inserted empty if absent; NULL when memory runs out. */
struct hesper_kernel *hesper_kernel_table_get(struct hesper_kernel_table *t, const char *name);

/* The row named @name, or NULL. */
struct hesper_kernel *hesper_kernel_table_find(const struct hesper_kernel_table *t, const char *name);

/* Number of rows. */
size_t hesper_kernel_table_size(const struct hesper_kernel_table *t);

/*
 * Iterates over the rows in no particular order: set *@cursor to 0, then call until NULL.
 * The table must not gain rows meanwhile.
 */
struct hesper_kernel *hesper_kernel_table_next(const struct hesper_kernel_table *t, size_t *cursor);

/*
 * All rows sorted by estimated total time descending, then by name; *out_count gets the
 * number. The caller frees the returned array (not the rows). NULL when empty or out of memory.
 */
struct hesper_kernel **hesper_kernel_table_sorted(const struct hesper_kernel_table *t, size_t *out_count);

/*
 * hesper_kernel_table_sorted where an empty table is no error: *@out_rows gets the rows
 * (the caller frees the array) or NULL, *@out_count their number. @t may be NULL (no rows).
 * Returns 0, or -1 when memory runs out.
 */
int hesper_kernel_table_rows(const struct hesper_kernel_table *t, struct hesper_kernel ***out_rows, size_t *out_count);

/* Records one timed execution of @k lasting @ns that ran alone: its share is @ns. */
void hesper_kernel_record(struct hesper_kernel *k, uint64_t ns);

/* Records one timed execution of @k lasting @ns whose share of the GPU time was @share_ns (overlap.h). */
void hesper_kernel_record_share(struct hesper_kernel *k, uint64_t ns, uint64_t share_ns);

/* Records @n executions of @k that were counted but not timed. */
void hesper_kernel_count_untimed(struct hesper_kernel *k, uint64_t n);

/*
 * Total GPU time of @k, from the shares (executions that overlapped split the time they
 * shared): the shares' sum when every execution was timed, otherwise
 * hesper_kernel_span_total_ns scaled by shares over spans (an estimate from the sample).
 */
uint64_t hesper_kernel_total_ns(const struct hesper_kernel *k);

/*
 * Sum of @k's durations, each whole however it overlapped others: the measured sum when
 * every execution was timed, otherwise the timed mean times the count (an estimate).
 */
uint64_t hesper_kernel_span_total_ns(const struct hesper_kernel *k);

/* Adds @ns to @k's share_ns, saturating. */
void hesper_kernel_add_shares(struct hesper_kernel *k, uint64_t ns);

#endif
