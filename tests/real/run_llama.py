#!/usr/bin/env python3
"""llama.cpp (ggml's Vulkan backend) under Hesper, checked against the counter layer, the text
it generates and ggml's own per-op timings.

    run_llama.py --hesper LIB --counter-dir DIR --work DIR --model MODEL.gguf [options]

The program is llama.cpp's examples/simple (greedy decoding) built by llama_files.py against
node-llama-cpp's prebuilt libraries (--llama-files; default $HESPER_LLAMA_FILES, else the npm
prefix $HESPER_NPM_CACHE/llama, installed there with npm when missing). The model is a GGUF
with random weights from llama_model.py (--preset writes MODEL when it does not exist).
Every run has GGML_VK_VISIBLE_DEVICES=--vk-device (ggml leaves CPU devices such as lavapipe
out unless they are named) and GGML_VK_DEBUG_MARKERS=1 (ggml names its pipelines and labels
each op and each dispatch with VK_EXT_debug_utils, so Hesper's rows carry ggml's names).

Runs, each checked for the plain run's exit code and generated text (byte for byte; where
the validation layer prints on stdout, its lines are left out first):
  plain          no layer: the reference text and exit code;
  counter        the counter layer (tests/counter_layer) above the validation layer: the
                 ground-truth dispatch counts and the validation messages llama.cpp causes;
  MODE+counter   for MODE in dispatch, submit, clock (HESPER_CLOCK_ISOLATED=barriers) and
                 clock-span (HESPER_CLOCK_ISOLATED=span): Hesper above the counter above the
                 validation layer: Hesper's counts equal the counter's of the same process
                 (less Hesper's own kernels), which equal the counter run's; no
                 validation message that the counter run does not have; the layers in order;
  MODE           Hesper alone in each mode, --rounds times, interleaved with plain runs
                 (from the second round on when there are several, the first being a
                 warm-up): counts equal the counter run's, nothing dropped, every dispatch
                 timed (dispatch, clock); ggml's "eval time" gives the milliseconds per
                 generated token of each run;
  perf           Hesper in dispatch mode with ggml's perf logger (GGML_VK_PERF_LOGGER=1:
                 a timestamp and a barrier after every op, per-op means on stderr), prompt
                 empty (BOS only) so that every graph decodes one token, with a Perfetto
                 trace; and perf-plain, the same without Hesper (the text reference);
  alone-WAY      for WAY in dispatch, clock, clock-span: Hesper alone without the perf logger,
                 prompt empty, with a Perfetto trace (the text as perf-plain's).

The per-op comparison: Hesper's trace puts each dispatch inside ggml's label of its op
("MUL_MAT Qcur-0"). Ops of a kind ("MUL_MAT", "RMS_NORM+MUL", ...: ggml's perf logger's
keys less their shapes, fused ops named with "_") whose every label holds exactly one
dispatch are single-dispatch ops; kinds and kernels that share dispatches are grouped, and a
group whose kernels never ran outside those labels is compared: the number of ops ggml timed
equals the number of dispatches Hesper timed; Hesper's mean is at most ggml's (Hesper's
timestamps lie inside ggml's pair); and the gap, ggml's mean less Hesper's (what ggml's
interval holds beyond the dispatch: its barrier and timestamp, Hesper's label timestamps), is
about the same for every group: at most --gap-factor (3) times its median over the groups,
plus 5 % of ggml's mean, so a kernel that Hesper timed short stands out (not for groups
of which some dispatches begin or end a submission, whose ggml interval holds the time between;
only with --judge-times, as the gaps move with the host's load on a CPU device).

The same groups in separate runs, ggml's means from perf-plain and Hesper's from alone-WAY
(ggml's timestamps and barriers no longer around Hesper's, nor Hesper's around ggml's): the
number of ops ggml timed equals the number of dispatches Hesper timed; in dispatch mode
Hesper's mean is within --perf-tolerance (10 %) of ggml's, for groups whose ggml mean is at
least --perf-min-us (default 0: all; shorter ones are shown only), and at most that above
it for groups of which some dispatches begin or end a submission (ggml's logger closes an
op that ends a submission with a timestamp in the next command buffer, so it holds the time
between the two submissions too; see edge_dispatches); in clock-span Hesper's
mean is at most --perf-tolerance above ggml's for every group: the clock times from the
first work group's start to the last one's end, without the launch and drain that ggml's
timestamp pair holds, so it reads lower on short ops, never longer.

The comparisons of times (the gap in one process, every mean in separate runs) are verdicts
only with --judge-times, which bench/gpu-suite gives: a test run on a CPU device that other
work shares judges what is exact (counts, text, Hesper's time inside ggml's pair in the same
process) and shows the times; a run whose load changes between two runs moves one run's
means by 2x and more.

--md FILE writes the results as Markdown (bench/gpu-suite's table). Exit 0 when every check
passes, 1 otherwise (a missing program, library or model is a failure, never a skip).
"""

import argparse
import bisect
import collections
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_real  # noqa: E402  (also puts tests/e2e on sys.path)
import run_e2e  # noqa: E402
import llama_files  # noqa: E402
import llama_model  # noqa: E402

# Hesper's ways of running, each with the counter layer and then in the timing rounds: its
# three modes, clock mode both ways of timing the dispatches the program isolates with
# barriers (ggml puts one between most of its ops): "clock" from barrier to barrier, as
# dispatch mode does (HESPER_CLOCK_ISOLATED=barriers), "clock-span" by the clock (the default).
WAYS = {"dispatch": {"HESPER_MODE": "dispatch"},
        "submit": {"HESPER_MODE": "submit"},
        "clock": {"HESPER_MODE": "clock", "HESPER_CLOCK_ISOLATED": "barriers"},
        "clock-span": {"HESPER_MODE": "clock", "HESPER_CLOCK_ISOLATED": "span"}}
MODES = list(WAYS)
# The ways compared with ggml's perf logger in separate runs.
ALONE_WAYS = ["dispatch", "clock", "clock-span"]
RUN_TIMEOUT_S = 600
EVAL_RE = re.compile(r"llama_perf_context_print:\s+eval time =\s+([\d.]+) ms /\s+(\d+) runs\s+\(\s*([\d.]+) ms per token")
PROMPT_RE = re.compile(r"llama_perf_context_print: prompt eval time =\s+([\d.]+) ms /\s+(\d+) tokens")
PERF_LINE_RE = re.compile(r"^(.+): (\d+) x (\S+) us = (\S+) us")
OP_LABEL_RE = re.compile(r"^([A-Z][A-Z0-9_]*(?:\+[A-Z][A-Z0-9_]*)*) \S")
# ggml's label of one dispatch: its pipeline's name and work-group counts, "rope_norm_f32 (8,1,1)".
DISPATCH_LABEL_RE = re.compile(r"^(\S+) \(\d+,\d+,\d+\)$")


