#!/usr/bin/env python3
"""Hesper on a device that misbehaves, through the fault-injection layer (fault_layer.c)
placed BELOW Hesper: App -> Hesper -> [validation] -> fault layer -> [validation] -> driver.

    run_fault.py --hesper LIB --layer-dir DIR --patterns EXE --probe EXE
                 [--keep-modules LIB] [--preload-first LIB]... CASE [options]

Cases:
  selftest        The fault layer alone, with fault_probe (no Hesper): pass-through when
                  no fault is asked for; FAULT_NO_TIMESTAMPS=1 gives 0 valid bits through
                  all three queue-family queries; the validation layer placed above the
                  fault layer sees those 0 bits (it reports the probe's own timestamp
                  write); the exact result of every submit and wait call in both device-loss
                  modes (and with FAULT_SERIALIZE_QUERY_READS=1 on too); with
                  FAULT_SERIALIZE_QUERY_READS=1, query reads that see what the GPU copied
                  while another thread submits, every one through the layer's lock; and,
                  with Hesper preloaded, Hesper above the fault layer.
  no_timestamps   --pattern NAME [--validation above|below]
                  FAULT_NO_TIMESTAMPS=1. PATTERNS NAME (one that writes no timestamps of
                  its own) under the fault layer and the validation layer, without and with
                  Hesper: same exit code (0) and stdout, no validation message in either,
                  layer order as asked; Hesper's JSON counts every dispatch exactly (the
                  program's HESPER-TRUTH line), `timed` 0 on every row, `dropped` == all
                  dispatches, all for `no_timestamps` (dropped_causes, and the text report's
                  Dropped paragraph names that cause alone),
                  hesper.timestamps_written == 0; the text report says so.
                  --validation above (default): Hesper -> validation -> fault, so the
                  validation layer judges Hesper against the 0 bits; below: Hesper -> fault
                  -> validation.
  device_lost     --pattern resubmit|multisubmit --after N --mode completion|next_submit
                  FAULT_DEVICE_LOST_AFTER=N (N + 2 under Hesper, whose dispatch-cost
                  measurement at vkCreateDevice and first submission on the queue pass the
                  fault layer too). The program exits 2 at the
                  first Vulkan call that fails (tests/programs/vk_common.c), before its
                  truth line: the counts
                  come from a model of its submit calls (submissions()), itself checked
                  against a clean run (number of submit calls, HESPER-TRUTH totals).
                  HESPER_EXIT_TIMEOUT_MS=30000, so waiting on the lost device shows.
                  Without and with Hesper: same exit
                  code (2), stdout, and the same failing call named on stderr; Hesper ends
                  promptly and writes its JSON and text reports: every dispatch of the
                  submissions that went through counted exactly, `dropped` == the untimed
                  ones, all for `device_lost` in dropped_causes; next_submit: all of them
                  timed; completion: none of the last submission's timed (its completion
                  was never seen).
  host_reads      --pattern NAME [--validation above|below] [--hesper-mode dispatch|clock]
                  FAULT_SERIALIZE_QUERY_READS=1 (lavapipe's vkGetQueryPoolResults races
                  with submits on other threads: the layer serializes them) and, for
                  Hesper, HESPER_COPY=host (its collector reads the timestamps with
                  vkGetQueryPoolResults). PATTERNS NAME alone, then under Hesper, both
                  under the fault and validation layers: same exit code (0) and stdout, no
                  validation message, layer order as asked, no "hesper: " line on stderr,
                  and the summary against the HESPER-TRUTH line exactly as run_patterns.py's
                  pattern case compares it (rows, counts, timed, dropped == the truth's,
                  regions, devices); the fault layer saw Hesper's query reads (FAULT_LOG).
                  The patterns must not make a queue wait on a semaphore that only a later
                  submit call signals (that deadlocks in this mode: fault_layer.c).
  pipeline_stats  --program EXE [--hesper-mode dispatch|clock]
                  FAULT_PIPELINE_STATS=1: the fault layer offers VK_KHR_pipeline_executable_properties
                  and answers its queries with statistics made from each pipeline's module
                  (fault_layer.c). EXE (demo_pipeline, whose HESPER-TRUTH line names each
                  kernel's .spv) alone, then under Hesper, the validation layer above the
                  fault layer: same exit code and stdout, no validation message, no
                  "hesper: " line; the device's "pipeline_stats" is "captured"; every kernel
                  row has its statistics, each with the driver's names and values: "SPIR-V
                  words" the size of its .spv / 4 (dispatch mode) or more (clock mode: the
                  instrumented module), "Captured" true (Hesper made the pipeline with
                  VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR), "Negative words" and
                  "Words / 1000" in their formats; the text report lists each kernel once
                  in "Pipeline statistics" within 120 columns. Then with
                  HESPER_PIPELINE_STATS=off ("off", no statistics), with the fault layer
                  refusing pipelines made with the capture flag (FAULT_REFUSE_CAPTURE=1:
                  Hesper makes them again as the program asked: the run as the first, no
                  statistics), and without the fault layer's offer (lavapipe's own: "not offered by the driver", said once in
                  the text report).

  stats_sets      [--hesper-mode dispatch|clock]
                  FAULT_PIPELINE_STATS=1, `patterns same_name` under Hesper: the two pipelines
                  of one name get a set of statistics each (their "SPIR-V words" differ),
                  variants 0 and 1 in the order bound, dispatches 3 and 5 as the truth's
                  "stats_sets" says, in the JSON, the text report and the database.
  occupancy       --program EXE
                  FAULT_PIPELINE_STATS=1 and FAULT_NVIDIA_SM=1: the device poses as an
                  NVIDIA H200 (132 SMs of 64 warps) and its statistics have NVIDIA's
                  "Register Count" and "Shared Memory Size" (fault_layer.c). Under Hesper:
                  the device's "occupancy_model" NVIDIA's figures; every kernel's
                  "occupancy" what the model (docs/findings.md) gives for its registers,
                  shared memory and local size, reckoned here apart from Hesper; an
                  occupancy line per kernel in the text report within 120 columns; the
                  database's pipeline_occupancy rows the JSON's; an underfilled finding
                  names the groups that fill the device. Then without the pose (lavapipe,
                  a CPU): no model, every kernel's occupancy unknown with why.

Exit status 0 when every check passes, 1 otherwise.
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import time

# The checks, truth parsing and leak suppressions the end-to-end runners share.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import run_e2e  # noqa: E402
import run_patterns  # noqa: E402

Checks = run_e2e.Checks
parse_truth = run_e2e.parse_truth
layer_callstacks = run_e2e.layer_callstacks
diff = run_e2e.diff
validation_messages = run_e2e.validation_messages
leak_env = run_patterns.leak_env

HESPER_LAYER = "VK_LAYER_HESPER_profiler"
FAULT_LAYER = "VK_LAYER_HESPERTEST_fault"
VALIDATION_LAYER = run_e2e.VALIDATION_LAYER
TRUTH_PREFIX = run_e2e.TRUTH_PREFIX
RUN_TIMEOUT_S = 240
DEVICE_LOST = -4
HEX8 = "[0-9a-f]{8}"
# The next_submit mode's wait between the last completed submission and the loss: the
# collector harvests finished work within ~50 ms; this is 20 times that.
GRACE_MS = 1000
# Hesper's exit waits up to HESPER_EXIT_TIMEOUT_MS for work in flight. The device-loss runs
# set it to 30 s: a run under Hesper this much slower than without it waited on the lost
# device (nothing is in flight once it is lost).
EXIT_TIMEOUT_MS = 30000
SLOWER_LIMIT_S = 10.0

SERIALIZE = "FAULT_SERIALIZE_QUERY_READS"
# FAULT_LOG's line at vkDestroyDevice in FAULT_SERIALIZE_QUERY_READS mode.
SERIALIZED_RE = r"^fault_layer: vkDestroyDevice after (\d+) vkGetQueryPoolResults calls serialized$"

SCRUBBED_ENV = run_e2e.SCRUBBED_ENV
VALIDATION_RE = run_e2e.VALIDATION_RE
LOADER_LINE_RE = run_e2e.LOADER_LINE_RE
# vk_common's line for a failed call: "<file>:<line>: <expr> failed: <name> (<code>)"
FAILED_CALL_RE = re.compile(r"^\S+:\d+: .+ failed: VK_\w+ \(-?\d+\)$")
LAYER_DIRS = ["/usr/local/share/vulkan/explicit_layer.d", "/usr/share/vulkan/explicit_layer.d",
              "/etc/vulkan/explicit_layer.d"]
# Programs that exit without destroying their device leave the driver's and layers'
# objects behind: LeakSanitizer ignores those (and only those).


# --- checks and runs ----------------------------------------------------------------------

class Run:
    def __init__(self, argv, env, cwd):
        self.argv = argv
        start = time.monotonic()
        try:
            p = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=RUN_TIMEOUT_S)
            self.rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as ex:
            self.rc, out, err = "timeout", ex.stdout or b"", ex.stderr or b""
        self.seconds = time.monotonic() - start
        self.out = out.decode("utf-8", "replace")
        self.err = err.decode("utf-8", "replace")

    def tail(self, label, n=40):
        parts = []
        for name, text in (("stdout", self.out), ("stderr", self.err)):
            lines = [l for l in text.splitlines() if not LOADER_LINE_RE.match(l)]
            parts.append(f"--- {label} {name} (last {min(n, len(lines))} of {len(lines)} lines, loader lines left out) ---")
            parts.extend(lines[-n:])
        return "\n".join(parts)


def validation_dir():
    """The directory of the validation layer's manifest, or None."""
    for d in LAYER_DIRS:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            if not n.endswith(".json"):
                continue
            try:
                with open(os.path.join(d, n), encoding="utf-8") as f:
                    if VALIDATION_LAYER in f.read():
                        return d
            except OSError:
                pass
    return None


