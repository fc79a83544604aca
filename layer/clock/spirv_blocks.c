/*
 * Instrumenting every basic block of a compute module for per-line hot spots (see
 * spirv_blocks.h). The first pass is clock mode's (spirv_clock_scan.c: types and constants
 * to reuse, the entry point, the binding free); the buffer is declared as clock mode's
 * slot buffer is (spirv_clock_code.c). Added besides:
 *  - the capability GroupNonUniformArithmetic when missing (the subgroup's sums, and
 *    the OR of its invocations' block bits);
 *  - a Private array of 2 * blocks 64-bit counters, not initialized (each invocation
 *    would otherwise clear them all at its start), and a Private bit per block, zero at
 *    the start, set when the block first counts: a counter is read only where its bit is
 *    set, so the flush touches only the blocks an invocation ran;
 *  - in each block, after its OpPhi and OpVariable instructions, `t0 = clock()`; before its
 *    merge instruction or, without one, its terminator, the block's counters += (clock() -
 *    t0, 1). Private, so a called function's blocks count into the same array;
 *  - at each OpReturn of the entry function, after the block's own counting, a loop over
 *    the blocks some invocation of the subgroup ran (the OR of their bits over the
 *    subgroup): for each, its counters summed over the subgroup, and one elected
 *    invocation adding the sums with atomicAdd to one of HESPER_BLOCKS_COPIES copies of
 *    the counters, picked by the clock's low bits.
 * The time a block spends in a function it calls counts in both.
 */
#include "spirv_blocks.h"

#include <stdlib.h>
#include <string.h>

#include "spirv_clock_parts.h"
#include "spirv_lines.h"

enum {
	OP_CONSTANT_NULL = SpvOpConstantNull,
	OP_STORE = SpvOpStore,
	OP_I_SUB = SpvOpISub,
	OP_SELECT = SpvOpSelect,
	OP_I_NOT_EQUAL = SpvOpINotEqual,
	OP_U_LESS_THAN = SpvOpULessThan,
	OP_ATOMIC_I_ADD = SpvOpAtomicIAdd,
	OP_PHI = SpvOpPhi,
	OP_LOOP_MERGE = SpvOpLoopMerge,
	OP_BIT_COUNT = SpvOpBitCount,
	OP_GROUP_NON_UNIFORM_I_ADD = SpvOpGroupNonUniformIAdd,
	OP_GROUP_NON_UNIFORM_BITWISE_OR = SpvOpGroupNonUniformBitwiseOr,
	CAP_GROUP_NON_UNIFORM_ARITHMETIC = SpvCapabilityGroupNonUniformArithmetic,
	SC_PRIVATE = SpvStorageClassPrivate,
	GROUP_OPERATION_REDUCE = SpvGroupOperationReduce,
};

/* What the rewrite adds beyond clock mode's declarations. */
struct block_ids {
	uint32_t blocks;                   /* counted in the module */
	uint32_t length, array, ptr_array; /* the Private array: its length constant, type, pointer type */
	uint32_t ptr_u64, counters;        /* Private pointer to one counter, the variable */
	uint32_t index;                    /* first of 2 * blocks u32 constants 0, 1, ...: the counters' indexes */
	uint32_t one, zero;                /* the u64 constants 1 and 0 */
	uint32_t copy_mask;                /* the u32 constant HESPER_BLOCKS_COPIES - 1 */
	uint32_t ran_array, ptr_ran, ptr_u32, ran_null, ran; /* the Private bit per block: has it run */
	uint32_t bit;                                        /* first of 32 u32 constants 1 << 0, ..., 1 << 31 */
	uint32_t five;                                       /* the u32 constant 5: a block's word */
	uint32_t scope_clock;                                /* Subgroup or Device */
	bool cap_arithmetic;                                 /* the module has GroupNonUniformArithmetic */
};

/* Blocks of the module's functions, and whether it declares GroupNonUniformArithmetic; NULL or why not. */
static const char *count_blocks(const uint32_t *w, size_t count, struct block_ids *b)
{
	bool in_function = false;
	for (size_t i = HEADER_WORDS; i < count;) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffffu;
		if (n == 0 || n > count - i)
			return "malformed SPIR-V";
		if (op == OP_CAPABILITY && n >= 2 && w[i + 1] == CAP_GROUP_NON_UNIFORM_ARITHMETIC)
			b->cap_arithmetic = true;
		in_function = op == OP_FUNCTION ? true : op == OP_FUNCTION_END ? false : in_function;
		if (op == OP_LABEL && in_function && ++b->blocks > HESPER_BLOCKS_MAX)
			return "more blocks than Hesper counts";
		i += n;
	}
	return b->blocks ? NULL : "no function bodies";
}

