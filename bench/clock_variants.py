#!/usr/bin/env python3
"""Builds of Hesper that leave one part of clock or submit mode's work out or do it another way.

usage: bench/clock_variants.py SOURCE_DIR VARIANT
       bench/clock_variants.py --mode VARIANT
  Edits the copy of the tree at SOURCE_DIR in place (never the checkout itself) so that
  Hesper does what VARIANT says; bench/clock-variants builds and measures them. --mode
  prints the HESPER_MODE the variant's build is measured in (clock, or submit for nocb).

Each variant answers one question about what clock mode costs on a GPU: all but nocb about
its instrumented kernels (the llama.cpp matrix-vector ops of thousands of work groups lose
23-27 % in clock mode on an H100, docs/timing.md), nocb about the per-submission half that
submit mode pays too. Their times are wrong on purpose where the variant says so: they are
for measuring cost only, never for a report.

  sub      the SM clock (subgroup scope) instead of the device clock: is the device clock's
           read what costs? (the SM clocks are not comparable across SMs)
  store    plain stores instead of the two atomicMax: is it the atomics?
  one      the start not folded (one atomic a subgroup): is it the second atomic?
  nofold   no fold at all but the calibration kernel's: the clock reads alone
  noclk    constants instead of both clock reads, atomics kept: the atomics alone
  l64      64 lanes a slot instead of 16: is it work groups contending on the same lines?
  bare     no clock read and no fold in the program's kernels (the calibration kernel's
           kept): the module keeps Hesper's binding, the pipeline its larger layout, each
           dispatch its descriptor set bound; what the instrumentation's structure costs
  barenobind  bare without the descriptor set bound before each dispatch: what the bind costs
  prefetch the tree's instrumentation, and at the entry every invocation reads its slot's
           first word (a volatile load), so that Hesper's descriptor and the slot's line are
           fetched while the kernel works rather than at its returns: is the code at the
           returns waiting for them?
  entry    the start folded into its lane at the kernel's entry by the elected invocation of
           each subgroup (the return folds the end only): the atomic that first touches the
           lane's line runs while the kernel works, and the one at the return finds the line
           in the GPU's cache. Is the code at the returns waiting for the line to come from
           memory? (prefetch, which read only lane 0's line, could not tell)
  lanefetch  the tree's instrumentation, and at the entry the elected invocation of each
           subgroup reads its lane's start word (a volatile load): the same question, with
           the folds where they are
  idle     (run in submit mode) the collector thread at SCHED_IDLE, so that it never takes
           a CPU from the program's threads: is submit mode's host cost the collector's
           accounting running where the program's thread would?
  counts   (run in submit mode) the tree's, counting what the program's threads make that
           the collector would have handed back (submission records, results buffers,
           query pools: the collector's own made apart) and the time its vkQueueSubmit calls
           spend in the driver; at exit one line appended to the file $HESPER_VARIANT_COUNTS
           names. With HESPER_VARIANT_IDLE=1 its collector runs at SCHED_IDLE, as idle's.
           Where does the program's thread wait for the collector?
  nowait   (run in submit mode) the collector never waits inside the driver for a submission
           (vkWaitSemaphores, vkWaitForFences up to 2 ms): it reads the semaphore's value and
           naps 100 us while work is pending. Does its wait in the driver hold up the
           program's submits or fence polls?
  nocb     (run in submit mode) no timestamp pair around each command buffer: with no query
           to read, Hesper adds nothing to a submission, and what is left of submit mode's
           cost is its hooks' on the host; against submit mode, what its GPU work costs

Exits 1 with one line when the text a variant edits is no longer in the tree (the edit
must then be written anew against the code).
"""
import os
import sys

