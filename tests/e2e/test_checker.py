#!/usr/bin/env python3
"""Self-test of run_e2e.py's checks against hand-made reports and loader output, and of
trace_rules.py's against hand-made traces.

A correct summary (or trace) must pass; each single mistake Hesper could make must be caught.
Needs no Vulkan and no Hesper. Exit 0 when the checker behaves, 1 otherwise.
"""

import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e  # noqa: E402
import trace_rules  # noqa: E402

TRUTH = {
    "program": "multi_kernel",
    "kernels": [
        {"spv": "fill.spv", "source": "fill.comp", "debug_name": None, "source_named": False, "count": 7, "own_mean_ns": None},
        {"spv": "saxpy.spv", "source": "saxpy.comp", "debug_name": "saxpy_named", "source_named": False, "count": 13, "own_mean_ns": None},
        {"spv": "reduce_g.spv", "source": "reduce.comp", "debug_name": None, "source_named": True, "count": 29, "own_mean_ns": None},
        {"spv": "busy.spv", "source": "busy.comp", "debug_name": None, "source_named": False, "count": 5, "own_mean_ns": 4_000_000.0},
        {"spv": "scale.spv", "source": "scale.comp", "debug_name": None, "source_named": False, "count": 41, "own_mean_ns": None},
    ],
    "regions": [{"name": "blur", "count": 3}],
    "validation_expected_clean": True,
}


def row(name, count, mean):
    """A consistent kernel row: every dispatch timed, durations spread around @mean."""
    return {"name": name, "count": count, "timed": count, "total_ns": mean * count, "mean_ns": mean,
            "median_ns": mean, "min_ns": mean * 0.9, "max_ns": mean * 1.2, "stddev_ns": mean * 0.05,
            "p95_ns": mean * 1.1, "p99_ns": mean * 1.15, "span_total_ns": mean * count}


def good_report():
    """A summary a correct Hesper would write for TRUTH."""
    kernels = [
        row("main#0badf00d", 5, 4_100_000.0),     # busy, 2.5% above the program's own mean
        row("main#12345678", 41, 20_000.0),      # scale
        row("reduce.comp#9abcdef0", 29, 25_000.0),
        row("saxpy_named", 13, 30_000.0),
        row("main#deadbeef", 7, 10_000.0),       # fill
    ]
    kernels.sort(key=lambda k: -k["total_ns"])
    return {
        "schema": "hesper-summary/1",
        "process": {"pid": 4242, "exe": "multi_kernel", "host": "box"},
        "devices": [{"name": "llvmpipe", "driver": "llvmpipe", "timestamp_period_ns": 1.0}],
        "wall_ns": 500_000_000, "gpu_busy_ns": 30_000_000,
        "kernels": kernels,
        "regions": [{"name": "blur", "count": 3, "total_ns": 1000}],
        "submits": {"count": 6, "total_ns": 29_000_000},
        "dropped": 0, "dropped_causes": {}, "kernels_by_label": [], "queues": [], "clamped": 0, "mode": "dispatch",
        "hesper": {"version": "0.1.0"},
    }


def find(rep, name):
    """The row named @name in @rep."""
    return next(k for k in rep["kernels"] if k["name"] == name)


def mutate(fn):
    """A report from good_report() changed by @fn."""
    rep = good_report()
    fn(rep)
    return rep


def set_(d, k, v):
    d[k] = v


def recount(r, name, count):
    """Changes a row's count consistently (timed and total follow)."""
    k = find(r, name)
    k.update(count=count, timed=count, total_ns=k["mean_ns"] * count, span_total_ns=k["mean_ns"] * count)
    r["kernels"].sort(key=lambda k: -k["total_ns"])


