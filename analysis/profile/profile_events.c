/* A program's own events as a profile: kernel rows, one queue's timeline and busy time. */
#include "profile_events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"

static const char *
name_of(const struct hesper_event *e)
{
	return e->name ? e->name : "?";
}

static void
set_process(struct hesper_profile *p, const struct hesper_report_info *info)
{
	const char *program = info && info->program ? info->program : program_invocation_short_name;

	p->pid = (int)getpid();
	snprintf(p->exe, sizeof(p->exe), "%s", program ? program : "?");
	if (gethostname(p->host, sizeof(p->host)) != 0)
		p->host[0] = '\0';
	p->host[sizeof(p->host) - 1] = '\0';
	snprintf(p->mode, sizeof(p->mode), "events");
	p->from_events = true;
}

/* Busy time of the union of the intervals of @n events sorted by start. */
static uint64_t
union_ns(const struct hesper_event *sorted, size_t n)
{
	uint64_t busy = 0, from = 0, to = 0;
	bool open = false;

	for (size_t i = 0; i < n; i++) {
		const struct hesper_event *e = &sorted[i];

		if (e->end_ns <= e->start_ns)
			continue;
		if (open && e->start_ns <= to) {
			to = e->end_ns > to ? e->end_ns : to;
			continue;
		}
		if (open)
			busy += to - from;
		from = e->start_ns;
		to = e->end_ns;
		open = true;
	}
	return open ? busy + (to - from) : busy;
}

/* Queue 0 (on device 0) with the busy time and wall time of @n events, in a sorted copy. */
static int
add_queue(struct hesper_profile *p, const struct hesper_event *events, size_t n)
{
	struct hesper_queue_info *q = hesper_profile_queue(p, 0, 0, 0);
	struct hesper_event *sorted = malloc(n * sizeof(*sorted));
	uint64_t first = UINT64_MAX, last = 0;

	if (!q || !sorted) {
		free(sorted);
		return -1;
	}
	memcpy(sorted, events, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), hesper_event_compare);
	q->busy_ns = union_ns(sorted, n);
	q->timestamp_bits = 64;
	free(sorted);
	for (size_t i = 0; i < n; i++) {
		first = events[i].start_ns < first ? events[i].start_ns : first;
		last = events[i].end_ns > last ? events[i].end_ns : last;
	}
	p->wall_ns = last > first ? last - first : 0;
	return 0;
}

static int
add_events(struct hesper_profile *p, const struct hesper_event *events, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct hesper_event *e = &events[i];
		struct hesper_kernel *k = hesper_kernel_table_get(p->kernels, name_of(e));
		struct hesper_trace_event t = {
			.kind = HESPER_TRACE_DISPATCH,
			.name = name_of(e),
			.start_ns = e->start_ns,
			.end_ns = e->end_ns,
		};

		if (!k)
			return -1;
		/*
		 * As the layer treats an interval that came back zero or negative: counted and
		 * clamped, its 0 ns left out of the statistics (no measurement).
		 */
		if (e->end_ns <= e->start_ns) {
			p->clamped++;
			hesper_kernel_count_untimed(k, 1);
		} else {
			hesper_kernel_record(k, hesper_event_duration_ns(e));
		}
		if (!hesper_trace_add(&p->trace, &t))
			return -1;
	}
	return 0;
}

int
hesper_profile_from_events(struct hesper_profile *p, const struct hesper_event *events, size_t n,
			   const struct hesper_report_info *info)
{
	if (hesper_profile_init(p) != 0)
		return -1;
	set_process(p, info);
	if (info && info->device) {
		struct hesper_device_info d = {.timestamp_period_ns = info->timestamp_period_ns};

		snprintf(d.name, sizeof(d.name), "%s", info->device);
		if (hesper_profile_add_device(p, &d) < 0)
			goto fail;
	}
	p->trace.max_events = n;
	if (n == 0)
		return 0;
	if (add_queue(p, events, n) != 0 || add_events(p, events, n) != 0)
		goto fail;
	return 0;
fail:
	hesper_profile_free(p);
	return -1;
}
