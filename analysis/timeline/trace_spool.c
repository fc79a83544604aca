/* Timeline events streamed to a temporary file (see trace_spool.h). */
#include "trace_spool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 4096 /* records read back at a time */

struct hesper_trace_spool *
hesper_trace_spool_open(void)
{
	struct hesper_trace_spool *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->file = tmpfile();
	if (!s->file) {
		int saved = errno;
		free(s);
		errno = saved;
		return NULL;
	}
	s->first_start_ns = UINT64_MAX;
	return s;
}

/* The group of @e, added on first use; NULL when memory runs out. */
static struct hesper_spool_group *
group_of(struct hesper_trace_spool *s, const struct hesper_trace_event *e)
{
	uint32_t key = hesper_trace_kind_is_host(e->kind) ? e->thread : e->queue;
	for (size_t i = 0; i < s->group_count; i++)
		if (s->groups[i].kind == e->kind && s->groups[i].key == key)
			return &s->groups[i];
	if (s->group_count == s->group_capacity) {
		size_t capacity = s->group_capacity ? s->group_capacity * 2 : 8;
		struct hesper_spool_group *groups = realloc(s->groups, capacity * sizeof(*groups));
		if (!groups)
			return NULL;
		s->groups = groups;
		s->group_capacity = capacity;
	}
	struct hesper_spool_group *g = &s->groups[s->group_count++];
	memset(g, 0, sizeof(*g));
	g->kind = e->kind;
	g->key = key;
	return g;
}

/* A new track for lane @lane (from 0) of @g; false when memory runs out. */
static bool
add_track(struct hesper_trace_spool *s, struct hesper_spool_group *g, uint32_t lane)
{
	if (s->track_count == s->track_capacity) {
		size_t capacity = s->track_capacity ? s->track_capacity * 2 : 16;
		struct hesper_trace_track *tracks = realloc(s->tracks, capacity * sizeof(*tracks));
		if (!tracks)
			return false;
		s->tracks = tracks;
		s->track_capacity = capacity;
	}
	s->tracks[s->track_count] = (struct hesper_trace_track){.kind = g->kind, .key = g->key, .lane = lane + 1};
	g->lane_track[lane] = (uint32_t)s->track_count++;
	g->lane_end[lane] = 0;
	g->lanes = lane + 1;
	return true;
}

bool
hesper_trace_spool_add(struct hesper_trace_spool *s, const struct hesper_trace_event *e)
{
	struct hesper_spool_group *g = group_of(s, e);
	if (!g) {
		s->lost++;
		return false;
	}
	uint64_t end = e->end_ns > e->start_ns ? e->end_ns : e->start_ns;
	uint32_t lane = 0;
	while (lane < g->lanes && g->lane_end[lane] > e->start_ns)
		lane++;
	if (lane == g->lanes) {
		if (lane == HESPER_TRACE_MAX_LANES) {
			s->unplaced++;
			return false;
		}
		if (!add_track(s, g, lane)) {
			s->lost++;
			return false;
		}
	}
	g->lane_end[lane] = end;
	struct hesper_spool_record r = {.event = *e, .track = g->lane_track[lane]};
	if (fwrite(&r, sizeof(r), 1, s->file) != 1) {
		s->lost++;
		return false;
	}
	s->count++;
	if (e->start_ns < s->first_start_ns)
		s->first_start_ns = e->start_ns;
	return true;
}

int
hesper_trace_spool_each(struct hesper_trace_spool *s, int (*fn)(const struct hesper_spool_record *r, void *arg),
			void *arg)
{
	struct hesper_spool_record *buf = malloc(CHUNK * sizeof(*buf));
	int ret = -1;
	if (!buf)
		return -1;
	if (fflush(s->file) != 0)
		goto out;
	/* pread: the file's position stays where the next event is appended. */
	int fd = fileno(s->file);
	uint64_t done = 0;
	while (done < s->count) {
		size_t want = s->count - done < CHUNK ? (size_t)(s->count - done) : CHUNK;
		char *at = (char *)buf;
		size_t left = want * sizeof(*buf);
		off_t from = (off_t)(done * sizeof(*buf));
		while (left > 0) {
			ssize_t n = pread(fd, at, left, from);
			if (n < 0 && errno == EINTR)
				continue;
			/* n > left cannot happen; saying so lets the compiler bound the next read. */
			if (n <= 0 || (size_t)n > left)
				goto out;
			at += n;
			left -= (size_t)n;
			from += n;
		}
		for (size_t i = 0; i < want; i++)
			if (fn(&buf[i], arg) != 0)
				goto out;
		done += want;
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

void
hesper_trace_spool_close(struct hesper_trace_spool *s)
{
	if (!s)
		return;
	if (s->file)
		fclose(s->file);
	free(s->groups);
	free(s->tracks);
	free(s);
}
