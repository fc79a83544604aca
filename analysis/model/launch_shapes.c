/* Per-kernel launch shapes: min, max and most common work-group counts, local size. */
#include "launch_shapes.h"

#include <string.h>

uint64_t
hesper_shape_groups(const uint32_t g[3])
{
	return (uint64_t)g[0] * g[1] * g[2];
}

void
hesper_shapes_add(struct hesper_launch_shapes *s, const uint32_t groups[3], uint64_t n)
{
	if (!n)
		return;
	if (!groups[0] && !groups[1] && !groups[2]) {
		s->unknown += n;
		return;
	}
	hesper_shapes_add_known(s, groups, n);
}

void
hesper_shapes_add_known(struct hesper_launch_shapes *s, const uint32_t groups[3], uint64_t n)
{
	if (!n)
		return;
	uint64_t total = hesper_shape_groups(groups);
	if (!s->known || total < hesper_shape_groups(s->min))
		memcpy(s->min, groups, sizeof(s->min));
	if (!s->known || total > hesper_shape_groups(s->max))
		memcpy(s->max, groups, sizeof(s->max));
	s->known += n;

	struct hesper_shape_count *smallest = &s->top[0];
	for (int i = 0; i < HESPER_SHAPE_SLOTS; i++) {
		struct hesper_shape_count *c = &s->top[i];
		if (c->count && memcmp(c->groups, groups, sizeof(c->groups)) == 0) {
			c->count += n;
			return;
		}
		if (c->count < smallest->count)
			smallest = c;
	}
	/* Space-saving: a new shape takes the least counted slot (a free one first) and its count. */
	memcpy(smallest->groups, groups, sizeof(smallest->groups));
	smallest->count += n;
}

const struct hesper_shape_count *
hesper_shapes_most_common(const struct hesper_launch_shapes *s)
{
	const struct hesper_shape_count *best = NULL;

	for (int i = 0; i < HESPER_SHAPE_SLOTS; i++)
		if (s->top[i].count && (!best || s->top[i].count > best->count))
			best = &s->top[i];
	return best;
}

void
hesper_shapes_set_local_size(struct hesper_launch_shapes *s, const uint32_t size[3], bool varies)
{
	bool known = s->local_size[0] || s->local_size[1] || s->local_size[2];

	if (varies || (known && memcmp(s->local_size, size, sizeof(s->local_size)) != 0)) {
		s->local_size_varies = true;
		memset(s->local_size, 0, sizeof(s->local_size));
		return;
	}
	if (!s->local_size_varies)
		memcpy(s->local_size, size, sizeof(s->local_size));
}

/* *@to + @v, saturating: the work-groups rate stays meaningful long after the sums would wrap. */
static void
add_saturating(uint64_t *to, uint64_t v)
{
	if (__builtin_add_overflow(*to, v, to))
		*to = UINT64_MAX;
}

void
hesper_shapes_add_timed(struct hesper_launch_shapes *s, const uint32_t groups[3], uint64_t ns)
{
	add_saturating(&s->timed_groups, hesper_shape_groups(groups));
	add_saturating(&s->timed_groups_ns, ns);
}

double
hesper_shapes_groups_per_us(const struct hesper_launch_shapes *s)
{
	return s->timed_groups_ns ? (double)s->timed_groups / ((double)s->timed_groups_ns / 1e3) : 0;
}

void
hesper_shapes_merge(struct hesper_launch_shapes *into, const struct hesper_launch_shapes *from)
{
	add_saturating(&into->timed_groups, from->timed_groups);
	add_saturating(&into->timed_groups_ns, from->timed_groups_ns);
	static const uint32_t unknown[3];
	uint64_t known = into->known;

	into->unknown += from->unknown;
	for (int i = 0; i < HESPER_SHAPE_SLOTS; i++)
		if (from->top[i].count)
			hesper_shapes_add(into, from->top[i].groups, from->top[i].count);
	/* The slots may hold fewer dispatches than were known (space-saving): keep the sums and extremes exact. */
	into->known = known + from->known;
	if (from->known) {
		if (!known || hesper_shape_groups(from->min) < hesper_shape_groups(into->min))
			memcpy(into->min, from->min, sizeof(into->min));
		if (!known || hesper_shape_groups(from->max) > hesper_shape_groups(into->max))
			memcpy(into->max, from->max, sizeof(into->max));
	}
	if (from->local_size_varies || from->local_size[0])
		hesper_shapes_set_local_size(into, from->local_size_varies ? unknown : from->local_size,
					     from->local_size_varies);
}
