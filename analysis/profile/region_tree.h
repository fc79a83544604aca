/*
 * The debug-label regions as a tree: one node per label path (profile.h), each under the
 * label it ran in, with the kernels that ran directly in it. Built from the profile's
 * label_paths and label_kernels tables; nodes in depth-first order, siblings and kernels
 * largest total first (then by name), as the tables sort.
 */
#ifndef HESPER_REGION_TREE_H
#define HESPER_REGION_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct hesper_region_node {
	const struct hesper_kernel *row; /* its label_paths row: count, statistics of one instance's time */
	const char *name;                /* its innermost label: a suffix of row->name */
	uint32_t depth;                  /* 0 at the top, or where the label it ran in has no row */
	struct hesper_kernel **kernels;  /* label_kernels rows of the kernels that ran directly in it */
	size_t kernel_count;
};

struct hesper_region_tree {
	struct hesper_region_node *nodes; /* depth-first: a node, then its children */
	size_t count;
	size_t unplaced;                /* label_kernels rows whose label path has no node (not in nodes) */
	struct hesper_kernel **paths;   /* owned: label_paths sorted */
	struct hesper_kernel **kernels; /* owned: label_kernels grouped by node */
};

/*
 * Builds the tree of @label_paths and @label_kernels (either may be NULL: no rows) into
 * *@out; the tables must outlive it and not change. 0, or -1 when memory runs out (*@out empty).
 */
int hesper_region_tree_build(const struct hesper_kernel_table *label_paths,
			     const struct hesper_kernel_table *label_kernels, struct hesper_region_tree *out);

/* Frees what hesper_region_tree_build allocated and makes @t empty. */
void hesper_region_tree_free(struct hesper_region_tree *t);

/* The kernel of a label_kernels row: the text after the path's HESPER_LABEL_KERNEL_SEP (the whole name without one). */
const char *hesper_label_kernel_name(const struct hesper_kernel *k);

/* The number of labels in label path @path (1 + its HESPER_LABEL_PATH_SEP separators). */
uint32_t hesper_label_path_depth(const char *path);

#endif
