/* The debug-label regions as a tree (region_tree.h): parents found by path prefix. */
#include "region_tree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

const char *
hesper_label_kernel_name(const struct hesper_kernel *k)
{
	const char *sep = strchr(k->name, HESPER_LABEL_KERNEL_SEP);

	return sep ? sep + 1 : k->name;
}

uint32_t
hesper_label_path_depth(const char *path)
{
	uint32_t n = 1;

	for (; *path; path++)
		n += *path == HESPER_LABEL_PATH_SEP;
	return n;
}

/* Whether @path is the first @len bytes of @s exactly. */
static bool
is_prefix(const char *path, const char *s, size_t len)
{
	return strlen(path) == len && memcmp(path, s, len) == 0;
}

/* The index in @rows (of @n) of the row named by the first @len bytes of @s, or @n. */
static size_t
find_row(struct hesper_kernel **rows, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (is_prefix(rows[i]->name, s, len))
			return i;
	return n;
}

/* Pushes onto @stack the rows whose parent is @of (SIZE_MAX: the top), last first, so they pop in order. */
static void
push_children(const size_t *parent, size_t n, size_t of, size_t *stack, size_t *top)
{
	for (size_t j = n; j-- > 0;)
		if (parent[j] == of)
			stack[(*top)++] = j;
}

void
hesper_region_tree_free(struct hesper_region_tree *t)
{
	free(t->nodes);
	free(t->paths);
	free(t->kernels);
	memset(t, 0, sizeof(*t));
}

/* Each path row's parent (SIZE_MAX: at the top, or its enclosing label has no row). */
static void
find_parents(struct hesper_kernel **rows, size_t n, size_t *parent)
{
	for (size_t i = 0; i < n; i++) {
		const char *sep = strrchr(rows[i]->name, HESPER_LABEL_PATH_SEP);
		size_t j = sep ? find_row(rows, n, rows[i]->name, (size_t)(sep - rows[i]->name)) : n;

		parent[i] = j < n ? j : SIZE_MAX;
	}
}

/* Gives each node its kernels: the label_kernels rows @krows (of @nk) whose path is its own. */
static int
place_kernels(struct hesper_region_tree *t, struct hesper_kernel **krows, size_t nk, const size_t *node_of)
{
	size_t *owner = NULL, at = 0;
	int ret = -1;

	if (!nk)
		return 0;
	owner = malloc(nk * sizeof(*owner));
	t->kernels = malloc(nk * sizeof(*t->kernels));
	if (!owner || !t->kernels)
		goto out;
	for (size_t k = 0; k < nk; k++) {
		const char *sep = strchr(krows[k]->name, HESPER_LABEL_KERNEL_SEP);
		size_t len = sep ? (size_t)(sep - krows[k]->name) : 0;
		size_t i = sep ? find_row(t->paths, t->count, krows[k]->name, len) : t->count;

		owner[k] = i < t->count ? node_of[i] : SIZE_MAX;
		t->unplaced += i == t->count;
	}
	/* Node by node, in the table's order within each (largest total first). */
	for (size_t node = 0; node < t->count; node++) {
		t->nodes[node].kernels = t->kernels + at;
		for (size_t k = 0; k < nk; k++)
			if (owner[k] == node)
				t->kernels[at++] = krows[k];
		t->nodes[node].kernel_count = (size_t)(t->kernels + at - t->nodes[node].kernels);
	}
	ret = 0;
out:
	free(owner);
	return ret;
}

int
hesper_region_tree_build(const struct hesper_kernel_table *label_paths, const struct hesper_kernel_table *label_kernels,
			 struct hesper_region_tree *out)
{
	struct hesper_kernel **krows = NULL;
	size_t n = 0, nk = 0, *parent = NULL, *node_of = NULL, *stack = NULL, top = 0;
	uint32_t *depth = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (hesper_kernel_table_rows(label_paths, &out->paths, &n) != 0 ||
	    hesper_kernel_table_rows(label_kernels, &krows, &nk) != 0)
		goto out;
	if (n) {
		out->nodes = calloc(n, sizeof(*out->nodes));
		parent = malloc(n * sizeof(*parent));
		node_of = malloc(n * sizeof(*node_of));
		stack = malloc(n * sizeof(*stack));
		depth = calloc(n, sizeof(*depth));
		if (!out->nodes || !parent || !node_of || !stack || !depth)
			goto out;
	}
	find_parents(out->paths, n, parent);
	/* Depth first without recursion: a summary read back may nest as deep as it likes. */
	push_children(parent, n, SIZE_MAX, stack, &top);
	while (top) {
		size_t i = stack[--top];
		struct hesper_region_node *node = &out->nodes[out->count];

		node_of[i] = out->count++;
		node->row = out->paths[i];
		node->name = hesper_label_path_leaf(out->paths[i]->name);
		node->depth = parent[i] == SIZE_MAX ? 0 : depth[parent[i]] + 1;
		depth[i] = node->depth;
		push_children(parent, n, i, stack, &top);
	}
	ret = place_kernels(out, krows, nk, node_of);
out:
	if (ret != 0)
		hesper_region_tree_free(out);
	free(krows);
	free(parent);
	free(node_of);
	free(stack);
	free(depth);
	return ret;
}