def ms_per_token(stderr):
    """ggml's eval time per generated token in @stderr, or None: its total over the runs, as
    the per-token figure it prints has two decimals, 1 % of a millisecond token, coarser
    than the differences between Hesper's modes."""
    m = EVAL_RE.search(stderr)
    if not m:
        return None
    runs = int(m.group(2))
    return float(m.group(1)) / runs if runs else float(m.group(3))


def default_llama_files():
    if os.environ.get("HESPER_LLAMA_FILES"):
        return os.environ["HESPER_LLAMA_FILES"]
    cache = os.environ.get("HESPER_NPM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "hesper-npm")
    return os.path.join(cache, "llama")


def build_simple(args):
    """Builds simple into --work from --llama-files; an npm prefix without the packages gets them."""
    src = args.llama_files
    explicit = bool(os.environ.get("HESPER_LLAMA_FILES")) or args.llama_files_given
    if not explicit and not os.path.exists(os.path.join(src, "node_modules", "node-llama-cpp", "package.json")):
        print(f"installing {' '.join(llama_files.PACKAGES)} into {src} with npm")
        llama_files.install(src)
    return llama_files.build(src, args.work)


class Runner:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.n = 0

    def env(self, extra, hesper):
        env = {k: v for k, v in os.environ.items()
               if k not in run_real.SCRUBBED_ENV and not k.startswith(("HESPER_", "GGML_", "LLAMA_"))}
        env.update({"GGML_VK_VISIBLE_DEVICES": str(self.args.vk_device), "GGML_VK_DEBUG_MARKERS": "1"})
        env.update(extra)
        if hesper:
            env["LD_PRELOAD"] = self.args.hesper
        return env

    def run(self, label, extra=None, hesper=False, prompt=None):
        """Runs simple once in a fresh directory; the Run gets ms_per_token and prompt_ms from
        ggml's eval times (None when it printed none)."""
        self.n += 1
        cwd = os.path.join(self.tmp, f"{self.n:02d}-{label}")
        os.makedirs(cwd)
        argv = [self.args.simple, "-m", self.args.model, "-n", str(self.args.tokens),
                self.args.prompt if prompt is None else prompt]
        r = run_e2e.Run(argv, self.env(extra or {}, hesper), cwd, timeout=RUN_TIMEOUT_S)
        r.ms_per_token = ms_per_token(r.err)
        r.prompt_ms = None
        m = PROMPT_RE.search(r.err)
        if m:
            r.prompt_ms = float(m.group(1))
        tok = f"{r.ms_per_token:8.4f} ms/token" if r.ms_per_token is not None else "      (no eval time)"
        print(f"run {label:<18} exit {r.rc}  {r.seconds:6.1f} s  {tok}")
        return r


# Messages about a shader module or a pipeline stage, which clock mode's copies of the
# program's modules repeat (see the MODE+counter check).
MODULE_MESSAGES = {"UNASSIGNED-CoreValidation-Shader-InconsistentSpirv",
                   "VUID-VkPipelineShaderStageCreateInfo-module-parameter",
                   "VUID-VkPipelineShaderStageCreateInfo-pSpecializationInfo-06719",
                   "VUID-VkShaderModuleCreateInfo-pCode-01090", "VUID-VkShaderModuleCreateInfo-pCode-04146"}
# The validation layer's short form, which may stand inside a line of generated text:
# "VUID-...(ERROR / SPEC): msgNum: -1876993556 - ".
VALIDATION_INLINE_RE = re.compile(r"(VUID-|UNASSIGNED-)[\w-]+\([A-Z]+ / [A-Z]+\): msgNum: -?\d+ - ")
# Where the validation layer starts a message on stdout, and the indented lines that go on with it.
VALIDATION_START_RE = re.compile(r"Validation (Error|Warning|Performance Warning|Information): ")
VALIDATION_MORE_RE = re.compile(r"^ {4,}\S")


def generated_text(out):
    """What llama.cpp printed on stdout, with the validation layer's messages taken out. A
    message may start in the middle of the generated text (ggml compiles pipelines while it
    generates): it runs from its marker to the end of that line, with the indented lines
    after it, and the text goes on after it."""
    kept, in_message = [], False
    out = VALIDATION_INLINE_RE.sub("", out)
    for line in out.splitlines(keepends=True):
        if in_message and VALIDATION_MORE_RE.match(line):
            continue
        m = VALIDATION_START_RE.search(line)
        in_message = m is not None
        kept.append(line[:m.start()] if m else line)
    return "".join(kept)


def same_as(c, label, ref, run, validation=False):
    """Exit code and generated text as @ref's: the bytes of stdout, or the text with the
    validation layer's messages taken out where it may have printed there. True when both are."""
    ok = c.check(run.rc == ref.rc, f"{label}: exit code {ref.rc} as the plain run", f"got {run.rc}\n" + run.tail(label, 20))
    if validation:
        a, b = generated_text(ref.out), generated_text(run.out)
        return c.check(a == b, f"{label}: generated text identical to the plain run's",
                       run_e2e.diff(a.splitlines(), b.splitlines(), "plain", label)) and ok
    return c.check(run.out_bytes == ref.out_bytes, f"{label}: generated text byte-identical to the plain run's",
                   run_e2e.diff(ref.out.splitlines(), run.out.splitlines(), "plain", label)) and ok


def hesper_counts(rep):
    return {r["name"]: r["count"] for r in rep.get("kernels", [])}


def hesper_mode(way):
    return WAYS[way]["HESPER_MODE"]


def check_report(c, label, rep, way, err=""):
    """What every report of Hesper alone holds: the mode @way runs in, nothing dropped, every
    dispatch timed (but in submit mode), and with HESPER_CLOCK_ISOLATED=span no dispatch timed
    from barrier to barrier, with barriers (on a clock-timed device) some. A drop's failure
    shows its causes and Hesper's lines on @err (the run's stderr): what the next look at a
    lost dispatch needs."""
    mode = hesper_mode(way)
    c.check(rep.get("mode") == mode, f"{label}: Hesper ran in {mode} mode", f"mode {rep.get('mode')!r}")
    said = "\n".join(line for line in err.splitlines() if line.startswith("hesper:"))
    c.check(rep.get("dropped") == 0, f"{label}: nothing dropped",
            f"dropped {rep.get('dropped')}, causes {rep.get('dropped_causes')}" + (f"\n{said}" if said else ""))
    if mode != "submit":
        untimed = [(r["name"], r["count"], r.get("timed")) for r in rep.get("kernels", []) if r.get("timed") != r["count"]]
        c.check(not untimed, f"{label}: every dispatch timed", f"name, count, timed: {untimed}")
    if WAYS[way].get("HESPER_CLOCK_ISOLATED") == "span":
        c.check(rep.get("clock_isolated") == 0, f"{label}: no dispatch timed from barrier to barrier (span)",
                f"clock_isolated {rep.get('clock_isolated')!r}")
    elif WAYS[way].get("HESPER_CLOCK_ISOLATED") == "barriers" and all(d.get("timing") == "clock"
                                                                      for d in rep.get("devices", [])):
        # ggml puts a compute barrier before and after most single ops, its debug label between.
        c.check((rep.get("clock_isolated") or 0) > 0,
                f"{label}: the ops ggml isolates with barriers timed from barrier to barrier",
                f"clock_isolated {rep.get('clock_isolated')!r}")


def compare_counts(c, label, rep, counter, way, err=""):
    """Hesper's per-kernel counts against the counter's (ggml names every pipeline, so by name),
    and check_report's checks."""
    hk = hesper_counts(rep)
    ck = {k[len("name:"):] if k.startswith("name:") else k: n for k, n in counter.get("kernels", {}).items()}
    c.check(counter.get("unbound") == 0, f"{label}: the counter saw no dispatch without a pipeline",
            f"unbound {counter.get('unbound')}")
    ok = c.check(hk == ck, f"{label}: per-kernel dispatch counts equal the counter's ({len(ck)} kernels, "
            f"{sum(ck.values())} dispatches)",
            "\n".join(f"{k}: Hesper {hk.get(k)}, counter {ck.get(k)}" for k in sorted(set(hk) | set(ck))
                      if hk.get(k) != ck.get(k)))
    check_report(c, label, rep, way, err)
    return ok


# Hesper's own kernels, dispatched at vkCreateDevice and seen by a layer below it: the
# dispatch-cost measurement (docs/findings.md), 145 dispatches per device, and in clock mode the
# shader clock's calibration (docs/timing.md), 3 per device.
HESPER_OWN = {"dispatch-cost measurement": run_real.HESPER_CALIBRATION_DISPATCHES, "clock calibration": 3}


def without_hesper_kernels(c, label, counts, ref, mode):
    """@counts (the counter below Hesper) less the kernels of Hesper's own."""
    extra = sorted((k for k in counts.get("kernels", {}) if k not in ref.get("kernels", {})),
                   key=lambda k: -counts["kernels"][k])
    want = ["dispatch-cost measurement"] + (["clock calibration"] if mode == "clock" else [])
    ok = c.check(len(extra) == len(want) and all(counts["kernels"][k] % HESPER_OWN[w] == 0 for k, w in zip(extra, want)),
                 f"{label}: the counter below Hesper sees Hesper's own kernels only: "
                 + ", ".join(f"{w} ({HESPER_OWN[w]} dispatches per device)" for w in want),
                 f"kernels only with Hesper: {[(k, counts['kernels'][k]) for k in extra]}")
    if not ok:
        return counts
    out = dict(counts, kernels=dict(counts["kernels"]))
    for k in extra:
        out["total"] = out.get("total", 0) - out["kernels"].pop(k)
    return out


# ------------------------------------------------------------------ ggml's perf logger

def perf_blocks(stderr):
    """ggml's perf logger output: one {key: [count, total_ns]} per graph it printed."""
    blocks, cur = [], None
    for line in stderr.splitlines():
        if line.strip() == "Vulkan Timings:":
            cur = {}
            blocks.append(cur)
            continue
        if cur is None:
            continue
        if line.startswith("Total time:") or line.startswith("-----"):
            cur = None
            continue
        m = PERF_LINE_RE.match(line)
        if m:
            e = cur.setdefault(m.group(1), [0, 0.0])
            e[0] += int(m.group(2))
            e[1] += float(m.group(4)) * 1000.0
    return blocks


def perf_totals(blocks):
    """perf_blocks' blocks summed: {key: [count, total_ns]} over every graph."""
    total = {}
    for b in blocks:
        for k, (n, ns) in b.items():
            e = total.setdefault(k, [0, 0.0])
            e[0] += n
            e[1] += ns
    return total


def perf_kind(key):
    """The op kind of a perf-logger key: "MUL_MAT_VEC q8_0 m=.." -> MUL_MAT, "RMS_NORM_MUL
    RMS_NORM(256,1,1,1)" -> RMS_NORM_MUL (the fused ops' name), "RMS_NORM(256,1,1,1)" -> RMS_NORM."""
    tok = re.sub(r"\(.*", "", key.split(" ")[0])
    return tok[:-len("_VEC")] if tok.endswith("_VEC") else tok


def label_kind(name):
    """The op kind of one of ggml's op labels ("RMS_NORM+MUL norm-0" -> RMS_NORM_MUL), or None
    for its other labels (pipelines: "mul_mat_vec_q8_0_f32_f32 (256,1,1)", "submit 3")."""
    m = OP_LABEL_RE.match(name)
    return m.group(1).replace("+", "_") if m else None


def dispatch_places(events, notes):
    """{id(dispatch event): (ts, dur)}: the span of ggml's label of each dispatch (timestamps, as
    its op labels), the k-th dispatch of a kernel in a submitted command buffer at the k-th label
    of that kernel there. Where a kernel's dispatches and labels there differ in number, its
    dispatches are left out (a line in @notes)."""
    def key(e, name):
        a = e.get("args", {})
        return a.get("command_buffer"), a.get("submission"), name

    labels, dispatches = collections.defaultdict(list), collections.defaultdict(list)
    for e in events:
        m = DISPATCH_LABEL_RE.match(e.get("name", "")) if e.get("cat") == "region" else None
        if m:
            labels[key(e, m.group(1))].append(e)
        elif e.get("cat") == "dispatch":
            dispatches[key(e, e["name"])].append(e)
    out, unpaired = {}, collections.Counter()
    for k, ds in dispatches.items():
        ls = labels.get(k, [])
        if len(ls) != len(ds):
            unpaired[k[2]] += len(ds)
            continue
        for d, l in zip(sorted(ds, key=lambda e: e["ts"]), sorted(ls, key=lambda e: e["ts"])):
            out[id(d)] = (l["ts"], l["dur"])
    if unpaired:
        notes.append("dispatches not paired with labels of their own: "
                     + ", ".join(f"{n} {k}" for k, n in sorted(unpaired.items())))
    return out


def edge_dispatches(events):
    """The first and the last dispatch event of each submission in trace @events: those whose
    ggml interval may hold the time between submissions. ggml's perf logger writes the
    timestamp that closes an op after the op's command buffer was submitted when the op ends
    a submission (ggml_vk_build_graph submits the command buffer holding the op; the logger's
    timestamp goes into the next one), so that op holds the time until the next command
    buffer runs: the last node of a graph, the output projection, always. An op that begins
    a submission was seen to read long as well (the H200 table of 2026-12-04)."""
    first, last = {}, {}
    for d in (e for e in events if e.get("cat") == "dispatch"):
        sub = d.get("args", {}).get("submission")
        if sub is None:
            continue
        if sub not in first or d["ts"] < first[sub]["ts"]:
            first[sub] = d
        if sub not in last or d["ts"] > last[sub]["ts"]:
            last[sub] = d
    edges = {id(d): d for d in list(first.values()) + list(last.values())}
    return list(edges.values())


def followers(events, name):
    """What comes next on the GPU after each dispatch named @name in its command buffer: a
    Counter of the next event's name (a dispatch or a memory operation), or "the end of its
    command buffer". ggml's perf logger closes an op with the timestamp after it, so work
    that follows the op before that timestamp (a copy of the results, say) is in its time."""
    work = sorted((e for e in events if e.get("cat") in ("dispatch", "memory")), key=lambda e: e["ts"])
    by_cb = collections.defaultdict(list)  # a handle is recorded again: keyed by its submission too
    for e in work:
        a = e.get("args", {})
        by_cb[(a.get("command_buffer"), a.get("submission"))].append(e)
    out = collections.Counter()
    for items in by_cb.values():
        for i, e in enumerate(items):
            if e["name"] == name and e.get("cat") == "dispatch":
                out[items[i + 1]["name"] if i + 1 < len(items) else "the end of its command buffer"] += 1
    return out


def op_groups(trace, perf, by_label=False):
    """Groups of single-dispatch op kinds and their kernels, from Hesper's trace and ggml's
    perf logger totals @perf ({key: [count, total_ns]}). Returns (groups, notes): each group a
    dict with kinds, keys, kernels, ops (ggml's count), ggml_ns, dispatches and hesper_ns.
    A dispatch belongs to the op label that holds its interval, or with @by_label the one that
    holds ggml's label of the dispatch (dispatch_places): clock mode's intervals come from the
    shader clock, which Hesper's trace may place off its timestamps (on lavapipe, uncalibrated,
    up to 30 µs early), where ggml's labels are timestamps as its op labels are."""
    events = trace.get("traceEvents", [])
    spans = sorted((e for e in events if e.get("cat") == "region" and label_kind(e.get("name", ""))),
                   key=lambda e: e["ts"])
    starts = [e["ts"] for e in spans]
    held = [[] for _ in spans]
    outside = collections.Counter()
    per_kernel = collections.Counter()
    notes = []
    places = dispatch_places(events, notes) if by_label else {}
    firsts = {id(d) for d in edge_dispatches(events)}
    for d in (e for e in events if e.get("cat") == "dispatch"):
        per_kernel[d["name"]] += 1
        ts, dur = places.get(id(d), (d["ts"], d["dur"]))
        i = bisect.bisect_right(starts, ts + 0.0005) - 1
        if i >= 0 and ts + dur <= spans[i]["ts"] + spans[i]["dur"] + 0.0015:
            held[i].append(d)
        else:
            outside[d["name"]] += 1
    kind_kernels = collections.defaultdict(collections.Counter)
    kind_ns = collections.Counter()
    kind_firsts = collections.Counter()
    multi = set()
    for s, ds in zip(spans, held):
        k = label_kind(s["name"])
        if len(ds) > 1:
            multi.add(k)
        for d in ds:
            kind_kernels[k][d["name"]] += 1
            kind_ns[k] += d["dur"] * 1000.0
            kind_firsts[k] += id(d) in firsts
    perf_by_kind = collections.defaultdict(lambda: [0, 0.0, []])
    for key, (n, ns) in perf.items():
        p = perf_by_kind[perf_kind(key)]
        p[0] += n
        p[1] += ns
        p[2].append(key)
    if multi:
        notes.append("ops of more than one dispatch: " + ", ".join(sorted(multi)))
    missing = sorted(k for k in kind_kernels if k not in perf_by_kind)
    if missing:
        notes.append("op labels with no perf-logger key: " + ", ".join(missing))
    # union-find over single-dispatch kinds and their kernels
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    kinds = [k for k in kind_kernels if k not in multi and k in perf_by_kind]
    for k in kinds:
        for kern in kind_kernels[k]:
            parent[find(("k", kern))] = find(("o", k))
    groups = collections.defaultdict(lambda: {"kinds": [], "kernels": set()})
    for k in kinds:
        g = groups[find(("o", k))]
        g["kinds"].append(k)
        g["kernels"].update(kind_kernels[k])
    out = []
    for g in groups.values():
        kernels = sorted(g["kernels"])
        # every dispatch of these kernels must sit in one of these kinds' labels
        inside = sum(kind_kernels[k][kern] for k in g["kinds"] for kern in kernels)
        if inside != sum(per_kernel[kern] for kern in kernels):
            notes.append(f"{'/'.join(kernels)}: also dispatched outside {'/'.join(sorted(g['kinds']))} labels")
            continue
        out.append({"kinds": sorted(g["kinds"]), "kernels": kernels,
                    "keys": sorted(key for k in g["kinds"] for key in perf_by_kind[k][2]),
                    "ops": sum(perf_by_kind[k][0] for k in g["kinds"]),
                    "ggml_ns": sum(perf_by_kind[k][1] for k in g["kinds"]),
                    "dispatches": inside, "hesper_ns": sum(kind_ns[k] for k in g["kinds"]),
                    "firsts": sum(kind_firsts[k] for k in g["kinds"])})
    out.sort(key=lambda g: -g["ggml_ns"])
    return out, notes


def fmt_us(ns):
    return f"{ns / 1000.0:.2f}"


def check_perf(c, args, groups, notes):
    lines = ["| op kinds (ggml) | kernels (Hesper) | ops | ggml mean µs | Hesper mean µs | Hesper / ggml | gap µs |",
             "|---|---|---|---|---|---|---|"]
    for g in groups:
        g["ggml_mean"] = g["ggml_ns"] / max(g["ops"], 1)
        g["hesper_mean"] = g["hesper_ns"] / max(g["dispatches"], 1)
        g["gap"] = g["ggml_mean"] - g["hesper_mean"]
    gap = statistics.median(g["gap"] for g in groups) if groups else 0.0
    for g in groups:
        gm, hm = g["ggml_mean"], g["hesper_mean"]
        g["ratio"] = ratio = hm / gm if gm else float("nan")
        lines.append(f"| {', '.join(g['kinds'])} | {', '.join(g['kernels'])} | {g['ops']} | {fmt_us(gm)} | "
                     f"{fmt_us(hm)} | {ratio:.3f} | {fmt_us(g['gap'])} |")
        what = f"{'/'.join(g['kinds'])} ({'/'.join(g['kernels'])})"
        c.check(g["ops"] == g["dispatches"], f"perf: {what}: ggml timed as many ops as Hesper dispatches",
                f"ggml {g['ops']} ({', '.join(g['keys'])}), Hesper {g['dispatches']}")
        # ggml prints six significant digits; its pair encloses Hesper's
        c.check(g["hesper_ns"] <= g["ggml_ns"] * 1.001 + 1000, f"perf: {what}: Hesper's time within ggml's",
                f"Hesper {g['hesper_ns']:.0f} ns, ggml {g['ggml_ns']:.0f} ns over {g['ops']} ops")
        # What ggml's interval holds beyond Hesper's (its barrier and timestamps, the label
        # timestamps) costs about the same for every op: a kernel Hesper timed short stands out.
        if g["firsts"] or not args.judge_times:
            continue  # ggml's interval of an op at a submission's edge holds the time between (edge_dispatches)
        c.check(g["gap"] <= args.gap_factor * gap + 0.05 * gm,
                f"perf: {what}: ggml's mean less Hesper's within {args.gap_factor}x the median over the groups "
                f"({fmt_us(gap)} µs) + 5 %", f"{fmt_us(g['gap'])} µs (ggml {fmt_us(gm)}, Hesper {fmt_us(hm)})")
    c.check(len(groups) >= args.min_groups, f"perf: at least {args.min_groups} groups of single-dispatch ops "
            "compared with ggml's perf logger", f"{len(groups)}; " + "; ".join(notes))
    text = "\n".join(lines)
    print("--- per-op means, Hesper (dispatch mode) and ggml's perf logger, same process ---")
    print(text)
    print(f"median gap (ggml's mean less Hesper's): {fmt_us(gap)} µs")
    for n in notes:
        print("note: " + n)
    return text, gap


def check_alone(c, args, way, groups, notes):
    """Per-op means of Hesper alone in @way against ggml's perf logger alone (separate runs, the
    same tokens), @groups from op_groups. Each group: ggml timed as many ops as Hesper timed
    dispatches; in dispatch mode, Hesper's mean within --perf-tolerance of ggml's (both time the
    dispatch with its launch and drain) where ggml's mean is at least --perf-min-us (shorter ones
    are shown, not checked); in clock mode, at most --perf-tolerance above ggml's, for every
    group: the clock times from the first work group's start to the last one's end, without
    the launch and drain that ggml's timestamp pair holds, so it reads lower on short ops,
    never longer (without HESPER_CLOCK_ISOLATED=span the ops ggml isolates with barriers are
    timed by timestamps as in dispatch mode, the others by the clock). Returns the Markdown
    table."""
    label = f"alone-{way}"
    span = hesper_mode(way) == "clock"  # the clock's span, for some or all of the dispatches
    tol = args.perf_tolerance
    lines = ["| op kinds (ggml) | kernels (Hesper) | ops | ggml mean µs | Hesper mean µs | Hesper / ggml |",
             "|---|---|---|---|---|---|"]
    for g in groups:
        g["ggml_mean"] = gm = g["ggml_ns"] / max(g["ops"], 1)
        g["hesper_mean"] = hm = g["hesper_ns"] / max(g["dispatches"], 1)
        g["ratio"] = ratio = hm / gm if gm else float("nan")
        checked = args.judge_times and (span or gm >= args.perf_min_us * 1000.0)
        bound = f" (upper bound: {g['firsts']} begin or end a submission)" if checked and not span and g["firsts"] else ""
        lines.append(f"| {', '.join(g['kinds'])} | {', '.join(g['kernels'])} | {g['ops']} | {fmt_us(gm)} | "
                     f"{fmt_us(hm)} | {ratio:.3f}{'' if checked else ' (not checked)'}{bound} |")
        what = f"{label}: {'/'.join(g['kinds'])} ({'/'.join(g['kernels'])})"
        c.check(g["ops"] == g["dispatches"], f"{what}: ggml timed as many ops (perf-plain) as Hesper dispatches",
                f"ggml {g['ops']} ({', '.join(g['keys'])}), Hesper {g['dispatches']}")
        why = f"Hesper {fmt_us(hm)} µs, ggml {fmt_us(gm)} µs over {g['ops']} ops: {ratio:.3f}"
        if not checked:
            pass  # shown only
        elif span:
            # the clock's span holds no launch nor drain, which ggml's timestamp pair does: it
            # reads lower than ggml's on short ops, so only the upper bound holds
            c.check(ratio <= 1 + tol, f"{what}: Hesper's mean at most {tol * 100:g} % above ggml's (separate runs)", why)
        elif g["firsts"]:
            # ggml's logger times an op from the timestamp before it, so the ops that begin its
            # submissions hold the time between submissions as well: only the upper bound holds
            c.check(ratio <= 1 + tol, f"{what}: Hesper's mean at most {tol * 100:g} % above ggml's "
                    f"({g['firsts']} of {g['dispatches']} dispatches begin or end a submission)", why)
        else:
            c.check(abs(ratio - 1) <= tol, f"{what}: Hesper's mean within {tol * 100:g} % of ggml's (separate runs)", why)
    c.check(len(groups) >= args.min_groups, f"{label}: at least {args.min_groups} groups of single-dispatch ops "
            "compared with ggml's perf logger", f"{len(groups)}; " + "; ".join(notes))
    text = "\n".join(lines)
    print(f"--- per-op means, Hesper alone ({way}) and ggml's perf logger alone, separate runs ---")
    print(text)
    for n in notes:
        print("note: " + n)
    return text


SHAPE_ROW_RE = re.compile(r"^mul_mat_vec_([a-z0-9_]+?)_f32_f32 \[(\d+)\u00d7(\d+)\u00d7(\d+)\]$")
MAT_VEC_KEY_RE = re.compile(r"MUL_MAT_VEC (\S+) m=(\d+) n=1 k=\d+")


def check_shapes(c, args, rep, trace, perf):
    """HESPER_GROUP_BY=shape against ggml's perf logger (separate runs, the same tokens): each
    mul_mat_vec row of Hesper's summary split by work-group count, against ggml's ops of that
    quantization keyed by their rows m (MUL_MAT_VEC and MUL_MAT_ADD alike, summed by m). Sorted
    by work groups and by m (more rows, more work groups), the two lists pair up: as many
    entries, each pair the same count (m / work groups is shown, the rows of a work group,
    not held to one value: the driver's limits may split a launch). Each pair's mean
    within --perf-tolerance of ggml's where ggml's is at least --perf-min-us, only the upper
    bound where some of the row's dispatches begin or end a submission (ggml's logger gives those the
    time between submissions too). Returns the Markdown table."""
    tol = args.perf_tolerance
    rows = collections.defaultdict(list)  # quantization -> [(groups x, name, count, mean ns)]
    for k in rep.get("kernels", []):
        m = SHAPE_ROW_RE.match(k.get("name", ""))
        if m and m.group(3) == "1" and m.group(4) == "1" and k.get("count"):
            rows[m.group(1)].append((int(m.group(2)), k["name"], k["count"], k.get("mean_ns") or 0.0))
    ggml = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0.0, []]))
    for key, (n, ns) in perf.items():
        m = MAT_VEC_KEY_RE.search(key)
        if m:
            e = ggml[m.group(1)][int(m.group(2))]
            e[0] += n
            e[1] += ns
            e[2].append(key)
    firsts = collections.Counter(d["name"] for d in edge_dispatches(trace.get("traceEvents", [])))
    lines = ["| Hesper row | dispatches | ggml ops (m) | ops | m / work groups | ggml mean µs | Hesper mean µs | "
             "Hesper / ggml |", "|---|---|---|---|---|---|---|---|"]
    c.check(bool(rows), "shape: mul_mat_vec rows split by work-group count in Hesper's summary",
            f"{[k.get('name') for k in rep.get('kernels', [])]}")
    for quant, shapes in sorted(rows.items()):
        shapes.sort()
        ms = sorted(ggml[quant].items())
        c.check(len(shapes) == len(ms), f"shape: {quant}: as many rows as ggml has matrix sizes",
                f"Hesper {[s[1] for s in shapes]}, ggml {[m for m, _ in ms]}")
        for (gx, name, count, mean), (m, (n, ns, keys)) in zip(shapes, ms):
            gm = ns / max(n, 1)
            ratio = mean / gm if gm else float("nan")
            first = firsts.get(name, 0)
            checked = args.judge_times and gm >= args.perf_min_us * 1000.0
            note = "" if checked else " (not checked)"
            if checked and first:
                note = f" (upper bound: {first} begin or end a submission)"
            lines.append(f"| {name} | {count} | {', '.join(sorted(keys))} | {n} | {m / gx:g} | {fmt_us(gm)} | "
                         f"{fmt_us(mean)} | {ratio:.3f}{note} |")
            c.check(count == n, f"shape: {name}: as many dispatches as ggml timed ops of m={m}",
                    f"Hesper {count}, ggml {n} ({', '.join(keys)})")
            why = f"Hesper {fmt_us(mean)} µs, ggml {fmt_us(gm)} µs over {n} ops: {ratio:.3f}"
            if checked and first:
                c.check(ratio <= 1 + tol, f"shape: {name}: its mean at most {tol * 100:g} % above ggml's for m={m}",
                        why)
            elif checked:
                c.check(abs(ratio - 1) <= tol, f"shape: {name}: its mean within {tol * 100:g} % of ggml's for m={m}",
                        why)
    events = trace.get("traceEvents", [])
    for shapes in rows.values():
        for _, name, _, _ in shapes:
            nexts = followers(events, name)
            lines.append("")
            lines.append(f"After {name} in its command buffer: "
                         + ", ".join(f"{what} ({n})" for what, n in nexts.most_common(3)) + ".")
    text = "\n".join(lines)
    print("--- mul_mat_vec per launch shape (HESPER_GROUP_BY=shape, dispatch mode) and ggml's perf logger ---")
    print(text)
    return text


