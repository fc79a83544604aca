/* The profile of one process: devices, queues, kernel/region tables and the summary. */
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
hesper_label_path_leaf(const char *path)
{
	const char *sep = strrchr(path, HESPER_LABEL_PATH_SEP);

	return sep ? sep + 1 : path;
}

int
hesper_profile_init(struct hesper_profile *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->mode, "dispatch");
	p->sample_every = 1;
	hesper_stats_init(&p->submits);
	hesper_memops_init(&p->memops);
	hesper_trace_init(&p->trace, HESPER_TRACE_DEFAULT_MAX_EVENTS);

	p->kernels = hesper_kernel_table_create();
	p->regions = hesper_kernel_table_create();
	p->labelled = hesper_kernel_table_create();
	p->label_paths = hesper_kernel_table_create();
	p->label_kernels = hesper_kernel_table_create();
	p->underfilled = hesper_kernel_table_create();
	p->row_kernels = hesper_kernel_table_create();
	hesper_findings_settings_default(&p->findings);
	if (!p->kernels || !p->regions || !p->labelled || !p->label_paths || !p->label_kernels || !p->underfilled ||
	    !p->row_kernels) {
		hesper_profile_free(p);
		return -1;
	}
	return 0;
}

void
hesper_profile_free(struct hesper_profile *p)
{
	hesper_kernel_table_destroy(p->kernels);
	hesper_kernel_table_destroy(p->regions);
	hesper_kernel_table_destroy(p->labelled);
	hesper_kernel_table_destroy(p->label_paths);
	hesper_kernel_table_destroy(p->label_kernels);
	hesper_kernel_table_destroy(p->underfilled);
	hesper_kernel_table_destroy(p->row_kernels);
	p->row_kernels = NULL;
	p->label_paths = p->label_kernels = NULL;
	free(p->host_waits);
	free(p->loaded_findings);
	p->loaded_findings = NULL;
	p->loaded_finding_count = 0;
	p->host_waits = NULL;
	p->host_wait_count = 0;
	p->underfilled = NULL;
	hesper_stats_free(&p->submits);
	hesper_memops_free(&p->memops);
	hesper_trace_free(&p->trace);
	free(p->devices);
	free(p->queues);
	free(p->clock_notes);
	p->clock_notes = NULL;
	for (size_t i = 0; i < p->pipeline_stats_count; i++)
		hesper_pipeline_stats_free(&p->pipeline_stats[i]);
	free(p->pipeline_stats);
	p->pipeline_stats = NULL;
	p->pipeline_stats_count = 0;
	for (size_t i = 0; i < p->kernel_lines_count; i++) {
		free(p->kernel_lines[i].kernel);
		free(p->kernel_lines[i].lines);
		free(p->kernel_lines[i].source_file);
		free(p->kernel_lines[i].source_read);
		free(p->kernel_lines[i].source);
	}
	free(p->kernel_lines);
	p->kernel_lines = NULL;
	p->kernel_lines_count = 0;
	for (size_t i = 0; i < 2; i++) {
		free(p->report.owned[i]);
		p->report.owned[i] = NULL;
	}
	p->report.reason = p->report.signal = NULL;
	p->clock_note_count = 0;
	p->kernels = p->regions = p->labelled = NULL;
	p->devices = NULL;
	p->queues = NULL;
	p->device_count = p->queue_count = 0;
}

int
hesper_profile_add_device(struct hesper_profile *p, const struct hesper_device_info *d)
{
	struct hesper_device_info *devices = realloc(p->devices, (p->device_count + 1) * sizeof(*devices));

	if (!devices)
		return -1;
	p->devices = devices;
	devices[p->device_count] = *d;
	/* The strings come from drivers; never trust them to be terminated. */
	devices[p->device_count].name[HESPER_NAME_MAX - 1] = '\0';
	devices[p->device_count].driver[HESPER_NAME_MAX - 1] = '\0';
	return (int)p->device_count++;
}

int
hesper_profile_add_clock_note(struct hesper_profile *p, const char *kernel, const char *why)
{
	for (size_t i = 0; i < p->clock_note_count; i++)
		if (strncmp(p->clock_notes[i].kernel, kernel, HESPER_NAME_MAX - 1) == 0)
			return 0;
	struct hesper_clock_note *notes = realloc(p->clock_notes, (p->clock_note_count + 1) * sizeof(*notes));

	if (!notes)
		return -1;
	p->clock_notes = notes;
	snprintf(notes[p->clock_note_count].kernel, HESPER_NAME_MAX, "%s", kernel);
	snprintf(notes[p->clock_note_count].why, sizeof(notes->why), "%s", why);
	p->clock_note_count++;
	return 0;
}

