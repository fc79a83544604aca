#!/usr/bin/env python3
"""End-to-end checks of Hesper on real Vulkan compute programs.

    run_e2e.py --hesper LIB --program PROG [--volk] [--preload-first LIB] CASE

Cases:
  profile             PROG alone, then under Hesper + the validation layer with a JSON
                      report: same exit code and stdout, no validation messages, Hesper
                      above validation in the loader's layer call stacks, and the JSON
                      summary matches the program's HESPER-TRUTH line.
  no_report_env       PROG under Hesper without HESPER_REPORT: same exit code and stdout,
                      the text report (kernel table header "Time (%)") on stderr.
  stdout_sink         HESPER_REPORT=stdout: the program's own stdout, unchanged, then the report.
  inert               PROG is not a Vulkan program: under Hesper its stdout, stderr and exit
                      code are byte-identical and no file appears in its cwd or TMPDIR.
  validation_detects  PROG makes one deliberate usage error (TEST_PROVOKE_VALIDATION=1):
                      under Hesper + validation the error must be seen (proves the
                      "no validation messages" check is not vacuous).

Exit status 0 when every check passes, 1 otherwise (never 77: a test that cannot run fails).
"""

import argparse
import difflib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HESPER_LAYER = "VK_LAYER_HESPER_profiler"
VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation"
TRUTH_PREFIX = "HESPER-TRUTH "
TEXT_REPORT_HEADER = "Time (%)"
REPORT_COLUMNS = 120  # the text report's width (characters; "µs" is two)
RUN_TIMEOUT_S = 240
TIMING_TOLERANCE = 0.05      # Hesper's mean vs the program's own, for kernels >= 1 ms
# Under AddressSanitizer the same check allows this much: the instrumented processes and the
# suite beside them load the machine whose CPU threads are lavapipe's GPU, and a 4 ms kernel
# spread 3.5 to 6.3 ms over five dispatches there, their mean 9 % off the program's own pairs'
# (the optimised build keeps TIMING_TOLERANCE).
TIMING_TOLERANCE_SANITIZED = 0.25
TIMING_MIN_NS = 1_000_000

SCHEMA_KEYS = ["schema", "process", "devices", "wall_ns", "gpu_busy_ns", "kernels",
               "regions", "submits", "dropped"]
EXTRA_KEYS = ["kernels_by_label", "queues", "clamped", "mode", "hesper", "dropped_causes"]
KERNEL_KEYS = ["name", "count", "total_ns", "mean_ns", "median_ns", "min_ns", "max_ns",
               "stddev_ns", "p95_ns", "p99_ns", "timed", "span_total_ns"]

# Environment that would change what Hesper, the loader or the layers do: never inherited.
SCRUBBED_ENV = ["LD_PRELOAD", "VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_ENABLE",
                "VK_LOADER_LAYERS_DISABLE", "VK_LAYER_PATH", "VK_ADD_LAYER_PATH",
                "VK_LOADER_DEBUG", "TEST_PROVOKE_VALIDATION"]

VALIDATION_RE = re.compile(r"Validation (Error|Warning|Performance Warning)|VUID-")
LOADER_LINE_RE = re.compile(r"^(LAYER:|(INFO|WARNING|DEBUG|ERROR|PERF|DRIVER) \| )")
HEX8 = "[0-9a-f]{8}"


class Checks:
    """Collects named check results; failures are printed with their explanation (at most
    @detail_lines lines of each, None: all)."""

    def __init__(self, title, detail_lines=None):
        self.title = title
        self.detail_lines = detail_lines
        self.failures = []
        self.passed = 0
        self.skipped = None

    def check(self, ok, what, detail=""):
        """Records one check: @what is the claim, @detail explains a failure."""
        if ok:
            self.passed += 1
        else:
            self.failures.append((what, detail))
        return ok

    def fail(self, what, detail=""):
        """Records a failed check."""
        return self.check(False, what, detail)

    def skip(self, why):
        """Marks the case as not applicable here (meson's exit status 77), unless a check failed."""
        self.skipped = why

    def finish(self, context=None):
        """Prints the verdict (and @context on failure); returns the exit status."""
        if not self.failures and self.skipped:
            print(f"SKIP {self.title}: {self.skipped}")
            return 77
        if not self.failures:
            print(f"PASS {self.title}: {self.passed} checks")
            return 0
        print(f"FAIL {self.title}: {len(self.failures)} of {self.passed + len(self.failures)} checks failed")
        for what, detail in self.failures:
            print(f"  - {what}")
            for line in str(detail).splitlines()[:self.detail_lines]:
                print(f"      {line}")
        if context:
            print(context)
        return 1