CODE = "layer/clock/spirv_clock_code.c"
ENTRY = "layer/clock/spirv_clock.c"
HEADER = "layer/clock/spirv_clock.h"
BEGIN = "layer/record/begin_end_hooks.c"
COLLECTOR = "layer/collect/collector.c"
COLLECTOR_MAIN = "static void *collector_main(void *arg)\n{\n\t(void)arg;\n"
# The collector thread at SCHED_IDLE (variants idle, and counts with HESPER_VARIANT_IDLE=1).
AT_IDLE = "pthread_setschedparam(pthread_self(), SCHED_IDLE, &(struct sched_param){0});"

START_FOLD = "\tINST(o, OP_ATOMIC_UMAX, d->u64, r0, p0, d->scope_atomic, d->c0, inverted);\n"
END_FOLD = "\tINST(o, OP_ATOMIC_UMAX, d->u64, r1, p1, d->scope_atomic, d->c0, end);\n"
SUBGROUP_SCOPE = "\td->scope_subgroup = constant(s, d, SCOPE_SUBGROUP, &d->new_c3);\n"
PLAN_START = "\tmemset(d, 0, sizeof *d);\n"
FOLD_START = "\tINST(o, OP_BITWISE_OR, d->u32, at1, at, d->c1); /* row_words is even */\n"
START_READ = "INST(o, OP_READ_CLOCK_KHR, d->u64, d->start, d->scope_clock);"
END_READ = "INST(o, OP_READ_CLOCK_KHR, d->u64, end, d->scope_clock);"

SETS = "layer/clock/clock.c"
RETURN = "void hesper_clock_emit_return(struct hesper_spirv_out *o, struct hesper_clock_ids *d)\n{\n"
SLOT_BIND = ("\tdev->next.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, set, 1,\n"
             "\t\t\t\t\t&c->b.sets[slot % HESPER_CLOCK_CHUNK_SLOTS], 0, NULL);\n")
# Counts the modules planned, so a variant can leave the first, the calibration kernel's, whole.
COUNT_MODULES = [
    (CODE, PLAN_START, PLAN_START + "\tvariant_modules++; /* the first module planned is the calibration's */\n"),
    (CODE, "void hesper_clock_plan_ids(", "unsigned variant_modules;\n\nvoid hesper_clock_plan_ids("),
]
# Kernels left as they were but for the binding (every module after the first, the calibration's).
BARE = COUNT_MODULES + [
    (CODE, RETURN, RETURN + "\tif (variant_modules > 1) { /* variant bare */\n\t\tINST(o, OP_RETURN);\n\t\treturn;\n\t}\n"),
    (ENTRY, START_READ, "if (variant_modules <= 1) /* variant bare */\n\t\t\t\t" + START_READ),
    (ENTRY, "/* The second pass:", "extern unsigned variant_modules; /* variant bare */\n\n/* The second pass:"),
]

# A volatile load of the slot's first word (the variable's element 0), its value unused.
PREFETCH = ("void hesper_clock_emit_prefetch(struct hesper_spirv_out *o, struct hesper_clock_ids *d);\n"
            "void hesper_clock_emit_prefetch(struct hesper_spirv_out *o, struct hesper_clock_ids *d)\n{\n"
            "\tuint32_t p = fresh(d), v = fresh(d);\n"
            "\tINST(o, OP_ACCESS_CHAIN, d->ptr_u64, p, d->var, d->c0, d->c0);\n"
            "\tINST(o, OP_LOAD, d->u64, v, p, 1u); /* Volatile */\n}\n\n")

