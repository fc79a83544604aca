#!/usr/bin/env python3
"""End-to-end checks of Hesper on tests/programs/patterns.c: every way real programs
drive Vulkan, with exact counts and names against the program's own ground truth.

    run_patterns.py --hesper LIB --program PATTERNS [--volk] [--preload-first LIB]
                    [--keep-modules LIB] CASE [case options]

Cases:
  pattern   --pattern NAME [--arg A] [--env K=V]... [--expect-dropped] [--expect-drop-cause KEY]
            [--expect-mode M]
            [--expect-rc N] [--no-baseline] [--leaves-objects] [--per-pid-report]
            [--nested-accuracy] [--group-by shape|label]
            PATTERNS NAME alone (unless --no-baseline), then under Hesper + the validation
            layer with a JSON report: same exit code and stdout, no validation messages,
            Hesper above validation, and the summary matches the HESPER-TRUTH line exactly:
            one row per kernel with its name and count, `timed` per row, `dropped` (or,
            with --expect-dropped, dropped > 0 and the text report saying so) and
            `dropped_causes` adding up to it (with --expect-drop-cause, that cause alone, in
            the JSON and in the text report's Dropped paragraph), regions and
            kernels_by_label rows, the number of devices. With --nested-accuracy (the program
            times each dispatch itself, its truth's own_mean_ns maps kernels to its own means):
            per kernel, Hesper's mean_ns within max(10 % of the program's mean, 2 µs) of it.
            With --group-by (HESPER_GROUP_BY), the rows are the truth's by_shape, by_shape_unread
            or by_label rows, adding up to each kernel's count; the text, CSV and timeline have them.
  signal    --mode MODE --signal TERM|INT|HUP|QUIT
            PATTERNS signal MODE prints "patterns: ready" with work in flight; the runner
            then sends the signal. Alone and under Hesper the process must end the same way
            (killed by the signal, or the program's handler's exit code and output), and
            Hesper must have written its report with the exact counts (not required when the
            program's own handler leaves with _exit(): modes handler_exit and handler_late;
            a report written anyway must still be exact).
  crash     --signal SEGV|BUS|FPE|ILL|ABRT --mode default|handler|handler_late|recover
            PATTERNS crash SIG MODE: dispatches waited for, one in flight, a line left in
            stdout's buffer, then the program's own fault. Alone and under Hesper (and the
            validation layer): the same end (killed by SIG, with a core dump or without it
            alike where core_pattern lets the runner see one; recover: exit status 0), the
            same stdout (the unflushed line lost alike), the program's handler ran (handler,
            handler_late, recover), and Hesper's JSON report with the exact counts and
            ended_by_signal (default, handler; handler_late: the program's later handler
            replaced Hesper's, so none is required; recover: the exit report, no
            ended_by_signal, the dispatches after the recovery counted too).
  settings  Bad HESPER_* settings, one at a time: one "hesper: " line each on stderr, the
            program's stdout and exit code unchanged, the other sinks still written.
  files     Output files: created 0600 under umask 077 (0644 under 022), a symbolic link
            or a FIFO at an output path neither followed nor hung on, %p expanded.

Exit status 0 when every check passes, 1 otherwise.
"""

import argparse
import csv
import fnmatch
import glob
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402  (shared helpers: environment, checks, report schema)

RUN_TIMEOUT_S = 300
SIGNAL_READY = "patterns: ready"
HESPER_LINE = "hesper: "


# --- running --------------------------------------------------------------------------

class Run(e2e.Run):
    """e2e.Run with a longer timeout."""

    def __init__(self, argv, env, cwd, umask=None, timeout=RUN_TIMEOUT_S):
        super().__init__(argv, env, cwd, timeout=timeout, umask=umask)


def stuck_stacks(pid):
    """What each thread of the stuck process @pid is doing: its kernel wait channel and, where gdb is
    there, its user stack. Taken before the process is killed, so that a hang says where it was."""
    lines = []
    for task in sorted(glob.glob(f"/proc/{pid}/task/*")):
        try:
            with open(task + "/comm") as f, open(task + "/wchan") as g:
                lines.append(f"thread {os.path.basename(task)} {f.read().strip()}: waiting in {g.read().strip() or '-'}")
        except OSError:
            pass
    gdb = shutil.which("gdb")
    if gdb:
        try:
            bt = subprocess.run([gdb, "-p", str(pid), "-batch", "-ex", "thread apply all bt 30"], capture_output=True,
                                text=True, timeout=60).stdout
            lines += [l for l in bt.splitlines() if l.startswith(("#", "Thread "))][:300]
        except (OSError, subprocess.SubprocessError):
            lines.append("(gdb could not attach)")
    return "\n".join(lines)


class SignalRun:
    """Runs argv until it prints SIGNAL_READY on stdout, then sends @sig (@times times 10 ms
    apart, as `timeout` does at once: to the program, then to its process group); waits for the end. A
    phase that takes longer than @timeout (each under a second on an idle machine; the meson
    test allows both runs both phases) ends the run, with the threads' stacks in self.stuck."""

    def __init__(self, argv, env, cwd, sig, timeout=40, times=1):
        self.argv = argv
        self.ready = False
        # The signal at its default action in the child, whatever the caller left it at: a shell
        # running this in the background ignores INT and QUIT, and the child would inherit that.
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
        out, err = [], []
        got_ready = threading.Event()

        def pump(stream, sink, watch):
            for line in iter(stream.readline, b""):
                sink.append(line)
                if watch and line.decode("utf-8", "replace").rstrip("\n") == SIGNAL_READY:
                    got_ready.set()
            stream.close()

        threads = [threading.Thread(target=pump, args=(p.stdout, out, True), daemon=True),
                   threading.Thread(target=pump, args=(p.stderr, err, False), daemon=True)]
        for t in threads:
            t.start()
        self.ready = got_ready.wait(timeout)
        self.stuck = ""
        if self.ready:
            time.sleep(0.05)  # let it get back into its wait
            for i in range(times):
                if i:
                    time.sleep(0.01)  # delivered apart: two pending at once would merge into one
                p.send_signal(sig)
        else:
            self.stuck = f"not ready after {timeout} s:\n" + stuck_stacks(p.pid)
        try:
            self.rc = p.wait(timeout=timeout if self.ready else 1)
        except subprocess.TimeoutExpired:
            if self.ready:
                self.stuck = f"still running {timeout} s after the signal:\n" + stuck_stacks(p.pid)
            p.kill()
            p.wait()
            self.rc = "timeout"
        for t in threads:
            t.join(10)
        self.out_bytes, self.err_bytes = b"".join(out), b"".join(err)
        self.out = self.out_bytes.decode("utf-8", "replace")
        self.err = self.err_bytes.decode("utf-8", "replace")

    def tail(self, label, n=40):
        """Last @n lines of stdout and stderr, and where it was stuck if it was."""
        text = e2e.Run.tail(self, label, n)
        return text + (f"\n--- {label}: {self.stuck}" if self.stuck else "")


# Programs that leave on purpose without destroying their device leak the driver's,
# loader's and validation layer's objects: LeakSanitizer is told to ignore those (and
# only those: a leak in Hesper itself, or in the program, is still one).
LEAVES_OBJECTS_SUPPRESSIONS = ["libvulkan_lvp.so", "libvulkan.so", "libVkLayer_khronos_validation.so", "libLLVM"]


def leak_env(args, tmp):
    """LSAN_OPTIONS for a program that leaves without destroying (when a sanitizer is in play)."""
    if not args.sanitizer_preload:
        return {}
    path = os.path.join(tmp, "lsan.supp")
    with open(path, "w") as f:
        f.write("".join(f"leak:{lib}\n" for lib in LEAVES_OBJECTS_SUPPRESSIONS))
    opts = os.environ.get("LSAN_OPTIONS", "")
    return {"LSAN_OPTIONS": (opts + ":" if opts else "") + "suppressions=" + path}


