/*
 * The SPIR-V rewrite behind per-line hot spots: a copy of a compute module in which every
 * basic block of every function reads the clock where it starts and before it ends, and
 * adds the difference and one execution to two counters of its own that each invocation
 * keeps; at each return of the entry point every subgroup adds its invocations' counters
 * into a buffer Hesper binds, once. Block b (in module order, as spirv_lines.h numbers
 * them) owns words 2b (clock ticks, summed over invocations) and 2b + 1 (executions, summed
 * over invocations) of each copy of the counters in that buffer (HESPER_BLOCKS_COPIES). The
 * sums are 64-bit subgroup operations: the device must have shaderSubgroupExtendedTypes,
 * and subgroup arithmetic. Pure C, no Vulkan headers.
 */
#ifndef HESPER_SPIRV_BLOCKS_H
#define HESPER_SPIRV_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Blocks instrumented at most: the counters of each invocation live in its registers or stack. */
#define HESPER_BLOCKS_MAX 1024u

/*
 * Copies of the counters in the buffer, a power of two: a subgroup adds into one of them,
 * picked by its clock's low bits, so that the subgroups of one launch spread their atomics.
 * Copy c holds block b's counters at words c * 2 * blocks + 2b and + 2b + 1; the reader
 * adds the copies up.
 */
#define HESPER_BLOCKS_COPIES 16u

/* Where the instrumented module finds its counters, and which clock it reads. */
struct hesper_blocks_target {
	const char *entry; /* the GLCompute entry point whose returns add the counters up */
	uint32_t set;      /* a storage buffer of 64-bit words at (set, binding) */
	uint32_t binding;
	bool subgroup_clock; /* read the subgroup clock (shaderSubgroupClock), else the device clock */
};

/*
 * Writes into *@out (malloc'd, *@out_words words) an instrumented copy of the @size bytes
 * of SPIR-V at @code (native byte order, need not be aligned), and into *@blocks how many
 * blocks it counts (the buffer needs 2 * *@blocks * HESPER_BLOCKS_COPIES words). Returns 0, or -1 with *@why set
 * to a fixed reason (not SPIR-V, an addressing model it cannot take, no such entry point,
 * the binding taken, more than HESPER_BLOCKS_MAX blocks, malformed, out of memory).
 * Modules older than SPIR-V 1.3 come out as 1.3; nothing the module computes changes.
 */
int hesper_spirv_blocks_instrument(const void *code, size_t size, const struct hesper_blocks_target *target,
				   uint32_t **out, size_t *out_words, uint32_t *blocks, const char **why);

#endif