# ------------------------------------------------------------------ the checks

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hesper", required=True)
    ap.add_argument("--counter-dir", required=True, help="build directory of tests/counter_layer")
    ap.add_argument("--work", required=True, help="directory where simple is built (kept between runs)")
    ap.add_argument("--llama-files", help="npm prefix or bench/llama-prepare's files (default: $HESPER_LLAMA_FILES, "
                    "else $HESPER_NPM_CACHE/llama)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--preset", choices=sorted(llama_model.PRESETS), help="write MODEL with this preset when missing")
    ap.add_argument("--tokens", type=int, default=24, help="tokens to generate (default 24)")
    ap.add_argument("--prompt", default="Hello my name is")
    ap.add_argument("--vk-device", type=int, default=0, help="GGML_VK_VISIBLE_DEVICES (default 0)")
    ap.add_argument("--rounds", type=int, default=1, help="timing rounds (default 1); the first is dropped when more")
    ap.add_argument("--gap-factor", type=float, default=3.0)
    ap.add_argument("--min-groups", type=int, default=3)
    ap.add_argument("--perf-tolerance", type=float, default=0.10,
                    help="separate runs: Hesper's per-op mean within this fraction of ggml's perf logger's in "
                    "dispatch mode, at most this fraction above it in clock-span (default 0.10)")
    ap.add_argument("--perf-min-us", type=float, default=0.0,
                    help="separate runs, dispatch mode: op groups whose ggml mean is below this many µs are "
                    "shown, not checked (default 0: every group)")
    ap.add_argument("--judge-times", action="store_true",
                    help="hold the per-op times to ggml's (the gap, and the means in separate runs); without it "
                    "they are shown, not checked (default: off, as a shared CPU device moves them from run to run)")
    ap.add_argument("--no-validation", action="store_true", help="the counter runs without the validation layer")
    ap.add_argument("--md", help="write the results as Markdown to this file")
    ap.add_argument("--fail", metavar="REASON", help="fail at once with REASON")
    args = ap.parse_args()
    args.llama_files_given = args.llama_files is not None
    args.llama_files = args.llama_files or default_llama_files()
    for a in ("hesper", "counter_dir", "work", "model"):
        setattr(args, a, os.path.abspath(getattr(args, a)))
    c = run_e2e.Checks("real llama.cpp")
    if args.fail:
        c.fail("workload can run", args.fail)
        return c.finish()
    try:
        args.simple = build_simple(args)
        print(f"simple: {args.simple} ({open(os.path.join(args.work, 'llama-build.txt')).read().splitlines()[0]})")
        if not os.path.exists(args.model):
            if not args.preset:
                raise llama_files.Missing(f"model {args.model} not found")
            t0 = time.monotonic()
            params, size = llama_model.write_model(args.model, seed=1, **preset_args(args.preset))
            print(f"wrote {args.model}: {params / 1e6:.1f} M parameters, {size / 1e6:.1f} MB "
                  f"in {time.monotonic() - t0:.1f} s")
    except (llama_files.Missing, OSError, ValueError, subprocess.SubprocessError) as e:
        c.fail("workload can run", str(e))
        return c.finish()
    return run_e2e.run_checked(c, "hesper-llama-", lambda tmp: check(args, c, tmp))