# At the entry: the first block's label given to the rest of it (so that branches and phis
# naming it stay right), a fresh label on a block of its own where the elected invocation
# of each subgroup folds (or, fetch, reads) its lane's start word, then on to the rest.
ENTRY_CODE = ("static void variant_entry_start(struct hesper_spirv_out *o, struct hesper_clock_ids *d, uint32_t at,\n"
              "\t\t\t\tuint32_t start, int fetch)\n{\n"
              "\tuint32_t p0 = fresh(d), v = fresh(d), inverted = fresh(d);\n"
              "\tINST(o, OP_ACCESS_CHAIN, d->ptr_u64, p0, d->var, d->c0, at);\n"
              "\tif (fetch) {\n\t\tINST(o, OP_LOAD, d->u64, v, p0, 1u); /* Volatile */\n\t\treturn;\n\t}\n"
              "\tINST(o, OP_NOT, d->u64, inverted, start);\n"
              "\tINST(o, OP_ATOMIC_UMAX, d->u64, v, p0, d->scope_atomic, d->c0, inverted);\n}\n\n"
              "uint32_t hesper_clock_variant_fresh(struct hesper_clock_ids *d);\n"
              "uint32_t hesper_clock_variant_fresh(struct hesper_clock_ids *d)\n{\n\treturn fresh(d);\n}\n\n"
              "void hesper_clock_emit_entry(struct hesper_spirv_out *o, struct hesper_clock_ids *d, uint32_t rest, int fetch);\n"
              "void hesper_clock_emit_entry(struct hesper_spirv_out *o, struct hesper_clock_ids *d, uint32_t rest, int fetch)\n{\n"
              "\tuint32_t elected = fresh(d), then = fresh(d), wid = fresh(d), wx = fresh(d), wy = fresh(d), wz = fresh(d);\n"
              "\tuint32_t sum1 = fresh(d), sum2 = fresh(d), lane = fresh(d), at = fresh(d);\n"
              "\tINST(o, OP_GROUP_NON_UNIFORM_ELECT, d->boolean, elected, d->scope_subgroup);\n"
              "\tINST(o, OP_SELECTION_MERGE, rest, 0);\n"
              "\tINST(o, OP_BRANCH_CONDITIONAL, elected, then, rest);\n"
              "\tINST(o, OP_LABEL, then);\n"
              "\tINST(o, OP_LOAD, d->v3u32, wid, d->workgroup_id);\n"
              "\tINST(o, OP_COMPOSITE_EXTRACT, d->u32, wx, wid, 0);\n"
              "\tINST(o, OP_COMPOSITE_EXTRACT, d->u32, wy, wid, 1);\n"
              "\tINST(o, OP_COMPOSITE_EXTRACT, d->u32, wz, wid, 2);\n"
              "\tINST(o, OP_I_ADD, d->u32, sum1, wx, wy);\n"
              "\tINST(o, OP_I_ADD, d->u32, sum2, sum1, wz);\n"
              "\tINST(o, OP_BITWISE_AND, d->u32, lane, sum2, d->lane_mask);\n"
              "\tINST(o, OP_I_MUL, d->u32, at, lane, d->row_words);\n"
              "\tvariant_entry_start(o, d, at, d->start, fetch);\n"
              "\tif (d->narrow_clock) {\n"
              "\t\tuint32_t at2 = fresh(d), start2 = fresh(d);\n"
              "\t\tINST(o, OP_I_ADD, d->u32, at2, at, d->half_lanes);\n"
              "\t\tINST(o, OP_BITWISE_XOR, d->u64, start2, d->start, d->flip);\n"
              "\t\tvariant_entry_start(o, d, at2, start2, fetch);\n"
              "\t}\n"
              "\tINST(o, OP_BRANCH, rest);\n"
              "\tINST(o, OP_LABEL, rest);\n}\n\n")
ENTRY_DECLS = ("uint32_t hesper_clock_variant_fresh(struct hesper_clock_ids *d); /* variant entry */\n"
               "void hesper_clock_emit_entry(struct hesper_spirv_out *o, struct hesper_clock_ids *d, uint32_t rest, int fetch);\n\n"
               "/* The second pass:")
ENTRY_LABEL = ("\t\t} else {\n\t\t\tfor (uint32_t k = 0; k < n; k++)\n\t\t\t\thesper_spirv_put(o, w[i + k]);\n\t\t}\n")


