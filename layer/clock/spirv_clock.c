/*
 * Instrumenting a compute module for HESPER_MODE=clock (see spirv_clock.h).
 *
 * What is added, in the places SPIR-V's logical layout demands:
 *  - capabilities ShaderClockKHR, Int64, Int64Atomics, GroupNonUniform and the extension
 *    SPV_KHR_shader_clock, each only when missing;
 *  - the decorations and types of `struct { uint64 w[]; }` as a Block in the StorageBuffer
 *    class at (set, binding), and the WorkgroupId and NumWorkgroups
 *    built-ins (the module's own when it has them as uvec3); existing non-aggregate
 *    types (uint32, uint64, bool, uvec3, the pointers to uint64 and uvec3) and uint32
 *    constants are reused, because a duplicate non-aggregate type makes a module invalid;
 *  - in the entry function's first block (after its OpVariables), `start = clock()`;
 *  - at every OpReturn of the entry function: one elected invocation per subgroup reads
 *    `end = clock()` and does atomicMax(w[r], ~start) and atomicMax(w[r + 1], end), r the
 *    first word of its lane's row (spirv_clock.h), the lane the sum of the work group's id
 *    components modulo the lane count; in work group (0, 0, 0) also atomicMax of
 *    NumWorkgroups (x | y << 32, z) into the counts' row.
 *    One per subgroup and not one per work group: a work group's last invocation could
 *    only be found with shared memory and a barrier, which a return inside divergent
 *    control flow cannot reach; one per invocation would put every invocation's two
 *    atomics on one address.
 * The WorkgroupId and NumWorkgroups variables join the entry point's interface, the
 * buffer's too when the module is SPIR-V 1.4 or later. Modules older than 1.3 are raised
 * to 1.3 (OpGroupNonUniformElect, and the StorageBuffer class without an extension); 1.0
 * to 1.2 modules mean the same in 1.3.
 */
#include "spirv_clock.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_clock_parts.h"

/* The second pass: copies @w while adding the instrumentation. */
static void rewrite(const uint32_t *w, size_t count, const struct hesper_clock_target *t,
		    const struct hesper_clock_scan *s, struct hesper_clock_ids *d, struct hesper_spirv_out *o)
{
	struct hesper_clock_sections done = {0};
	bool in_entry = false, first_block = false, start_read = false;
	size_t i = HEADER_WORDS;

	hesper_clock_emit_header(o, w, s);
	while (i < count) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffffu;

		hesper_clock_emit_sections(o, t, s, d, op, &done);
		if (op == OP_FUNCTION && n >= 3 && w[i + 2] == s->entry_function)
			in_entry = true;
		if (in_entry && first_block && op != OP_VARIABLE && op != OP_LINE && op != OP_NO_LINE &&
		    op != OP_EXT_INST) {
			INST(o, OP_READ_CLOCK_KHR, d->u64, d->start, d->scope_clock);
			first_block = false;
		}
		if (in_entry && op == OP_RETURN) {
			hesper_clock_emit_return(o, d);
		} else if (i == s->entry_at) {
			/* Input variables are in the interface; from 1.4 on every global the entry uses is */
			bool add_var = s->version >= VERSION_1_4;
			bool add_wid = d->new_workgroup_id || !hesper_spirv_in_interface(w, i, n, d->workgroup_id);
			bool add_nwg = d->group_counts && (d->new_num_workgroups ||
							   !hesper_spirv_in_interface(w, i, n, d->num_workgroups));
			hesper_spirv_put(o, ((n + add_var + add_wid + add_nwg) << 16) | op);
			for (uint32_t k = 1; k < n; k++)
				hesper_spirv_put(o, w[i + k]);
			if (add_var)
				hesper_spirv_put(o, d->var);
			if (add_wid)
				hesper_spirv_put(o, d->workgroup_id);
			if (add_nwg)
				hesper_spirv_put(o, d->num_workgroups);
		} else {
			for (uint32_t k = 0; k < n; k++)
				hesper_spirv_put(o, w[i + k]);
		}
		if (in_entry && op == OP_LABEL && !start_read) {
			first_block = true;
			start_read = true;
		}
		if (in_entry && op == OP_FUNCTION_END)
			in_entry = false;
		i += n;
	}
	o->w[3] = d->next;
}

int hesper_spirv_clock_instrument(const void *code, size_t size, const struct hesper_clock_target *target,
				  uint32_t **out, size_t *out_words, const char **why)
{
	struct hesper_clock_scan s;
	struct hesper_clock_ids d;
	struct hesper_spirv_out o = {0};
	uint32_t *w = NULL;
	size_t count = size / 4;
	int ret = -1;

	*out = NULL;
	*out_words = 0;
	*why = hesper_spirv_words_copy(code, size, &w);
	if (*why)
		goto out;
	*why = hesper_clock_scan_module(w, count, target, &s);
	if (*why)
		goto out;
	if (!s.has_function) {
		*why = "no function bodies";
		goto out;
	}
	hesper_clock_plan_ids(&s, target, &d);
	rewrite(w, count, target, &s, &d, &o);
	ret = hesper_spirv_out_take(&o, out, out_words, why);
out:
	free(w);
	return ret;
}