/* Emits the Private counters and their indexes, after clock mode's globals (which declare u32 and u64). */
static void emit_counters(struct hesper_spirv_out *o, const struct hesper_clock_ids *d, const struct block_ids *b)
{
	INST(o, OP_CONSTANT, d->u32, b->length, 2 * b->blocks);
	INST(o, OP_TYPE_ARRAY, b->array, d->u64, b->length);
	INST(o, OP_TYPE_POINTER, b->ptr_array, SC_PRIVATE, b->array);
	INST(o, OP_TYPE_POINTER, b->ptr_u64, SC_PRIVATE, d->u64);
	/* no initializer: a counter is read only once its block's bit says it was written */
	INST(o, OP_VARIABLE, b->ptr_array, b->counters, SC_PRIVATE);
	for (uint32_t k = 0; k < 2 * b->blocks; k++)
		INST(o, OP_CONSTANT, d->u32, b->index + k, k);
	INST(o, OP_TYPE_ARRAY, b->ran_array, d->u32, b->index + (b->blocks + 31) / 32);
	INST(o, OP_TYPE_POINTER, b->ptr_ran, SC_PRIVATE, b->ran_array);
	INST(o, OP_TYPE_POINTER, b->ptr_u32, SC_PRIVATE, d->u32);
	INST(o, OP_CONSTANT_NULL, b->ran_array, b->ran_null);
	INST(o, OP_VARIABLE, b->ptr_ran, b->ran, SC_PRIVATE, b->ran_null);
	for (uint32_t k = 0; k < 32; k++)
		INST(o, OP_CONSTANT, d->u32, b->bit + k, 1u << k);
	INST(o, OP_CONSTANT, d->u32, b->five, 5);
	INST(o, OP_CONSTANT, d->u64, b->one, 1, 0); /* low word, then high */
	INST(o, OP_CONSTANT, d->u64, b->zero, 0, 0);
	INST(o, OP_CONSTANT, d->u32, b->copy_mask, HESPER_BLOCKS_COPIES - 1);
}

/* counters[@k] = (@seen ? counters[@k] : 0) + @value (a u64 id): a counter's first write needs no zeroed array. */
static void emit_add(struct hesper_spirv_out *o, struct hesper_clock_ids *d, const struct block_ids *b, uint32_t k,
		     uint32_t value, uint32_t seen)
{
	uint32_t p = d->next++, old = d->next++, from = d->next++, sum = d->next++;
	INST(o, OP_ACCESS_CHAIN, b->ptr_u64, p, b->counters, b->index + k);
	INST(o, OP_LOAD, d->u64, old, p);
	INST(o, OP_SELECT, d->u64, from, seen, old, b->zero);
	INST(o, OP_I_ADD, d->u64, sum, from, value);
	INST(o, OP_STORE, p, sum);
}

/* The end of block @block, started at clock reading @t0: its bit set, its time and one execution counted. */
static void emit_count(struct hesper_spirv_out *o, struct hesper_clock_ids *d, const struct block_ids *b,
		       uint32_t block, uint32_t t0)
{
	uint32_t t1 = d->next++, took = d->next++, p = d->next++, word = d->next++, has = d->next++;
	uint32_t seen = d->next++, set = d->next++, bit = b->bit + block % 32;
	INST(o, OP_READ_CLOCK_KHR, d->u64, t1, b->scope_clock);
	INST(o, OP_I_SUB, d->u64, took, t1, t0);
	INST(o, OP_ACCESS_CHAIN, b->ptr_u32, p, b->ran, b->index + block / 32);
	INST(o, OP_LOAD, d->u32, word, p);
	INST(o, OP_BITWISE_AND, d->u32, has, word, bit);
	INST(o, OP_I_NOT_EQUAL, d->boolean, seen, has, d->c0);
	INST(o, OP_BITWISE_OR, d->u32, set, word, bit);
	INST(o, OP_STORE, p, set);
	emit_add(o, d, b, 2 * block, took, seen);
	emit_add(o, d, b, 2 * block + 1, b->one, seen);
}

