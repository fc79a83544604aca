/*
 * A kernel's pipeline statistics as its driver reports them (VK_KHR_pipeline_executable_
 * properties): the driver's own names and values (registers, shared memory, spills,
 * instruction counts, ... whatever it gives), kept per kernel name in the profile for the
 * reports. Plain C, no Vulkan headers.
 */
#ifndef HESPER_PIPELINE_STATS_H
#define HESPER_PIPELINE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What a device says of its pipeline statistics (struct hesper_device_info's
 * pipeline_stats, the JSON's devices[].pipeline_stats); "" when it says nothing.
 */
#define HESPER_STATS_CAPTURED "captured"
#define HESPER_STATS_NOT_OFFERED "not offered by the driver"
#define HESPER_STATS_NOT_ENABLED "not enabled"
#define HESPER_STATS_OFF "off"

/* Longest statistic or executable name kept (the driver's may run to 256 bytes). */
#define HESPER_STAT_NAME_MAX 64

/* How a statistic's value reads, as VkPipelineExecutableStatisticFormatKHR. */
enum hesper_stat_format { HESPER_STAT_BOOL, HESPER_STAT_INT, HESPER_STAT_UINT, HESPER_STAT_FLOAT };

/* One statistic: its name and value as the driver gave them. */
struct hesper_pipeline_stat {
	char name[HESPER_STAT_NAME_MAX];
	enum hesper_stat_format format;
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double f;
	} value;
};

/*
 * The statistics of the compute executable of one pipeline of a kernel. A kernel's name may
 * stand for several pipelines with different figures (llama.cpp makes two
 * `mul_mat_vec_q8_0_f32_f32`): each distinct set is kept, numbered by @variant.
 */
struct hesper_pipeline_stats {
	char *kernel;                          /* owned */
	char executable[HESPER_STAT_NAME_MAX]; /* the executable's name as the driver gives it */
	uint32_t subgroup_size;                /* the executable's subgroup size; 0 unknown */
	uint32_t device;                       /* the device it was made on: index into the profile's devices */
	uint32_t local_size[3];                /* its pipeline's work-group size; 0 0 0 unknown */
	size_t count;
	struct hesper_pipeline_stat *stats; /* owned */
	uint32_t variant;    /* which of its kernel's distinct sets: 0 for the first bound, 1 for the next, ... */
	uint64_t dispatches; /* dispatches counted that ran on a pipeline with these figures */
};

/* Writes @s's value into @buf (@size bytes) as a report prints it: an integer, a number of up to 6 digits, true or false. */
void hesper_pipeline_stat_value(const struct hesper_pipeline_stat *s, char *buf, size_t size);

/* A copy of @from into *@to (its name and statistics too); 0, or -1 when memory runs out (*@to then empty). */
int hesper_pipeline_stats_copy(struct hesper_pipeline_stats *to, const struct hesper_pipeline_stats *from);

/* Frees what @s owns. */
void hesper_pipeline_stats_free(struct hesper_pipeline_stats *s);

/* Whether @a and @b are the same figures of the same kernel: name, executable, subgroup size, device, work-group size and every statistic. */
bool hesper_pipeline_stats_same(const struct hesper_pipeline_stats *a, const struct hesper_pipeline_stats *b);

#endif
