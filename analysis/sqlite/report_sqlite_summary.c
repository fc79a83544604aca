/*
 * The SQLite sink's summary tables (report_sqlite_parts.h): the process, its devices and
 * queues, the kernel and region rows, pipeline statistics and occupancy, rewritten at each
 * report.
 */
#include "report_sqlite_parts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "profile/profile.h"
#include "model/model.h"
#include "sqlite_calls.h"

/* One value to bind. */
struct value {
	enum { V_INT, V_REAL, V_TEXT, V_NULL } type;
	int64_t i;
	double r;
	const char *t;
};

#define I(x) ((struct value){.type = V_INT, .i = (int64_t)(x)})
#define R(x) ((struct value){.type = V_REAL, .r = isfinite((double)(x)) ? (double)(x) : 0})
#define T(x) ((struct value){.type = V_TEXT, .t = (x)})
/* @x when @timed, else NULL: a row never timed (submit mode) has no time, and 0 would read as one. */
#define TI(timed, x) ((timed) ? I(x) : (struct value){.type = V_NULL})
#define TR(timed, x) ((timed) ? R(x) : (struct value){.type = V_NULL})

/* Runs @sql once with @values bound in order; 0, or -1 with a reason. */
static int
run(sqlite3 *db, const char *sql, const struct value *values, size_t n, char *why, size_t size)
{
	sqlite3_stmt *s = NULL;
	int ret;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return hesper_sqlite_fail(db, why, size, "cannot prepare a statement");
	for (size_t i = 0; i < n; i++) {
		int col = (int)i + 1;

		switch (values[i].type) {
		case V_INT: sqlite3_bind_int64(s, col, values[i].i); break;
		case V_REAL: sqlite3_bind_double(s, col, values[i].r); break;
		case V_TEXT: sqlite3_bind_text(s, col, values[i].t, -1, SQLITE_TRANSIENT); break;
		case V_NULL: break; /* a parameter left unbound is NULL */
		}
	}
	ret = hesper_sqlite_step(db, s, why, size);
	sqlite3_finalize(s);
	return ret;
}