bool
hesper_device_lacks_stats(const struct hesper_device_info *d)
{
	return strcmp(d->pipeline_stats, HESPER_STATS_NOT_OFFERED) == 0;
}

bool
hesper_profile_shows_stats(const struct hesper_profile *p)
{
	bool lacking = false;

	for (size_t i = 0; i < p->device_count; i++)
		lacking |= hesper_device_lacks_stats(&p->devices[i]);
	return p->pipeline_stats_count || lacking;
}

int
hesper_profile_add_pipeline_stats(struct hesper_profile *p, const struct hesper_pipeline_stats *s)
{
	uint32_t sets = 0;

	for (size_t i = 0; i < p->pipeline_stats_count; i++) {
		struct hesper_pipeline_stats *k = &p->pipeline_stats[i];
		if (hesper_pipeline_stats_same(k, s)) {
			k->dispatches += s->dispatches;
			return (int)k->variant;
		}
		sets += strcmp(k->kernel, s->kernel ? s->kernel : "") == 0;
	}
	struct hesper_pipeline_stats *all = realloc(p->pipeline_stats, (p->pipeline_stats_count + 1) * sizeof(*all));

	if (!all || sets > INT32_MAX)
		return -1;
	p->pipeline_stats = all;
	if (hesper_pipeline_stats_copy(&all[p->pipeline_stats_count], s) != 0)
		return -1;
	all[p->pipeline_stats_count].variant = sets;
	p->pipeline_stats_count++;
	return (int)sets;
}

int
hesper_profile_set_lines(struct hesper_profile *p, const char *kernel, const struct hesper_hot_line *lines, size_t n,
			 uint64_t dispatches)
{
	struct hesper_kernel_lines *k = NULL;
	struct hesper_hot_line *copy = n ? malloc(n * sizeof(*copy)) : NULL;

	if (n && !copy)
		return -1;
	if (n)
		memcpy(copy, lines, n * sizeof(*copy));
	for (size_t i = 0; i < p->kernel_lines_count && !k; i++)
		if (strcmp(p->kernel_lines[i].kernel, kernel) == 0)
			k = &p->kernel_lines[i];
	if (!k) {
		struct hesper_kernel_lines *all = realloc(p->kernel_lines, (p->kernel_lines_count + 1) * sizeof(*all));
		char *name = strdup(kernel);
		if (all)
			p->kernel_lines = all;
		if (!all || !name) {
			free(name);
			free(copy);
			return -1;
		}
		k = &all[p->kernel_lines_count++];
		*k = (struct hesper_kernel_lines){.kernel = name};
	}
	free(k->lines);
	k->lines = copy;
	k->count = n;
	k->dispatches = dispatches;
	return 0;
}

int
hesper_profile_set_source(struct hesper_profile *p, const char *kernel, const char *file, const char *text,
			  const char *read_from)
{
	for (size_t i = 0; i < p->kernel_lines_count; i++) {
		struct hesper_kernel_lines *k = &p->kernel_lines[i];
		if (strcmp(k->kernel, kernel) != 0)
			continue;
		bool some = file && text;
		free(k->source_file);
		free(k->source);
		free(k->source_read);
		k->source_file = some ? strdup(file) : NULL;
		k->source = some ? strdup(text) : NULL;
		k->source_read = some && read_from ? strdup(read_from) : NULL;
		if (some && (!k->source_file || !k->source || (read_from && !k->source_read))) {
			free(k->source_file);
			free(k->source);
			free(k->source_read);
			k->source_file = k->source = k->source_read = NULL;
			return -1;
		}
		return 0;
	}
	return 0;
}

size_t
hesper_profile_stats_sets(const struct hesper_profile *p, const char *kernel)
{
	size_t n = 0;

	for (size_t i = 0; i < p->pipeline_stats_count; i++)
		n += strcmp(p->pipeline_stats[i].kernel, kernel) == 0;
	return n;
}

/* Adding a queue may move the array: a pointer returned earlier is valid until the next new queue. */
struct hesper_queue_info *
hesper_profile_queue(struct hesper_profile *p, uint32_t device, uint32_t family, uint32_t index)
{
	for (size_t i = 0; i < p->queue_count; i++) {
		struct hesper_queue_info *q = &p->queues[i];

		if (q->device == device && q->family == family && q->index == index)
			return q;
	}

	struct hesper_queue_info *queues = realloc(p->queues, (p->queue_count + 1) * sizeof(*queues));
	if (!queues)
		return NULL;
	p->queues = queues;
	struct hesper_queue_info *q = &queues[p->queue_count++];
	memset(q, 0, sizeof(*q));
	q->device = device;
	q->family = family;
	q->index = index;
	return q;
}

