/*
 * hesper_read_summary: the kernels of a hesper-summary/1 file as groups with summaries.
 * The groups and their names share one allocation (groups first, then the names).
 */
#include <stdlib.h>
#include <string.h>

#include <hesper/profiling.h>

#include "model/model.h"
#include "read/read.h"

/* The summary of @r, the file's numbers in ms. */
static struct hesper_summary
summary_of(const struct hesper_summary_row *r)
{
	struct hesper_summary s = {0};
	double mean_ns = r->has_mean || r->count == 0 ? r->mean_ns : (double)r->total_ns / (double)r->count;

	s.total_events = r->count;
	s.total_duration_ns = r->total_ns;
	s.total_duration_ms = hesper_ns_to_ms(r->total_ns);
	s.avg_duration_ms = mean_ns / 1e6;
	s.min_duration_ms = hesper_ns_to_ms(r->min_ns);
	s.max_duration_ms = hesper_ns_to_ms(r->max_ns);
	s.median_duration_ms = hesper_ns_to_ms(r->median_ns);
	s.p95_duration_ms = hesper_ns_to_ms(r->p95_ns);
	s.p99_duration_ms = hesper_ns_to_ms(r->p99_ns);
	s.stddev_duration_ms = r->stddev_ns / 1e6;
	return s;
}

/* Checks every row of @kernels and adds up the bytes of their names (NULs included). */
static int
measure(const char *path, json_object *kernels, size_t *name_bytes, char *err, size_t err_size)
{
	struct hesper_summary_row r;

	*name_bytes = 0;
	for (size_t i = 0; i < json_object_array_length(kernels); i++) {
		int ret = hesper_summary_row_read(path, json_object_array_get_idx(kernels, i), false, &r, err,
						  err_size);

		if (ret != HESPER_OK)
			return ret;
		*name_bytes += strlen(r.name) + 1;
	}
	return HESPER_OK;
}

int
hesper_read_summary(const char *path, struct hesper_kernel_group **groups, size_t *n, char *err, size_t err_size)
{
	json_object *root = NULL, *kernels;
	struct hesper_kernel_group *g = NULL;
	size_t count, name_bytes;
	int ret;

	if (!groups || !n || !path)
		return hesper_json_file_fail(HESPER_ERROR_ARGUMENT, path, err, err_size,
					     "no path or no result pointer");
	*groups = NULL;
	*n = 0;
	ret = hesper_summary_document(path, &root, err, err_size);
	if (ret != HESPER_OK)
		goto out;
	kernels = hesper_json_member(root, "kernels");
	if (!kernels || !json_object_is_type(kernels, json_type_array)) {
		ret = hesper_json_file_fail(HESPER_ERROR_FORMAT, path, err, err_size, "no \"kernels\" array");
		goto out;
	}
	if ((ret = measure(path, kernels, &name_bytes, err, err_size)) != HESPER_OK)
		goto out;
	count = json_object_array_length(kernels);
	if (count == 0)
		goto out;
	g = malloc(count * sizeof(*g) + name_bytes);
	if (!g) {
		ret = hesper_json_file_fail(HESPER_ERROR_NO_MEMORY, path, err, err_size, "out of memory");
		goto out;
	}
	char *names = (char *)(g + count);
	for (size_t i = 0; i < count; i++) {
		struct hesper_summary_row r;
		size_t len;

		(void)hesper_summary_row_read(path, json_object_array_get_idx(kernels, i), false, &r, NULL, 0);
		len = strlen(r.name) + 1;
		memcpy(names, r.name, len);
		g[i].name = names;
		g[i].summary = summary_of(&r);
		g[i].events = NULL;
		g[i].n_events = 0;
		names += len;
	}
	*groups = g;
	*n = count;
out:
	json_object_put(root);
	return ret;
}