# --- environments -------------------------------------------------------------------------

def base_env(args, extra=None):
    """The caller's environment without what steers Hesper, the loader or layers; the
    sanitizer runtime preloaded when there is one."""
    env = {k: v for k, v in os.environ.items()
           if k not in SCRUBBED_ENV and not k.startswith("HESPER_") and not k.startswith("FAULT_")}
    if args.sanitizer_preload:
        env["LD_PRELOAD"] = " ".join(args.sanitizer_preload)
        opts = env.get("ASAN_OPTIONS", "")
        if "quarantine_size_mb" not in opts:
            env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "quarantine_size_mb=32"
    env.update(extra or {})
    return env


def layer_env(args, fault, validation=None, debug=True):
    """Enables the fault layer (with @fault settings) and, when @validation is "above" or
    "below", the validation layer on that side of it. The loader (1.3.2xx) stacks layers
    enabled by environment in the order it finds their manifests, first found nearest the
    application: VK_ADD_LAYER_PATH in order, then the system directories. Hesper's shim
    puts its own directory first."""
    paths = [args.layer_dir]
    layers = [FAULT_LAYER]
    if validation:
        layers.append(VALIDATION_LAYER)
        if validation == "above":
            paths.insert(0, args.validation_dir)
    env = {"VK_ADD_LAYER_PATH": ":".join(paths), "VK_INSTANCE_LAYERS": ":".join(layers)}
    if debug:
        env["VK_LOADER_DEBUG"] = "layer"
    env.update(fault)
    return env


def with_hesper(args, env):
    env = dict(env)
    env["LD_PRELOAD"] = " ".join(args.sanitizer_preload + [args.hesper])
    return env


def check_layer_order(c, run, want, label, device=True):
    """Every instance and (with @device) device call stack of @run has the layers of @want
    in that order (application side first), each once."""
    stacks = layer_callstacks(run.err)
    kinds = [k for k, _ in stacks]
    c.check("vkCreateInstance" in kinds and ("vkCreateDevice" in kinds or not device),
            f"{label}: loader shows the instance" + (" and device" if device else "") + " layer call stacks",
            f"found: {kinds or 'none'}")
    for kind, layers in stacks:
        mine = [l for l in layers if l in want]
        c.check(mine == want, f"{label}: {kind} call stack has " + " -> ".join(want),
                "layers, application side first: " + " -> ".join(layers))


def show_messages(msgs, n=5):
    """The first @n of @msgs, each cut to 400 characters, and how many there were."""
    return "\n".join([f"{len(msgs)} messages; the first {min(n, len(msgs))}:"] + [m[:400] for m in msgs[:n]])


def program_lines(text):
    """The program's stdout without loader/validation lines, its truth line normalized."""
    lines, in_validation = [], False
    for line in text.splitlines():
        if VALIDATION_RE.search(line) or LOADER_LINE_RE.match(line):
            in_validation = bool(VALIDATION_RE.search(line))
            continue
        if in_validation and line[:1] in (" ", "\t"):
            continue
        in_validation = False
        if line.startswith(TRUTH_PREFIX):
            truth = json.loads(line[len(TRUTH_PREFIX):])
            for k in truth.get("volatile", []):
                truth.pop(k, None)
            for k in truth.get("kernels", []):
                k["own_mean_ns"] = None
            line = TRUTH_PREFIX + json.dumps(truth, sort_keys=True)
        lines.append(line)
    return lines


def failed_calls(stderr):
    return [l for l in stderr.splitlines() if FAILED_CALL_RE.match(l)]


def hesper_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("hesper: ")]


def read_json(c, path):
    rep = run_patterns.read_json(c, path)
    if rep is None:
        return None
    c.check(rep.get("schema") == "hesper-summary/1", "JSON schema is hesper-summary/1", f"got {rep.get('schema')!r}")
    return rep