/*
 * Replaces the OpReturn ending block @from of the entry function: one loop that walks the
 * words of the blocks' bits, each word OR-ed over the subgroup, and the set bits of that
 * OR, lowest first: one turn per block the subgroup ran and one per word, not one per block
 * of the module, and one copy of the code whatever the number of blocks (one loop with no
 * fixed trip count, so that the driver's compiler neither unrolls nor nests it). For each
 * such block the subgroup's sums of its two counters are added to the buffer by one
 * elected invocation, into one of HESPER_BLOCKS_COPIES copies of the counters picked by
 * the low bits of the clock, so that the subgroups of a launch do not all add into one
 * address. The loop's condition and branches are the same for the whole subgroup.
 */
static void emit_flush(struct hesper_spirv_out *o, struct hesper_clock_ids *d, const struct block_ids *b, uint32_t from)
{
	uint32_t now = d->next++, low = d->next++, copy = d->next++, base = d->next++, elected = d->next++;
	uint32_t header = d->next++, body = d->next++, step = d->next++, done = d->next++;
	uint32_t k = d->next++, mine = d->next++, rest = d->next++, more = d->next++;
	uint32_t k_next = d->next++, mine_next = d->next++, rest_next = d->next++;
	uint32_t one_block = d->next++, next_word = d->next++, chosen = d->next++;
	uint32_t words = b->index + (b->blocks + 31) / 32; /* the u32 constant: index constants count 0, 1, ... */
	uint32_t last = b->index + (b->blocks + 31) / 32 - 1;
	uint32_t p0 = d->next++, mine0 = d->next++, rest0 = d->next++;
	INST(o, OP_READ_CLOCK_KHR, d->u64, now, b->scope_clock);
	INST(o, OP_U_CONVERT, d->u32, low, now);
	INST(o, OP_BITWISE_AND, d->u32, copy, low, b->copy_mask);
	INST(o, OP_I_MUL, d->u32, base, copy, b->length); /* a copy is 2 * blocks words */
	INST(o, OP_GROUP_NON_UNIFORM_ELECT, d->boolean, elected, d->scope_subgroup);
	INST(o, OP_ACCESS_CHAIN, b->ptr_u32, p0, b->ran, d->c0);
	INST(o, OP_LOAD, d->u32, mine0, p0);
	INST(o, OP_GROUP_NON_UNIFORM_BITWISE_OR, d->u32, rest0, d->scope_subgroup, GROUP_OPERATION_REDUCE, mine0);
	INST(o, OP_BRANCH, header);

	/* k: the word; mine: this invocation's bits of it; rest: the subgroup's not yet added */
	INST(o, OP_LABEL, header);
	INST(o, OP_PHI, d->u32, k, d->c0, from, k_next, step);
	INST(o, OP_PHI, d->u32, mine, mine0, from, mine_next, step);
	INST(o, OP_PHI, d->u32, rest, rest0, from, rest_next, step);
	INST(o, OP_U_LESS_THAN, d->boolean, more, k, words);
	INST(o, OP_LOOP_MERGE, done, step, 0);
	INST(o, OP_BRANCH_CONDITIONAL, more, body, done);

	uint32_t left = d->next++;
	INST(o, OP_LABEL, body);
	INST(o, OP_I_NOT_EQUAL, d->boolean, left, rest, d->c0);
	INST(o, OP_SELECTION_MERGE, chosen, 0);
	INST(o, OP_BRANCH_CONDITIONAL, left, one_block, next_word);

	/* the block of rest's lowest bit */
	uint32_t negated = d->next++, lowest = d->next++, below = d->next++, at_bit = d->next++, first = d->next++;
	uint32_t block = d->next++, own = d->next++, ran = d->next++, cleared = d->next++, word[2], values[2];
	word[0] = d->next++;
	word[1] = d->next++;
	INST(o, OP_LABEL, one_block);
	INST(o, OP_I_SUB, d->u32, negated, d->c0, rest);
	INST(o, OP_BITWISE_AND, d->u32, lowest, rest, negated);
	INST(o, OP_I_SUB, d->u32, below, lowest, d->c1);
	INST(o, OP_BIT_COUNT, d->u32, at_bit, below);
	INST(o, OP_SHIFT_LEFT_LOGICAL, d->u32, first, k, b->five);
	INST(o, OP_I_ADD, d->u32, block, first, at_bit);
	INST(o, OP_I_ADD, d->u32, word[0], block, block); /* its ticks, then its executions */
	INST(o, OP_I_ADD, d->u32, word[1], word[0], d->c1);
	/* whether this invocation ran it: its counters were written then, else they count zero */
	INST(o, OP_BITWISE_AND, d->u32, own, mine, lowest);
	INST(o, OP_I_NOT_EQUAL, d->boolean, ran, own, d->c0);
	for (uint32_t j = 0; j < 2; j++) {
		uint32_t p = d->next++, value = d->next++;
		values[j] = d->next++;
		INST(o, OP_ACCESS_CHAIN, b->ptr_u64, p, b->counters, word[j]);
		INST(o, OP_LOAD, d->u64, value, p);
		INST(o, OP_SELECT, d->u64, values[j], ran, value, b->zero);
	}
	uint32_t sums = d->next, adding = d->next + 2, added = d->next + 3;
	d->next += 4;
	for (uint32_t j = 0; j < 2; j++)
		INST(o, OP_GROUP_NON_UNIFORM_I_ADD, d->u64, sums + j, d->scope_subgroup, GROUP_OPERATION_REDUCE,
		     values[j]);
	INST(o, OP_SELECTION_MERGE, added, 0);
	INST(o, OP_BRANCH_CONDITIONAL, elected, adding, added);
	INST(o, OP_LABEL, adding);
	for (uint32_t j = 0; j < 2; j++) {
		uint32_t at = d->next++, p = d->next++, was = d->next++;
		INST(o, OP_I_ADD, d->u32, at, base, word[j]);
		INST(o, OP_ACCESS_CHAIN, d->ptr_u64, p, d->var, d->c0, at);
		/* Relaxed (semantics 0): the sums are read once the work completed */
		INST(o, OP_ATOMIC_I_ADD, d->u64, was, p, d->scope_atomic, d->c0, sums + j);
	}
	INST(o, OP_BRANCH, added);
	INST(o, OP_LABEL, added);
	INST(o, OP_BITWISE_XOR, d->u32, cleared, rest, lowest);
	INST(o, OP_BRANCH, chosen);

	/* the next word (the last one's index kept in range: the loop ends there anyway) */
	uint32_t after = d->next++, past = d->next++, at = d->next++, p_next = d->next++, bits = d->next++;
	uint32_t any = d->next++;
	INST(o, OP_LABEL, next_word);
	INST(o, OP_I_ADD, d->u32, after, k, d->c1);
	INST(o, OP_U_LESS_THAN, d->boolean, past, after, words);
	INST(o, OP_SELECT, d->u32, at, past, after, last);
	INST(o, OP_ACCESS_CHAIN, b->ptr_u32, p_next, b->ran, at);
	INST(o, OP_LOAD, d->u32, bits, p_next);
	INST(o, OP_GROUP_NON_UNIFORM_BITWISE_OR, d->u32, any, d->scope_subgroup, GROUP_OPERATION_REDUCE, bits);
	INST(o, OP_BRANCH, chosen);

	INST(o, OP_LABEL, chosen);
	INST(o, OP_PHI, d->u32, k_next, k, added, after, next_word);
	INST(o, OP_PHI, d->u32, mine_next, mine, added, bits, next_word);
	INST(o, OP_PHI, d->u32, rest_next, cleared, added, any, next_word);
	INST(o, OP_BRANCH, step);

	INST(o, OP_LABEL, step);
	INST(o, OP_BRANCH, header);

	INST(o, OP_LABEL, done);
	INST(o, OP_RETURN);
}

