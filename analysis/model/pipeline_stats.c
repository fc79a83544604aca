/* A kernel's pipeline statistics (pipeline_stats.h). */
#include "pipeline_stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
hesper_pipeline_stat_value(const struct hesper_pipeline_stat *s, char *buf, size_t size)
{
	switch (s->format) {
	case HESPER_STAT_BOOL: snprintf(buf, size, "%s", s->value.b ? "true" : "false"); break;
	case HESPER_STAT_INT: snprintf(buf, size, "%" PRId64, s->value.i); break;
	case HESPER_STAT_UINT: snprintf(buf, size, "%" PRIu64, s->value.u); break;
	case HESPER_STAT_FLOAT: snprintf(buf, size, "%.6g", s->value.f); break;
	}
}

int
hesper_pipeline_stats_copy(struct hesper_pipeline_stats *to, const struct hesper_pipeline_stats *from)
{
	*to = *from;
	to->stats = NULL;
	to->count = 0;
	to->kernel = strdup(from->kernel ? from->kernel : "");
	if (from->count)
		to->stats = malloc(from->count * sizeof(*to->stats));
	if (!to->kernel || (from->count && !to->stats)) {
		hesper_pipeline_stats_free(to);
		return -1;
	}
	if (from->count)
		memcpy(to->stats, from->stats, from->count * sizeof(*to->stats));
	to->count = from->count;
	return 0;
}

bool
hesper_pipeline_stats_same(const struct hesper_pipeline_stats *a, const struct hesper_pipeline_stats *b)
{
	if (strcmp(a->kernel ? a->kernel : "", b->kernel ? b->kernel : "") != 0 ||
	    strncmp(a->executable, b->executable, sizeof(a->executable)) != 0 || a->subgroup_size != b->subgroup_size ||
	    a->device != b->device || memcmp(a->local_size, b->local_size, sizeof(a->local_size)) != 0 ||
	    a->count != b->count)
		return false;
	for (size_t i = 0; i < a->count; i++) {
		const struct hesper_pipeline_stat *x = &a->stats[i], *y = &b->stats[i];
		if (strncmp(x->name, y->name, sizeof(x->name)) != 0 || x->format != y->format)
			return false;
		bool same = x->format == HESPER_STAT_BOOL   ? x->value.b == y->value.b
			    : x->format == HESPER_STAT_INT  ? x->value.i == y->value.i
			    : x->format == HESPER_STAT_UINT ? x->value.u == y->value.u
							    : memcmp(&x->value.f, &y->value.f, sizeof(x->value.f)) == 0;
		if (!same)
			return false;
	}
	return true;
}

void
hesper_pipeline_stats_free(struct hesper_pipeline_stats *s)
{
	free(s->kernel);
	free(s->stats);
	s->kernel = NULL;
	s->stats = NULL;
	s->count = 0;
}