MISTAKES = {
    "wrong count on a named kernel": lambda r: recount(r, "saxpy_named", 12),
    "wrong count on a source-named kernel": lambda r: recount(r, "reduce.comp#9abcdef0", 30),
    "debug name lost": lambda r: set_(find(r, "saxpy_named"), "name", "main#00000001"),
    "source label missing": lambda r: set_(find(r, "reduce.comp#9abcdef0"), "name", "main#00000002"),
    "source label with a path": lambda r: set_(find(r, "reduce.comp#9abcdef0"), "name", "shaders/reduce.comp#9abcdef0"),
    "hash not 8 hex digits": lambda r: set_(find(r, "main#deadbeef"), "name", "main#deadbee"),
    "two kernels merged": lambda r: r["kernels"].remove(find(r, "main#deadbeef")),
    "one kernel split in two": lambda r: r["kernels"].append(row("main#aaaaaaaa", 1, 10.0)),
    "duplicate names": lambda r: set_(find(r, "main#deadbeef"), "name", "main#12345678"),
    "unnamed count off by one": lambda r: recount(r, "main#12345678", 40),
    "dropped dispatches": lambda r: set_(r, "dropped", 2),
    "missing schema key": lambda r: r.pop("submits"),
    "missing extra key": lambda r: r.pop("queues"),
    "wrong schema": lambda r: set_(r, "schema", "hesper-summary/2"),
    "busy mean 10% high": lambda r: find(r, "main#0badf00d").update(mean_ns=4_400_000.0, total_ns=22_000_000.0,
                                                                        span_total_ns=22_000_000.0),
    "p95 above max": lambda r: set_(find(r, "saxpy_named"), "p95_ns", 1e9),
    "median below min": lambda r: set_(find(r, "saxpy_named"), "median_ns", 1.0),
    "total not mean*count": lambda r: set_(find(r, "saxpy_named"), "total_ns", 1.0),
    "span total not mean*count": lambda r: set_(find(r, "saxpy_named"), "span_total_ns", 1.0),
    "span total missing": lambda r: find(r, "saxpy_named").pop("span_total_ns"),
    "overlap where nothing overlapped": lambda r: set_(find(r, "saxpy_named"), "total_ns",
                                                       find(r, "saxpy_named")["total_ns"] - 1000),
    "not sorted by total": lambda r: r["kernels"].reverse(),
    "untimed dispatches without drops": lambda r: set_(find(r, "saxpy_named"), "timed", 10),
    "negative statistic": lambda r: set_(find(r, "saxpy_named"), "stddev_ns", -1),
    "region count wrong": lambda r: set_(r["regions"][0], "count", 2),
    "exe wrong": lambda r: set_(r["process"], "exe", "python3"),
    "mode not dispatch": lambda r: set_(r, "mode", "submit"),
}

LOADER_OUTPUT = """\
LAYER:            vkCreateInstance layer callstack setup to:
LAYER:               <Application>
LAYER:                 ||
LAYER:               <Loader>
LAYER:                 ||
LAYER:               VK_LAYER_MESA_device_select
LAYER:                       Type: Implicit
LAYER:                 ||
LAYER:               VK_LAYER_HESPER_profiler
LAYER:                       Type: Explicit
LAYER:                 ||
LAYER:               VK_LAYER_KHRONOS_validation
LAYER:                       Type: Explicit
LAYER:                 ||
LAYER:               <Drivers>

LAYER:            vkCreateDevice layer callstack setup to:
LAYER:               <Application>
LAYER:                 ||
LAYER:               <Loader>
LAYER:                 ||
LAYER:               VK_LAYER_HESPER_profiler
LAYER:                 ||
LAYER:               VK_LAYER_KHRONOS_validation
LAYER:                 ||
LAYER:               <Device>
LAYER:                   Using "llvmpipe" with driver: "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"
"""


GPU = "GPU 0 llvmpipe queue family 0 index 0"