def preset_args(name):
    p = dict(llama_model.PRESETS[name])
    p["qtype"] = p.pop("type")
    p["std"] = p["embd"] ** -0.5
    return p


def check(args, c, tmp):
    R = Runner(args, tmp)
    below = {"VK_ADD_LAYER_PATH": args.counter_dir,
             "VK_INSTANCE_LAYERS": run_real.COUNTER_LAYER + ("" if args.no_validation else ":" + run_e2e.VALIDATION_LAYER)}
    val = not args.no_validation
    results = {"modes": {}, "ms": collections.defaultdict(list), "prompt_ms": collections.defaultdict(list),
               "same": collections.defaultdict(list), "counts_ok": collections.defaultdict(list)}

    plain = R.run("plain")
    if not c.check(plain.rc == 0 and plain.out.strip(), "llama.cpp runs on its own (exit 0, text generated)",
                   plain.tail("plain")):
        return None
    dev = re.search(r"ggml_vulkan: \d+ = (.*?) \|", plain.err)
    results["device"] = dev.group(1) if dev else "?"
    results["text"] = plain.out.strip()
    print(f"device: {results['device']}\ntext: {results['text']}")

    cjson = os.path.join(tmp, "counter.json")
    ctr = R.run("counter", dict(below, DISPATCH_COUNTER_OUT=cjson))
    same_as(c, "counter", plain, ctr, validation=val)
    ref = run_e2e.load_json(c, cjson, "the counter's JSON (counter run)")
    if not ref:
        return ctr.tail("counter")
    c.check(ref.get("total", 0) > 0, "llama.cpp dispatched compute work", json.dumps(ref))
    ref_msgs = run_real.msg_ids(ctr)
    results["counter"] = ref

    for way in MODES:
        mode = hesper_mode(way)
        label = f"{way}+counter"
        hj = os.path.join(tmp, f"hesper-{label}.json")
        ht = os.path.join(tmp, f"hesper-{label}.txt")
        cj = os.path.join(tmp, f"counter-{label}.json")
        r = R.run(label, dict(below, **WAYS[way], DISPATCH_COUNTER_OUT=cj, HESPER_REPORT=f"json:{hj},text:{ht}",
                              VK_LOADER_DEBUG="layer"), hesper=True)
        results["same"][way].append(same_as(c, label, plain, r, validation=val))
        try:
            with open(ht, encoding="utf-8") as f:
                wide = [line for line in f.read().splitlines() if len(line) > run_e2e.REPORT_COLUMNS]
        except OSError as ex:
            wide = [f"no text report: {ex}"]
        c.check(not wide, f"{label}: every line of the text report fits {run_e2e.REPORT_COLUMNS} columns",
                "\n".join(wide[:5]))
        rep = run_e2e.load_json(c, hj, f"{label}: Hesper's JSON summary")
        cnt = run_e2e.load_json(c, cj, f"{label}: the counter's JSON")
        if cnt:
            cnt = without_hesper_kernels(c, label, cnt, ref, mode)
            c.check(cnt["kernels"] == ref["kernels"], f"{label}: the counter counts the same with Hesper as without",
                    f"with {sorted(cnt['kernels'].items())}\nwithout {sorted(ref['kernels'].items())}")
        if rep and cnt:
            results["counts_ok"][way].append(compare_counts(c, f"{label}: same process", rep, cnt, way, r.err))
        msgs = run_real.msg_ids(r)
        extra = msgs - ref_msgs
        if mode == "clock":
            # Clock mode makes two modules and pipelines of each of the program's (the
            # instrumented one and its group-counting twin): a message the validation layer
            # gives about the program's module or stage comes again for each copy. Such a
            # message is allowed more often, never one of another kind.
            extra = collections.Counter({k: n for k, n in extra.items()
                                         if not (k in ref_msgs and k in MODULE_MESSAGES)})
        c.check(not extra, f"{label}: no validation message that the counter run does not have "
                f"({sum(ref_msgs.values())} from llama.cpp itself)",
                f"only with Hesper: {dict(msgs - ref_msgs)}\nonly without: {dict(ref_msgs - msgs)}")
        for kind, layers in run_e2e.layer_callstacks(r.err):
            want = [run_e2e.HESPER_LAYER, run_real.COUNTER_LAYER] + ([run_e2e.VALIDATION_LAYER] if val else [])
            c.check([l for l in layers if l in want] == want, f"{label}: {kind} call stack: Hesper, counter"
                    + (", validation" if val else ""), "layers, application side first: " + " -> ".join(layers))
    if ref_msgs:
        print(f"validation messages llama.cpp causes by itself (no Hesper): {dict(ref_msgs)}")

    # timing rounds: plain and each mode alone, order rotated per round
    ways = ["plain"] + MODES
    results["ms"]["plain"].append(plain.ms_per_token)
    results["prompt_ms"]["plain"].append(plain.prompt_ms)
    for rnd in range(args.rounds):
        order = ways[rnd % len(ways):] + ways[:rnd % len(ways)]
        for way in order:
            if way == "plain" and rnd == 0:
                continue  # the reference run above is round 1's plain run
            label = f"{way}#{rnd + 1}"
            if way == "plain":
                r = R.run(label)
                results["same"][way].append(same_as(c, label, plain, r))
            else:
                hj = os.path.join(tmp, f"hesper-{way}-{rnd + 1}.json")
                r = R.run(label, dict(WAYS[way], HESPER_REPORT=f"json:{hj}"), hesper=True)
                results["same"][way].append(same_as(c, label, plain, r))
                rep = run_e2e.load_json(c, hj, f"{label}: Hesper's JSON summary")
                if rep:
                    results["counts_ok"][way].append(compare_counts(c, label, rep, ref, way, r.err))
                    results["modes"][way] = rep
            c.check(r.ms_per_token is not None, f"{label}: ggml printed its eval time", r.tail(label, 10))
            results["ms"][way].append(r.ms_per_token)
            results["prompt_ms"][way].append(r.prompt_ms)
    keep = slice(1, None) if args.rounds > 1 else slice(0, None)
    print("--- milliseconds per generated token (ggml's eval time), "
          + (f"rounds 2-{args.rounds}" if args.rounds > 1 else "one run each") + " ---")
    summary = {}
    for way in ways:
        v = [x for x in results["ms"][way][keep] if x is not None]
        p = [x for x in results["prompt_ms"][way][keep] if x is not None]
        if v:
            summary[way] = (statistics.median(v), min(v), max(v), statistics.median(p) if p else None)
    base = summary.get("plain", (None,))[0]
    for way, (med, lo, hi, pm) in summary.items():
        rel = f"  {med / base:5.2f}x plain" if base else ""
        print(f"{way:<10} {med:8.4f} ms/token ({1000.0 / med:7.2f} tokens/s), min {lo:.4f}, max {hi:.4f}{rel}")
    results["summary"] = summary

    # per-op means against ggml's perf logger, in one process, every graph one token
    perf_env = {"GGML_VK_PERF_LOGGER": "1"}
    pplain = R.run("perf-plain", perf_env, prompt="")
    c.check(pplain.rc == 0, "perf-plain: llama.cpp with its perf logger exits 0", pplain.tail("perf-plain", 20))
    tj = os.path.join(tmp, "perf-trace.json")
    pj = os.path.join(tmp, "perf-hesper.json")
    perf = R.run("perf", dict(perf_env, HESPER_MODE="dispatch", HESPER_REPORT=f"json:{pj},trace:{tj}",
                              HESPER_MAX_EVENTS="5000000"), hesper=True, prompt="")
    same_as(c, "perf", pplain, perf)
    prep = run_e2e.load_json(c, pj, "perf: Hesper's JSON summary")
    if prep:
        untimed = [r["name"] for r in prep.get("kernels", []) if r.get("timed") != r["count"]]
        c.check(prep.get("dropped") == 0 and not untimed, "perf: nothing dropped, every dispatch timed",
                f"dropped {prep.get('dropped')}, not all timed: {untimed}")
    trace = run_e2e.load_json(c, tj, "perf: Hesper's trace")
    blocks = perf_blocks(perf.err)
    c.check(len(blocks) > 0, "perf: ggml's perf logger printed its timings", perf.tail("perf", 20))
    perf_text = ""
    if trace and blocks:
        c.check(trace.get("metadata", {}).get("events_left_out") == 0, "perf: the trace holds every event",
                json.dumps(trace.get("metadata")))
        groups, notes = op_groups(trace, perf_totals(blocks))
        perf_text, results["perf_gap"] = check_perf(c, args, groups, notes)
        results["perf_groups"], results["perf_notes"] = groups, notes

    # per-op means against ggml's perf logger in separate runs: perf-plain's (the perf logger
    # without Hesper) against Hesper's alone (no perf logger), the same tokens; ggml labels its
    # ops without the perf logger too, so Hesper's trace groups its dispatches the same way
    pblocks = perf_blocks(pplain.err)
    c.check(len(pblocks) > 0, "perf-plain: ggml's perf logger printed its timings", pplain.tail("perf-plain", 20))
    results["alone"] = {}
    for way in ALONE_WAYS:
        label = f"alone-{way}"
        aj = os.path.join(tmp, f"{label}.json")
        at = os.path.join(tmp, f"{label}-trace.json")
        r = R.run(label, dict(WAYS[way], HESPER_REPORT=f"json:{aj},trace:{at}", HESPER_MAX_EVENTS="5000000"),
                  hesper=True, prompt="")
        same_as(c, label, pplain, r)
        rep = run_e2e.load_json(c, aj, f"{label}: Hesper's JSON summary")
        if rep:
            check_report(c, label, rep, way, r.err)
        atrace = run_e2e.load_json(c, at, f"{label}: Hesper's trace")
        if atrace and pblocks:
            c.check(atrace.get("metadata", {}).get("events_left_out") == 0, f"{label}: the trace holds every event",
                    json.dumps(atrace.get("metadata")))
            groups, notes = op_groups(atrace, perf_totals(pblocks), by_label=hesper_mode(way) == "clock")
            results["alone"][way] = check_alone(c, args, way, groups, notes)
    # rows per launch shape (HESPER_GROUP_BY=shape) against ggml's ops by matrix size
    sj, st = os.path.join(tmp, "alone-shape.json"), os.path.join(tmp, "alone-shape-trace.json")
    r = R.run("alone-shape", dict(WAYS["dispatch"], HESPER_GROUP_BY="shape", HESPER_REPORT=f"json:{sj},trace:{st}",
                                  HESPER_MAX_EVENTS="5000000"), hesper=True, prompt="")
    same_as(c, "alone-shape", pplain, r)
    srep = run_e2e.load_json(c, sj, "alone-shape: Hesper's JSON summary")
    strace = run_e2e.load_json(c, st, "alone-shape: Hesper's trace")
    if srep and strace and pblocks:
        c.check(srep.get("group_by") == "shape", "alone-shape: the summary's rows are per launch shape",
                f"group_by {srep.get('group_by')!r}")
        results["shapes"] = check_shapes(c, args, srep, strace, perf_totals(pblocks))
    if args.md:
        write_md(args, results, perf_text)
    return None


