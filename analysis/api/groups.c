/*
 * Events grouped by kernel name. The groups, and a copy of the events ordered by name
 * then start, share one allocation: group i's events are a run inside it.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

static const char *
name_of(const struct hesper_event *e)
{
	return e->name ? e->name : "?";
}

static int
compare_name_start(const void *a, const void *b)
{
	int c = strcmp(name_of(a), name_of(b));

	return c ? c : hesper_event_compare(a, b);
}

/* Largest total first, then by name: the order of Hesper's kernel table. */
static int
compare_groups(const void *a, const void *b)
{
	const struct hesper_kernel_group *x = a, *y = b;
	uint64_t tx = x->summary.total_duration_ns, ty = y->summary.total_duration_ns;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t
hesper_group_by_kernel(const struct hesper_event *events, size_t n, struct hesper_kernel_group **groups)
{
	struct hesper_event *sorted = NULL;
	struct hesper_kernel_group *g = NULL;
	size_t n_groups = 0;

	if (!groups)
		return 0;
	*groups = NULL;
	if (!events || n == 0 || n > SIZE_MAX / sizeof(*sorted))
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		goto out;
	memcpy(sorted, events, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_name_start);
	n_groups = 1;
	for (size_t i = 1; i < n; i++)
		n_groups += strcmp(name_of(&sorted[i - 1]), name_of(&sorted[i])) != 0;

	/* Groups first, then the events: both hold uint64_t-aligned members only. */
	if (n_groups <= (SIZE_MAX - n * sizeof(*sorted)) / sizeof(*g))
		g = malloc(n_groups * sizeof(*g) + n * sizeof(*sorted));
	if (!g) {
		n_groups = 0;
		goto out;
	}
	struct hesper_event *copy = (struct hesper_event *)(g + n_groups);
	memcpy(copy, sorted, n * sizeof(*sorted));
	for (size_t i = 0, k = 0; i < n; k++) {
		size_t j = i + 1;

		while (j < n && strcmp(name_of(&copy[i]), name_of(&copy[j])) == 0)
			j++;
		g[k].name = name_of(&copy[i]);
		g[k].events = &copy[i];
		g[k].n_events = j - i;
		g[k].summary = hesper_summary_from_events(&copy[i], j - i);
		i = j;
	}
	qsort(g, n_groups, sizeof(*g), compare_groups);
	*groups = g;
out:
	free(sorted);
	return n_groups;
}

void
hesper_kernel_groups_free(struct hesper_kernel_group *groups, size_t n)
{
	/* Every array this library hands out is one allocation (groups.c, read_summary.c). */
	(void)n;
	free(groups);
}