def program_argv(args, pattern=None, extra=None):
    argv = [args.program, pattern or args.pattern]
    argv += extra if extra is not None else (args.arg or [])
    return argv


def env_pairs(pairs):
    out = {}
    for kv in pairs or []:
        k, _, v = kv.partition("=")
        out[k] = v
    return out


def normalized_lines(text):
    """The program's stdout lines (e2e.program_lines) with the truth's volatile keys removed."""
    lines = []
    for line in e2e.program_lines(text):
        if line.startswith(e2e.TRUTH_PREFIX):
            truth = json.loads(line[len(e2e.TRUTH_PREFIX):])
            for k in truth.get("volatile", []):
                truth.pop(k, None)
            line = e2e.TRUTH_PREFIX + json.dumps(truth, sort_keys=True)
        lines.append(line)
    return lines


def read_json(c, path):
    return e2e.load_json(c, path, "Hesper wrote a readable JSON summary")


# --- the report against the truth --------------------------------------------------------

def label_of(row_name):
    return row_name.rsplit("/", 1)[0] if "/" in row_name else ""


def loose(name, patterns):
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def check_counts(c, rep, truth, program, expect_dropped=False, schema=True, mode="dispatch", fallbacks=()):
    """Kernel rows: names, exact counts, timed; dropped; devices. In mode "submit" no
    dispatch is timed and none is dropped (only whole command buffers are timed). Every
    run's timestamps must have been there when read: hesper.copies_ahead is 0."""
    ahead = (rep.get("hesper") or {}).get("copies_ahead")
    c.check(ahead == 0, "hesper.copies_ahead == 0 (every timestamp was there when read)", f"got {ahead!r}")
    if mode == "clock":
        # Every dispatch of a primary timed by the shader clock: the same truth as dispatch mode.
        c.check(rep.get("mode") == "clock", "mode is 'clock'", f"got {rep.get('mode')!r}")
        devs = rep.get("devices") or []
        c.check(devs and all(d.get("timing") == "clock" and e2e.is_num(d.get("clock_error_ns")) for d in devs),
                "every device is timed by the shader clock, with its calibration error", f"{devs}")
        got = sorted(f.get("kernel") for f in rep.get("clock_fallbacks") or [] if isinstance(f, dict))
        c.check(isinstance(rep.get("clock_fallbacks"), list) and got == sorted(fallbacks),
                f"kernels that fell back to timestamps: {sorted(fallbacks) or 'none'}",
                f"{rep.get('clock_fallbacks')!r}")
        rep = dict(rep, mode="dispatch")  # for check_schema, which knows the default only
        mode = "dispatch"
    elif mode != "dispatch":
        c.check(rep.get("mode") == mode, f"mode is {mode!r}", f"got {rep.get('mode')!r}")
        truth = dict(truth, dropped=0, kernels=[dict(k, timed=0) for k in truth["kernels"]])
        rep = dict(rep, mode="dispatch")  # for check_schema, which knows the default only
    if schema:
        sub = rep
        if expect_dropped and isinstance(rep.get("submits"), dict):
            # With no query to spare, no submission may have been timed: submits may be 0.
            sub = dict(rep, submits=dict(rep["submits"], count=max(1, rep["submits"].get("count", 0))))
        e2e.check_schema(c, sub, program)
    rows = [r for r in rep.get("kernels") or [] if isinstance(r, dict)]
    tks = truth["kernels"]
    c.check(len(rows) == len(tks), f"{len(tks)} kernel rows (one per distinct kernel)",
            f"got {len(rows)}: {[(r.get('name'), r.get('count')) for r in rows]}")
    want_total = sum(k["count"] for k in tks)
    got_total = sum(r.get("count", 0) for r in rows if e2e.is_num(r.get("count")))
    c.check(got_total == want_total, f"dispatch counts sum to {want_total}", f"got {got_total}")
    dropped = rep.get("dropped")
    for tk, row in e2e.match_kernels(c, rep, truth):
        if row is None or "timed" not in tk:
            continue
        if expect_dropped or expect_dropped is None or truth.get("dropped", 0) is None:
            c.check(row.get("timed", -1) <= tk["count"], f"{row.get('name')!r}: timed <= count")
        else:
            c.check(row.get("timed") == tk["timed"], f"{row.get('name')!r}: timed {tk['timed']}",
                    f"got {row.get('timed')!r} (count {row.get('count')!r})")
    untimed = sum(r.get("count", 0) - r.get("timed", 0) for r in rows
                  if e2e.is_num(r.get("count")) and e2e.is_num(r.get("timed")))
    causes = rep.get("dropped_causes")
    c.check(isinstance(causes, dict) and all(e2e.is_num(n) and n > 0 for n in causes.values()) and
            sum(causes.values()) == dropped, "dropped_causes: a count > 0 per cause that happened, adding up to dropped",
            f"dropped {dropped!r}, dropped_causes {causes!r}")
    if expect_dropped:
        c.check(e2e.is_num(dropped) and dropped > 0, "dropped > 0 (queries ran out)", f"got {dropped!r}")
    elif expect_dropped is not None and truth.get("dropped") is not None:
        c.check(dropped == truth["dropped"], f"dropped == {truth['dropped']}", f"got {dropped!r}")
    if mode == "dispatch":
        c.check(dropped == untimed, "dropped equals the untimed dispatches of the rows (count - timed)",
                f"dropped {dropped!r}, sum of count - timed {untimed}")
    for row in rows:
        # (check_kernel_stats wants timed == count when nothing was dropped, in dispatch mode)
        e2e.check_kernel_stats(c, row, dropped if e2e.is_num(dropped) and mode == "dispatch" else 1)
    if "devices" in truth:
        devs = rep.get("devices") or []
        c.check(len(devs) == truth["devices"], f"{truth['devices']} devices in the summary",
                f"got {len(devs)}: {[d.get('name') for d in devs]}")


