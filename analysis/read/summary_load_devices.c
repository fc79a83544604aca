/* The summary's devices, queues and host waits, read back (summary_load_parts.h), by the key lists of profile/. */
#include "summary_load_parts.h"

#include <inttypes.h>
#include <stdlib.h>

/*
 * A device's "occupancy_model", when there: its figures, or only why there are none. Absent
 * (a summary from before the model, or a device without statistics): no model, no why.
 */
static int
load_occupancy_model(struct loader *l, json_object *d, const char *key, struct hesper_occupancy_model *m)
{
	json_object *o = hesper_json_member(d, key);

	memset(m, 0, sizeof(*m));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return BAD(l, "a device's \"occupancy_model\" is not an object");
	copy_string(m->vendor, sizeof(m->vendor), o, KEY(MODEL_VENDOR));
	copy_string(m->why, sizeof(m->why), o, KEY(MODEL_WHY));
	/* each figure of the list (model/occupancy.h), refused past 2^32 - 1 */
#define HESPER_GET_FIGURE(member)                                         \
	if (get_u32(l, o, "\"occupancy_model\"", #member, 0, &m->member)) \
		return HESPER_ERROR_FORMAT;
	HESPER_OCCUPANCY_FIGURES(HESPER_GET_FIGURE)
#undef HESPER_GET_FIGURE
	return 0;
}

int
hesper_load_devices(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *devices = hesper_json_member(root, KEY(DEVICES));

	if (devices && !json_object_is_type(devices, json_type_array))
		return BAD(l, "\"devices\" is not an array");
	for (size_t i = 0; devices && i < json_object_array_length(devices); i++) {
		json_object *d = json_object_array_get_idx(devices, i);
		struct hesper_device_info info = {0};

		/* each key of the list (profile/device_keys.h) read by its kind */
#define HESPER_GET_DEVICE_TEXT(member, key) (copy_string(info.member, sizeof(info.member), d, key), 0)
#define HESPER_GET_DEVICE_REAL(member, key) get_double(l, d, "a device", key, &info.member)
#define HESPER_GET_DEVICE_U64(member, key) get_u64(l, d, "a device", key, 0, &info.member)
#define HESPER_GET_DEVICE_U32(member, key) get_u32(l, d, "a device", key, 0, &info.member)
#define HESPER_GET_DEVICE_MODEL(member, key) load_occupancy_model(l, d, key, &info.member)
#define HESPER_GET_DEVICE_KEY(member, key, kind, when) || HESPER_GET_DEVICE_##kind(member, key)
		if (0 HESPER_DEVICE_KEYS(HESPER_GET_DEVICE_KEY))
			return HESPER_ERROR_FORMAT;
#undef HESPER_GET_DEVICE_KEY
#undef HESPER_GET_DEVICE_MODEL
#undef HESPER_GET_DEVICE_U32
#undef HESPER_GET_DEVICE_U64
#undef HESPER_GET_DEVICE_REAL
#undef HESPER_GET_DEVICE_TEXT
			/* an error bound not written is not known (-1), not zero */
#define HESPER_ABSENT_DEVICE_ALWAYS(member, key)
#define HESPER_ABSENT_DEVICE_SET(member, key)
#define HESPER_ABSENT_DEVICE_CLOCK_RATE(member, key)
#define HESPER_ABSENT_DEVICE_FINDINGS(member, key)
#define HESPER_ABSENT_DEVICE_CLOCK_KNOWN(member, key) \
	if (!hesper_json_member(d, key))              \
		info.member = -1.0;
#define HESPER_ABSENT_DEVICE_KEY(member, key, kind, when) HESPER_ABSENT_DEVICE_##when(member, key)
		HESPER_DEVICE_KEYS(HESPER_ABSENT_DEVICE_KEY)
#undef HESPER_ABSENT_DEVICE_KEY
#undef HESPER_ABSENT_DEVICE_CLOCK_KNOWN
#undef HESPER_ABSENT_DEVICE_FINDINGS
#undef HESPER_ABSENT_DEVICE_CLOCK_RATE
#undef HESPER_ABSENT_DEVICE_SET
#undef HESPER_ABSENT_DEVICE_ALWAYS
		if (hesper_profile_add_device(p, &info) < 0)
			return NO_MEMORY(l);
	}
	return 0;
}

/*
 * A queue row's keys (profile/queue_keys.h): each read as a number >= 0 into v[], a 32-bit
 * member's with get_u32 (past 2^32 - 1 an error); then ID keys name the queue, SET ones are taken as read
 * (each a 32-bit member) and SUM ones added (each a 64-bit count or time).
 */
#define HESPER_GET_QUEUE_KEY(member, key, how, findings, wide)                       \
	if (wide) {                                                                  \
		if (get_u64(l, o, "a queue", key, 0, &v[HESPER_QUEUE_KEY_##member])) \
			return HESPER_ERROR_FORMAT;                                  \
	} else if (get_u32(l, o, "a queue", key, 0, &narrow)) {                      \
		return HESPER_ERROR_FORMAT;                                          \
	} else {                                                                     \
		v[HESPER_QUEUE_KEY_##member] = narrow;                               \
	}
#define HESPER_QUEUE_READ_ID(field, value) (void)(value)
#define HESPER_QUEUE_READ_SET(field, value) ((field) = (uint32_t)(value))
#define HESPER_QUEUE_READ_SUM(field, value) ((field) += (value))
#define HESPER_READ_QUEUE_KEY(member, key, how, findings, wide) \
	HESPER_QUEUE_READ_##how(q->member, v[HESPER_QUEUE_KEY_##member]);

int
hesper_load_queues(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *queues = hesper_json_member(root, KEY(QUEUES));
	uint64_t busy;

	if (queues && !json_object_is_type(queues, json_type_array))
		return BAD(l, "\"queues\" is not an array");
	for (size_t i = 0; queues && i < json_object_array_length(queues); i++) {
		json_object *o = json_object_array_get_idx(queues, i);
		uint64_t v[HESPER_QUEUE_KEY_COUNT];
		uint32_t narrow;

		HESPER_QUEUE_KEYS(HESPER_GET_QUEUE_KEY)
		struct hesper_queue_info *q = hesper_profile_queue(p, (uint32_t)v[HESPER_QUEUE_KEY_device],
								   (uint32_t)v[HESPER_QUEUE_KEY_family],
								   (uint32_t)v[HESPER_QUEUE_KEY_index]);
		if (!q)
			return NO_MEMORY(l);
		HESPER_QUEUE_KEYS(HESPER_READ_QUEUE_KEY)
	}
	/* Without per-queue rows, keep the total busy time on one queue. */
	if (get_u64(l, root, "the summary", KEY(GPU_BUSY_NS), 0, &busy))
		return HESPER_ERROR_FORMAT;
	if (p->queue_count == 0 && busy > 0) {
		struct hesper_queue_info *q = hesper_profile_queue(p, 0, 0, 0);
		if (!q)
			return NO_MEMORY(l);
		q->busy_ns = busy;
	}
	return 0;
}

/* The wait call named @name into *@call; false when Hesper does not know it. */
static bool
wait_call(const char *name, uint32_t *call)
{
	for (uint32_t c = 0; name && c < HESPER_WAIT_CALLS; c++)
		if (strcmp(name, hesper_wait_call_name(c)) == 0) {
			*call = c;
			return true;
		}
	return false;
}

/* "host_waits": rows per thread and call; calls Hesper does not know are skipped. */
int
hesper_load_host_waits(struct loader *l, json_object *root, struct hesper_profile *p)
{
	json_object *rows = hesper_json_member(root, KEY(HOST_WAITS));

	if (rows && !json_object_is_type(rows, json_type_array))
		return BAD(l, "\"host_waits\" is not an array");
	for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
		json_object *o = json_object_array_get_idx(rows, i);
		struct hesper_host_wait w = {0};
		bool known = true;

		/* each key of the list (profile/wait_keys.h) read by its kind */
#define HESPER_GET_WAIT_KEY(member, key, kind) HESPER_GET_WAIT_##kind(member, key)
#define HESPER_GET_WAIT_U32(member, key)                     \
	if (get_u32(l, o, "a host wait", key, 0, &w.member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_WAIT_U64(member, key)                     \
	if (get_u64(l, o, "a host wait", key, 0, &w.member)) \
		return HESPER_ERROR_FORMAT;
#define HESPER_GET_WAIT_CALL(member, key) known = wait_call(get_string(o, key), &w.member);
		HESPER_WAIT_KEYS(HESPER_GET_WAIT_KEY)
#undef HESPER_GET_WAIT_KEY
#undef HESPER_GET_WAIT_U32
#undef HESPER_GET_WAIT_U64
#undef HESPER_GET_WAIT_CALL
		if (known && hesper_profile_add_host_wait(p, w.thread, (enum hesper_wait_call)w.call, w.count,
							  w.total_ns, w.max_ns) != 0)
			return NO_MEMORY(l);
	}
	return 0;
}
