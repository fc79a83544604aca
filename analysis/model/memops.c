/* Per-kind rows of memory operations: counts, durations, bytes and GB/s. */
#include "memops.h"

#include <string.h>

static const char *const memop_names[HESPER_MEMOP_KINDS] = {
	"copy_buffer", "copy_image",    "copy_buffer_to_image", "copy_image_to_buffer",
	"fill_buffer", "update_buffer", "clear_color_image",
};

const char *
hesper_memop_name(enum hesper_memop_kind kind)
{
	return (unsigned)kind < HESPER_MEMOP_KINDS ? memop_names[kind] : NULL;
}

enum hesper_memop_kind
hesper_memop_kind_of(const char *name)
{
	for (int i = 0; name && i < HESPER_MEMOP_KINDS; i++)
		if (strcmp(name, memop_names[i]) == 0)
			return (enum hesper_memop_kind)i;
	return HESPER_MEMOP_KINDS;
}

void
hesper_memops_init(struct hesper_memops *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < HESPER_MEMOP_KINDS; i++) {
		/* The rows borrow the static names; hesper_memops_free never frees them. */
		m->rows[i].k.name = (char *)memop_names[i];
		hesper_stats_init(&m->rows[i].k.timed);
	}
}

void
hesper_memops_free(struct hesper_memops *m)
{
	for (int i = 0; i < HESPER_MEMOP_KINDS; i++)
		hesper_stats_free(&m->rows[i].k.timed);
}

static void
add_bytes(uint64_t *into, uint64_t bytes)
{
	if (__builtin_add_overflow(*into, bytes, into))
		*into = UINT64_MAX;
}

void
hesper_memop_record(struct hesper_memop_row *row, uint64_t bytes, bool sized, uint64_t ns)
{
	hesper_kernel_record(&row->k, ns);
	add_bytes(&row->bytes, bytes);
	add_bytes(&row->timed_bytes, bytes);
	row->unsized += !sized;
	/* bytes per ns is GB/s (10^9 bytes per second). */
	if (sized && bytes && ns && (double)bytes / (double)ns > row->best_gbps) {
		row->best_gbps = (double)bytes / (double)ns;
		row->best_bytes = bytes;
	}
}

void
hesper_memop_count_untimed(struct hesper_memop_row *row, uint64_t n, uint64_t bytes, bool sized)
{
	uint64_t total;

	hesper_kernel_count_untimed(&row->k, n);
	add_bytes(&row->bytes, __builtin_mul_overflow(bytes, n, &total) ? UINT64_MAX : total);
	if (!sized)
		row->unsized += n;
}

double
hesper_memop_mean_gbps(const struct hesper_memop_row *row)
{
	uint64_t ns = row->k.timed.total_ns;

	return ns ? (double)row->timed_bytes / (double)ns : 0.0;
}

uint64_t
hesper_memops_count(const struct hesper_memops *m)
{
	uint64_t n = 0;

	for (int i = 0; i < HESPER_MEMOP_KINDS; i++)
		n += m->rows[i].k.count;
	return n;
}

struct hesper_memop_stats
hesper_memop_stats(const struct hesper_memops *m, enum hesper_memop_kind kind)
{
	struct hesper_memop_stats s = {.name = hesper_memop_name(kind)};

	if (!s.name)
		return s;
	const struct hesper_memop_row *row = &m->rows[kind];
	s.count = row->k.count;
	s.timed = row->k.timed.count;
	s.unsized = row->unsized;
	s.timed_ns = row->k.timed.total_ns;
	s.bytes = row->bytes;
	s.timed_bytes = row->timed_bytes;
	s.mean_gbps = hesper_memop_mean_gbps(row);
	s.best_gbps = row->best_gbps;
	s.best_bytes = row->best_bytes;
	return s;
}

void
hesper_memops_merge(struct hesper_memops *into, const struct hesper_memops *from)
{
	for (int i = 0; i < HESPER_MEMOP_KINDS; i++) {
		struct hesper_memop_row *a = &into->rows[i];
		const struct hesper_memop_row *b = &from->rows[i];

		hesper_kernel_count_untimed(&a->k, b->k.count);
		hesper_stats_merge(&a->k.timed, &b->k.timed);
		hesper_kernel_add_shares(&a->k, b->k.share_ns);
		add_bytes(&a->bytes, b->bytes);
		add_bytes(&a->timed_bytes, b->timed_bytes);
		a->unsized += b->unsized;
		if (b->best_gbps > a->best_gbps) {
			a->best_gbps = b->best_gbps;
			a->best_bytes = b->best_bytes;
		}
	}
}