def good_trace():
    """A trace that keeps every rule: one submit call, its batch and a dispatch, a wait, one flow."""
    def m(tid, name):
        return {"ph": "M", "pid": 7, "tid": tid, "name": "thread_name", "args": {"name": name}}

    def x(tid, cat, name, ts, dur, **args):
        return {"ph": "X", "pid": 7, "tid": tid, "ts": ts, "dur": dur, "cat": cat, "name": name, "args": args}

    return {"displayTimeUnit": "ns", "traceEvents": [
        m(1000000000, GPU + " dispatches"), m(1000000001, GPU + " submissions"),
        m(1000000002, GPU + " memory operations"),
        m(42, "CPU thread 42 (main) submits"), m(1000000004, "CPU thread 42 (main) waits"),
        x(1000000000, "dispatch", "k", 2.0, 1.0, kernel="k", submission=3),
        x(1000000002, "memory", "fill buffer", 3.5, 0.5, bytes=64, submission=3),
        x(1000000001, "batch", "batch", 1.5, 3.0, submission=3),
        x(42, "submit", "vkQueueSubmit", 0.0, 1.0, queue=GPU, submission=3),
        x(1000000004, "wait", "vkWaitForFences", 1.2, 3.0, submission=0),
        {"ph": "s", "pid": 7, "tid": 42, "ts": 0.5, "cat": "flow", "name": "vkQueueSubmit", "id": "0x1"},
        {"ph": "f", "bp": "e", "pid": 7, "tid": 1000000001, "ts": 3.0, "cat": "flow", "name": "vkQueueSubmit",
         "id": "0x1"},
    ], "metadata": {"flows": 1}}


def events_of(t, ph=None, cat=None):
    return [e for e in t["traceEvents"] if (ph is None or e["ph"] == ph) and (cat is None or e.get("cat") == cat)]


TRACE_MISTAKES = {
    "a thread named twice": lambda t: events_of(t, "M")[4]["args"].update(name="CPU thread 42 (main) waits")
    or events_of(t, "M")[4].update(tid=42),
    "two tracks named alike": lambda t: events_of(t, "M")[2]["args"].update(name=GPU + " dispatches"),
    "memory operations on the dispatch track": lambda t: events_of(t, "X", "memory")[0].update(tid=1000000000,
                                                                                            ts=2.5),
    "a slice on an unnamed track": lambda t: events_of(t, "X", "wait")[0].update(tid=43),
    "a host thread without its name": lambda t: events_of(t, "M")[3]["args"].update(name="CPU thread 42 submits"),
    "partial overlap on one track": lambda t: events_of(t, "X", "memory")[0].update(ts=2.5,
                                                                                   tid=1000000000),
    "a flow start without an end": lambda t: t["traceEvents"].remove(events_of(t, "f")[0]),
    "a flow end without a start": lambda t: t["traceEvents"].remove(events_of(t, "s")[0]),
    "flow ids that differ": lambda t: events_of(t, "f")[0].update(id="0x2"),
    "flow names that differ": lambda t: events_of(t, "f")[0].update(name="other"),
    "a flow end bound to the next slice": lambda t: events_of(t, "f")[0].pop("bp"),
    "a flow start outside the submit slice": lambda t: events_of(t, "s")[0].update(ts=1.0),
    "a flow end outside any slice": lambda t: events_of(t, "f")[0].update(ts=4.5),
    "a flow end at a later GPU slice": lambda t: events_of(t, "f")[0].update(tid=1000000000, ts=2.5),
    "a flow end at another submission": lambda t: events_of(t, "X", "batch")[0]["args"].update(submission=4),
    "a submit call without its flow": lambda t: [t["traceEvents"].remove(e) for e in events_of(t, "s")
                                                 + events_of(t, "f")],
}


def trace_failures(trace, named_threads=True):
    c = run_e2e.Checks("trace")
    trace_rules.check_trace_rules(c, trace, "t", named_threads)
    return c.failures


class FakeRun:
    """Stands in for run_e2e.Run with fixed output."""

    def __init__(self, out="", err=""):
        self.out, self.err = out, err


def report_failures(rep, truth=TRUTH):
    """The failed checks of run_e2e.check_report on @rep."""
    c = run_e2e.Checks("selftest")
    run_e2e.check_report(c, rep, truth, "/build/tests/programs/multi_kernel")
    return c.failures


