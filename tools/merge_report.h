/*
 * What hesper merge prints and writes beyond the merged table (merge.c merges, merge_report.c
 * reports): each process's part, the imbalance of each kernel between the processes, and
 * the merged summary JSON with both added.
 */
#ifndef HESPER_MERGE_REPORT_H
#define HESPER_MERGE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* One merged input: its file and its summary. */
struct process {
	const char *path;
	struct hesper_profile profile;
};

/* How a kernel's total spread over the processes. */
struct imbalance {
	const struct hesper_kernel *merged;
	size_t ran;        /* processes that ran the kernel */
	uint64_t min, max; /* per-process totals, 0 for a process that did not run it */
	double mean;
};

/* Fills @im for merged kernel row @merged from the @nprocs processes @procs (0 for those that never ran it). */
void hesper_merge_imbalance(struct imbalance *im, const struct hesper_kernel *merged, const struct process *procs,
			    size_t nprocs);

/* Prints the "Processes" table: each one's pid, wall time, GPU busy and kernel time, dispatches, drops, program. */
void hesper_merge_print_processes(const struct process *procs, size_t n);

/* Prints the imbalance table of @n kernel rows over @nprocs processes. */
void hesper_merge_print_imbalance(const struct imbalance *rows, size_t n, size_t nprocs);

/* Writes the merged summary JSON to @path: hesper_report_json's output, then "processes" and "imbalance"; 0 or -1. */
int hesper_merge_write_json(const char *path, const struct hesper_profile *merged, const struct process *procs,
			    size_t nprocs, const struct imbalance *rows, size_t n);

#endif
