/*
 * Merging trace files (hesper-trace/1, or any Chrome trace-event JSON object) into one:
 * every process keeps its own track group. A pid already taken by an earlier file is
 * replaced with a fresh one above any Linux pid (2^22 and up). When every trace names
 * the same host and an origin, their clocks are the same CLOCK_MONOTONIC and the events
 * are shifted onto the earliest origin, so processes line up in time; otherwise each
 * keeps its own time 0 ("aligned": false in the metadata). A trace of a process already
 * merged (the same pid, host and origin: a copy of the file) is left out.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#define FRESH_PID_BASE 4194304 /* above PID_MAX_LIMIT on Linux */

struct input {
	const char *path;
	json_object *root;
	json_object *events;
	json_object *metadata; /* NULL when the file has none */
	int64_t pid, new_pid;
	uint64_t origin_ns;
	bool has_origin;
	const char *host;
};

static json_object *
member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The trace's pid: its metadata's, else its first event's. */
static int64_t
trace_pid(const struct input *in)
{
	json_object *pid = member(in->metadata, "pid");

	if (pid)
		return json_object_get_int64(pid);
	for (size_t i = 0; i < json_object_array_length(in->events); i++)
		if ((pid = member(json_object_array_get_idx(in->events, i), "pid")))
			return json_object_get_int64(pid);
	return 0;
}

static bool
pid_taken(const struct input *in, int n, int64_t pid)
{
	for (int i = 0; i < n; i++)
		if (in[i].new_pid == pid)
			return true;
	return false;
}

/* Replaces a microsecond member with @us printed to the nanosecond. */
static void
set_us(json_object *e, const char *key, double us)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", us);
	json_object_object_add(e, key, json_object_new_double_s(us, buf));
}

/* The earlier of @in (@n) that is a trace of the same process as @t, or NULL. */
static const struct input *
same_process(const struct input *in, int n, const struct input *t)
{
	for (int i = 0; i < n; i++)
		if (in[i].pid == t->pid && in[i].has_origin && t->has_origin && in[i].origin_ns == t->origin_ns &&
		    in[i].host && t->host && strcmp(in[i].host, t->host) == 0)
			return &in[i];
	return NULL;
}

static int
load(struct input *in, const char *path)
{
	in->path = path;
	in->root = json_object_from_file(path);
	if (!in->root) {
		fprintf(stderr, "hesper: %s: cannot read a JSON trace: %s", path, json_util_get_last_err());
		return -1;
	}
	in->events = member(in->root, "traceEvents");
	if (!in->events || !json_object_is_type(in->events, json_type_array)) {
		fprintf(stderr, "hesper: %s: not a trace (no \"traceEvents\" array)\n", path);
		return -1;
	}
	in->metadata = member(in->root, "metadata");
	json_object *origin = member(in->metadata, "origin_ns"), *host = member(in->metadata, "host");
	in->has_origin = origin && json_object_is_type(origin, json_type_int);
	in->origin_ns = in->has_origin ? json_object_get_uint64(origin) : 0;
	in->host = host && json_object_is_type(host, json_type_string) ? json_object_get_string(host) : NULL;
	in->pid = trace_pid(in);
	return 0;
}

int
hesper_merge_traces(const char *out_path, char **paths, int count, int *merged)
{
	struct input *in = calloc((size_t)count, sizeof(*in));
	json_object *out = NULL, *events, *meta, *procs;
	int ret = HESPER_EXIT_USAGE, next_fresh = FRESH_PID_BASE, n = 0;
	bool aligned = true;
	uint64_t origin = UINT64_MAX;

	if (!in) {
		fputs("hesper: out of memory\n", stderr);
		return ret;
	}
	*merged = 0;
	for (int k = 0; k < count; k++) {
		const struct input *twin;
		int i = n;

		if (load(&in[i], paths[k]) != 0) {
			n++; /* freed below */
			goto out;
		}
		if ((twin = same_process(in, i, &in[i]))) {
			fprintf(stderr,
				"hesper: merge: '%s' is a copy of the trace in '%s' (pid %" PRId64
				", the same host and start); merged once\n",
				in[i].path, twin->path, in[i].pid);
			json_object_put(in[i].root);
			memset(&in[i], 0, sizeof(in[i]));
			continue;
		}
		n++;
		aligned &= in[i].has_origin && in[i].host && in[0].host && strcmp(in[i].host, in[0].host) == 0;
		if (in[i].has_origin && in[i].origin_ns < origin)
			origin = in[i].origin_ns;
		in[i].new_pid = in[i].pid;
		while (pid_taken(in, i, in[i].new_pid))
			in[i].new_pid = next_fresh++;
	}

	out = json_object_new_object();
	events = json_object_new_array();
	json_object_object_add(out, "displayTimeUnit", json_object_new_string("ns"));
	json_object_object_add(out, "traceEvents", events);
	for (int i = 0; i < n; i++) {
		double shift_us = aligned ? (double)(in[i].origin_ns - origin) / 1000.0 : 0;

		for (size_t j = 0; j < json_object_array_length(in[i].events); j++) {
			json_object *e = json_object_array_get_idx(in[i].events, j), *v, *args;

			if (!json_object_is_type(e, json_type_object))
				continue;
			if (member(e, "pid"))
				json_object_object_add(e, "pid", json_object_new_int64(in[i].new_pid));
			if ((v = member(e, "ts")) &&
			    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
				set_us(e, "ts", json_object_get_double(v) + shift_us);
			if ((v = member(e, "dur")) && json_object_is_type(v, json_type_double))
				set_us(e, "dur", json_object_get_double(v));
			/* Processes in the order given. */
			if ((v = member(e, "name")) && strcmp(json_object_get_string(v), "process_sort_index") == 0 &&
			    (args = member(e, "args")))
				json_object_object_add(args, "sort_index", json_object_new_int(i));
			json_object_array_add(events, json_object_get(e));
		}
	}

	meta = json_object_new_object();
	procs = json_object_new_array();
	json_object_object_add(out, "metadata", meta);
	json_object_object_add(meta, "schema", json_object_new_string("hesper-trace/1"));
	json_object_object_add(meta, "merged", json_object_new_boolean(1));
	json_object_object_add(meta, "aligned", json_object_new_boolean(aligned));
	if (aligned)
		json_object_object_add(meta, "origin_ns", json_object_new_uint64(origin));
	json_object_object_add(meta, "processes", procs);
	for (int i = 0; i < n; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "file", json_object_new_string(in[i].path));
		json_object_object_add(p, "pid", json_object_new_int64(in[i].new_pid));
		json_object_object_add(p, "original_pid", json_object_new_int64(in[i].pid));
		json_object_object_add(p, "shift_ns", json_object_new_uint64(aligned ? in[i].origin_ns - origin : 0));
		if (in[i].metadata)
			json_object_object_add(p, "metadata", json_object_get(in[i].metadata));
		json_object_array_add(procs, p);
	}
	if (json_object_to_file_ext(out_path, out, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) != 0) {
		fprintf(stderr, "hesper: cannot write '%s': %s", out_path, json_util_get_last_err());
		goto out;
	}
	*merged = n;
	ret = 0;
out:
	json_object_put(out);
	for (int i = 0; i < n; i++)
		json_object_put(in[i].root);
	free(in);
	return ret;
}
