/* Events and summaries as text in a caller's buffer (the seed's ToString), snprintf semantics. */
#include "model/model.h"

#include <inttypes.h>
#include <stdio.h>

#include "write/write.h"

#define CELL 48

int
hesper_event_format(char *buf, size_t size, const struct hesper_event *e)
{
	char d[CELL];

	if (!e)
		return snprintf(buf, size, "(no event)");
	hesper_format_duration(d, sizeof(d), (double)hesper_event_duration_ns(e));
	return snprintf(buf, size, "%s: %s (start %" PRIu64 " ns, end %" PRIu64 " ns)", e->name ? e->name : "?", d,
			e->start_ns, e->end_ns);
}

int
hesper_summary_format(char *buf, size_t size, const struct hesper_summary *s)
{
	char total[CELL], avg[CELL], min[CELL], max[CELL], med[CELL], p95[CELL], p99[CELL], sd[CELL];

	if (!s)
		return snprintf(buf, size, "(no summary)");
	if (s->total_events == 0)
		return snprintf(buf, size, "0 events");
	hesper_format_duration(total, CELL, s->total_duration_ms * 1e6);
	hesper_format_duration(avg, CELL, s->avg_duration_ms * 1e6);
	hesper_format_duration(min, CELL, s->min_duration_ms * 1e6);
	hesper_format_duration(max, CELL, s->max_duration_ms * 1e6);
	hesper_format_duration(med, CELL, s->median_duration_ms * 1e6);
	hesper_format_duration(p95, CELL, s->p95_duration_ms * 1e6);
	hesper_format_duration(p99, CELL, s->p99_duration_ms * 1e6);
	hesper_format_duration(sd, CELL, s->stddev_duration_ms * 1e6);
	return snprintf(buf, size,
			"%" PRIu64 " event%s: total %s, avg %s, min %s, max %s, median %s, p95 %s, p99 %s, "
			"stddev %s",
			s->total_events, s->total_events == 1 ? "" : "s", total, avg, min, max, med, p95, p99, sd);
}