def entry_variant(fetch):
    """The edits of variants entry (fetch 0) and lanefetch (fetch 1)."""
    return [
        (CODE, RETURN, ENTRY_CODE + RETURN),
        (ENTRY, "/* The second pass:", ENTRY_DECLS),
        (ENTRY, "bool in_entry = false, first_block = false, start_read = false;",
         "bool in_entry = false, first_block = false, start_read = false;\n\tuint32_t variant_rest = 0;"),
        (ENTRY, ENTRY_LABEL, "\t\t} else if (in_entry && op == OP_LABEL && !start_read) { /* variant entry */\n"
         "\t\t\tvariant_rest = w[i + 1];\n\t\t\tINST(o, OP_LABEL, hesper_clock_variant_fresh(d));\n" + ENTRY_LABEL),
        (ENTRY, START_READ, START_READ + "\n\t\t\thesper_clock_emit_entry(o, d, variant_rest, %d); /* variant entry */" % fetch),
    ]


# Counters of what the program's threads make and of vkQueueSubmit's time in the driver.
COUNT_DECL = "extern _Thread_local int variant_collector; extern _Atomic unsigned long variant_counts[2][5];"
COUNTS_MAIN = (
    "_Thread_local int variant_collector; /* variant counts */\n"
    "_Atomic unsigned long variant_counts[2][5]; /* [collector?][records, buffers, pools, submits, submit ns] */\n"
    "static void __attribute__((destructor)) variant_counts_write(void)\n{\n"
    "\tconst char *path = getenv(\"HESPER_VARIANT_COUNTS\");\n"
    "\tFILE *f = path ? fopen(path, \"a\") : NULL;\n"
    "\tif (!f)\n\t\treturn;\n"
    "\tfor (int c = 0; c < 2; c++)\n"
    "\t\tfprintf(f, \"%s records %lu buffers %lu pools %lu submits %lu driver submit ns %lu%s\",\n"
    "\t\t\tc ? \"collector\" : \"program\", variant_counts[c][0], variant_counts[c][1], variant_counts[c][2],\n"
    "\t\t\tvariant_counts[c][3], variant_counts[c][4], c ? \"\\n\" : \"; \");\n"
    "\tfclose(f);\n}\n\n"
    + COLLECTOR_MAIN + "\tvariant_collector = 1;\n\tif (getenv(\"HESPER_VARIANT_IDLE\"))\n\t\t" + AT_IDLE + "\n")


def count(index):
    """A statement adding 1 to counter @index of the calling thread's kind."""
    return "{ " + COUNT_DECL + " variant_counts[variant_collector][%d]++; } /* variant counts */\n" % index