def dropped_paragraph(text):
    """The cause lines of the text report's "Dropped:" paragraph: [(count, words)]."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("Dropped: ")), None)
    causes = []
    for line in lines[start + 1:] if start is not None else []:
        count, _, words = line.strip().partition("  ")
        if not line.strip() or not count.isdigit():
            break
        causes.append((int(count), words.strip()))
    return causes


def check_drop_cause(c, rep, text, cause):
    """Every dropped dispatch was dropped for @cause (a key of dropped_causes), and the reports name no other."""
    dropped = rep.get("dropped")
    c.check(rep.get("dropped_causes") == {cause: dropped}, f"dropped_causes names {cause!r} alone, with every drop",
            f"dropped {dropped!r}, dropped_causes {rep.get('dropped_causes')!r}")
    lines = dropped_paragraph(text)
    c.check(len(lines) == 1 and lines[0][0] == dropped,
            "the text report's Dropped paragraph names one cause, with every drop",
            f"dropped {dropped!r}, cause lines {lines!r}")


def check_labels(c, rep, truth, group_by=None):
    """regions and kernels_by_label against the truth; label totals contain what they hold.
    With @group_by, a kernel's count is the sum of its rows."""
    regions = {r.get("name"): r for r in rep.get("regions") or [] if isinstance(r, dict)}
    labelled = {r.get("name"): r for r in rep.get("kernels_by_label") or [] if isinstance(r, dict)}
    loose_labels = truth.get("loose_labels", [])
    want_regions = {r["name"]: r["count"] for r in truth.get("regions", [])}
    want_labelled = {r["name"]: r["count"] for r in truth.get("labelled", [])}
    for name, count in want_regions.items():
        got = regions.get(name)
        c.check(got is not None and got.get("count") == count, f"region {name!r}: count {count}",
                f"got {got!r}; regions: {sorted(regions)}")
    extra = [n for n in regions if n not in want_regions and not loose(n, loose_labels)]
    c.check(not extra, "no unexpected regions", f"unexpected: {extra}")
    for name, count in want_labelled.items():
        got = labelled.get(name)
        c.check(got is not None and got.get("count") == count, f"kernels_by_label {name!r}: count {count}",
                f"got {got!r}; rows: {sorted(labelled)}")
    extra = [n for n in labelled if n not in want_labelled and not loose(label_of(n), loose_labels)]
    c.check(not extra, "no unexpected kernels_by_label rows", f"unexpected: {extra}")
    # Every labelled row is part of its kernel's row.
    counts = {}
    for r in rep.get("kernels") or []:
        name = kernel_of(str(r.get("name")), group_by) if group_by else r.get("name")
        counts[name] = counts.get(name, 0) + r.get("count", 0)
    per_kernel = {}
    for name, row in labelled.items():
        kernel = name.rsplit("/", 1)[-1]
        per_kernel[kernel] = per_kernel.get(kernel, 0) + row.get("count", 0)
    for kernel, n in per_kernel.items():
        c.check(n <= counts.get(kernel, 0), f"kernels_by_label rows of {kernel!r} add up to at most its count",
                f"{n} labelled, {counts.get(kernel)} in all")
    # A region's time holds the time of the dispatches inside it and of the regions nested in it.
    parents = truth.get("region_parents", {})

    def inside(region, label):
        while label:
            if label == region:
                return True
            label = parents.get(label)
        return False

    # Timestamps in every dispatch, all timed: a label around back-to-back dispatches alone
    # begins and ends on their timestamps (label_hooks.c), so its time is theirs, to the
    # nanosecond each one's rounding may move it.
    tight = rep.get("mode") == "dispatch" and rep.get("sample_every") in (None, 1)
    for name in want_regions:
        reg = regions.get(name)
        if not reg or not e2e.is_num(reg.get("total_ns")):
            continue
        held = sum(r.get("total_ns", 0) for n, r in labelled.items() if inside(name, label_of(n)))
        c.check(reg["total_ns"] + 1000 >= held,
                f"region {name!r}: total_ns >= the dispatches labelled inside it",
                f"region {reg['total_ns']} ns, dispatches inside {held} ns")
        if tight and name in truth.get("regions_tight", []):
            n = sum(r.get("count", 0) for k, r in labelled.items() if inside(name, label_of(k)))
            c.check(abs(reg["total_ns"] - held) <= n + reg.get("count", 0),
                    f"region {name!r}: total_ns is the time of the back-to-back dispatches inside it "
                    "(shared timestamps)", f"region {reg['total_ns']} ns, dispatches inside {held} ns")
        nested = [regions[k] for k, p in parents.items() if p == name and k in regions]
        if rep.get("mode") == "clock":
            # Clock mode times a region from its dispatches' clock spans without serializing
            # them: sibling regions (and instances) may overlap on the GPU, so their times need
            # not add up below the parent's. Each instance lies inside one of the parent's.
            most = max((r.get("max_ns", 0) for r in nested), default=0)
            c.check(reg.get("max_ns", 0) + 1000 >= most, f"region {name!r}: its longest instance holds "
                    "its nested regions' longest", f"region {reg.get('max_ns')} ns, nested {most} ns")
            continue
        kids = sum(r.get("total_ns", 0) for r in nested)
        c.check(reg["total_ns"] + 1000 >= kids, f"region {name!r}: total_ns >= its nested regions'",
                f"region {reg['total_ns']} ns, nested {kids} ns")


