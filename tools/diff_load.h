/*
 * One run's JSON summary as `hesper diff` reads it: what the run was (program, devices,
 * mode) and, per kernel, the numbers the comparison uses. The file is read whole as
 * `hesper report` reads it, and every row by the same reader (hesper_summary_row_read),
 * so what one refuses the other does too: a negative, non-finite or absurd
 * value (a time past HESPER_SUMMARY_TIME_MAX_NS), a median outside [min, max] or more
 * timed dispatches than ran make the file unreadable for both, so that a broken or edited
 * file is refused rather than compared or printed.
 */
#ifndef HESPER_TOOL_DIFF_LOAD_H
#define HESPER_TOOL_DIFF_LOAD_H

#include <stddef.h>
#include <stdint.h>

/* A kernel's numbers in one run. */
struct hesper_diff_kernel {
	char *name;
	uint64_t count, timed;
	double total_ns;  /* the kernel's GPU time in the run (an estimate when not all were timed) */
	double median_ns; /* of the timed dispatches; 0 when none was timed */
	double stddev_ns;
};

/* One run: one summary file. */
struct hesper_diff_run {
	const char *path;
	char *exe; /* the program's name */
	int pid;
	char *mode;     /* "dispatch", "submit", "clock"; "" when the file does not say */
	char *group_by; /* what a kernel row is: "kernel" (also when the file does not say), "shape", "label" */
	char *devices;  /* every device's name and driver, joined: equal strings mean the same devices */
	struct hesper_diff_kernel *kernels;
	size_t nkernels;
};

/*
 * Reads the summary at @path into @run (zeroed first; free it with hesper_diff_run_free
 * whatever the result). Returns 0, or -1 with "PATH: reason" in @err.
 */
int hesper_diff_run_load(const char *path, struct hesper_diff_run *run, char *err, size_t err_size);

/* The kernel called @name in @run, or NULL. */
const struct hesper_diff_kernel *hesper_diff_run_kernel(const struct hesper_diff_run *run, const char *name);

/* Frees what the load allocated. */
void hesper_diff_run_free(struct hesper_diff_run *run);

#endif