class Run:
    """One finished process: exit code ("timeout" after @timeout seconds, default RUN_TIMEOUT_S),
    stdout and stderr as text, seconds it took; @umask, when given, is the child's umask."""

    def __init__(self, argv, env, cwd, timeout=None, umask=None):
        self.argv = argv
        start = time.monotonic()
        try:
            p = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=RUN_TIMEOUT_S if timeout is None else timeout,
                               preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)
            self.rc, self.out_bytes, self.err_bytes = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            self.rc = "timeout"
            self.out_bytes, self.err_bytes = e.stdout or b"", e.stderr or b""
        self.seconds = time.monotonic() - start
        self.out = self.out_bytes.decode("utf-8", "replace")
        self.err = self.err_bytes.decode("utf-8", "replace")

    def tail(self, label, n=40):
        """Last @n lines of stdout and stderr, for failure reports."""
        parts = []
        for name, text in (("stdout", self.out), ("stderr", self.err)):
            lines = text.splitlines()
            parts.append(f"--- {label} {name} (last {min(n, len(lines))} of {len(lines)} lines) ---")
            parts.extend(lines[-n:])
        return "\n".join(parts)


def elf_needed(path):
    """DT_NEEDED entries of the ELF file at @path (via readelf, part of binutils)."""
    readelf = shutil.which("readelf")
    if not readelf:
        raise RuntimeError("readelf (binutils) not found: cannot inspect " + path)
    out = subprocess.run([readelf, "-d", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         check=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def sanitizer_runtimes(paths):
    """ASan runtimes (sonames) any of @paths needs: they must come first in LD_PRELOAD."""
    found = []
    for path in paths:
        for lib in elf_needed(path):
            if lib.startswith("libasan.so") and lib not in found:
                found.append(lib)
    return found


def sanitizer_preload(args, binaries):
    """What goes before Hesper in LD_PRELOAD: args.preload_first, with the ASan runtime any of
    @binaries needs put first in it (unless one is given), then keep_modules when ASan is in play."""
    runtimes = sanitizer_runtimes(binaries)
    given_asan = any(os.path.basename(p).startswith("libasan.so") for p in args.preload_first)
    if runtimes and not given_asan:
        args.preload_first[:0] = runtimes
    preload = list(args.preload_first)
    if (runtimes or given_asan) and args.keep_modules:
        preload.append(os.path.abspath(args.keep_modules))
    return preload


def add_binary_args(ap):
    """The options of every runner that runs a test program under Hesper."""
    ap.add_argument("--hesper", required=True, help="path to libhesper.so")
    ap.add_argument("--program", required=True, help="test program to run")
    ap.add_argument("--volk", action="store_true", help="the program is a volk build: check it does not link libvulkan")
    add_preload_args(ap)


def add_preload_args(ap):
    """--preload-first and --keep-modules (what sanitizer_preload reads)."""
    ap.add_argument("--preload-first", action="append", default=[], metavar="LIB",
                    help="library to put before Hesper in LD_PRELOAD in every run (e.g. the ASan "
                         "runtime); an ASan runtime that Hesper or the program needs is added automatically")
    ap.add_argument("--keep-modules", metavar="LIB",
                    help="tests/programs' keep_modules library, preloaded whenever an ASan runtime is")


def prepare_binaries(args, c):
    """Checks that Hesper and the program exist, makes their paths absolute, sets
    args.sanitizer_preload and checks a volk build's DT_NEEDED. False when the run cannot go on."""
    for path, what in ((args.hesper, "Hesper library"), (args.program, "test program")):
        if not os.path.isfile(path):
            c.fail(f"{what} exists", f"not found: {path}")
    if c.failures:
        return False
    args.hesper = os.path.abspath(args.hesper)
    args.program = os.path.abspath(args.program)
    try:
        args.sanitizer_preload = sanitizer_preload(args, [args.hesper, args.program])
        if args.sanitizer_preload:
            global TIMING_TOLERANCE
            TIMING_TOLERANCE = TIMING_TOLERANCE_SANITIZED
        if args.volk:
            needed = elf_needed(args.program)
            c.check(not any(n.startswith("libvulkan") for n in needed),
                    "volk build does not link libvulkan (it dlopens it)", f"DT_NEEDED: {needed}")
    except (RuntimeError, subprocess.CalledProcessError) as e:
        c.fail("inspect the binaries", str(e))
        return False
    return True


def check_like_alone(c, base, run, what="under Hesper", clean="no validation messages"):
    """Checks that @run (the program under Hesper) exited 0 as @base (the program alone) did,
    printed the same program lines, and drew no validation message (@clean names the check)."""
    c.check(run.rc == base.rc == 0, f"exit code 0 alone and {what}", f"alone {base.rc}, {what} {run.rc}")
    a, b = program_lines(base.out), program_lines(run.out)
    c.check(a == b, f"program's stdout unchanged {what}", diff(a, b, "alone", what))
    msgs = validation_messages(run)
    c.check(not msgs, clean, "\n".join(msgs[:20]))


def case_main(doc, cases, label, prefix=None, extra_args=None):
    """The main of a runner of named cases, each run as cases[name](args, checks, tmp) on a test
    program under Hesper: parses --hesper, --program, --volk, the preload options, what
    @extra_args(parser) adds and the case; returns the exit status. Checks are titled
    "@label CASE"; the temporary directory is named @prefix (default "hesper-@label-")."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_binary_args(ap)
    if extra_args:
        extra_args(ap)
    ap.add_argument("case", choices=sorted(cases))
    args = ap.parse_args()
    c = Checks(f"{label} {args.case}")
    if not prepare_binaries(args, c):
        return c.finish()
    return run_checked(c, prefix or f"hesper-{label}-", lambda tmp: cases[args.case](args, c, tmp))


def run_checked(c, prefix, fn):
    """Runs fn(tmp) in a new temporary directory named @prefix...; a crash in it is a failed
    check. Prints the verdict (with what fn returned as context) and removes the directory when
    every check passed. Returns the exit status."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        context = fn(tmp)
    except Exception:  # a crash in the checker is a failure, never a skip
        c.fail("checker ran to completion", traceback.format_exc())
        context = None
    status = c.finish(context)
    if status == 0:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"(files kept in {tmp})")
    return status


def load_json(c, path, claim):
    """The JSON document at @path, or None after recording @claim as failed."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        c.fail(claim, f"{path}: {e}")
        return None


def base_env(args):
    """The caller's environment without anything that steers Hesper, the loader or layers;
    under AddressSanitizer, its runtime (and keep_modules) preloaded and a smaller quarantine."""
    env = {k: v for k, v in os.environ.items()
           if k not in SCRUBBED_ENV and not k.startswith("HESPER_")}
    if args.sanitizer_preload:
        env["LD_PRELOAD"] = " ".join(args.sanitizer_preload)
        opts = env.get("ASAN_OPTIONS", "")
        if "quarantine_size_mb" not in opts:
            # lavapipe frees and reallocates large blocks per dispatch: the default 256 MB
            # quarantine turns that into mmap churn that makes the suite ~10x slower.
            env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "quarantine_size_mb=32"
    return env


def hesper_env(args, extra):
    """base_env() plus Hesper in LD_PRELOAD (after any sanitizer runtime) and @extra."""
    env = base_env(args)
    env["LD_PRELOAD"] = " ".join(args.sanitizer_preload + [args.hesper])
    env.update(extra)
    return env


def parse_truth(text):
    """The program's HESPER-TRUTH object from its stdout, or None."""
    for line in text.splitlines():
        if line.startswith(TRUTH_PREFIX):
            return json.loads(line[len(TRUTH_PREFIX):])
    return None


def program_lines(text):
    """The program's own stdout lines: validation and loader messages dropped, and the
    HESPER-TRUTH line normalized (its own timings vary from run to run)."""
    lines, in_validation = [], False
    for line in text.splitlines():
        if VALIDATION_RE.search(line) or LOADER_LINE_RE.match(line):
            in_validation = bool(VALIDATION_RE.search(line))
            continue
        if in_validation and (line.startswith(" ") or line.startswith("\t")):
            continue  # continuation lines of a validation message ("    Objects: 1")
        in_validation = False
        if line.startswith(TRUTH_PREFIX):
            truth = json.loads(line[len(TRUTH_PREFIX):])
            for k in truth.get("kernels", []):
                k["own_mean_ns"] = "<timing>" if k.get("own_mean_ns") is not None else None
            line = TRUTH_PREFIX + json.dumps(truth, sort_keys=True)
        lines.append(line)
    return lines


def diff(a, b, label_a, label_b):
    """Unified diff of two line lists."""
    return "\n".join(difflib.unified_diff(a, b, label_a, label_b, lineterm="", n=2))


def validation_messages(run):
    """Lines of @run's stdout and stderr that are validation messages."""
    return [l for l in (run.out + "\n" + run.err).splitlines() if VALIDATION_RE.search(l)]


def layer_callstacks(stderr):
    """Layer chains from VK_LOADER_DEBUG=layer output: [(kind, [layer names, app side first])].

    The loader (1.3.2xx) prints, for each vkCreateInstance/vkCreateDevice:
        LAYER:            vkCreateInstance layer callstack setup to:
        LAYER:               <Application>
        LAYER:                 ||
        LAYER:               <Loader>
        LAYER:                 ||
        LAYER:               VK_LAYER_HESPER_profiler
        LAYER:                       Type: Explicit
        ...
        LAYER:               <Drivers>            (<Device> for vkCreateDevice)
    """
    stacks, current = [], None
    for line in stderr.splitlines():
        m = re.search(r"(vkCreateInstance|vkCreateDevice) layer callstack setup to:", line)
        if m:
            current = (m.group(1), [])
            stacks.append(current)
            continue
        if current is None:
            continue
        body = re.sub(r"^LAYER:\s*", "", line).strip() if line.startswith("LAYER:") else None
        if body is None or body in ("<Drivers>", "<Device>"):
            current = None
        elif re.fullmatch(r"VK_LAYER_\w+", body):
            current[1].append(body)
    return stacks


def check_layer_order(c, run):
    """Hesper must be in every call stack, above (application side of) validation."""
    stacks = layer_callstacks(run.err)
    kinds = [k for k, _ in stacks]
    c.check("vkCreateInstance" in kinds and "vkCreateDevice" in kinds,
            "loader debug output shows the instance and device layer call stacks",
            f"call stacks found: {kinds or 'none'} (is VK_LOADER_DEBUG=layer honoured?)")
    for kind, layers in stacks:
        ok = HESPER_LAYER in layers and VALIDATION_LAYER in layers and \
            layers.index(HESPER_LAYER) < layers.index(VALIDATION_LAYER)
        c.check(ok, f"{kind} call stack: {HESPER_LAYER} above {VALIDATION_LAYER}",
                "layers, application side first: " + " -> ".join(layers))


def is_num(v):
    """True for a finite JSON number (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_schema(c, rep, program):
    """Every hesper-summary/1 key (and Hesper's documented extras) with sane types."""
    missing = [k for k in SCHEMA_KEYS + EXTRA_KEYS if k not in rep]
    c.check(not missing, "JSON has every schema key", f"missing: {missing}")
    c.check(rep.get("schema") == "hesper-summary/1", "schema is hesper-summary/1", f"got {rep.get('schema')!r}")
    proc = rep.get("process") or {}
    c.check(isinstance(proc.get("pid"), int) and proc.get("pid") > 0, "process.pid is a positive integer", f"{proc}")
    c.check(isinstance(proc.get("host"), str) and proc.get("host"), "process.host is a non-empty string", f"{proc}")
    exe = proc.get("exe")
    c.check(isinstance(exe, str) and os.path.basename(exe) == os.path.basename(program),
            "process.exe names the program", f"got {exe!r}, want {os.path.basename(program)!r}")
    devs = rep.get("devices")
    c.check(isinstance(devs, list) and devs and all(
        isinstance(d.get("name"), str) and isinstance(d.get("driver"), str) and
        is_num(d.get("timestamp_period_ns")) and d["timestamp_period_ns"] > 0 for d in devs),
        "devices: non-empty, each with name, driver, timestamp_period_ns > 0", f"{devs}")
    for k in ("wall_ns", "gpu_busy_ns", "dropped", "clamped"):
        c.check(is_num(rep.get(k)) and rep[k] >= 0, f"{k} is a non-negative number", f"got {rep.get(k)!r}")
    c.check(is_num(rep.get("wall_ns")) and rep["wall_ns"] > 0, "wall_ns > 0", f"got {rep.get('wall_ns')!r}")
    sub = rep.get("submits") or {}
    c.check(is_num(sub.get("count")) and sub["count"] > 0 and is_num(sub.get("total_ns")) and sub["total_ns"] >= 0,
            "submits has count > 0 and total_ns >= 0", f"{sub}")
    c.check(isinstance(rep.get("regions"), list), "regions is a list", f"{rep.get('regions')!r}")
    c.check(rep.get("mode") == "dispatch", "mode is 'dispatch' (the default)", f"got {rep.get('mode')!r}")


def check_kernel_stats(c, row, dropped):
    """Internal consistency of one kernel row's statistics."""
    name = row.get("name")
    missing = [k for k in KERNEL_KEYS if k not in row]
    if not c.check(not missing, f"kernel {name!r} has every row key", f"missing: {missing}"):
        return
    bad = [k for k in KERNEL_KEYS[1:] if not is_num(row[k]) or row[k] < 0]
    if not c.check(not bad, f"kernel {name!r}: statistics are non-negative numbers", f"bad: {[(k, row[k]) for k in bad]}"):
        return
    c.check(row["timed"] <= row["count"], f"kernel {name!r}: timed <= count", f"timed {row['timed']}, count {row['count']}")
    if dropped == 0:
        c.check(row["timed"] == row["count"], f"kernel {name!r}: every dispatch timed (dropped == 0, mode dispatch)",
                f"timed {row['timed']}, count {row['count']}")
    if row["timed"] == 0:
        return
    mn, md, mx, mean = row["min_ns"], row["median_ns"], row["max_ns"], row["mean_ns"]
    p95, p99 = row["p95_ns"], row["p99_ns"]
    slack = 1.0  # integer rounding in the writer
    c.check(mn <= md <= mx, f"kernel {name!r}: min <= median <= max", f"{mn} {md} {mx}")
    c.check(md <= p95 + slack and p95 <= p99 + slack and p99 <= mx + slack and p95 >= mn - slack,
            f"kernel {name!r}: median <= p95 <= p99 <= max", f"median {md} p95 {p95} p99 {p99} max {mx}")
    c.check(mn - slack <= mean <= mx + slack, f"kernel {name!r}: min <= mean <= max", f"{mn} {mean} {mx}")
    c.check(row["stddev_ns"] <= (mx - mn) + slack, f"kernel {name!r}: stddev <= max - min",
            f"stddev {row['stddev_ns']}, range {mx - mn}")
    # The statistics are over whole spans; total_ns over the shares of the GPU time, which
    # only overlapping dispatches (clock mode) make smaller than the spans' total.
    want_total = mean * row["count"]
    spans = row["span_total_ns"]
    c.check(abs(spans - want_total) <= 1e-3 * want_total + row["count"] + slack,
            f"kernel {name!r}: span_total_ns == mean_ns * count",
            f"span total {spans}, mean*count {want_total}")
    c.check(row["total_ns"] <= spans + slack, f"kernel {name!r}: total_ns <= span_total_ns",
            f"total {row['total_ns']}, span total {spans}")
    if row["count"] == 1:
        c.check(mn == mx, f"kernel {name!r}: one dispatch, min == max", f"{mn} {mx}")


def match_kernels(c, rep, truth):
    """Matches truth kernels to report rows; returns [(truth kernel, row or None)]."""
    rows = [r for r in rep.get("kernels", []) if isinstance(r, dict)]
    names = [r.get("name") for r in rows]
    c.check(len(set(names)) == len(names), "kernel names are distinct",
            "duplicates: " + str(sorted({n for n in names if names.count(n) > 1})))
    claimed, pairs, unnamed = set(), [], []
    for tk in truth["kernels"]:
        if tk["debug_name"]:
            hits = [i for i, r in enumerate(rows) if r.get("name") == tk["debug_name"]]
            what = f"debug-named kernel {tk['debug_name']!r} ({tk['spv']}) has its row"
        elif tk["source_named"]:
            pat = re.compile(re.escape(tk["source"]) + "#" + HEX8 + "$")
            hits = [i for i, r in enumerate(rows) if pat.match(str(r.get("name")))]
            what = f"source-named kernel {tk['spv']} has one row named '{tk['source']}#<8 hex>'"
        else:
            unnamed.append(tk)
            continue
        if c.check(len(hits) == 1, what, f"matching rows: {[names[i] for i in hits]}; all rows: {names}"):
            claimed.add(hits[0])
            row = rows[hits[0]]
            c.check(row.get("count") == tk["count"], f"{row.get('name')!r}: count {tk['count']}",
                    f"got {row.get('count')!r}")
            pairs.append((tk, row))
        else:
            pairs.append((tk, None))

    # Unnamed kernels: rows "main#<8 hex>", matched by their (distinct) counts.
    main_re = re.compile("main#" + HEX8 + "$")
    rest = [i for i in range(len(rows)) if i not in claimed]
    main_rows = [i for i in rest if main_re.match(str(rows[i].get("name")))]
    other = [names[i] for i in rest if i not in main_rows]
    c.check(not other, "every other row is named 'main#<8 hex>'", f"unexpected rows: {other}")
    want_counts = sorted(tk["count"] for tk in unnamed)
    got_counts = sorted(rows[i].get("count") for i in main_rows)
    c.check(want_counts == got_counts, f"unnamed kernels: {len(unnamed)} 'main#' rows with counts {want_counts}",
            f"'main#' rows: {[(names[i], rows[i].get('count')) for i in main_rows]}")
    for tk in unnamed:
        hits = [i for i in main_rows if rows[i].get("count") == tk["count"]]
        same = [t for t in unnamed if t["count"] == tk["count"]]
        pairs.append((tk, rows[hits[0]] if len(hits) == 1 and len(same) == 1 else None))
    return pairs


def check_report(c, rep, truth, program):
    """The JSON summary against the program's ground truth."""
    check_schema(c, rep, program)
    rows = rep.get("kernels") if isinstance(rep.get("kernels"), list) else []
    dropped = rep.get("dropped")
    c.check(dropped == 0, "dropped == 0", f"got {dropped!r}, causes {rep.get('dropped_causes')!r}")
    c.check(len(rows) == len(truth["kernels"]), f"{len(truth['kernels'])} kernel rows (one per distinct kernel)",
            f"got {len(rows)}: {[(r.get('name'), r.get('count')) for r in rows]}")
    want_total = sum(k["count"] for k in truth["kernels"])
    got_total = sum(r.get("count", 0) for r in rows if is_num(r.get("count")))
    c.check(got_total == want_total, f"dispatch counts sum to {want_total}", f"got {got_total}")
    totals = [r.get("total_ns") for r in rows]
    c.check(all(is_num(t) for t in totals) and totals == sorted(totals, reverse=True),
            "kernels sorted by total_ns, descending", f"{[(r.get('name'), r.get('total_ns')) for r in rows]}")
    for row in rows:
        check_kernel_stats(c, row, dropped)
    # The programs checked here never run two dispatches at once (timestamps serialize them,
    # or their barriers do): every dispatch's share of the GPU time is its whole span.
    c.check(all(r.get("total_ns") == r.get("span_total_ns") for r in rows),
            "nothing overlapped: every kernel's total_ns equals its span_total_ns",
            f"{[(r.get('name'), r.get('total_ns'), r.get('span_total_ns')) for r in rows]}")
    for tk, row in match_kernels(c, rep, truth):
        own = tk.get("own_mean_ns")
        if own is None or own < TIMING_MIN_NS:
            continue
        if not c.check(row is not None, f"{tk['spv']}: its row is known, to compare timings"):
            continue
        mean = row.get("mean_ns")
        c.check(is_num(mean) and abs(mean - own) <= TIMING_TOLERANCE * own,
                f"{row['name']!r}: Hesper mean within {TIMING_TOLERANCE:.0%} of the program's own measurement",
                f"Hesper mean_ns {mean}, program's own mean {own:.0f} ns "
                f"({(mean - own) / own:+.2%})" if is_num(mean) else f"mean_ns {mean!r}")
    regions = {r.get("name"): r for r in rep.get("regions") or [] if isinstance(r, dict)}
    for tr in truth.get("regions", []):
        got = regions.get(tr["name"])
        c.check(got is not None and got.get("count") == tr["count"],
                f"label region {tr['name']!r} with count {tr['count']}",
                f"got {got!r}; regions: {sorted(regions)}")


def baseline(args, c, tmp):
    """Runs the program alone; returns (Run, truth or None)."""
    base = Run([args.program], base_env(args), tmp)
    c.check(base.rc == 0, "program passes on its own (exit 0)", base.tail("baseline"))
    truth = parse_truth(base.out)
    c.check(truth is not None, "program prints a HESPER-TRUTH line", base.tail("baseline"))
    return base, truth


def case_profile(args, c, tmp):
    """Alone, then under Hesper + validation with a JSON report: the full comparison."""
    base, _ = baseline(args, c, tmp)
    out_json = os.path.join(tmp, "out.json")
    run = Run([args.program], hesper_env(args, {
        "HESPER_REPORT": "json:" + out_json,
        "VK_INSTANCE_LAYERS": VALIDATION_LAYER,
        "VK_LOADER_DEBUG": "layer",
    }), tmp)
    context = run.tail("under Hesper")
    c.check(run.rc == base.rc, f"exit code under Hesper equals the program's own ({base.rc})", f"got {run.rc}")
    a, b = program_lines(base.out), program_lines(run.out)
    c.check(a == b, "program's stdout unchanged under Hesper", diff(a, b, "alone", "under Hesper"))
    msgs = validation_messages(run)
    c.check(not msgs, "no validation messages", "\n".join(msgs[:20]))
    check_layer_order(c, run)
    # The program's own timings must come from the same run as Hesper's.
    truth = parse_truth(run.out)
    if not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return context
    c.check(truth.get("validation_expected_clean") is True, "program expects a clean validation run")
    rep = load_json(c, out_json, "Hesper wrote a readable JSON summary")
    if rep is None:
        return context
    check_report(c, rep, truth, args.program)
    if c.failures:
        context += "\n--- JSON summary ---\n" + json.dumps(rep, indent=1)[:20000]
    return context


def case_no_report_env(args, c, tmp):
    """Under Hesper without HESPER_REPORT: output unchanged, text report on stderr."""
    base, _ = baseline(args, c, tmp)
    run = Run([args.program], hesper_env(args, {}), tmp)
    c.check(run.rc == base.rc, f"exit code under Hesper equals the program's own ({base.rc})", f"got {run.rc}")
    a, b = program_lines(base.out), program_lines(run.out)
    c.check(a == b, "program's stdout unchanged (default report goes to stderr)", diff(a, b, "alone", "under Hesper"))
    c.check(TEXT_REPORT_HEADER in run.err, f"default text report on stderr (has {TEXT_REPORT_HEADER!r})")
    c.check(not os.listdir(tmp), "no files written to the cwd", f"found: {os.listdir(tmp)}")
    return run.tail("under Hesper")


def case_stdout_sink(args, c, tmp):
    """HESPER_REPORT=stdout: the program's output first and unchanged, then the report."""
    base, truth = baseline(args, c, tmp)
    run = Run([args.program], hesper_env(args, {"HESPER_REPORT": "stdout"}), tmp)
    c.check(run.rc == base.rc, f"exit code under Hesper equals the program's own ({base.rc})", f"got {run.rc}")
    a, b = program_lines(base.out), program_lines(run.out)
    c.check(b[:len(a)] == a, "stdout starts with the program's own output, unchanged",
            diff(a, b[:len(a)], "alone", "under Hesper (first lines)"))
    report = "\n".join(b[len(a):])
    c.check(TEXT_REPORT_HEADER in report, f"the report follows on stdout (has {TEXT_REPORT_HEADER!r})",
            f"after the program's output came:\n{report[:3000]}")
    for tk in (truth or {}).get("kernels", []):
        if tk["debug_name"]:
            c.check(tk["debug_name"] in report, f"report names kernel {tk['debug_name']!r}")
    wide = [line for line in report.splitlines() if len(line) > REPORT_COLUMNS]
    c.check(not wide, f"every line of the report fits {REPORT_COLUMNS} columns", "\n".join(wide[:5]))
    return run.tail("under Hesper")


def case_inert(args, c, tmp):
    """A non-Vulkan program is untouched: same bytes out, same exit code, no files."""
    runs = []
    for label, extra in (("no HESPER_REPORT", {}), ("HESPER_REPORT=json:out.json", {"HESPER_REPORT": "json:out.json"})):
        work = tempfile.mkdtemp(prefix="inert-", dir=tmp)
        env_base = dict(base_env(args), TMPDIR=work)
        env_hesper = dict(hesper_env(args, extra), TMPDIR=work)
        base = Run([args.program], env_base, work)
        run = Run([args.program], env_hesper, work)
        runs.append(run)
        c.check(base.rc == run.rc, f"{label}: same exit code ({base.rc})", f"under Hesper: {run.rc}")
        c.check(base.out_bytes == run.out_bytes, f"{label}: stdout byte-identical",
                diff(base.out.splitlines(), run.out.splitlines(), "alone", "under Hesper"))
        c.check(base.err_bytes == run.err_bytes, f"{label}: stderr byte-identical",
                diff(base.err.splitlines(), run.err.splitlines(), "alone", "under Hesper"))
        c.check(not os.listdir(work), f"{label}: no files in cwd/TMPDIR", f"found: {os.listdir(work)}")
    return "\n".join(r.tail("under Hesper") for r in runs)


def case_validation_detects(args, c, tmp):
    """A deliberate usage error must reach the validation layer's output under Hesper."""
    env = hesper_env(args, {
        "HESPER_REPORT": "json:" + os.path.join(tmp, "out.json"),
        "VK_INSTANCE_LAYERS": VALIDATION_LAYER,
        "TEST_PROVOKE_VALIDATION": "1",
    })
    run = Run([args.program], env, tmp)
    truth = parse_truth(run.out)
    c.check(run.rc == 0, "program still passes", f"exit {run.rc}")
    c.check(truth is not None and truth.get("validation_expected_clean") is False,
            "program announces its deliberate error (validation_expected_clean false)")
    msgs = validation_messages(run)
    c.check(any("VUID-VkFenceCreateInfo-flags-parameter" in m for m in msgs),
            "the validation layer under Hesper reports the deliberate error",
            "validation messages seen: " + ("\n".join(msgs[:10]) or "none"))
    return run.tail("under Hesper")


CASES = {
    "profile": case_profile,
    "no_report_env": case_no_report_env,
    "stdout_sink": case_stdout_sink,
    "inert": case_inert,
    "validation_detects": case_validation_detects,
}


def main():
    """Parses arguments, runs one case, prints the verdict; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_binary_args(ap)
    ap.add_argument("--fail", metavar="REASON", help="fail at once with REASON (a test that cannot be built)")
    ap.add_argument("case", choices=sorted(CASES))
    args = ap.parse_args()

    title = f"{args.case} {os.path.basename(args.program)}"
    c = Checks(title)
    if args.fail:
        c.fail("test can run", args.fail)
        return c.finish()
    if not prepare_binaries(args, c):
        return c.finish()
    return run_checked(c, "hesper-e2e-", lambda tmp: CASES[args.case](args, c, tmp))


if __name__ == "__main__":
    sys.exit(main())