/*
 * Copies OpEntryPoint at @i (@n words), from SPIR-V 1.4 on with the globals it now uses in
 * its interface: the counters and their bits (any entry point's functions count into them)
 * and, for the instrumented entry, the buffer.
 */
static void copy_entry(struct hesper_spirv_out *o, const uint32_t *w, size_t i, uint32_t n,
		       const struct hesper_clock_scan *s, const struct hesper_clock_ids *d, const struct block_ids *b)
{
	bool add = s->version >= VERSION_1_4, target = add && i == s->entry_at;
	hesper_spirv_put(o, ((n + 2 * add + target) << 16) | OP_ENTRY_POINT);
	for (uint32_t k = 1; k < n; k++)
		hesper_spirv_put(o, w[i + k]);
	if (add) {
		hesper_spirv_put(o, b->counters);
		hesper_spirv_put(o, b->ran);
	}
	if (target)
		hesper_spirv_put(o, d->var);
}

/* Where the rewrite is inside a function. */
struct walk {
	bool in_entry, in_block, start_pending, counted;
	uint32_t block; /* the current block's index, from 0 in module order */
	uint32_t label; /* and its label */
	uint32_t t0;    /* its start reading */
};

/* Whether @op may stand before a block's start reading: OpPhi and OpVariable must open a block, line markers anywhere. */
static bool opens_block(uint32_t op)
{
	return op == OP_PHI || op == OP_VARIABLE || op == OP_LINE || op == OP_NO_LINE || op == OP_EXT_INST;
}