def region_tree_lines(text):
    """The text report's region tree: ([(instances, indent, is_kernel, name)], the section's lines).
    Names start in the header's Name column; Instances is the second cell."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l == "Regions (debug labels)"), None)
    if start is None or start + 2 >= len(lines) or "Name" not in lines[start + 1]:
        return [], []
    name_col = lines[start + 1].index("Name")
    rows = []
    for line in lines[start + 3:]:
        if not line.startswith(" "):
            break
        # Cells are two or more spaces apart ("2.191 ms" is one).
        cells, name = re.split(r" {2,}", line[:name_col].strip()), line[name_col:]
        indent = len(name) - len(name.lstrip(" "))
        name = name.lstrip(" ")
        kernel = name.startswith("* ")
        rows.append((int(cells[1]), indent, kernel, name[2:] if kernel else name))
    return rows, lines[start:start + 3 + len(rows)]


def check_chain(c, rep, truth, mode, env):
    """Dispatch mode, the truth's one primary submitted once: each of its "chain" dispatches
    follows a barrier that leaves the GPU nothing to do and opens from the closing timestamp
    before it (one timestamp); every other dispatch writes a pair, as does the command buffer."""
    chain = truth.get("chain")
    if chain is None or mode != "dispatch" or "HESPER_SAMPLE" in env:
        return
    dispatches = sum(k["count"] for k in truth["kernels"])
    want = 2 + 2 * (dispatches - chain) + chain
    got = (rep.get("hesper") or {}).get("timestamps_written")
    c.check(got == want, f"timestamps_written == {want}: {chain} of {dispatches} dispatches open from the "
            "timestamp before the barrier before them", f"got {got!r}")


def check_isolated(c, rep, truth, mode, env):
    """Clock mode with HESPER_CLOCK_ISOLATED=barriers: exactly the truth's "isolated" dispatches
    (those the program put between two compute barriers) timed from barrier to barrier, with
    the truth's "clock_edges" barrier timestamps; by default (span) no dispatch and no
    barrier timestamp."""
    isolated = truth.get("isolated")
    if isolated is None or mode != "clock":
        return
    span = env.get("HESPER_CLOCK_ISOLATED", "span").strip().lower() != "barriers"  # span by default
    want = 0 if span else isolated
    got = rep.get("clock_isolated")
    c.check(got == want, f"clock_isolated == {want}: " + ("none timed from barrier to barrier (span)" if span else
            f"the {isolated} dispatches the program isolated, labels between them and their barriers"),
            f"got {got!r}")
    edges = 0 if span else truth.get("clock_edges")
    if edges is not None:
        written = (rep.get("hesper") or {}).get("timestamps_written")
        c.check(written == 2 + edges, f"timestamps_written == {2 + edges}: the command buffer's pair and {edges} "
                "barrier timestamps, each closing one opening the next isolated dispatch", f"got {written!r}")


def check_region_tree(c, rep, text, truth):
    """region_tree in the JSON and the text report's tree against the truth's paths, counts and kernels."""
    want = truth.get("region_tree")
    if want is None:
        return
    loose_labels = truth.get("loose_labels", [])
    nodes = [n for n in rep.get("region_tree") or [] if isinstance(n, dict)]
    got = {tuple(n.get("path") or []): n for n in nodes}
    for w in want:
        path = tuple(w["path"])
        n = got.get(path)
        kernels = {k.get("name"): k.get("count") for k in (n or {}).get("kernels", [])}
        c.check(n is not None and n.get("count") == w["count"] and n.get("depth") == len(path) - 1
                and n.get("name") == path[-1] and kernels == w["kernels"],
                f"region_tree {'/'.join(path)}: {w['count']} instances at depth {len(path) - 1}, kernels {w['kernels']}",
                f"got {n!r}")
        if n and n.get("timed"):
            c.check(all(e2e.is_num(n.get(k)) for k in ("median_ns", "p95_ns", "min_ns", "max_ns", "stddev_ns"))
                    and n["min_ns"] <= n["median_ns"] <= n["p95_ns"] <= n["max_ns"],
                    f"region_tree {'/'.join(path)}: min <= median <= p95 <= max", f"got {n!r}")
    wanted = {tuple(w["path"]) for w in want}
    extra = [p for p in got if p not in wanted and not any(loose(l, loose_labels) for l in p)]
    c.check(not extra, "no unexpected region_tree paths", f"unexpected: {extra}")
    # Depth first: every node's parent comes before it, and the nearest shallower node is its parent.
    order_ok = True
    for i, n in enumerate(nodes):
        path = tuple(n.get("path") or [])
        if len(path) > 1 and tuple(path[:-1]) in got:
            before = [tuple(m.get("path") or []) for m in nodes[:i] if len(m.get("path") or []) < len(path)]
            order_ok &= bool(before) and before[-1] == path[:-1]
    c.check(order_ok, "region_tree is depth first: each node after its parent, under it",
            [n.get("path") for n in nodes])
    # The text report shows the same tree: indentation two spaces a level, kernels marked "* ".
    rows, section = region_tree_lines(text)
    c.check(section and max(len(l) for l in section) <= 120, "the text report's region tree fits 120 columns",
            "\n".join(section))
    stack = []
    seen = {}
    for count, indent, kernel, name in rows:
        level = indent // 2
        if kernel:
            seen[(tuple(stack[:level]), name)] = count
            continue
        stack = stack[:level] + [name]
        seen[(tuple(stack), None)] = count
    for w in want:
        path = tuple(w["path"])
        c.check(seen.get((path, None)) == w["count"], f"text tree: {'/'.join(path)} with {w['count']} instances",
                "\n".join(section))
        for kernel, count in w["kernels"].items():
            c.check(seen.get((path, kernel)) == count, f"text tree: * {kernel} x{count} under {'/'.join(path)}",
                    "\n".join(section))


NESTED_TOLERANCE = 0.10   # --nested-accuracy: Hesper's mean against the program's own, relative,
NESTED_FLOOR_NS = 2000    # and at least this many ns


def check_nested_accuracy(c, rep, truth):
    """The program timed every dispatch of some kernels itself with a timestamp pair holding
    Hesper's interval (truth own_mean_ns: kernel's truth name -> the program's mean): for each,
    Hesper's mean_ns within max(NESTED_TOLERANCE of the program's mean, NESTED_FLOOR_NS). Both
    means and their ratio are printed either way."""
    own = truth.get("own_mean_ns")
    if not c.check(isinstance(own, dict) and own, "the truth has the program's own means (own_mean_ns)",
                   f"got {own!r}"):
        return
    # The matching's own checks were made by check_counts: here only the pairs are wanted.
    pairs = [(tk, row) for tk, row in e2e.match_kernels(e2e.Checks("nested accuracy"), rep, truth)
             if tk["spv"] in own]
    c.check(sorted(tk["spv"] for tk, _ in pairs) == sorted(own), "every kernel of own_mean_ns is a truth kernel",
            f"own_mean_ns: {sorted(own)}, truth kernels: {[tk['spv'] for tk in truth['kernels']]}")
    for tk, row in pairs:
        mine = own[tk["spv"]]
        if not c.check(e2e.is_num(mine) and mine > 0, f"{tk['spv']}: the program's own mean is a number > 0",
                       f"own_mean_ns: {own!r}"):
            continue
        if not c.check(row is not None and e2e.is_num(row.get("mean_ns")),
                       f"{tk['spv']}: Hesper's row has a mean_ns to compare", f"row {row!r}"):
            continue
        hesper, allowed = row["mean_ns"], max(NESTED_TOLERANCE * mine, NESTED_FLOOR_NS)
        line = (f"Hesper mean {hesper:.0f} ns, program's own mean {mine:.0f} ns, ratio {hesper / mine:.4f}, "
                f"difference {hesper - mine:+.0f} ns (allowed {allowed:.0f} ns)")
        print(f"  nested accuracy {row['name']}: {line}")
        c.check(abs(hesper - mine) <= allowed,
                f"{row['name']!r}: Hesper's mean within max({NESTED_TOLERANCE:.0%} of the program's own mean, "
                f"{NESTED_FLOOR_NS} ns) of it", line)


# --- cases ---------------------------------------------------------------------------------

def grouped_truth(c, truth, group_by, indirect_read):
    """The truth with its kernels replaced by the rows of HESPER_GROUP_BY=@group_by (the
    program's "by_shape", "by_shape_unread" or "by_label"), each an exactly named row."""
    key = {"shape": "by_shape" if indirect_read else "by_shape_unread", "label": "by_label"}[group_by]
    rows = truth.get(key)
    if not c.check(isinstance(rows, list) and rows, f"the program's truth has {key!r}", f"got {rows!r}"):
        return truth
    kernels = [{"spv": r["name"], "source": None, "debug_name": r["name"], "source_named": False,
                "count": r["count"], "timed": r["count"], "own_mean_ns": None} for r in rows]
    return dict(truth, kernels=kernels)


def kernel_of(row_name, group_by):
    """The kernel a row of @group_by belongs to: "k [2×1×1]" and "k [?]" -> "k", "label/k" -> "k"."""
    if group_by == "shape":
        return row_name.rsplit(" [", 1)[0] if row_name.endswith("]") else row_name
    return row_name.rsplit("/", 1)[-1]


def check_grouped_sinks(c, rep, truth, group_by, text, csv_path, trace_path):
    """Every sink has the grouping's rows: the JSON says its group_by, a kernel's rows add up
    to its count exactly, the text table names each row and fits 120 columns, the CSV has
    the JSON's rows and counts, the timeline's dispatches carry the rows' names."""
    c.check(rep.get("group_by") == group_by, f"the JSON's group_by is {group_by!r}", f"got {rep.get('group_by')!r}")
    rows = [r for r in rep.get("kernels") or [] if isinstance(r, dict)]
    sums = {}
    for r in rows:
        k = kernel_of(str(r.get("name")), group_by)
        sums[k] = sums.get(k, 0) + (r.get("count") or 0)
    want = {k["debug_name"]: k["count"] for k in truth["kernels"]}
    c.check(sums == want, "each kernel's rows add up to its dispatch count exactly", f"rows per kernel {sums}, "
            f"kernels {want}")
    c.check(sorted(rep.get("kernel_names") or []) == sorted(want), "the JSON's kernel_names are the kernels",
            f"got {rep.get('kernel_names')}, kernels {sorted(want)}")
    what = {"shape": "per kernel and work-group count (HESPER_GROUP_BY=shape)",
            "label": "per kernel and innermost debug label (HESPER_GROUP_BY=label)"}[group_by]
    header = f"  kernels      {len(want)}\n  rows         {len(rows)}, {what}\n"
    c.check(header in text, "the text report's header counts the kernels, then the rows and says what one is",
            f"want:\n{header}got:\n{text[:1500]}")
    table = text.split("\n\n")[1] + "\n" if text.count("\n\n") >= 1 else ""
    wide = [l for l in table.splitlines() if len(l) > 120]
    c.check(table and not wide, "the text report's kernel table fits 120 columns", "\n".join(wide) or text[:2000])
    for r in rows:
        c.check(f"  {r.get('name')}\n" in table, f"the text table has the row {r.get('name')!r}", table)
    try:
        with open(csv_path, encoding="utf-8", newline="") as f:
            got = {r["name"]: int(r["instances"]) for r in csv.DictReader(f)}
    except (OSError, KeyError, ValueError) as ex:
        got = {"error": str(ex)}
    c.check(got == {r.get("name"): r.get("count") for r in rows}, "the CSV has the JSON's rows and counts",
            f"CSV {got}")
    trace = read_json(c, trace_path) or {}
    names = {}
    for e in trace.get("traceEvents") or []:
        if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") == "dispatch":
            names[e.get("name")] = names.get(e.get("name"), 0) + 1
    # Clamped dispatches are counted but not on the timeline.
    if rep.get("clamped") == 0:
        c.check(names == {r.get("name"): r.get("timed") for r in rows},
                "the timeline's dispatches carry the rows' names, as many as each row timed", f"trace {names}")


def validation_env(args, extra):
    return e2e.hesper_env(args, dict({"VK_INSTANCE_LAYERS": e2e.VALIDATION_LAYER, "VK_LOADER_DEBUG": "layer"},
                                     **extra))


def check_truth_notes(c, truth):
    """What the truth line says the pattern could do on this device: overlap must have happened;
    a single queue or family is noted."""
    if "overlapped" in truth:
        c.check(truth["overlapped"] is True, "submissions of the SIMULTANEOUS_USE command buffer overlapped",
                "the second submit came after the first had finished: the test did not test overlap")
    if "queues" in truth and truth["queues"] < 2:
        print(f"  note: the queue family has {truth['queues']} queue: the several-queue variant did not run")
    if "families" in truth and truth["families"] < 2:
        print("  note: the device has one compute queue family with timestamps: the pattern used one family")


def on_lavapipe(run):
    """Whether @run (made with VK_LOADER_DEBUG=layer) ran on lavapipe, where every pattern must pass."""
    return "llvmpipe" in run.err or "libvulkan_lvp" in run.err


def case_pattern(args, c, tmp):
    argv = program_argv(args)
    user_env = env_pairs(args.env)
    if args.leaves_objects:
        user_env.update(leak_env(args, tmp))
    if args.pattern == "fork" and args.sanitizer_preload:
        # LeakSanitizer's check in a forked child deadlocks when another thread (the driver's,
        # the validation layer's or Hesper's) held the sanitizer's allocator lock at fork():
        # GCC 12's libasan takes no fork handlers. Seen with and without Hesper's changes
        # alike (1-2 hangs in 15), so the fork cases run without the leak check.
        opts = e2e.base_env(args).get("ASAN_OPTIONS", "")
        user_env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "detect_leaks=0"
    base = None
    if not args.no_baseline:
        base = Run(argv, dict(e2e.base_env(args), **user_env), tmp)
    out_json, out_text = os.path.join(tmp, "out.json"), os.path.join(tmp, "out.txt")
    if args.per_pid_report:
        out_json = os.path.join(tmp, "out-%p.json")
    sinks = f"json:{out_json},text:{out_text}"
    out_csv, out_trace = os.path.join(tmp, "out.csv"), os.path.join(tmp, "out.trace.json")
    if args.group_by:
        user_env["HESPER_GROUP_BY"] = args.group_by
        sinks += f",csv:{out_csv},trace:{out_trace}"
    run = Run(argv, validation_env(args, dict(user_env, HESPER_REPORT=sinks)), tmp)
    if args.per_pid_report:
        # Only the process that did the work reports (a forked child that did none must not).
        found = sorted(n for n in os.listdir(tmp) if n.startswith("out-") and n.endswith(".json"))
        c.check(len(found) == 1, "exactly one process wrote a JSON report", f"found {found}")
        out_json = os.path.join(tmp, found[0] if found else "out-none.json")
    context = run.tail("under Hesper")
    print(f"  (under Hesper + validation: {run.seconds:.1f} s)")
    if base is not None and base.rc != args.expect_rc and run.rc == base.rc and not on_lavapipe(run):
        # The driver breaks the program itself (NVIDIA's does with exit() from another thread
        # during vkWaitForFences, and in a forked child); Hesper must only end it the same way.
        c.skip(f"the program alone fails on this device (exit status {base.rc}, expected {args.expect_rc}), "
               f"and under Hesper the same way")
        return context
    if base is not None:
        c.check(base.rc == args.expect_rc, f"program alone exits {args.expect_rc}", base.tail("alone"))
        c.check(e2e.parse_truth(base.out) is not None, "program alone prints a HESPER-TRUTH line", base.tail("alone"))
    c.check(run.rc == args.expect_rc, f"exit code under Hesper is {args.expect_rc}", f"got {run.rc}")
    if base is not None:
        a, b = normalized_lines(base.out), normalized_lines(run.out)
        c.check(a == b, "program's stdout unchanged under Hesper", e2e.diff(a, b, "alone", "under Hesper"))
    msgs = e2e.validation_messages(run)
    c.check(not msgs, "no validation messages", "\n".join(msgs[:20]))
    e2e.check_layer_order(c, run)
    hesper_lines = [l for l in run.err.splitlines() if l.startswith(HESPER_LINE)]
    c.check(not hesper_lines, "Hesper printed no complaint on stderr", "\n".join(hesper_lines[:10]))
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return context
    check_truth_notes(c, truth)
    rep = read_json(c, out_json)
    if rep is None:
        return context
    kernels_truth = truth
    if args.group_by:
        # Read back in dispatch mode unless HESPER_INDIRECT=off; always from the slots in clock mode.
        read = args.expect_mode == "clock" or user_env.get("HESPER_INDIRECT", "read").strip().lower() != "off"
        truth = grouped_truth(c, truth, args.group_by, read)
    check_counts(c, rep, truth, args.program, expect_dropped=args.expect_dropped, mode=args.expect_mode,
                 fallbacks=args.expect_fallback or ())
    check_labels(c, rep, kernels_truth, args.group_by)
    check_chain(c, rep, truth, args.expect_mode, user_env)
    check_isolated(c, rep, truth, args.expect_mode, user_env)
    if args.nested_accuracy:
        check_nested_accuracy(c, rep, truth)
    try:
        with open(out_text, encoding="utf-8") as f:
            text = f.read()
    except OSError as ex:
        c.fail("Hesper wrote the text report too", str(ex))
        text = ""
    check_region_tree(c, rep, text, truth)
    if args.group_by:
        check_grouped_sinks(c, rep, kernels_truth, args.group_by, text, out_csv, out_trace)
    if args.expect_dropped:
        c.check("dropped" in text and f"{rep.get('dropped')} dropped" in text,
                "the text report says how many dispatches were dropped", text[:3000])
    if args.expect_drop_cause:
        check_drop_cause(c, rep, text, args.expect_drop_cause)
    if c.failures:
        context += "\n--- JSON summary ---\n" + json.dumps(rep, indent=1)[:20000]
    return context


SIGNALS = {"TERM": signal.SIGTERM, "INT": signal.SIGINT, "HUP": signal.SIGHUP, "QUIT": signal.SIGQUIT}
FAULTS = {"SEGV": signal.SIGSEGV, "BUS": signal.SIGBUS, "FPE": signal.SIGFPE, "ILL": signal.SIGILL,
          "ABRT": signal.SIGABRT}


def case_signal(args, c, tmp):
    sig = SIGNALS[args.signal]
    argv = [args.program, "signal", args.mode]
    want_rc = -sig if args.mode == "default" else 7
    leaks = leak_env(args, tmp)  # the program never destroys its device
    base = SignalRun(argv, dict(e2e.base_env(args), **leaks), tmp, sig)
    c.check(base.ready, "program alone gets ready", base.tail("alone"))
    c.check(base.rc == want_rc, f"program alone ends with {want_rc}", f"got {base.rc}\n" + base.tail("alone"))
    out_json = os.path.join(tmp, "out.json")
    run = SignalRun(argv, validation_env(args, dict(leaks, HESPER_REPORT=f"json:{out_json}")), tmp, sig)
    context = run.tail("under Hesper")
    c.check(run.ready, "program under Hesper gets ready", run.stuck)
    what = f"killed by SIG{args.signal}" if want_rc < 0 else f"exit status {want_rc} from its own handler"
    c.check(run.rc == want_rc, f"under Hesper the process ends as the program meant: {what}",
            f"got {run.rc}\n{run.stuck}")
    a, b = normalized_lines(base.out), normalized_lines(run.out)
    c.check(a == b, "program's stdout unchanged under Hesper (its handler's output included)",
            e2e.diff(a, b, "alone", "under Hesper"))
    if args.mode in ("handler_exit", "handler_late"):
        c.check("patterns: handler ran" in run.out, "the program's own handler ran")
    msgs = e2e.validation_messages(run)
    c.check(not msgs, "no validation messages", "\n".join(msgs[:20]))
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return context
    if not os.path.exists(out_json):
        if args.mode in ("handler_exit", "handler_late"):
            # The program's own handler ends the process with _exit(): no exit handler runs,
            # and Hesper leaves a handler the program installed alone (by design).
            print("  note: the program's handler ended the process with _exit(): no report (by design)")
        else:
            c.fail("Hesper wrote its report before the process ended", f"no {out_json}")
        return context
    rep = read_json(c, out_json)
    if rep is not None:
        # What was in flight may have finished or not: counted either way, timed or dropped.
        truth.pop("dropped", None)
        check_counts(c, rep, truth, args.program)
        # Killed by the signal: the report says so; the program's handler leaving with exit: not.
        want_signal = f"SIG{args.signal}" if args.mode == "default" else None
        c.check(rep.get("ended_by_signal") == want_signal, f"ended_by_signal is {want_signal!r}",
                f"got {rep.get('ended_by_signal')!r}")
        if c.failures:
            context += "\n--- JSON summary ---\n" + json.dumps(rep, indent=1)[:8000]
    if args.mode == "default":
        # The same request sent twice at once (`timeout` signals the program, then its process
        # group): one request, the report still written, the same ending.
        twice_json = os.path.join(tmp, "twice.json")
        twice = SignalRun(argv, validation_env(args, dict(leaks, HESPER_REPORT=f"json:{twice_json}")), tmp, sig,
                          times=2)
        c.check(twice.ready and twice.rc == want_rc, f"signalled twice at once: the process ends killed by SIG{args.signal}",
                f"got {twice.rc}\n{twice.stuck}")
        rep2 = read_json(c, twice_json) if os.path.exists(twice_json) else None
        c.check(rep2 is not None and rep2.get("ended_by_signal") == want_signal,
                "signalled twice at once: Hesper wrote its report, ended_by_signal set", f"no report at {twice_json}"
                if rep2 is None else f"ended_by_signal {rep2.get('ended_by_signal')!r}")
    return context


class StatusRun:
    """Runs argv to its end, keeping the raw wait status (signal, core dump); cores on or off."""

    def __init__(self, argv, env, cwd, cores, timeout=120):
        self.argv = argv
        limit = resource.RLIM_INFINITY if cores else 0
        out_path, err_path = os.path.join(cwd, "stdout.txt"), os.path.join(cwd, "stderr.txt")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err,
                                 preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (limit, limit)))
            deadline = time.monotonic() + timeout
            status = None
            while status is None:
                pid, st = os.waitpid(p.pid, os.WNOHANG)
                if pid:
                    status = st
                elif time.monotonic() > deadline:
                    p.kill()
                    os.waitpid(p.pid, 0)
                    status = "timeout"
                else:
                    time.sleep(0.02)
            p.returncode = 0  # reaped here: Popen must not wait for it again
        self.status = status
        with open(out_path, "rb") as f:
            self.out = f.read().decode("utf-8", "replace")
        with open(err_path, "rb") as f:
            self.err = f.read().decode("utf-8", "replace")

    def ending(self):
        """How the process ended, in words: 'exit status N', 'killed by SIGX', '... (core dumped)'."""
        if self.status == "timeout":
            return "timeout"
        if os.WIFEXITED(self.status):
            return f"exit status {os.WEXITSTATUS(self.status)}"
        core = " (core dumped)" if os.WCOREDUMP(self.status) else ""
        return f"killed by {signal.Signals(os.WTERMSIG(self.status)).name}{core}"

    tail = e2e.Run.tail