def main():
    problems = []

    fails = report_failures(good_report())
    if fails:
        problems.append(f"a correct report was rejected: {fails}")
    for what, fn in MISTAKES.items():
        if not report_failures(mutate(fn)):
            problems.append(f"mistake not caught: {what}")

    # Unnamed rows are matched by count, whatever their order or hash.
    rep = good_report()
    find(rep, "main#deadbeef")["name"] = "main#ffffffff"
    if report_failures(rep):
        problems.append("a different (still valid) hash was rejected")

    # Without debug-utils the named kernel becomes one more "main#" row.
    truth = copy.deepcopy(TRUTH)
    truth["kernels"][1]["debug_name"] = None
    rep = good_report()
    find(rep, "saxpy_named")["name"] = "main#13131313"
    if report_failures(rep, truth):
        problems.append("an unnamed saxpy row was rejected when the program had no debug-utils")

    # Loader call stacks.
    stacks = run_e2e.layer_callstacks(LOADER_OUTPUT)
    want = [("vkCreateInstance", ["VK_LAYER_MESA_device_select", "VK_LAYER_HESPER_profiler", "VK_LAYER_KHRONOS_validation"]),
            ("vkCreateDevice", ["VK_LAYER_HESPER_profiler", "VK_LAYER_KHRONOS_validation"])]
    if stacks != want:
        problems.append(f"layer call stacks parsed as {stacks}")
    c = run_e2e.Checks("order")
    run_e2e.check_layer_order(c, FakeRun(err=LOADER_OUTPUT))
    if c.failures:
        problems.append(f"correct layer order rejected: {c.failures}")
    swapped = LOADER_OUTPUT.replace("VK_LAYER_HESPER_profiler", "@").replace(
        "VK_LAYER_KHRONOS_validation", "VK_LAYER_HESPER_profiler").replace("@", "VK_LAYER_KHRONOS_validation")
    c = run_e2e.Checks("order")
    run_e2e.check_layer_order(c, FakeRun(err=swapped))
    if len(c.failures) != 2:
        problems.append(f"Hesper below validation not caught in both stacks: {c.failures}")
    c = run_e2e.Checks("order")
    run_e2e.check_layer_order(c, FakeRun(err="no loader output"))
    if not c.failures:
        problems.append("missing loader output not caught")

    # Validation messages are found and dropped from the program's stdout.
    truth_line = run_e2e.TRUTH_PREFIX + json.dumps(
        {"kernels": [{"own_mean_ns": 5.0}, {"own_mean_ns": None}], "program": "p"})
    out = ("VUID-X(ERROR / SPEC): msgNum: 1 - Validation Error: [ VUID-X ] bad\n"
           "    Objects: 1\n        [0] 0x1, type: 3, name: NULL\n"
           f"{truth_line}\nprog: ok\n")
    if len(run_e2e.validation_messages(FakeRun(out=out))) != 1:
        problems.append("validation messages not counted")
    other = truth_line.replace("5.0", "7.0")
    if run_e2e.program_lines(out) != run_e2e.program_lines(f"{other}\nprog: ok\n"):
        problems.append(f"program_lines does not normalize: {run_e2e.program_lines(out)}")
    if run_e2e.program_lines("prog: ok\n") == run_e2e.program_lines("prog: OK\n"):
        problems.append("program_lines hides real differences")

    # The Trace Event Format's rules.
    fails = trace_failures(good_trace())
    if fails:
        problems.append(f"a correct trace was rejected: {fails}")
    for what, fn in TRACE_MISTAKES.items():
        t = good_trace()
        fn(t)
        if not trace_failures(t):
            problems.append(f"trace mistake not caught: {what}")

    for p in problems:
        print("FAIL", p)
    if not problems:
        print(f"PASS checker self-test: 1 good report, {len(MISTAKES)} mistakes caught, loader and validation parsing,"
              f" 1 good trace, {len(TRACE_MISTAKES)} trace mistakes caught")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