/* The second pass: copies @w while adding the counters. */
static void rewrite(const uint32_t *w, size_t count, const struct hesper_clock_target *t,
		    const struct hesper_clock_scan *s, struct hesper_clock_ids *d, const struct block_ids *b,
		    struct hesper_spirv_out *o)
{
	struct hesper_clock_sections done = {0};
	bool function = false;
	struct walk at = {0};
	uint32_t next_block = 0;

	hesper_clock_emit_header(o, w, s);
	if (!b->cap_arithmetic)
		INST(o, OP_CAPABILITY, CAP_GROUP_NON_UNIFORM_ARITHMETIC);
	for (size_t i = HEADER_WORDS; i < count;) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffffu;
		if (hesper_clock_emit_sections(o, t, s, d, op, &done))
			emit_counters(o, d, b);
		if (op == OP_FUNCTION) {
			function = true;
			at.in_entry = n >= 3 && w[i + 2] == s->entry_function;
		}
		if (at.in_block && at.start_pending && !opens_block(op)) {
			at.t0 = d->next++;
			INST(o, OP_READ_CLOCK_KHR, d->u64, at.t0, b->scope_clock);
			at.start_pending = false;
		}
		if (at.in_block && !at.counted &&
		    (op == OP_SELECTION_MERGE || op == OP_LOOP_MERGE || hesper_spirv_ends_block(op))) {
			emit_count(o, d, b, at.block, at.t0);
			at.counted = true;
		}
		if (at.in_entry && op == OP_RETURN)
			emit_flush(o, d, b, at.label);
		else if (op == OP_ENTRY_POINT)
			copy_entry(o, w, i, n, s, d, b);
		else
			for (uint32_t k = 0; k < n; k++)
				hesper_spirv_put(o, w[i + k]);
		if (at.in_block && hesper_spirv_ends_block(op))
			at.in_block = false;
		if (function && op == OP_LABEL)
			at = (struct walk){.in_entry = at.in_entry,
					   .in_block = true,
					   .start_pending = true,
					   .block = next_block++,
					   .label = n >= 2 ? w[i + 1] : 0};
		if (op == OP_FUNCTION_END)
			function = at.in_entry = false;
		i += n;
	}
	o->w[3] = d->next;
}

int hesper_spirv_blocks_instrument(const void *code, size_t size, const struct hesper_blocks_target *target,
				   uint32_t **out, size_t *out_words, uint32_t *blocks, const char **why)
{
	struct hesper_clock_target t = {
		.entry = target->entry, .set = target->set, .binding = target->binding, .row_words = 2};
	struct hesper_clock_scan s;
	struct hesper_clock_ids d;
	struct block_ids b = {0};
	struct hesper_spirv_out o = {0};
	uint32_t *w = NULL;
	size_t count = size / 4;
	int ret = -1;

	*out = NULL;
	*out_words = 0;
	*blocks = 0;
	*why = hesper_spirv_words_copy(code, size, &w);
	if (*why)
		goto out;
	*why = hesper_clock_scan_module(w, count, &t, &s);
	if (!*why)
		*why = count_blocks(w, count, &b);
	if (*why)
		goto out;
	hesper_clock_plan_ids(&s, &t, &d);
	b.scope_clock = target->subgroup_clock ? d.scope_subgroup : d.c1;
	b.length = d.next++;
	b.array = d.next++;
	b.ptr_array = d.next++;
	b.ptr_u64 = d.next++;
	b.counters = d.next++;
	b.one = d.next++;
	b.zero = d.next++;
	b.copy_mask = d.next++;
	b.ran_array = d.next++;
	b.ptr_ran = d.next++;
	b.ptr_u32 = d.next++;
	b.ran_null = d.next++;
	b.ran = d.next++;
	b.five = d.next++;
	b.bit = d.next;
	d.next += 32;
	b.index = d.next;
	d.next += 2 * b.blocks;
	rewrite(w, count, &t, &s, &d, &b, &o);
	ret = hesper_spirv_out_take(&o, out, out_words, why);
	if (ret == 0)
		*blocks = b.blocks;
out:
	free(w);
	return ret;
}