def cores_visible():
    """Whether a core dump lands as a file in the process's folder (core_pattern a plain name),
    where the runner can let one be written, see the status say so, and delete it."""
    try:
        with open("/proc/sys/kernel/core_pattern") as f:
            pattern = f.read().strip()
    except OSError:
        return False
    return bool(pattern) and not pattern.startswith("|") and "/" not in pattern


def case_crash(args, c, tmp):
    sig = FAULTS[args.signal]
    argv = [args.program, "crash", args.signal, args.mode]
    recover = args.mode == "recover"
    # Core dumps on where they can be seen and removed, in the default mode (Hesper's own default action).
    cores = args.mode == "default" and cores_visible()
    extra = leak_env(args, tmp)  # the program never destroys its device
    if args.sanitizer_preload:
        # AddressSanitizer's handlers of these faults would be the program's own (it reports and exits 1).
        opts = e2e.base_env(args).get("ASAN_OPTIONS", "")
        extra["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "handle_segv=0:handle_sigbus=0:handle_sigfpe=0"
    alone_dir, hesper_dir = os.path.join(tmp, "alone"), os.path.join(tmp, "hesper")
    os.makedirs(alone_dir)
    os.makedirs(hesper_dir)
    base = StatusRun(argv, dict(e2e.base_env(args), **extra), alone_dir, cores)
    want = "exit status 0" if recover else f"killed by {signal.Signals(sig).name}"
    c.check(base.ending().startswith(want), f"program alone: {want}", f"got {base.ending()}\n" + base.tail("alone"))
    out_json = os.path.join(tmp, "out.json")
    run = StatusRun(argv, validation_env(args, dict(extra, HESPER_REPORT=f"json:{out_json}")), hesper_dir, cores)
    context = base.tail("alone") + "\n" + run.tail("under Hesper")
    print(f"  alone: {base.ending()}; under Hesper: {run.ending()}" + ("" if cores else " (core dumps off)"))
    c.check(run.ending() == base.ending(), "under Hesper the process ends as alone (signal, core dump)",
            f"alone {base.ending()}, under Hesper {run.ending()}")
    for d in (alone_dir, hesper_dir):
        for name in os.listdir(d):
            if name.startswith("core"):
                os.unlink(os.path.join(d, name))
    a, b = normalized_lines(base.out), normalized_lines(run.out)
    c.check(a == b, "program's stdout unchanged under Hesper (the line left in its buffer lost alike)",
            e2e.diff(a, b, "alone", "under Hesper"))
    if args.mode != "default":
        c.check("patterns: handler ran" in run.out, "the program's own handler ran under Hesper")
    msgs = e2e.validation_messages(run)
    c.check(not msgs, "no validation messages", "\n".join(msgs[:20]))
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return context
    if args.mode == "handler_late":
        # The program's handler, installed after the first device, replaced Hesper's (by design).
        print("  note: the program's later handler replaced Hesper's: " +
              ("a report was written anyway" if os.path.exists(out_json) else "no report (by design)"))
        if not os.path.exists(out_json):
            return context
    rep = read_json(c, out_json)
    if rep is not None:
        want_signal = None if recover else signal.Signals(sig).name
        if args.mode != "handler_late":
            c.check(rep.get("ended_by_signal") == want_signal, f"ended_by_signal is {want_signal!r}",
                    f"got {rep.get('ended_by_signal')!r}")
        if not recover:
            truth.pop("dropped", None)  # what was in flight may have finished or not: counted either way
        check_counts(c, rep, truth, args.program)
        if c.failures:
            context += "\n--- JSON summary ---\n" + json.dumps(rep, indent=1)[:8000]
    return context


def settings_variants(tmp):
    """(title, env, [substrings each wanted in the one 'hesper: ' line, or None: no line][, {JSON key: value
    wanted in the report (None: the key absent)}]); with no line wanted and no keys, the default report
    on stderr is checked."""
    d = os.path.join(tmp, "a_directory")
    os.makedirs(d, exist_ok=True)
    target = os.path.join(tmp, "link_target")
    with open(target, "w") as f:
        f.write("untouched\n")
    link = os.path.join(tmp, "link.json")
    os.symlink(target, link)
    good = "json:{good}"
    v = [
        ("HESPER_REPORT empty: the default report, no complaint", {"HESPER_REPORT": ""}, None),
        ("HESPER_REPORT blank: the default report, no complaint", {"HESPER_REPORT": "  \t "}, None),
        ("HESPER_REPORT unknown sink", {"HESPER_REPORT": "bogus," + good}, ["bogus"]),
        ("HESPER_REPORT trailing comma", {"HESPER_REPORT": good + ","}, ["empty"]),
        ("HESPER_REPORT empty PATH", {"HESPER_REPORT": "csv:," + good}, ["csv:"]),
        ("HESPER_REPORT bad % in PATH", {"HESPER_REPORT": "json:x%q.json," + good}, ["%q"]),
        ("HESPER_REPORT huge PATH", {"HESPER_REPORT": "text:" + "a" * 5000 + "," + good}, ["text:aaa"]),
        ("HESPER_REPORT missing directory", {"HESPER_REPORT": "json:/nonexistent/dir/x.json," + good},
         ["/nonexistent/dir/x.json"]),
        ("HESPER_REPORT a directory", {"HESPER_REPORT": f"json:{d}," + good}, [d]),
        ("HESPER_REPORT a symlink", {"HESPER_REPORT": f"json:{link}," + good}, [link]),
        ("HESPER_REPORT a full device", {"HESPER_REPORT": "csv:/dev/full," + good}, ["/dev/full"]),
        ("HESPER_MODE empty", {"HESPER_MODE": ""}, ["HESPER_MODE"]),
        ("HESPER_MODE unknown", {"HESPER_MODE": "sometimes"}, ["HESPER_MODE", "sometimes"]),
        ("HESPER_SAMPLE empty", {"HESPER_SAMPLE": ""}, ["HESPER_SAMPLE"]),
        ("HESPER_SAMPLE zero", {"HESPER_SAMPLE": "0"}, ["HESPER_SAMPLE"]),
        ("HESPER_SAMPLE negative", {"HESPER_SAMPLE": "-1"}, ["HESPER_SAMPLE"]),
        ("HESPER_SAMPLE not a number", {"HESPER_SAMPLE": "1e3"}, ["HESPER_SAMPLE"]),
        ("HESPER_SAMPLE huge", {"HESPER_SAMPLE": "9" * 40}, ["HESPER_SAMPLE"]),
        ("HESPER_EXIT_TIMEOUT_MS out of range", {"HESPER_EXIT_TIMEOUT_MS": "18446744073709551616"},
         ["HESPER_EXIT_TIMEOUT_MS"]),
        ("HESPER_EXIT_TIMEOUT_MS empty", {"HESPER_EXIT_TIMEOUT_MS": ""}, ["HESPER_EXIT_TIMEOUT_MS"]),
        ("HESPER_MAX_EVENTS too big", {"HESPER_MAX_EVENTS": "1000000000000"}, ["HESPER_MAX_EVENTS"]),
        ("HESPER_DISABLE not a boolean", {"HESPER_DISABLE": "maybe"}, ["HESPER_DISABLE"]),
        ("HESPER_DISABLE empty", {"HESPER_DISABLE": ""}, ["HESPER_DISABLE"]),
        ("HESPER_MAX_QUERIES empty", {"HESPER_MAX_QUERIES": ""}, ["HESPER_MAX_QUERIES"]),
        ("HESPER_MAX_QUERIES not a number", {"HESPER_MAX_QUERIES": "lots"}, ["HESPER_MAX_QUERIES"]),
        ("HESPER_MAX_QUERIES huge", {"HESPER_MAX_QUERIES": "9" * 30}, ["HESPER_MAX_QUERIES"]),
        ("HESPER_INDIRECT unknown", {"HESPER_INDIRECT": "sometimes"}, ["HESPER_INDIRECT", "sometimes"]),
        ("HESPER_GROUP_BY unknown", {"HESPER_GROUP_BY": "shapes"},
         ["HESPER_GROUP_BY", "shapes", "kernel, shape or label"], {"group_by": "kernel"}),
        ("HESPER_GROUP_BY in any case", {"HESPER_GROUP_BY": " Shape "}, None, {"group_by": "shape"}),
        ("unknown setting", {"HESPER_COLOUR": "blue"}, ["HESPER_COLOUR"]),
        ("unprintable value", {"HESPER_MODE": "\x01\x1b[31m"}, ["HESPER_MODE"]),
        # Values are read as docs/settings.md says: words in any case, white space around ignored
        # (HESPER_FINDINGS=" OFF ": run_findings.py's settings case).
        ("HESPER_REPORT kinds in any case", {"HESPER_REPORT": " JSON:{good} "}, None, {}),
        ("HESPER_FINDINGS keys in any case", {"HESPER_FINDINGS": " Idle_Share = 0.5 "}, None, {}),
        ("HESPER_FINDINGS bad key", {"HESPER_FINDINGS": "nope=1"}, ["HESPER_FINDINGS", "slow_memory_share"]),
        # A setting of another mode than the one in effect: said once, not shown as in effect.
        ("HESPER_SAMPLE in clock mode", {"HESPER_MODE": "clock", "HESPER_SAMPLE": "4"},
         ["HESPER_SAMPLE", "dispatch mode only", "HESPER_MODE is clock"], {"mode": "clock", "sample_every": 1}),
        ("HESPER_CLOCK_ISOLATED in dispatch mode", {"HESPER_CLOCK_ISOLATED": "barriers"},
         ["HESPER_CLOCK_ISOLATED", "clock mode only"], {"mode": "dispatch"}),
    ]
    return v, target


def case_settings(args, c, tmp):
    argv = [args.program, "resubmit"]
    base = Run(argv, e2e.base_env(args), tmp)
    c.check(base.rc == 0, "program alone exits 0", base.tail("alone"))
    truth = e2e.parse_truth(base.out)
    if not c.check(truth is not None, "program alone prints a HESPER-TRUTH line"):
        return base.tail("alone")
    want_lines = normalized_lines(base.out)
    variants, link_target = settings_variants(tmp)
    context = []
    for i, (title, env, wanted, *keys) in enumerate(variants):
        keys = keys[0] if keys else None
        good = os.path.join(tmp, f"good{i}.json")
        env = {k: v.replace("{good}", good) for k, v in env.items()}
        if "HESPER_REPORT" not in env:
            env["HESPER_REPORT"] = "json:" + good
        run = Run(argv, e2e.hesper_env(args, env), tmp)
        before = len(c.failures)
        c.check(run.rc == 0, f"{title}: exit code 0", f"got {run.rc}")
        c.check(normalized_lines(run.out) == want_lines, f"{title}: program's stdout unchanged",
                e2e.diff(want_lines, normalized_lines(run.out), "alone", "under Hesper"))
        lines = [l for l in run.err.splitlines() if l.startswith(HESPER_LINE)]
        stray = [l for l in run.err.splitlines() if "hesper" in l.lower() and not l.startswith(HESPER_LINE)
                 and not l.startswith("Hesper GPU kernel summary")]
        if wanted is None:
            c.check(not lines, f"{title}: no 'hesper: ' line", "\n".join(lines))
            if keys is None:
                c.check(e2e.TEXT_REPORT_HEADER in run.err, f"{title}: the default text report on stderr")
        else:
            c.check(len(lines) == 1, f"{title}: exactly one 'hesper: ' line on stderr",
                    f"got {len(lines)}:\n" + "\n".join(l[:300] for l in lines))
            for w in wanted:
                c.check(any(w in l for l in lines), f"{title}: the line names {w[:40]!r}",
                        "\n".join(l[:300] for l in lines))
            c.check(not stray, f"{title}: no other Hesper output on stderr", "\n".join(stray[:5]))
        if keys is not None:
            rep = read_json(c, good)
            for key, value in (keys.items() if rep is not None else ()):
                got = rep.get(key)
                c.check(got == value if value is not None else key not in rep,
                        f"{title}: the report's {key} is {value!r}" if value is not None else
                        f"{title}: the report has no {key}", f"got {got!r}")
        if wanted is not None:
            rep = read_json(c, good)
            if rep is not None:
                sub = e2e.Checks(title)
                check_counts(sub, rep, truth, args.program, schema=False)
                c.check(not sub.failures, f"{title}: the other sink was written with the exact counts",
                        "\n".join(f"{w}: {d}" for w, d in sub.failures))
        if len(c.failures) > before:
            context.append(run.tail(title, 10))
    with open(link_target) as f:
        c.check(f.read() == "untouched\n", "the file behind a symlink at an output path is untouched")
    return "\n".join(context)


def case_files(args, c, tmp):
    argv = [args.program, "resubmit"]
    context = []
    for umask, mode in ((0o077, 0o600), (0o022, 0o644), (0o027, 0o640)):
        work = tempfile.mkdtemp(prefix=f"umask{umask:03o}-", dir=tmp)
        names = {"json": "out.json", "text": "out.txt", "csv": "out.csv"}
        spec = ",".join(f"{k}:{os.path.join(work, v)}" for k, v in names.items())
        run = Run(argv, e2e.hesper_env(args, {"HESPER_REPORT": spec}), work, umask=umask)
        c.check(run.rc == 0, f"umask {umask:03o}: exit code 0", run.tail(f"umask {umask:03o}"))
        for kind, name in names.items():
            path = os.path.join(work, name)
            if not c.check(os.path.isfile(path), f"umask {umask:03o}: {kind} report written"):
                continue
            got = stat.S_IMODE(os.stat(path).st_mode)
            c.check(got == mode, f"umask {umask:03o}: {kind} report has mode {mode:04o}", f"got {got:04o}")

    # Symbolic links at the output path, to a file and dangling: not followed.
    work = tempfile.mkdtemp(prefix="links-", dir=tmp)
    target, missing = os.path.join(work, "target"), os.path.join(work, "missing")
    with open(target, "w") as f:
        f.write("keep\n")
    os.symlink(target, os.path.join(work, "a.json"))
    os.symlink(missing, os.path.join(work, "b.csv"))
    good = os.path.join(work, "good.json")
    spec = f"json:{work}/a.json,csv:{work}/b.csv,json:{good}"
    run = Run(argv, e2e.hesper_env(args, {"HESPER_REPORT": spec}), work)
    c.check(run.rc == 0, "symlinks: exit code 0", f"got {run.rc}")
    with open(target) as f:
        c.check(f.read() == "keep\n", "symlink to a file: the file is untouched")
    c.check(not os.path.exists(missing), "dangling symlink: nothing created at its target")
    c.check(os.path.islink(os.path.join(work, "a.json")) and os.path.islink(os.path.join(work, "b.csv")),
            "the symlinks are still symlinks")
    lines = [l for l in run.err.splitlines() if l.startswith(HESPER_LINE)]
    c.check(len(lines) == 2, "symlinks: one 'hesper: ' line each", "\n".join(lines))
    c.check(os.path.isfile(good), "symlinks: the other sink is written")
    context.append(run.tail("symlinks", 10))

    # A FIFO with no reader at the output path: no hang, one line.
    work = tempfile.mkdtemp(prefix="fifo-", dir=tmp)
    fifo = os.path.join(work, "pipe.json")
    os.mkfifo(fifo)
    run = Run(argv, e2e.hesper_env(args, {"HESPER_REPORT": f"json:{fifo},json:{work}/good.json"}), work, timeout=60)
    c.check(run.rc == 0, "FIFO without a reader: the program ends, exit code 0", f"got {run.rc}")
    lines = [l for l in run.err.splitlines() if l.startswith(HESPER_LINE)]
    c.check(len(lines) == 1 and fifo in lines[0], "FIFO: one 'hesper: ' line naming it", "\n".join(lines))
    c.check(os.path.isfile(os.path.join(work, "good.json")), "FIFO: the other sink is written")

    # %p in a path becomes the pid (as the report says it).
    work = tempfile.mkdtemp(prefix="pid-", dir=tmp)
    run = Run(argv, e2e.hesper_env(args, {"HESPER_REPORT": f"json:{work}/out-%p.json"}), work)
    found = [n for n in os.listdir(work) if n.startswith("out-") and n.endswith(".json")]
    if c.check(len(found) == 1, "%p: one report file", f"found {found}"):
        with open(os.path.join(work, found[0])) as f:
            pid = json.load(f).get("process", {}).get("pid")
        c.check(found[0] == f"out-{pid}.json", "%p: the file is named with the process's pid",
                f"file {found[0]}, process.pid {pid}")
    return "\n".join(context)


CASES = {"pattern": case_pattern, "signal": case_signal, "crash": case_crash, "settings": case_settings,
         "files": case_files}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    e2e.add_binary_args(ap)
    ap.add_argument("--pattern", help="pattern case: the subcommand")
    ap.add_argument("--arg", action="append", help="pattern case: argument after the subcommand")
    ap.add_argument("--env", action="append", metavar="K=V", help="pattern case: extra environment")
    ap.add_argument("--group-by", choices=["shape", "label"],
                    help="pattern case: run with HESPER_GROUP_BY set so; the rows are the truth's "
                         "by_shape (by_shape_unread under HESPER_INDIRECT=off) or by_label, in every sink")
    ap.add_argument("--expect-dropped", action="store_true", help="pattern case: dropped must be > 0")
    ap.add_argument("--expect-drop-cause", metavar="KEY",
                    help="pattern case: every dropped dispatch was dropped for this cause (a key of dropped_causes), "
                         "and the reports name no other")
    ap.add_argument("--expect-rc", type=int, default=0, help="pattern case: the program's exit status")
    ap.add_argument("--no-baseline", action="store_true", help="pattern case: skip the run without Hesper")
    ap.add_argument("--expect-mode", default="dispatch", choices=["dispatch", "submit", "clock"],
                    help="pattern case: the HESPER_MODE in effect (submit: no dispatch timed, none dropped; "
                         "clock: as dispatch, every device and kernel timed by the shader clock)")
    ap.add_argument("--expect-fallback", action="append", metavar="KERNEL",
                    help="pattern case, clock mode: a kernel that must fall back to timestamps (repeatable)")
    ap.add_argument("--nested-accuracy", action="store_true",
                    help="pattern case: Hesper's mean_ns per kernel against the truth's own_mean_ns")
    ap.add_argument("--per-pid-report", action="store_true",
                    help="pattern case: JSON report at out-%%p.json; exactly one such file must appear")
    ap.add_argument("--leaves-objects", action="store_true",
                    help="pattern case: the program exits without destroying its device (see leak_env)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run the case this many times, each in a directory of its own (for races)")
    ap.add_argument("--mode", help="signal case: default, handler_exit, handler_flag or handler_late; "
                                   "crash case: default, handler, handler_late or recover")
    ap.add_argument("--signal", choices=sorted(SIGNALS) + sorted(FAULTS), default="TERM",
                    help="signal case: " + ", ".join(sorted(SIGNALS)) + "; crash case: " + ", ".join(sorted(FAULTS)))
    ap.add_argument("case", choices=sorted(CASES))
    args = ap.parse_args()

    title = f"{args.case} {args.pattern or args.mode or ''} {os.path.basename(args.program)}".replace("  ", " ")
    c = e2e.Checks(title)
    if not e2e.prepare_binaries(args, c):
        return c.finish()

    def timed_case(tmp):
        start = time.monotonic()
        try:
            context = None
            for run in range(args.repeat):
                before = len(c.failures)
                run_dir = os.path.join(tmp, f"run{run}") if args.repeat > 1 else tmp
                os.makedirs(run_dir, exist_ok=True)
                context = CASES[args.case](args, c, run_dir)
                if len(c.failures) > before:
                    print(f"  run {run + 1} of {args.repeat} failed")
                    break
            return context
        finally:
            print(f"  ({time.monotonic() - start:.1f} s in all)")

    return e2e.run_checked(c, "hesper-patterns-", timed_case)


if __name__ == "__main__":
    sys.exit(main())
