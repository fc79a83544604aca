/*
 * The numbers of a queue row of the JSON summary ("queues"), in the order the writer puts
 * them: the one list the writer (write/report_json.c) and the reader (read/
 * summary_load_devices.c) take their keys from, and the reader its checks.
 * QUEUE_KEY(member of struct hesper_queue_info, key, what reading it does, findings, wide)
 *   ID:  which queue the row is (device, family, index), the row looked up by them
 *   SET: a fact of the queue, taken as read
 *   SUM: a count or time, added to the queue's (summaries of several runs add up)
 *   findings: written only with the findings' numbers (a live run, or a summary of one)
 *   wide: a 64-bit member; the others are 32-bit, and a larger value is an error
 */
#ifndef HESPER_QUEUE_KEYS_H
#define HESPER_QUEUE_KEYS_H

#define HESPER_QUEUE_KEYS(QUEUE_KEY)                                   \
	QUEUE_KEY(device, "device", ID, false, false)                  \
	QUEUE_KEY(family, "family", ID, false, false)                  \
	QUEUE_KEY(index, "index", ID, false, false)                    \
	QUEUE_KEY(timestamp_bits, "timestamp_bits", SET, false, false) \
	QUEUE_KEY(submits, "submits", SUM, false, true)                \
	QUEUE_KEY(busy_ns, "busy_ns", SUM, false, true)                \
	QUEUE_KEY(submit_calls, "submit_calls", SUM, true, true)       \
	QUEUE_KEY(round_trips, "round_trips", SUM, true, true)         \
	QUEUE_KEY(timed_batches, "timed_batches", SUM, true, true)     \
	QUEUE_KEY(idle_ns, "idle_ns", SUM, true, true)

enum hesper_queue_key {
#define HESPER_QUEUE_KEY_ENUM(member, key, how, findings, wide) HESPER_QUEUE_KEY_##member,
	HESPER_QUEUE_KEYS(HESPER_QUEUE_KEY_ENUM)
#undef HESPER_QUEUE_KEY_ENUM
		HESPER_QUEUE_KEY_COUNT
};

#endif