def yes_no(oks):
    """"yes (N runs)" when every check in @oks passed."""
    if not oks:
        return "not checked"
    return f"yes ({len(oks)} runs)" if all(oks) else f"**no** ({oks.count(False)} of {len(oks)} runs)"


def write_md(args, res, perf_text):
    L = []
    A = L.append
    try:
        name = llama_model.read_name(args.model)
        size = os.path.getsize(args.model) / 1e6
    except (OSError, KeyError, struct.error):
        name, size = None, 0.0
    A(f"Model `{os.path.basename(args.model)}` ({name or '?'}, {size:.0f} MB), {args.tokens} tokens generated from \"{args.prompt}\" by "
      f"llama.cpp's `simple` (greedy), device {res.get('device', '?')} (GGML_VK_VISIBLE_DEVICES={args.vk_device}).")
    A("")
    rounds = f"median of rounds 2–{args.rounds}, the first dropped" if args.rounds > 1 else "one run each"
    A(f"Milliseconds per generated token (ggml's eval time; {rounds}; plain and Hesper's modes interleaved, "
      "the order rotated each round; clock: clock mode with HESPER_CLOCK_ISOLATED=barriers, clock-span: with "
      "HESPER_CLOCK_ISOLATED=span, its default):")
    A("")
    A("| way | ms per token | min–max | tokens/s | vs plain | dispatches | counts = counter | text = plain |")
    A("|---|---|---|---|---|---|---|---|")
    s = res.get("summary", {})
    base = s.get("plain", (None,))[0]
    total = res.get("counter", {}).get("total")
    for way in ["plain"] + MODES:
        if way not in s:
            A(f"| {way} | not run | | | | | | |")
            continue
        med, lo, hi, _ = s[way]
        rep = res["modes"].get(way)
        n = sum(r["count"] for r in rep["kernels"]) if rep else total
        counts = "(counter run)" if way == "plain" else yes_no(res["counts_ok"][way])
        A(f"| {way} | {med:.3f} | {lo:.3f}–{hi:.3f} | {1000.0 / med:.1f} | {med / base:.3f}× | {n} | "
          f"{counts} | {yes_no(res['same'][way]) if way != 'plain' else 'reference'} |")
    A("")
    A("Per-op means in one process (Hesper in dispatch mode, ggml's perf logger on, every graph one token): "
      "single-dispatch ops grouped by kind, Hesper's dispatches inside ggml's op labels.")
    A("")
    A(perf_text or "(no comparison)")
    if "perf_gap" in res:
        A("")
        A(f"Gap: ggml's mean less Hesper's, what ggml's interval holds beyond the dispatch (its barrier and "
          f"timestamp, the label timestamps); median {fmt_us(res['perf_gap'])} µs.")
    for n in res.get("perf_notes", []):
        A("")
        A(f"Left out: {n}.")
    tol = f"{args.perf_tolerance * 100:g} %"
    floor = (f" where ggml's mean is at least {args.perf_min_us:g} µs (shorter ones not checked)"
             if args.perf_min_us > 0 else "")
    if not args.judge_times:
        floor = " (shown, not checked: run without --judge-times)"
    for way, what in [("dispatch", f"Hesper alone in dispatch mode: its mean within {tol} of ggml's{floor}, both "
                       "timing the dispatch with its launch and drain"),
                      ("clock", "Hesper alone in clock mode: its mean at most "
                       f"{tol} above ggml's, not held to a lower bound, as the ops ggml runs between compute barriers "
                       "are timed from barrier to barrier (launch and drain included) and the others by the clock"),
                      ("clock-span", "Hesper alone in clock mode with HESPER_CLOCK_ISOLATED=span: its mean at most "
                       f"{tol} above ggml's, not held to a lower bound, as the clock times from the first work "
                       "group's start to the last one's end, without the launch and drain that ggml's timestamp pair "
                       "holds, and reads lower on short ops")]:
        A("")
        A(f"Per-op means in separate runs, the same tokens, ggml's perf logger without Hesper against {what}:")
        A("")
        A(res.get("alone", {}).get(way) or "(no comparison)")
    A("")
    A("`mul_mat_vec` per launch shape (`HESPER_GROUP_BY=shape`, dispatch mode, alone) against ggml's perf logger "
      f"alone by the ops' matrix rows m: each row's mean within {tol} of ggml's{floor}, only the upper bound for rows "
      "some of whose dispatches begin or end a submission (ggml's logger gives those the time between submissions too):")
    A("")
    A(res.get("shapes") or "(no comparison)")
    with open(args.md, "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