void
hesper_gaps_keep(struct hesper_queue_info *q, const struct hesper_gap *g)
{
	uint32_t at = q->gap_count;

	while (at > 0 && q->gaps[at - 1].length_ns < g->length_ns)
		at--;
	if (at >= HESPER_TOP_GAPS)
		return;
	uint32_t kept = q->gap_count < HESPER_TOP_GAPS ? q->gap_count + 1 : HESPER_TOP_GAPS;
	memmove(&q->gaps[at + 1], &q->gaps[at], (kept - 1 - at) * sizeof(q->gaps[0]));
	q->gaps[at] = *g;
	q->gap_count = kept;
}

static uint64_t add_saturating(uint64_t a, uint64_t b);

int
hesper_profile_add_host_wait(struct hesper_profile *p, uint32_t thread, enum hesper_wait_call call, uint64_t count,
			     uint64_t total_ns, uint64_t max_ns)
{
	size_t at = 0;

	/* Kept sorted by thread, then call: the reports print them in that order. */
	while (at < p->host_wait_count && (p->host_waits[at].thread < thread ||
					   (p->host_waits[at].thread == thread && p->host_waits[at].call < call)))
		at++;
	if (at < p->host_wait_count && p->host_waits[at].thread == thread && p->host_waits[at].call == call) {
		struct hesper_host_wait *w = &p->host_waits[at];

		w->count = add_saturating(w->count, count);
		w->total_ns = add_saturating(w->total_ns, total_ns);
		if (max_ns > w->max_ns)
			w->max_ns = max_ns;
		return 0;
	}
	struct hesper_host_wait *rows = realloc(p->host_waits, (p->host_wait_count + 1) * sizeof(*rows));
	if (!rows)
		return -1;
	p->host_waits = rows;
	memmove(&rows[at + 1], &rows[at], (p->host_wait_count - at) * sizeof(*rows));
	rows[at] = (struct hesper_host_wait){thread, (uint32_t)call, count, total_ns, max_ns};
	p->host_wait_count++;
	return 0;
}

const char *
hesper_wait_call_name(uint32_t call)
{
	static const char *const names[HESPER_WAIT_CALLS] = {
		"vkQueueWaitIdle",  "vkDeviceWaitIdle",      "vkWaitForFences",
		"vkWaitSemaphores", "vkGetQueryPoolResults", "vkGetFenceStatus",
	};

	return call < HESPER_WAIT_CALLS ? names[call] : "?";
}

static uint64_t
add_saturating(uint64_t a, uint64_t b)
{
	uint64_t sum;

	return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

uint64_t
hesper_profile_gpu_busy_ns(const struct hesper_profile *p)
{
	uint64_t busy = 0;

	for (size_t i = 0; i < p->queue_count; i++)
		busy = add_saturating(busy, p->queues[i].busy_ns);
	return busy;
}

uint64_t
hesper_capture_wall_ns(const struct hesper_capture_info *c, uint64_t report_ns)
{
	if (!c->opened)
		return 0;
	/* A submission inside runs on after its submit call: the window lasts until its work ends. */
	uint64_t end = c->closed ? c->closed_ns : report_ns;
	if (c->end_ns > end)
		end = c->end_ns;
	return end > c->opened_ns ? end - c->opened_ns : 0;
}

uint64_t
hesper_profile_busy_wall_ns(const struct hesper_profile *p)
{
	return p->capture.set ? hesper_capture_wall_ns(&p->capture, p->wall_ns) : p->wall_ns;
}

size_t
hesper_profile_kernel_count(const struct hesper_profile *p, size_t rows)
{
	size_t kernels = p->group_by != HESPER_GROUP_BY_KERNEL ? hesper_kernel_table_size(p->row_kernels) : 0;

	return kernels ? kernels : rows;
}

struct hesper_profile_summary
hesper_profile_summary(const struct hesper_profile *p)
{
	struct hesper_profile_summary s = {0};
	uint64_t timed_total = 0;
	size_t cursor = 0;
	struct hesper_kernel *k;

	s.min_ns = UINT64_MAX;
	while (p->kernels && (k = hesper_kernel_table_next(p->kernels, &cursor))) {
		s.events = add_saturating(s.events, k->timed.count);
		s.dispatches = add_saturating(s.dispatches, k->count);
		s.total_ns = add_saturating(s.total_ns, hesper_kernel_total_ns(k));
		timed_total = add_saturating(timed_total, k->timed.total_ns);
		if (k->timed.count == 0)
			continue;
		if (k->timed.min_ns < s.min_ns)
			s.min_ns = k->timed.min_ns;
		if (k->timed.max_ns > s.max_ns)
			s.max_ns = k->timed.max_ns;
	}
	if (s.events == 0)
		s.min_ns = 0;
	else
		s.avg_ns = (double)timed_total / (double)s.events;
	return s;
}