def read_text(c, path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as ex:
        c.fail("Hesper wrote the text report", str(ex))
        return ""


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def rows_of(rep):
    return [r for r in rep.get("kernels") or [] if isinstance(r, dict)]


def match_rows(c, rep, expected):
    """@expected: [(kind, name, count)] with kind "debug" (row named @name), "source"
    (row "@name#<8 hex>") or "unnamed" (a row "main#<8 hex>", told apart by count).
    Checks one row per expected kernel with its exact count and no other row; returns
    [(expected kernel, row or None)]."""
    rows = rows_of(rep)
    names = [r.get("name") for r in rows]
    c.check(len(rows) == len(expected), f"{len(expected)} kernel rows",
            f"got {len(rows)}: {[(r.get('name'), r.get('count')) for r in rows]}")
    claimed, pairs = set(), []
    unnamed = [e for e in expected if e[0] == "unnamed"]
    for e in expected:
        kind, name, count = e
        if kind == "unnamed":
            continue
        pat = re.compile(re.escape(name) + ("" if kind == "debug" else "#" + HEX8) + "$")
        hits = [i for i, n in enumerate(names) if isinstance(n, str) and pat.match(n)]
        if c.check(len(hits) == 1, f"kernel {pat.pattern!r} has one row", f"rows: {names}"):
            claimed.add(hits[0])
            row = rows[hits[0]]
            c.check(row.get("count") == count, f"{row.get('name')!r}: count {count}", f"got {row.get('count')!r}")
            pairs.append((e, row))
        else:
            pairs.append((e, None))
    main_re = re.compile("main#" + HEX8 + "$")
    rest = [i for i in range(len(rows)) if i not in claimed]
    mains = [i for i in rest if main_re.match(str(names[i]))]
    c.check(len(mains) == len(rest), "every other row is named 'main#<8 hex>'",
            f"unexpected: {[names[i] for i in rest if i not in mains]}")
    want = sorted(e[2] for e in unnamed)
    got = sorted(rows[i].get("count") for i in mains)
    c.check(want == got, f"unnamed kernels: 'main#' rows with counts {want}",
            f"got {[(names[i], rows[i].get('count')) for i in mains]}")
    for e in unnamed:
        hits = [i for i in mains if rows[i].get("count") == e[2]]
        same = [x for x in unnamed if x[2] == e[2]]
        pairs.append((e, rows[hits[0]] if len(hits) == 1 and len(same) == 1 else None))
    return pairs


def expected_from_truth(truth):
    out = []
    for k in truth["kernels"]:
        if k.get("debug_name"):
            out.append(("debug", k["debug_name"], k["count"]))
        elif k.get("source_named"):
            out.append(("source", k["source"], k["count"]))
        else:
            out.append(("unnamed", k["spv"], k["count"]))
    return out


# --- selftest -----------------------------------------------------------------------------

def probe_rounds(text):
    rounds = []
    for line in text.splitlines():
        if line.startswith("round "):
            words = line.split()
            rounds.append(dict(zip(words[2::2], (int(w) for w in words[3::2]))))
    return rounds


PROBE_CALLS = ["submit", "fence_wait", "fence_status", "sem_wait", "sem_wait_khr", "sem_value", "sem_value_khr",
               "queue_idle", "device_idle"]
PROBE_ROUNDS = 5


def expected_rounds(after, mode):
    """Per round, the VkResult of each call of fault_probe lost (None: no fault)."""
    out = []
    for r in range(1, PROBE_ROUNDS + 1):
        if after is None or (mode == "next_submit" and r <= after) or (mode == "completion" and r < after):
            out.append({k: 0 for k in PROBE_CALLS})
        elif mode == "completion" and r == after:
            out.append(dict({k: DEVICE_LOST for k in PROBE_CALLS}, submit=0))
        else:
            out.append({k: DEVICE_LOST for k in PROBE_CALLS})
    return out


def case_selftest(args, c, tmp):
    probe = args.probe
    context = []
    alone = Run([probe, "bits"], base_env(args), tmp)
    context.append(alone.tail("bits, no layer"))
    real = re.findall(r"^family (\d+) bits (\d+) (\d+) (\d+)$", alone.out, re.M)
    c.check(alone.rc == 0 and real, "probe lists the queue families alone", alone.tail("alone"))
    c.check(real and all(int(b) > 0 for f in real for b in f[1:]),
            "every queue family has timestamps without the fault layer (else the no-timestamp tests prove nothing)",
            str(real))
    passthrough = Run([probe, "bits"], base_env(args, layer_env(args, {})), tmp)
    check_layer_order(c, passthrough, [FAULT_LAYER], "bits", device=False)
    c.check(passthrough.rc == 0 and passthrough.out == alone.out,
            "fault layer without FAULT_* settings: queue families as without it",
            diff(alone.out.splitlines(), passthrough.out.splitlines(), "alone", "fault layer"))
    zero = Run([probe, "bits"], base_env(args, layer_env(args, {"FAULT_NO_TIMESTAMPS": "1"})), tmp)
    want = "".join(f"family {f[0]} bits 0 0 0\n" for f in real)
    c.check(zero.rc == 0 and zero.out == want,
            "FAULT_NO_TIMESTAMPS=1: 0 valid bits from vkGetPhysicalDeviceQueueFamilyProperties, ...2 and ...2KHR",
            diff(want.splitlines(), zero.out.splitlines(), "want", "got"))

    # The validation layer above the fault layer sees the 0 bits: the probe's own timestamp
    # write is invalid there (so "no validation message" under Hesper means something).
    clean = Run([probe, "timestamp"], base_env(args, layer_env(args, {}, "above")), tmp)
    check_layer_order(c, clean, [VALIDATION_LAYER, FAULT_LAYER], "timestamp")
    c.check(clean.rc == 0 and not validation_messages(clean),
            "timestamp probe on a family with timestamps: exit 0, no validation message",
            show_messages(validation_messages(clean)) + "\n" + clean.tail("timestamp"))
    bad = Run([probe, "timestamp"], base_env(args, layer_env(args, {"FAULT_NO_TIMESTAMPS": "1"}, "above")), tmp)
    msgs = validation_messages(bad)
    c.check(any("VUID-vkCmdWriteTimestamp-timestampValidBits-00829" in m for m in msgs),
            "validation (above the fault layer) reports a timestamp written on a family with 0 valid bits",
            show_messages(msgs))

    for after, mode in ((None, None), (2, "completion"), (2, "next_submit"), (0, "completion"), (0, "next_submit")):
        fault = {} if after is None else {"FAULT_DEVICE_LOST_AFTER": str(after), "FAULT_DEVICE_LOST_MODE": mode}
        run = Run([probe, "lost"], base_env(args, layer_env(args, fault, debug=False)), tmp)
        label = "no fault" if after is None else f"FAULT_DEVICE_LOST_AFTER={after} {mode}"
        got, want = probe_rounds(run.out), expected_rounds(after, mode)
        c.check(run.rc == 0 and got == want, f"lost probe, {label}: every submit and wait returns what it should",
                diff([json.dumps(r) for r in want], [json.dumps(r) for r in got], "want", "got") + "\n" +
                run.tail(label))
    # The serialization lock taken around the submits and waits changes none of their results.
    for after, mode in ((None, None), (2, "completion"), (2, "next_submit")):
        fault = {SERIALIZE: "1"}
        if after is not None:
            fault.update({"FAULT_DEVICE_LOST_AFTER": str(after), "FAULT_DEVICE_LOST_MODE": mode})
        run = Run([probe, "lost"], base_env(args, layer_env(args, fault, debug=False)), tmp)
        label = f"{SERIALIZE}=1, " + ("no fault" if after is None else f"FAULT_DEVICE_LOST_AFTER={after} {mode}")
        got, want = probe_rounds(run.out), expected_rounds(after, mode)
        c.check(run.rc == 0 and got == want, f"lost probe, {label}: every submit and wait returns what it should",
                diff([json.dumps(r) for r in want], [json.dumps(r) for r in got], "want", "got") + "\n" +
                run.tail(label))

    # Serialized query reads: exact values while another thread submits, every read through
    # the layer's lock (its count at vkDestroyDevice), and valid Vulkan (validation above).
    run = Run([probe, "queryread"], base_env(args, layer_env(args, {SERIALIZE: "1", "FAULT_LOG": "1"}, "above")), tmp)
    label = f"queryread, {SERIALIZE}=1"
    check_layer_order(c, run, [VALIDATION_LAYER, FAULT_LAYER], label)
    m = re.search(r"^queryread reads (\d+) mismatches (\d+) zero (\d+) order (\d+) available (\d+) submits (\d+)$",
                  run.out, re.M)
    if c.check(run.rc == 0 and m is not None, f"{label}: exit 0 and a result line", run.tail(label)):
        reads, mismatches, zero, order, available, submits = (int(g) for g in m.groups())
        print(f"  note: {label}: {submits} empty submits on the other thread during {reads} reads")
        c.check(mismatches == 0, f"{label}: every vkGetQueryPoolResults equals the GPU's copy of the queries",
                f"{mismatches} of {reads} reads differ")
        c.check(zero == 0 and order == 0 and available == 1,
                f"{label}: the copied timestamps are available, non-zero and in order", m.group(0))
        seen = [int(n) for n in re.findall(SERIALIZED_RE, run.err, re.M)]
        c.check(seen == [reads], f"{label}: the layer serialized all {reads} reads (FAULT_LOG)",
                f"the layer reported {seen}\n" + run.tail(label))
    c.check(not validation_messages(run), f"{label}: no validation message",
            show_messages(validation_messages(run)))

    # With Hesper preloaded, the shim puts Hesper's directory first: Hesper above the fault layer.
    env = with_hesper(args, base_env(args, layer_env(args, {}, "above")))
    env["HESPER_REPORT"] = "json:" + os.path.join(tmp, "selftest.json")
    run = Run([probe, "lost"], env, tmp)
    check_layer_order(c, run, [HESPER_LAYER, VALIDATION_LAYER, FAULT_LAYER], "under Hesper, validation above")
    c.check(run.rc == 0, "lost probe under Hesper, no fault: exit 0", run.tail("under Hesper"))
    env = with_hesper(args, base_env(args, layer_env(args, {}, "below")))
    env["HESPER_REPORT"] = "json:" + os.path.join(tmp, "selftest.json")
    run = Run([probe, "timestamp"], env, tmp)
    check_layer_order(c, run, [HESPER_LAYER, FAULT_LAYER, VALIDATION_LAYER], "under Hesper, validation below")
    c.check(run.rc == 0, "timestamp probe under Hesper, no fault: exit 0", run.tail("under Hesper"))
    return "\n".join(context)


# --- no timestamps ------------------------------------------------------------------------

def case_no_timestamps(args, c, tmp):
    argv = [args.patterns, args.pattern]
    env = base_env(args, layer_env(args, {"FAULT_NO_TIMESTAMPS": "1"}, args.validation))
    order = [FAULT_LAYER, VALIDATION_LAYER] if args.validation == "below" else [VALIDATION_LAYER, FAULT_LAYER]
    base = Run(argv, env, tmp)
    c.check(base.rc == 0, "program alone (fault + validation layers) exits 0", base.tail("alone"))
    check_layer_order(c, base, order, "alone")
    c.check(not validation_messages(base), "no validation message alone (the program writes no timestamps)",
            show_messages(validation_messages(base)))
    out_json, out_text = os.path.join(tmp, "out.json"), os.path.join(tmp, "out.txt")
    henv = with_hesper(args, env)
    henv["HESPER_REPORT"] = f"json:{out_json},text:{out_text}"
    run = Run(argv, henv, tmp)
    context = base.tail("alone") + "\n" + run.tail("under Hesper")
    c.check(run.rc == base.rc, f"exit code under Hesper equals the program's own ({base.rc})", f"got {run.rc}")
    a, b = program_lines(base.out), program_lines(run.out)
    c.check(a == b, "program's stdout unchanged under Hesper", diff(a, b, "alone", "under Hesper"))
    msgs = validation_messages(run)
    c.check(not msgs, "no validation message under Hesper", show_messages(msgs))
    check_layer_order(c, run, [HESPER_LAYER] + order, "under Hesper")
    for line in hesper_lines(run.err):
        print(f"  note: Hesper said: {line}")
    truth = parse_truth(run.out)
    if not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return context
    rep = read_json(c, out_json)
    if rep is None:
        return context
    expected = expected_from_truth(truth)
    total = sum(e[2] for e in expected)
    c.check(total > 0, "the program dispatched something", str(truth))
    for e, row in match_rows(c, rep, expected):
        if row is not None:
            c.check(row.get("timed") == 0, f"{row.get('name')!r}: timed 0", f"got {row.get('timed')!r}")
    got_total = sum(r.get("count", 0) for r in rows_of(rep) if is_int(r.get("count")))
    c.check(got_total == total, f"dispatch counts sum to {total}", f"got {got_total}")
    c.check(rep.get("dropped") == total, f"dropped == {total} (every dispatch)", f"got {rep.get('dropped')!r}")
    c.check(rep.get("dropped_causes") == {"no_timestamps": total},
            f"dropped_causes: all {total} for no_timestamps, no other cause", f"got {rep.get('dropped_causes')!r}")
    written = (rep.get("hesper") or {}).get("timestamps_written")
    c.check(written == 0, "hesper.timestamps_written == 0 (no query written on a family without timestamps)",
            f"got {written!r}")
    for q in rep.get("queues") or []:
        if isinstance(q, dict) and "timestamp_bits" in q:
            c.check(q["timestamp_bits"] == 0, "queues[].timestamp_bits == 0 (Hesper saw the fault layer's 0 bits)",
                    f"got {q!r}")
    text = read_text(c, out_text)
    pat = rf"dispatches\s+{total}: 0 timed, {total} dropped\b"
    c.check(re.search(pat, text) is not None, f"text report: '{total}: 0 timed, {total} dropped'", text[:3000])
    causes = run_patterns.dropped_paragraph(text)
    c.check(len(causes) == 1 and causes[0][0] == total and "queue family without timestamps" in causes[0][1],
            "text report: the Dropped paragraph names the queue family without timestamps alone",
            f"cause lines {causes!r}")
    if c.failures:
        context += "\n--- JSON summary ---\n" + json.dumps(rep, indent=1)[:20000] + "\n--- text report ---\n" + text
    return context


# --- device lost --------------------------------------------------------------------------

# Per submit call reaching the driver, in order: [(kind, kernel, dispatches)] (the model of
# tests/programs/patterns.c; the truth line is never printed when the program fails).
def submissions(pattern):
    if pattern == "resubmit":
        return [[("debug", "resubmit_named", 2), ("source", "count.comp", 3), ("unnamed", "busy.spv", 1)]] * 12
    if pattern == "multisubmit":
        return [[("debug", "ms_submit", 18)], [], [("debug", "ms_submit2", 8)], [("debug", "ms_submit2khr", 8)]]
    raise ValueError(f"no submission model for pattern {pattern!r}")


def check_model(args, c, tmp, subs, validation):
    """The submission model against the program as built: a run with the fault layer and
    no fault, which counts the submit calls reaching it, and the HESPER-TRUTH totals."""
    env = base_env(args, layer_env(args, {"FAULT_LOG": "1"}, validation, debug=False))
    run = Run([args.patterns, args.pattern], env, tmp)
    truth = parse_truth(run.out)
    seen = re.findall(r"^fault_layer: vkDestroyDevice after (\d+) submit calls$", run.err, re.M)
    if not c.check(run.rc == 0 and truth is not None and len(seen) == 1,
                   "program runs clean under the fault layer alone (no fault), with its truth line",
                   run.tail("fault layer, no fault")):
        return
    c.check(int(seen[0]) == len(subs), f"submission model: {len(subs)} submit calls, as the program makes",
            f"the fault layer saw {seen[0]}: update submissions() for tests/programs/patterns.c")
    model = {}
    for sub in subs:
        for kind, name, n in sub:
            model[(kind, name)] = model.get((kind, name), 0) + n
    real = {}
    for kind, name, count in expected_from_truth(truth):
        real[(kind, name)] = real.get((kind, name), 0) + count
    c.check(model == real, "submission model: per-kernel totals equal the program's HESPER-TRUTH counts",
            f"model {sorted(model.items())}\ntruth {sorted(real.items())}: update submissions()")


def case_device_lost(args, c, tmp):
    subs = submissions(args.pattern)
    check_model(args, c, tmp, subs, args.validation)
    c.check(args.after < len(subs), f"the program makes more than {args.after} submit calls",
            f"it makes {len(subs)}: the loss would never be seen")
    passed = subs[:args.after]  # the submit calls that went through (and ran)
    totals = {}
    for sub in passed:
        for kind, name, n in sub:
            totals[(kind, name)] = totals.get((kind, name), 0) + n
    expected = [(k, n, cnt) for (k, n), cnt in totals.items() if cnt > 0]
    last = {(k, n): cnt for k, n, cnt in (passed[-1] if passed else [])}

    argv = [args.patterns, args.pattern]
    fault = {"FAULT_DEVICE_LOST_AFTER": str(args.after), "FAULT_DEVICE_LOST_MODE": args.mode,
             "FAULT_DEVICE_LOST_GRACE_MS": str(GRACE_MS if args.mode == "next_submit" else 0),
             "HESPER_EXIT_TIMEOUT_MS": str(EXIT_TIMEOUT_MS)}
    if args.copy == "host":
        # Hesper reads its timestamps on the host; lavapipe needs those reads serialized (host_reads).
        fault.update({"HESPER_COPY": "host", "FAULT_SERIALIZE_QUERY_READS": "1"})
    env = base_env(args, layer_env(args, fault, args.validation))
    env.update(leak_env(args, tmp))
    order = [FAULT_LAYER, VALIDATION_LAYER] if args.validation == "below" else [VALIDATION_LAYER, FAULT_LAYER]
    base = Run(argv, env, tmp)
    c.check(base.rc == 2, "program alone exits 2 (vk_common: a Vulkan call failed)", base.tail("alone"))
    base_failed = failed_calls(base.err)
    c.check(len(base_failed) == 1 and "VK_ERROR_DEVICE_LOST" in base_failed[0],
            "program alone names one call that failed with VK_ERROR_DEVICE_LOST", base.tail("alone"))
    c.check(not validation_messages(base), "no validation message alone", show_messages(validation_messages(base)))

    out_json, out_text = os.path.join(tmp, "out.json"), os.path.join(tmp, "out.txt")
    henv = with_hesper(args, env)
    henv["HESPER_REPORT"] = f"json:{out_json},text:{out_text}"
    # Hesper submits twice on its own: when the device is created (the dispatch-cost
    # measurement, docs/findings.md) and when the program gets the queue (its warm-up): the
    # loss comes at the same call of the program's when two more submit calls go through.
    henv["FAULT_DEVICE_LOST_AFTER"] = str(args.after + 2)
    run = Run(argv, henv, tmp)
    context = base.tail("alone") + "\n" + run.tail("under Hesper")
    print(f"  (alone {base.seconds:.1f} s, under Hesper {run.seconds:.1f} s)")
    c.check(run.rc == base.rc, f"exit code under Hesper equals the program's own ({base.rc})", f"got {run.rc}")
    c.check(run.seconds <= base.seconds + SLOWER_LIMIT_S,
            f"under Hesper at most {SLOWER_LIMIT_S:.0f} s slower than alone (no wait on the lost device)",
            f"alone {base.seconds:.1f} s, under Hesper {run.seconds:.1f} s")
    a, b = program_lines(base.out), program_lines(run.out)
    c.check(a == b, "program's stdout unchanged under Hesper", diff(a, b, "alone", "under Hesper"))
    c.check(failed_calls(run.err) == base_failed, "the same call fails under Hesper",
            diff(base_failed, failed_calls(run.err), "alone", "under Hesper"))
    msgs = validation_messages(run)
    c.check(not msgs, "no validation message under Hesper", show_messages(msgs))
    check_layer_order(c, run, [HESPER_LAYER] + order, "under Hesper")
    for line in hesper_lines(run.err):
        print(f"  note: Hesper said: {line}")

    rep = read_json(c, out_json)
    if rep is None:
        return context
    total = sum(e[2] for e in expected)
    timed_total = 0
    for e, row in match_rows(c, rep, expected):
        if row is None:
            continue
        count, timed = row.get("count"), row.get("timed")
        if not c.check(is_int(timed) and is_int(count) and 0 <= timed <= count,
                       f"{row.get('name')!r}: 0 <= timed <= count", f"timed {timed!r}, count {count!r}"):
            continue
        timed_total += timed
        if args.mode == "next_submit":
            c.check(timed == count, f"{row.get('name')!r}: every dispatch timed (all finished before the loss)",
                    f"timed {timed}, count {count}")
        else:
            # The last submission's completion was never seen: none of its dispatches timed.
            most = count - last.get((e[0], e[1]), 0)
            c.check(timed <= most, f"{row.get('name')!r}: timed <= {most} (the last submission's dispatches untimed)",
                    f"timed {timed}, count {count}")
    got_total = sum(r.get("count", 0) for r in rows_of(rep) if is_int(r.get("count")))
    c.check(got_total == total, f"dispatch counts sum to {total} (the dispatches of {args.after} submit calls)",
            f"got {got_total}")
    dropped = rep.get("dropped")
    c.check(dropped == got_total - timed_total, "dropped == the untimed dispatches (count - timed)",
            f"dropped {dropped!r}, untimed {got_total - timed_total}")
    if args.mode == "next_submit":
        c.check(dropped == 0, "dropped == 0", f"got {dropped!r}")
    elif passed and last:
        c.check(is_int(dropped) and dropped >= sum(last.values()),
                f"dropped >= {sum(last.values())} (the last submission's dispatches)", f"got {dropped!r}")
    print(f"  dropped {dropped!r}, dropped_causes {rep.get('dropped_causes')!r}")
    want = {"device_lost": dropped} if is_int(dropped) and dropped > 0 else {}
    c.check(rep.get("dropped_causes") == want, f"dropped_causes: {want} (the lost device, no other cause)",
            f"got {rep.get('dropped_causes')!r}")
    text = read_text(c, out_text)
    if is_int(dropped) and dropped > 0:
        c.check(re.search(rf"\b{dropped} dropped\b", text) is not None,
                f"text report says {dropped} dispatches were dropped", text[:3000])
    if c.failures:
        context += "\n--- JSON summary ---\n" + json.dumps(rep, indent=1)[:20000] + "\n--- text report ---\n" + text
    return context


# --- host reads ---------------------------------------------------------------------------

def check_clock_spans(c, rep):
    """Clock mode read on the host: each run's slots were cleared after their read, so no
    dispatch's span reaches back into an earlier run of its command buffer: every kernel's
    longest dispatch lies within the GPU's busy time."""
    busy = rep.get("gpu_busy_ns")
    for row in rep.get("kernels") or []:
        mx = row.get("max_ns") if isinstance(row, dict) else None
        c.check(isinstance(busy, (int, float)) and isinstance(mx, (int, float)) and mx <= busy,
                f"{row.get('name')!r}: longest dispatch within the GPU busy time", f"max {mx}, busy {busy}")


def case_host_reads(args, c, tmp):
    argv = [args.patterns, args.pattern]
    env = base_env(args, layer_env(args, {SERIALIZE: "1", "FAULT_LOG": "1"}, args.validation))
    order = [FAULT_LAYER, VALIDATION_LAYER] if args.validation == "below" else [VALIDATION_LAYER, FAULT_LAYER]
    base = Run(argv, env, tmp)
    c.check(base.rc == 0, "program alone (fault layer serializing + validation) exits 0", base.tail("alone"))
    c.check(parse_truth(base.out) is not None, "program alone prints a HESPER-TRUTH line", base.tail("alone"))
    check_layer_order(c, base, order, "alone")
    c.check(not validation_messages(base), "no validation message alone", show_messages(validation_messages(base)))

    out_json, out_text = os.path.join(tmp, "out.json"), os.path.join(tmp, "out.txt")
    henv = with_hesper(args, env)
    henv["HESPER_COPY"] = "host"
    henv["HESPER_MODE"] = args.hesper_mode
    henv["HESPER_REPORT"] = f"json:{out_json},text:{out_text}"
    run = Run(argv, henv, tmp)
    context = base.tail("alone") + "\n" + run.tail("under Hesper")
    print(f"  (alone {base.seconds:.1f} s, under Hesper {run.seconds:.1f} s)")
    c.check(run.rc == base.rc, f"exit code under Hesper equals the program's own ({base.rc})", f"got {run.rc}")
    a, b = run_patterns.normalized_lines(base.out), run_patterns.normalized_lines(run.out)
    c.check(a == b, "program's stdout unchanged under Hesper", diff(a, b, "alone", "under Hesper"))
    msgs = validation_messages(run)
    c.check(not msgs, "no validation message under Hesper", show_messages(msgs))
    check_layer_order(c, run, [HESPER_LAYER] + order, "under Hesper")
    said = hesper_lines(run.err)
    c.check(not said, "Hesper printed no complaint on stderr (HESPER_COPY=host accepted)", "\n".join(said[:10]))
    # Hesper's collector read its queries through the layer's lock: more reads than the
    # program's own (some patterns read their own timestamps: vkc_timer_read).
    own = [int(n) for n in re.findall(SERIALIZED_RE, base.err, re.M)]
    reads = [int(n) for n in re.findall(SERIALIZED_RE, run.err, re.M)]
    c.check(sum(reads) > sum(own), "the fault layer serialized Hesper's vkGetQueryPoolResults calls "
            "(more reads under Hesper than alone)",
            f"per device, at vkDestroyDevice: alone {own or 'no FAULT_LOG line'}, "
            f"under Hesper {reads or 'no FAULT_LOG line'}")
    truth = parse_truth(run.out)
    if not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return context
    run_patterns.check_truth_notes(c, truth)
    rep = run_patterns.read_json(c, out_json)
    if rep is None:
        return context
    # The comparison of run_patterns.py's pattern case, as it is for a default run there.
    run_patterns.check_counts(c, rep, truth, args.patterns, mode=args.hesper_mode)
    run_patterns.check_labels(c, rep, truth)
    if args.hesper_mode == "clock":
        check_clock_spans(c, rep)
    read_text(c, out_text)
    if c.failures:
        context += "\n--- JSON summary ---\n" + json.dumps(rep, indent=1)[:20000]
    return context


STATS_NAMES = ["SPIR-V words", "Captured", "Negative words", "Words / 1000"]


def stats_row(truth_kernel, rows):
    """The kernel row of @truth_kernel (by its debug name, else its source name and hash), or None."""
    for r in rows:
        name = r.get("name", "")
        if truth_kernel.get("debug_name") and name == truth_kernel["debug_name"]:
            return r
        if not truth_kernel.get("debug_name") and truth_kernel.get("source_named") and \
                re.fullmatch(re.escape(truth_kernel["source"]) + "#" + HEX8, name):
            return r
    return None


def case_pipeline_stats(args, c, tmp):
    argv = [args.program]
    env = base_env(args, layer_env(args, {"FAULT_PIPELINE_STATS": "1"}, "above"))
    env["TEST_FRAMES"] = "2"
    base = Run(argv, env, tmp)
    c.check(base.rc == 0, "program alone (fault layer offering statistics + validation) exits 0", base.tail("alone"))
    c.check(not validation_messages(base), "no validation message alone", show_messages(validation_messages(base)))

    def hesper_run(label, extra, henv_base=env):
        out_json, out_text = os.path.join(tmp, label + ".json"), os.path.join(tmp, label + ".txt")
        henv = with_hesper(args, henv_base)
        out_db = os.path.join(tmp, label + ".db")
        henv.update({"HESPER_MODE": args.hesper_mode,
                     "HESPER_REPORT": f"json:{out_json},text:{out_text},sqlite:{out_db}"})
        henv.update(extra)
        run = Run(argv, henv, tmp)
        c.check(run.rc == base.rc, f"{label}: exit code equals the program's own ({base.rc})", run.tail(label))
        a, b = run_patterns.normalized_lines(base.out), run_patterns.normalized_lines(run.out)
        c.check(a == b, f"{label}: program's stdout unchanged", diff(a, b, "alone", label))
        c.check(not validation_messages(run), f"{label}: no validation message", show_messages(validation_messages(run)))
        said = hesper_lines(run.err)
        c.check(not said, f"{label}: Hesper printed no complaint on stderr", "\n".join(said[:10]))
        return run, run_patterns.read_json(c, out_json), read_text(c, out_text)

    run, rep, text = hesper_run("captured", {})
    check_layer_order(c, run, [HESPER_LAYER, VALIDATION_LAYER, FAULT_LAYER], "under Hesper")
    truth = parse_truth(run.out)
    if rep is None or not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return run.tail("under Hesper")
    devices = rep.get("devices") or []
    c.check(devices and all(d.get("pipeline_stats") == "captured" for d in devices),
            "every device: pipeline_stats \"captured\"", f"{[d.get('pipeline_stats') for d in devices]}")
    listed = {s.get("kernel"): s for s in rep.get("pipeline_stats") or []}
    rows = rows_of(rep)
    c.check(set(listed) == {r.get("name") for r in rows}, "one pipeline_stats entry per kernel row, no other",
            f"stats for {sorted(listed)}, rows {sorted(r.get('name') for r in rows)}")
    for k in truth["kernels"]:
        row = stats_row(k, rows)
        if not c.check(row is not None, f"{k['spv']}: its kernel row", f"rows {[r.get('name') for r in rows]}"):
            continue
        st = listed.get(row["name"]) or {}
        values = st.get("stats") or {}
        c.check(list(values) == STATS_NAMES, f"{row['name']}: the driver's statistics, named and ordered as given",
                f"got {list(values)}")
        c.check(st.get("executable") == "Compute Shader" and st.get("subgroup_size") == 8,
                f"{row['name']}: executable \"Compute Shader\", subgroup size 8",
                f"got {st.get('executable')!r}, {st.get('subgroup_size')!r}")
        words = os.path.getsize(os.path.join(os.path.dirname(args.program), k["spv"])) // 4
        got = values.get("SPIR-V words")
        if args.hesper_mode == "clock":
            c.check(is_int(got) and got > words, f"{row['name']}: SPIR-V words of the instrumented module, "
                    f"more than its .spv's {words}", f"got {got!r}")
        else:
            c.check(got == words, f"{row['name']}: SPIR-V words {words} (its .spv)", f"got {got!r}")
        c.check(values.get("Captured") is True, f"{row['name']}: made with the capture flag (Captured true)",
                f"got {values.get('Captured')!r}")
        c.check(is_int(got) and values.get("Negative words") == -got, f"{row['name']}: an INT64 statistic, negative",
                f"got {values.get('Negative words')!r}")
        c.check(is_int(got) and isinstance(values.get("Words / 1000"), float) and
                abs(values["Words / 1000"] - got / 1000) < 1e-9,
                f"{row['name']}: a FLOAT64 statistic", f"got {values.get('Words / 1000')!r}")
    section = text.split("\nPipeline statistics", 1)[1].split("\n\n", 1)[0] if "\nPipeline statistics" in text else ""
    lines = section.splitlines()[1:]
    c.check(sorted(l.split(",")[0].strip() for l in lines if l.startswith("  ") and not l.startswith("   ")) ==
            sorted(r.get("name") for r in rows), "text: one line per kernel in \"Pipeline statistics\"", section)
    c.check(all(len(l) <= 120 for l in lines), "text: the section fits 120 columns", section)

    try:
        with sqlite3.connect(os.path.join(tmp, "captured.db")) as db:
            got = sorted(db.execute("SELECT kernel, name, value FROM pipeline_stats"))
    except sqlite3.Error as ex:
        got = [str(ex)]
    want = sorted((k, n, int(v) if isinstance(v, bool) else v)
                  for k, st in listed.items() for n, v in (st.get("stats") or {}).items())
    c.check(got == want, "the database's pipeline_stats rows are the JSON's", f"database {got[:8]}, JSON {want[:8]}")

    _, off, _ = hesper_run("off", {"HESPER_PIPELINE_STATS": "off"})
    if off is not None:
        c.check(all(d.get("pipeline_stats") == "off" for d in off.get("devices") or []) and
                off.get("pipeline_stats") == [], "HESPER_PIPELINE_STATS=off: \"off\", no statistics",
                f"devices {[d.get('pipeline_stats') for d in off.get('devices') or []]}, "
                f"pipeline_stats {off.get('pipeline_stats')!r}")
    refuse_env = base_env(args, layer_env(args, {"FAULT_PIPELINE_STATS": "1", "FAULT_REFUSE_CAPTURE": "1"}, "above"))
    refuse_env["TEST_FRAMES"] = "2"
    _, refused, _ = hesper_run("refused", {}, refuse_env)
    if refused is not None:
        c.check(refused.get("pipeline_stats") == [] and len(rows_of(refused)) == len(rows),
                "a driver refusing the capture flag: the pipelines made without it, no statistics",
                f"pipeline_stats {refused.get('pipeline_stats')!r}, rows {[r.get('name') for r in rows_of(refused)]}")
    plain_env = base_env(args, layer_env(args, {}, "above"))
    plain_env["TEST_FRAMES"] = "2"
    _, plain, plain_text = hesper_run("not_offered", {}, plain_env)
    if plain is not None:
        c.check(all(d.get("pipeline_stats") == "not offered by the driver" for d in plain.get("devices") or []),
                "without the offer: \"not offered by the driver\"",
                f"{[d.get('pipeline_stats') for d in plain.get('devices') or []]}")
        c.check(plain_text.count("has no VK_KHR_pipeline_executable_properties") == len(plain.get("devices") or []),
                "without the offer: the text report says so once a device", plain_text[-2000:])
    return run.tail("under Hesper")


# The figures of docs/findings.md#occupancy for the H200 the fault layer poses as (FAULT_NVIDIA_SM).
H200_SMS, H200_WARPS, H200_GROUPS = 132, 64, 32
H200_REGISTERS, H200_PARTITIONS, H200_REGISTER_UNIT = 65536, 4, 256
# shared memory: the device's maxComputeSharedMemorySize an SM, no reserve (NVIDIA's Vulkan driver, measured)
H200_SHARED_RESERVED, H200_SHARED_UNIT = 0, 128


def round_up(x, unit):
    return -(-x // unit) * unit


def expected_occupancy(registers, shared, invocations, shared_per_group):
    """The model as docs/findings.md states it, reckoned apart from Hesper's C: (groups, warps, limit)."""
    warps_per_group = -(-invocations // 32)
    per_warp = round_up(registers * 32, H200_REGISTER_UNIT)
    if per_warp * round_up(warps_per_group, H200_PARTITIONS) > H200_REGISTERS:
        by_registers = 0
    else:
        by_registers = (H200_REGISTERS // H200_PARTITIONS // per_warp) * H200_PARTITIONS // warps_per_group \
            if per_warp else 1 << 62
    if not shared:
        by_shared = 1 << 62
    elif shared > shared_per_group:
        by_shared = 0
    else:
        by_shared = shared_per_group // round_up(shared + H200_SHARED_RESERVED, H200_SHARED_UNIT)
    # ties: registers, shared memory, work groups, warps
    limits = [("registers", by_registers), ("shared memory", by_shared), ("work groups", H200_GROUPS),
              ("warps", H200_WARPS // warps_per_group)]
    limit, groups = min(limits, key=lambda l: l[1])
    return groups, groups * warps_per_group, limit


def case_occupancy(args, c, tmp):
    """FAULT_PIPELINE_STATS=1 FAULT_NVIDIA_SM=1: the device an H200 to Hesper; each kernel's
    occupancy from the statistics the fault layer made up, against the model reckoned here."""
    argv = [args.program]
    env = base_env(args, layer_env(args, {"FAULT_PIPELINE_STATS": "1", "FAULT_NVIDIA_SM": "1"}, "above"))
    env["TEST_FRAMES"] = "2"
    base = Run(argv, env, tmp)
    c.check(base.rc == 0, "program alone (fault layer posing as an H200 + validation) exits 0", base.tail("alone"))
    c.check(not validation_messages(base), "no validation message alone", show_messages(validation_messages(base)))
    out_json, out_text, out_db = (os.path.join(tmp, "occ." + e) for e in ("json", "txt", "db"))
    henv = with_hesper(args, env)
    henv["HESPER_REPORT"] = f"json:{out_json},text:{out_text},sqlite:{out_db}"
    run = Run(argv, henv, tmp)
    c.check(run.rc == base.rc, f"under Hesper: exit code equals the program's own ({base.rc})", run.tail("Hesper"))
    c.check(not validation_messages(run), "under Hesper: no validation message",
            show_messages(validation_messages(run)))
    c.check(not hesper_lines(run.err), "Hesper printed no complaint on stderr", "\n".join(hesper_lines(run.err)[:10]))
    rep, text = run_patterns.read_json(c, out_json), read_text(c, out_text)
    if rep is None:
        return run.tail("under Hesper")
    devices = rep.get("devices") or []
    model = devices[0].get("occupancy_model") if devices else None
    c.check(len(devices) == 1 and devices[0].get("name", "").startswith("NVIDIA H200 (") and isinstance(model, dict),
            "the device poses as an H200 and has an occupancy model", f"devices {devices}")
    if not isinstance(model, dict):
        return run.tail("under Hesper")
    want_model = {"vendor": "nvidia", "compute_units": H200_SMS, "warp_size": 32, "warps_per_sm": H200_WARPS,
                  "groups_per_sm": H200_GROUPS, "registers_per_sm": H200_REGISTERS,
                  "register_partitions": H200_PARTITIONS, "register_unit": H200_REGISTER_UNIT,
                  "registers_per_thread": 255, "shared_reserved": H200_SHARED_RESERVED,
                  "shared_unit": H200_SHARED_UNIT}
    c.check({k: model.get(k) for k in want_model} == want_model and model.get("shared_per_group", 0) > 0
            and model.get("shared_per_sm") == model.get("shared_per_group"),
            "devices[0].occupancy_model: NVIDIA's figures for 132 SMs of 64 warps, named H200", f"got {model}")
    c.check(devices[0].get("compute_units") == H200_SMS, "the device's compute units: the SM count it says",
            f"got {devices[0].get('compute_units')!r}")
    listed = rep.get("pipeline_stats") or []
    c.check(len(listed) == len(rows_of(rep)) and listed, "one statistics entry per kernel row",
            f"{len(listed)} entries, {len(rows_of(rep))} rows")
    for st in listed:
        name, stats, occ = st.get("kernel"), st.get("stats") or {}, st.get("occupancy") or {}
        local = st.get("local_size")
        if not c.check(isinstance(local, list) and len(local) == 3 and st.get("device") == 0,
                       f"{name}: its device and local size", f"got device {st.get('device')!r}, local {local!r}"):
            continue
        groups, warps, limit = expected_occupancy(stats.get("Register Count", 0), stats.get("Shared Memory Size", 0),
                                                  local[0] * local[1] * local[2], model["shared_per_group"])
        want = {"share": warps / H200_WARPS, "warps_per_sm": warps, "groups_per_sm": groups,
                "device_groups": groups * H200_SMS, "limit": limit}
        c.check(occ == want, f"{name}: occupancy as the model reckons it from its {stats.get('Register Count')} "
                f"registers, {stats.get('Shared Memory Size')} bytes and {local}", f"got {occ}, want {want}")
    section = text.split("\nPipeline statistics", 1)[1].split("\n\n", 1)[0] if "\nPipeline statistics" in text else ""
    c.check(section.count("\n    occupancy ") == len(listed), "text: an occupancy line per kernel", section)
    c.check(all(len(l) <= 120 for l in section.splitlines()), "text: the section fits 120 columns", section)
    try:
        with sqlite3.connect(out_db) as db:
            got = sorted(db.execute("SELECT kernel, share, groups_per_sm, warps_per_sm, device_groups, limit_factor "
                                    "FROM pipeline_occupancy"))
    except sqlite3.Error as ex:
        got = [str(ex)]
    want = sorted((st["kernel"], o.get("share"), o.get("groups_per_sm"), o.get("warps_per_sm"),
                   o.get("device_groups"), o.get("limit")) for st in listed for o in [st.get("occupancy") or {}])
    c.check(got == want, "the database's pipeline_occupancy rows are the JSON's", f"database {got}, JSON {want}")
    # An under-filled kernel (fewer groups than the 132 SMs) says how many fill the device.
    for f in rep.get("findings") or []:
        if f.get("kind") != "underfilled":
            continue
        n = f.get("numbers") or {}
        c.check(n.get("device_groups", 0) > 0 and "fill the device once" in f.get("advice", ""),
                f"underfilled {f.get('about')}: the groups that fill the device, in its numbers and advice", f"{f}")

    # lavapipe as it is (no NVIDIA pose): no model, and each kernel's occupancy unknown, why said.
    env = base_env(args, layer_env(args, {"FAULT_PIPELINE_STATS": "1"}, "above"))
    env["TEST_FRAMES"] = "2"
    henv = with_hesper(args, env)
    henv["HESPER_REPORT"] = f"json:{out_json},text:{out_text}"
    run = Run(argv, henv, tmp)
    rep, text = run_patterns.read_json(c, out_json), read_text(c, out_text)
    if rep is not None:
        model = (rep.get("devices") or [{}])[0].get("occupancy_model")
        c.check(model == {"why": "a CPU device (no SMs to model)"}, "lavapipe: no occupancy model, and why",
                f"got {model!r}")
        occ = [st.get("occupancy") for st in rep.get("pipeline_stats") or []]
        c.check(occ and all(o == {"limit": "unknown", "why": "a CPU device (no SMs to model)"} for o in occ),
                "lavapipe: every kernel's occupancy unknown, and why", f"got {occ}")
        c.check(text.count("occupancy unknown: a CPU device (no SMs to model)") == len(occ),
                "lavapipe: the text report says so per kernel", text[-2000:])
    return run.tail("under Hesper")


def case_stats_sets(args, c, tmp):
    """FAULT_PIPELINE_STATS=1, `patterns same_name`: two pipelines of two modules under one
    name get a set of statistics each (the fault layer's "SPIR-V words" tell them apart),
    numbered in the order bound, each counting the dispatches that ran on it; the text and
    the database say the same."""
    argv = [args.patterns, "same_name"]
    env = base_env(args, layer_env(args, {"FAULT_PIPELINE_STATS": "1"}, "above"))
    out_json, out_text, out_db = (os.path.join(tmp, "sets." + e) for e in ("json", "txt", "db"))
    henv = with_hesper(args, env)
    henv.update({"HESPER_MODE": args.hesper_mode, "HESPER_REPORT": f"json:{out_json},text:{out_text},sqlite:{out_db}"})
    run = Run(argv, henv, tmp)
    c.check(run.rc == 0, "under Hesper: exits 0", run.tail("under Hesper"))
    c.check(not validation_messages(run), "under Hesper: no validation message",
            show_messages(validation_messages(run)))
    c.check(not hesper_lines(run.err), "Hesper printed no complaint on stderr", "\n".join(hesper_lines(run.err)[:10]))
    truth, rep, text = parse_truth(run.out), run_patterns.read_json(c, out_json), read_text(c, out_text)
    if rep is None or not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return run.tail("under Hesper")
    want = truth["stats_sets"]
    sets = [s for s in rep.get("pipeline_stats") or [] if s.get("kernel") == "twin_named"]
    c.check([s.get("variant") for s in sets] == list(range(len(want))), "one set per pipeline, numbered in order",
            f"variants {[s.get('variant') for s in sets]}, want {len(want)} sets")
    c.check([s.get("dispatches") for s in sets] == want, "each set counts the dispatches that ran on its pipeline",
            f"got {[s.get('dispatches') for s in sets]}, want {want}")
    words = [(s.get("stats") or {}).get("SPIR-V words") for s in sets]
    c.check(len(set(words)) == len(want), "the sets hold each pipeline's own figures", f"SPIR-V words {words}")
    row = [r for r in rows_of(rep) if r.get("name") == "twin_named"]
    c.check(row and row[0].get("count") == sum(want), "the kernel's row counts every dispatch of both",
            f"rows {rows_of(rep)}")
    for i, n in enumerate(want):
        line = f"  twin_named (pipeline {i + 1} of {len(want)}, {n} dispatches), subgroup 8:"
        c.check(line in text, f"the text report names set {i + 1}", text[-1500:])
    try:
        with sqlite3.connect(out_db) as db:
            got = sorted(set(db.execute("SELECT variant, dispatches FROM pipeline_stats WHERE kernel = 'twin_named'")))
    except sqlite3.Error as ex:
        got = str(ex)
    c.check(got == [(i, n) for i, n in enumerate(want)], "the database's sets and dispatches", f"got {got}")
    return run.tail("under Hesper")


CASES = {"selftest": case_selftest, "no_timestamps": case_no_timestamps, "device_lost": case_device_lost,
         "host_reads": case_host_reads, "pipeline_stats": case_pipeline_stats, "occupancy": case_occupancy,
         "stats_sets": case_stats_sets}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hesper", required=True, help="libhesper.so")
    ap.add_argument("--layer-dir", required=True, help="directory of the fault layer's manifest")
    ap.add_argument("--patterns", required=True, help="tests/programs' patterns executable")
    ap.add_argument("--probe", required=True, help="fault_probe executable")
    ap.add_argument("--keep-modules", help="tests/programs' keep_modules library, preloaded with an ASan runtime")
    ap.add_argument("--preload-first", action="append", default=[], metavar="LIB",
                    help="library first in LD_PRELOAD in every run (the ASan runtime); found by itself "
                         "from the binaries' DT_NEEDED entries when not given")
    ap.add_argument("--pattern", default="resubmit")
    ap.add_argument("--program", help="pipeline_stats: the program to run (demo_pipeline)")
    ap.add_argument("--validation", choices=["above", "below"], default="above",
                    help="the validation layer above (application side of) the fault layer, or below it")
    ap.add_argument("--after", type=int, default=1, help="device_lost: submit calls that go through")
    ap.add_argument("--mode", choices=["completion", "next_submit"], default="completion")
    ap.add_argument("--copy", choices=["default", "host"], default="default",
                    help="device_lost: HESPER_COPY=host (with the fault layer serializing query reads)")
    ap.add_argument("--hesper-mode", choices=["dispatch", "clock"], default="dispatch",
                    help="host_reads, pipeline_stats: HESPER_MODE (clock: the kernels' clock slots read on the "
                         "host too; the statistics of the instrumented modules)")
    ap.add_argument("case", choices=sorted(CASES))
    args = ap.parse_args()

    what = {"selftest": "", "pipeline_stats": os.path.basename(args.program or ""),
            "occupancy": os.path.basename(args.program or "")}.get(args.case, args.pattern)
    c = Checks(f"{args.case} {what}".strip() +
               (f" after {args.after} ({args.mode})" if args.case == "device_lost" else ""))
    for path, what in ((args.hesper, "Hesper library"), (args.patterns, "patterns program"),
                       (args.probe, "fault_probe"), (os.path.join(args.layer_dir, "VkLayer_hesper_fault.json"),
                                                     "fault layer manifest")):
        if not os.path.isfile(path):
            c.fail(f"{what} exists", f"not found: {path}")
    args.validation_dir = validation_dir()
    c.check(args.validation_dir is not None, "the validation layer is installed",
            f"no manifest naming {VALIDATION_LAYER} in {LAYER_DIRS}")
    if c.failures:
        return c.finish()
    if args.case in ("pipeline_stats", "occupancy") and not args.program:
        c.fail("--program given", f"{args.case} needs --program EXE")
        return c.finish()
    for k in ("hesper", "patterns", "probe", "layer_dir") + (("program",) if args.program else ()):
        setattr(args, k, os.path.abspath(getattr(args, k)))
    try:
        args.sanitizer_preload = run_e2e.sanitizer_preload(
            args, [args.hesper, args.patterns, args.probe, os.path.join(args.layer_dir, "libhesper_fault_layer.so")])
    except (RuntimeError, subprocess.CalledProcessError) as ex:
        c.fail("inspect the binaries", str(ex))
        return c.finish()

    return run_e2e.run_checked(c, "hesper-fault-", lambda tmp: CASES[args.case](args, c, tmp))


if __name__ == "__main__":
    sys.exit(main())