# (file, text that must be there, what replaces it)
VARIANTS = {
    "sub": [(CODE, SUBGROUP_SCOPE, SUBGROUP_SCOPE + "\td->scope_clock = d->scope_subgroup; /* variant sub */\n")],
    "store": [
        (CODE, START_FOLD, "\tINST(o, SpvOpStore, p0, inverted); (void)r0; /* variant store */\n"),
        (CODE, END_FOLD, "\tINST(o, SpvOpStore, p1, end); (void)r1; /* variant store */\n"),
    ],
    "one": [(CODE, START_FOLD, "\t(void)r0; /* variant one: the start not folded */\n")],
    "nofold": COUNT_MODULES + [
        (CODE, FOLD_START, "\tif (variant_modules > 1)\n\t\treturn; /* variant nofold */\n" + FOLD_START),
    ],
    "noclk": [
        (ENTRY, START_READ, "INST(o, OP_U_CONVERT, d->u64, d->start, d->c1); /* variant noclk */"),
        (CODE, END_READ, "INST(o, OP_U_CONVERT, d->u64, end, d->c32); /* variant noclk */"),
    ],
    "l64": [(HEADER, "#define HESPER_CLOCK_LANES 16u", "#define HESPER_CLOCK_LANES 64u")],
    "bare": BARE,
    "barenobind": BARE + [(SETS, SLOT_BIND, "\t(void)layout; (void)set; (void)c; /* variant barenobind */\n")],
    "prefetch": [
        (CODE, RETURN, PREFETCH + RETURN),
        (ENTRY, START_READ, START_READ + "\n\t\t\thesper_clock_emit_prefetch(o, d); /* variant prefetch */"),
        (ENTRY, "/* The second pass:", "void hesper_clock_emit_prefetch(struct hesper_spirv_out *o, struct hesper_clock_ids *d);"
         " /* variant prefetch */\n\n/* The second pass:"),
    ],
    "entry": entry_variant(0) + [(CODE, START_FOLD, "\t(void)r0; /* variant entry: the start folded at the entry */\n")],
    "lanefetch": entry_variant(1),
    "counts": [
        (COLLECTOR, COLLECTOR_MAIN, COUNTS_MAIN),
        ("layer/submit/submission.c", "\tif (!sub)\n\t\tsub = calloc(1, sizeof(*sub));",
         "\tif (!sub)\n\t\t" + count(0) + "\tif (!sub)\n\t\tsub = calloc(1, sizeof(*sub));"),
        ("layer/submit/copies.c", "\tuint32_t want = hesper_result_slots(slots, peak);",
         "\t" + count(1) + "\tuint32_t want = hesper_result_slots(slots, peak);"),
        ("layer/state/query_blocks.c", "\tblock = calloc(1, sizeof(*block));",
         "\t" + count(2) + "\tblock = calloc(1, sizeof(*block));"),
        ("layer/submit/submit.c", "\tuint64_t t2 = hesper_now_ns();\n",
         "\tuint64_t t2 = hesper_now_ns();\n\t{ " + COUNT_DECL + " variant_counts[variant_collector][3]++;"
         " variant_counts[variant_collector][4] += t2 - t1; } /* variant counts */\n"),
    ],
    "idle": [
        (COLLECTOR, COLLECTOR_MAIN, COLLECTOR_MAIN + "\t" + AT_IDLE + " /* variant idle */\n"),
    ],
    "nowait": [
        (COLLECTOR, "\t\tif (pending) {\n\t\t\tfor (struct hesper_device *dev = first_device();",
         "\t\tif (pending) /* variant nowait */\n\t\t\tnanosleep(&(struct timespec){0, 100000}, NULL);\n"
         "\t\tif (0) {\n\t\t\tfor (struct hesper_device *dev = first_device();"),
    ],
    "nocb": [
        (BEGIN, "\tif (s->primary) {\n\t\tuint32_t q = hesper_recording_take(s->rec, cb, 2);\n",
         "\tif (s->primary && 0) { /* variant nocb */\n\t\tuint32_t q = hesper_recording_take(s->rec, cb, 2);\n"),
    ],
}


# The mode each variant's build is measured in, where not clock mode (clock-span).
MODES = {"nocb": "submit", "idle": "submit", "counts": "submit", "nowait": "submit"}


def apply(root, name):
    """Applies variant @name to the tree at @root; returns an error line or None."""
    for path, old, new in VARIANTS[name]:
        full = os.path.join(root, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        if old not in text:
            return f"clock_variants: {name}: {path} no longer holds {old.strip()!r}"
        text = text.replace(old, new, 1)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
    return None


def main(argv):
    if len(argv) != 3 or argv[2] not in VARIANTS:
        print(f"usage: {argv[0]} SOURCE_DIR|--mode VARIANT ({' '.join(VARIANTS)})", file=sys.stderr)
        return 2
    if argv[1] == "--mode":
        print(MODES.get(argv[2], "clock"))
        return 0
    if os.path.isdir(os.path.join(argv[1], ".git")):
        print("clock_variants: SOURCE_DIR is a checkout; give it a copy of the tree", file=sys.stderr)
        return 2
    error = apply(argv[1], argv[2])
    if error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