/* A bounded string field of the profile as a C string (they may lack a terminator). */
static const char *
field(char *buf, const char *s, size_t max)
{
	size_t len = strnlen(s, max < HESPER_NAME_MAX ? max : HESPER_NAME_MAX);

	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

static int
write_process(struct database *d, const struct hesper_profile *p, char *why, size_t size)
{
	char exe[HESPER_NAME_MAX + 1], host[HESPER_NAME_MAX + 1], mode[HESPER_NAME_MAX + 1];
	struct value v[] = {
		I(PROCESS_ID),
		I(p->pid),
		T(field(exe, p->exe, sizeof(p->exe))),
		T(field(host, p->host, sizeof(p->host))),
		T(field(mode, p->mode, sizeof(p->mode))),
		I(p->sample_every),
		I(p->trace.origin_ns),
		I(p->wall_ns),
		I(hesper_profile_gpu_busy_ns(p)),
		I(p->dropped),
		I(p->clamped),
		I(p->submits.count),
		I(p->submits.total_ns),
		I(p->trace.calibrated),
		R(p->trace.alignment_error_ns),
	};
	struct value cost[] = {
		I(PROCESS_ID),        I(p->timestamps_written), I(p->hook_ns),
		I(p->submit_hook_ns), I(p->collector_ns),       I(p->collected),
		I(p->copies_ahead),   I(d->events_streamed),    I(d->stream_ns),
	};

	if (run(d->db, "INSERT OR REPLACE INTO process VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", v,
		sizeof(v) / sizeof(v[0]), why, size) != 0)
		return -1;
	return run(d->db, "INSERT OR REPLACE INTO hesper_cost VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)", cost,
		   sizeof(cost) / sizeof(cost[0]), why, size);
}

static int
write_devices_and_queues(struct database *d, const struct hesper_profile *p, char *why, size_t size)
{
	char name[HESPER_NAME_MAX + 1], driver[HESPER_NAME_MAX + 1], copy[16];

	for (size_t i = 0; i < p->device_count; i++) {
		const struct hesper_device_info *dev = &p->devices[i];
		struct value v[] = {
			I(i + 1),
			I(PROCESS_ID),
			I(i),
			T(field(name, dev->name, sizeof(dev->name))),
			T(field(driver, dev->driver, sizeof(dev->driver))),
			R(dev->timestamp_period_ns),
			T(field(copy, dev->copy, sizeof(dev->copy))),
		};
		if (run(d->db, "INSERT OR REPLACE INTO devices VALUES(?, ?, ?, ?, ?, ?, ?)", v,
			sizeof(v) / sizeof(v[0]), why, size) != 0)
			return -1;
	}
	for (size_t i = 0; i < p->queue_count; i++) {
		const struct hesper_queue_info *q = &p->queues[i];
		struct value v[] = {
			I(i + 1),    I(PROCESS_ID),        I(q->device + 1), I(q->family),
			I(q->index), I(q->timestamp_bits), I(q->submits),    I(q->busy_ns),
		};
		if (run(d->db, "INSERT OR REPLACE INTO queues VALUES(?, ?, ?, ?, ?, ?, ?, ?)", v,
			sizeof(v) / sizeof(v[0]), why, size) != 0)
			return -1;
	}
	return 0;
}

/* The kernels table: one row per profile kernel, with the JSON summary's numbers. */
static int
write_kernels(struct database *d, const struct hesper_profile *p, char *why, size_t size)
{
	size_t cursor = 0;
	struct hesper_kernel *k;

	while ((k = hesper_kernel_table_next(p->kernels, &cursor))) {
		const struct hesper_stats *s = &k->timed;
		int64_t id;

		if (hesper_sqlite_name_id(d, d->kernel_ids, &d->next_kernel_id, d->insert[INSERT_KERNEL_NAME], k->name,
					  &id, why, size) != 0)
			return -1;
		bool timed = s->count > 0;
		struct value v[] = {
			I(k->count),
			I(s->count),
			TI(timed, hesper_kernel_total_ns(k)),
			TR(timed, s->mean_ns),
			TI(timed, hesper_stats_quantile(s, 0.5)),
			TI(timed, s->min_ns),
			TI(timed, s->max_ns),
			TR(timed, hesper_stats_stddev(s)),
			TI(timed, hesper_stats_quantile(s, 0.95)),
			TI(timed, hesper_stats_quantile(s, 0.99)),
			I(id),
		};
		if (run(d->db,
			"UPDATE kernels SET count = ?, timed = ?, total_ns = ?, mean_ns = ?, median_ns = ?, min_ns = ?,"
			" max_ns = ?, stddev_ns = ?, p95_ns = ?, p99_ns = ? WHERE id = ?",
			v, sizeof(v) / sizeof(v[0]), why, size) != 0)
			return -1;
	}
	cursor = 0;
	while ((k = hesper_kernel_table_next(p->regions, &cursor))) {
		int64_t id;

		if (hesper_sqlite_name_id(d, d->region_ids, &d->next_region_id, d->insert[INSERT_REGION_NAME], k->name,
					  &id, why, size) != 0)
			return -1;
		struct value v[] = {I(k->count), I(k->timed.count), TI(k->timed.count > 0, hesper_kernel_total_ns(k)),
				    I(id)};
		if (run(d->db, "UPDATE regions SET count = ?, timed = ?, total_ns = ? WHERE id = ?", v,
			sizeof(v) / sizeof(v[0]), why, size) != 0)
			return -1;
	}
	return 0;
}

/* The kernels' pipeline statistics, one row per statistic (rewritten whole at each report). */
static int
write_pipeline_stats(struct database *d, const struct hesper_profile *p, char *why, size_t size)
{
	struct value process[] = {I(PROCESS_ID)};

	if (run(d->db, "DELETE FROM pipeline_stats WHERE process = ?", process, 1, why, size) != 0)
		return -1;
	for (size_t i = 0; i < p->pipeline_stats_count; i++) {
		const struct hesper_pipeline_stats *k = &p->pipeline_stats[i];

		for (size_t j = 0; j < k->count; j++) {
			const struct hesper_pipeline_stat *st = &k->stats[j];
			char name[HESPER_STAT_NAME_MAX + 1], executable[HESPER_STAT_NAME_MAX + 1];
			struct value v[] = {
				I(PROCESS_ID),
				T(k->kernel),
				T(field(executable, k->executable, sizeof(k->executable))),
				I(k->subgroup_size),
				T(field(name, st->name, sizeof(st->name))),
				st->format == HESPER_STAT_FLOAT ? R(st->value.f)
				: st->format == HESPER_STAT_INT ? I(st->value.i)
				: st->format == HESPER_STAT_BOOL
					? I(st->value.b)
					/* past INT64_MAX an integer column would wrap: a REAL then */
					: (st->value.u > INT64_MAX ? R((double)st->value.u) : I(st->value.u)),
				I(k->variant),
				I(k->dispatches > INT64_MAX ? INT64_MAX : k->dispatches),
			};
			if (run(d->db, "INSERT INTO pipeline_stats VALUES(?, ?, ?, ?, ?, ?, ?, ?)", v,
				sizeof(v) / sizeof(v[0]), why, size) != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * The kernels' theoretical occupancy, one row per kernel whose device says anything of it
 * (rewritten whole at each report): NULL figures where it is unknown, and why.
 */
static int
write_occupancy(struct database *d, const struct hesper_profile *p, char *why, size_t size)
{
	struct value process[] = {I(PROCESS_ID)};
	const struct value null = {.type = V_NULL};

	if (run(d->db, "DELETE FROM pipeline_occupancy WHERE process = ?", process, 1, why, size) != 0)
		return -1;
	for (size_t i = 0; i < p->pipeline_stats_count; i++) {
		const struct hesper_pipeline_stats *k = &p->pipeline_stats[i];
		struct hesper_occupancy o = hesper_stats_occupancy(p, k);
		bool known = o.limit != HESPER_LIMIT_UNKNOWN;
		uint64_t device_groups = hesper_occupancy_device_groups(p, k, &o);

		if (!hesper_stats_shows_occupancy(p, k))
			continue;
		struct value v[] = {
			I(PROCESS_ID),
			T(k->kernel),
			known ? R(o.share) : null,
			known ? I(o.groups_per_sm) : null,
			known ? I(o.warps_per_sm) : null,
			device_groups ? I(device_groups) : null,
			T(hesper_occupancy_limit_word(o.limit)),
			I(o.at_most),
			o.why ? T(o.why) : null,
			I(k->variant),
		};
		if (run(d->db, "INSERT INTO pipeline_occupancy VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", v,
			sizeof(v) / sizeof(v[0]), why, size) != 0)
			return -1;
	}
	return 0;
}

/*
 * The counted kernels' hot lines (HESPER_LINES), a row per line or block without line,
 * and the source text of each kernel's hottest line's file where known (rewritten whole
 * at each report). NULL file and line for a block without line; NULL block and code for a
 * line.
 */
static int
write_hot_lines(struct database *d, const struct hesper_profile *p, char *why, size_t size)
{
	struct value process[] = {I(PROCESS_ID)};
	const struct value null = {.type = V_NULL};

	if (run(d->db, "DELETE FROM hot_lines WHERE process = ?", process, 1, why, size) != 0 ||
	    run(d->db, "DELETE FROM hot_line_sources WHERE process = ?", process, 1, why, size) != 0)
		return -1;
	for (size_t i = 0; i < p->kernel_lines_count; i++) {
		const struct hesper_kernel_lines *k = &p->kernel_lines[i];
		for (size_t j = 0; j < k->count; j++) {
			const struct hesper_hot_line *l = &k->lines[j];
			struct value v[] = {
				I(PROCESS_ID),
				T(k->kernel),
				I(k->dispatches > INT64_MAX ? INT64_MAX : k->dispatches),
				l->line ? T(l->file) : null,
				l->line ? I(l->line) : null,
				l->block[0] ? T(l->block) : null,
				R(l->share),
				R(l->ticks),
				I(l->executions > INT64_MAX ? INT64_MAX : l->executions),
				l->code[0] ? T(l->code) : null,
			};
			if (run(d->db, "INSERT INTO hot_lines VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", v,
				sizeof(v) / sizeof(v[0]), why, size) != 0)
				return -1;
		}
		if (!k->source)
			continue;
		struct value v[] = {I(PROCESS_ID), T(k->kernel), T(k->source_file), T(k->source),
				    k->source_read ? T(k->source_read) : null};
		if (run(d->db, "INSERT INTO hot_line_sources VALUES(?, ?, ?, ?, ?)", v, sizeof(v) / sizeof(v[0]), why,
			size) != 0)
			return -1;
	}
	return 0;
}

int
hesper_sqlite_write_summary(struct database *d, const struct hesper_profile *p, char *why, size_t size)
{
	return write_process(d, p, why, size) != 0 || write_devices_and_queues(d, p, why, size) != 0 ||
			       write_kernels(d, p, why, size) != 0 || write_pipeline_stats(d, p, why, size) != 0 ||
			       write_occupancy(d, p, why, size) != 0 || write_hot_lines(d, p, why, size) != 0
		       ? -1
		       : 0;
}
