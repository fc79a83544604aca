#!/usr/bin/env python3
"""End-to-end checks of Hesper's findings and host waits, on small programs with and
without each defect (tests/programs/findings.c), under Hesper and the validation layer.

    run_findings.py --hesper LIB --program FINDINGS [--preload-first LIB]... CASE

Cases:
  idle       a queue idle 30 ms between 15 submissions, each waited for: gpu_idle fires with
             gaps of about the sleep, spent doing nothing Vulkan; round_trips fires 15 of 15;
             vkWaitForFences count and time agree with the program's own clock; the HTML
             report shows the findings
  busy       40 batches kept two in flight: neither gpu_idle nor round_trips; with
             HESPER_MODE=submit no hesper_share either
  waits      every kind of host wait: count per call exact, total within the program's own
             time (and not far below it); one trace event per wait on the thread's track
  launch     300 empty dispatches (launch_factor=8: lavapipe's vary several-fold): launch_bound
             fires with the device's measured dispatch cost and as many dispatches as the
             trace has under the limit; with HESPER_FINDINGS=hesper_share=0.000001,
             hesper_share fires with the run's own hook time
  heavy      120 long dispatches (launch_factor=8): no launch_bound
  slowcopy   2,000 copies of 256 bytes and one of 4 MiB: slow_memory fires for copy_buffer with
             the row's counts, bytes, mean and best GB/s, and the time beyond the best
  fastcopy   8 copies of 4 MiB: no slow_memory
  underfill  150 one-group dispatches: underfilled fires with the device's compute units;
             exit 77 (skip) where the driver does not tell them (lavapipe)
  settings   HESPER_FINDINGS=off (and " OFF "): no findings, no dispatch cost; a bad value: one error
             line, the defaults kept, the program's output and exit status unchanged

Exit status 0 when every check passes, 1 otherwise, 77 for underfill without compute units.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402

# Hesper's interval of a wait lies inside the program's; the difference is the layers'
# dispatch and two clock reads, plus whatever preemption a loaded CI machine adds.
WAIT_SLACK_NS = 2000000
# A gap is the sleep plus the wait's wake-up and the next submit: generous for lavapipe on 2 loaded cores.
GAP_SLACK_NS = 40000000
# A gap's time doing nothing Vulkan is the program's sleep plus a few calls of its own.
OTHER_SLACK_NS = 10000000


def run_program(args, c, tmp, case, extra, sinks=("json",)):
    """Runs `findings CASE` alone and under Hesper + validation; returns (truth, report, run)."""
    base = e2e.Run([args.program, case], e2e.base_env(args), tmp)
    c.check(base.rc == 0, f"findings {case} passes on its own", base.tail("alone"))
    out = {s: os.path.join(tmp, f"{case}.{s}") for s in sinks}
    env = e2e.hesper_env(args, dict({
        "HESPER_REPORT": ",".join(f"{s}:{p}" for s, p in out.items()),
        "VK_INSTANCE_LAYERS": e2e.VALIDATION_LAYER,
        "VK_LOADER_DEBUG": "layer",
    }, **extra))
    run = e2e.Run([args.program, case], env, tmp)
    c.check(run.rc == 0, f"findings {case} passes under Hesper", run.tail("under Hesper"))
    msgs = e2e.validation_messages(run)
    c.check(not msgs, "no validation messages", "\n".join(msgs[:20]))
    e2e.check_layer_order(c, run)
    truth = e2e.parse_truth(run.out)
    c.check(truth is not None, "the program prints its HESPER-TRUTH line", run.tail("under Hesper"))
    rep = e2e.load_json(c, out["json"], "Hesper wrote a readable JSON summary")
    if rep is not None:
        check_findings_shape(c, rep)
    return truth, rep, run, out


def check_findings_shape(c, rep):
    """Every finding has its keys; they come sorted by time at stake."""
    f = rep.get("findings")
    if not c.check(isinstance(f, list), "the summary has a findings list", f"got {f!r}"):
        return
    for x in f:
        c.check(isinstance(x.get("kind"), str) and isinstance(x.get("time_at_stake_ns"), int)
                and isinstance(x.get("numbers"), dict) and isinstance(x.get("about"), list)
                and isinstance(x.get("advice"), str), "a finding has kind, time_at_stake_ns, numbers, about, advice",
                json.dumps(x))
    stakes = [x.get("time_at_stake_ns", 0) for x in f]
    c.check(stakes == sorted(stakes, reverse=True), "findings sorted by time at stake", f"{stakes}")


def kinds(rep, kind):
    return [x for x in (rep or {}).get("findings", []) if x.get("kind") == kind]


def waits_by_call(rep):
    """{call: (count, total_ns)} summed over threads."""
    out = {}
    for w in (rep or {}).get("host_waits", []):
        n, t = out.get(w["call"], (0, 0))
        out[w["call"]] = (n + w["count"], t + w["total_ns"])
    return out


def check_waits(c, rep, truth):
    """Host-wait counts exact and totals against the program's own clock."""
    got = waits_by_call(rep)
    after = truth.get("untimed_after", {})
    for call, own in truth["waits"].items():
        count, total = got.get(call, (0, 0))
        extra = after.get(call, 0)
        c.check(count == own["count"] + extra, f"{call}: {own['count'] + extra} waits counted",
                f"got {count}; all: {got}")
        if extra:
            # Waits the program did not time: Hesper's total only has a floor.
            c.check(total + WAIT_SLACK_NS * own["count"] >= own["total_ns"],
                    f"{call}: total at least the program's own {own['total_ns']} ns", f"got {total}")
            continue
        c.check(total <= own["total_ns"] and own["total_ns"] - total <= WAIT_SLACK_NS * max(1, own["count"]),
                f"{call}: total within the program's own {own['total_ns']} ns (at most "
                f"{WAIT_SLACK_NS} ns less per wait)", f"got {total}")
    for call in got:
        c.check(call in truth["waits"] or call in after, f"{call}: a wait the program made", f"{got}")


def case_idle(args, c, tmp):
    truth, rep, run, out = run_program(args, c, tmp, "idle", {}, ("json", "html", "trace"))
    if not truth or not rep:
        return run.tail("under Hesper")
    rounds, sleep = truth["rounds"], truth["sleep_ns"]
    check_waits(c, rep, truth)
    slept = truth["slept_ns"]  # the gap before submission s follows sleep s - 1
    idle = kinds(rep, "gpu_idle")
    if c.check(len(idle) == 1, "gpu_idle fires once (one queue)", json.dumps(rep.get("findings"))):
        n = idle[0]["numbers"]
        c.check(n["batches"] == rounds, f"gpu_idle: {rounds} batches", f"{n}")
        gaps = rounds - 1
        c.check(sum(slept[:gaps]) <= n["idle_ns"] <= sum(slept[:gaps]) + gaps * GAP_SLACK_NS,
                f"gpu_idle: idle_ns between the {gaps} sleeps' sum and that plus {GAP_SLACK_NS} ns each",
                f"{n}, slept {slept}")
        c.check(idle[0]["time_at_stake_ns"] == n["idle_ns"], "gpu_idle: time at stake is the idle time")
        c.check(abs(n["idle_share"] - n["idle_ns"] / rep["wall_ns"]) < 1e-9 and n["wall_ns"] == rep["wall_ns"],
                "gpu_idle: idle_share = idle_ns / wall_ns", f"{n}, wall {rep['wall_ns']}")
        top = idle[0].get("gaps", [])
        c.check(len(top) == 5, "gpu_idle: the 5 largest gaps", f"{top}")
        lengths = [g["length_ns"] for g in top]
        c.check(lengths == sorted(lengths, reverse=True), "the largest gaps come largest first", f"{lengths}")
        for g in top:
            s = g["submission"]
            if not c.check(1 <= s < rounds, "a gap comes before a submission after the first", f"{g}"):
                continue
            c.check(g["length_ns"] >= slept[s - 1], "a gap is at least the sleep before its submission",
                    f"{g}, slept {slept[s - 1]}")
            # What the thread did besides waiting and submitting is the sleep, and little else.
            c.check(abs(g["other_ns"] - slept[s - 1]) <= OTHER_SLACK_NS,
                    f"a gap's time doing nothing Vulkan is its sleep (within {OTHER_SLACK_NS} ns)",
                    f"{g}, slept {slept[s - 1]}")
            c.check(g["waiting_ns"] + g["recording_ns"] + g["submitting_ns"] + g["other_ns"] == g["length_ns"],
                    "a gap's parts add up to it", f"{g}")
        c.check(sum(g["doing"] == "nothing Vulkan" for g in top) >= 3,
                "most of the largest gaps were spent doing nothing Vulkan", f"{top}")
    trips = kinds(rep, "round_trips")
    if c.check(len(trips) == 1, "round_trips fires", json.dumps(rep.get("findings"))):
        n = trips[0]["numbers"]
        c.check(n["submit_calls"] == rounds and n["round_trips"] == rounds,
                f"round_trips: {rounds} of {rounds} submit calls", f"{n}")
    c.check(not kinds(rep, "launch_bound"), "no launch_bound (15 long dispatches)")
    html = open(out["html"], encoding="utf-8").read()
    c.check('id="findings"' in html and 'data-kind="gpu_idle"' in html and 'data-kind="round_trips"' in html,
            "the HTML report lists the findings")
    c.check('id="host-waits"' in html and "vkWaitForFences" in html, "the HTML report lists the host waits")
    return run.tail("under Hesper")


def case_busy(args, c, tmp):
    _, rep, run, _ = run_program(args, c, tmp, "busy", {})
    c.check(not kinds(rep, "gpu_idle"), "no gpu_idle (two batches in flight)", json.dumps((rep or {}).get("findings")))
    c.check(not kinds(rep, "round_trips"), "no round_trips (never waits for the last batch)",
            json.dumps((rep or {}).get("queues")))
    _, rep2, run2, _ = run_program(args, c, tmp, "busy", {"HESPER_MODE": "submit"})
    c.check(not kinds(rep2, "hesper_share"), "no hesper_share in submit mode", json.dumps((rep2 or {}).get("findings")))
    c.check(not kinds(rep2, "gpu_idle") and not kinds(rep2, "round_trips"), "submit mode: no idle, no round trips")
    return run.tail("under Hesper") + run2.tail("submit mode")


def case_waits(args, c, tmp):
    truth, rep, run, out = run_program(args, c, tmp, "waits", {}, ("json", "trace"))
    if not truth or not rep:
        return run.tail("under Hesper")
    check_waits(c, rep, truth)
    trace = e2e.load_json(c, out["trace"], "Hesper wrote a readable trace")
    if trace is None:
        return run.tail("under Hesper")
    events = trace.get("traceEvents", trace if isinstance(trace, list) else [])
    names = {(e.get("pid"), e.get("tid")): e.get("args", {}).get("name") for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    waits = [e for e in events if e.get("ph") == "X" and e.get("cat") == "wait"]
    by_call = {}
    for e in waits:
        by_call[e["name"]] = by_call.get(e["name"], 0) + 1
    want = {call: n for call, (n, _) in waits_by_call(rep).items()}
    c.check(by_call == want, "one trace event per host wait, named by its call", f"trace {by_call}, summary {want}")
    threads = {w["thread"] for w in rep["host_waits"]}
    for e in waits[:3]:
        track = str(names.get((e.get("pid"), e.get("tid"))))
        c.check(any(re.fullmatch(rf"CPU thread {t}( \(.*\))? waits", track) for t in threads),
                "wait events sit on the waiting thread's track", f"track {track!r}, threads {threads}")
    return run.tail("under Hesper")


def dispatch_durations(c, path, kernel):
    """The durations (ns) of @kernel's dispatch events in the trace at @path."""
    trace = e2e.load_json(c, path, "Hesper wrote a readable trace")
    events = (trace or {}).get("traceEvents", [])
    return [round(e["dur"] * 1000) for e in events
            if e.get("ph") == "X" and e.get("cat") == "dispatch" and e.get("name") == kernel]


def case_launch(args, c, tmp):
    # lavapipe's empty dispatches vary several-fold from run to run on a loaded machine
    # (threads waking): a generous factor makes the defect show every time, and the count
    # is checked against every dispatch's own duration in the trace.
    truth, rep, run, out = run_program(args, c, tmp, "launch", {"HESPER_FINDINGS": "launch_factor=8"},
                                       ("json", "trace"))
    if not truth or not rep:
        return run.tail("under Hesper")
    cost = rep["devices"][0].get("dispatch_cost_ns", 0)
    c.check(cost > 0, "the device's dispatch cost was measured", f"{rep['devices']}")
    lb = kinds(rep, "launch_bound")
    row = next((k for k in rep["kernels"] if k["name"] == "empty"), None)
    if c.check(len(lb) == 1 and lb[0]["about"] == ["empty"] and row, "launch_bound fires for the empty kernel",
               json.dumps(rep.get("findings"))):
        n = lb[0]["numbers"]
        c.check(n["dispatches"] == truth["dispatches"], f"launch_bound: {truth['dispatches']} dispatches", f"{n}")
        c.check(n["dispatch_cost_ns"] == cost and n["limit_ns"] == 8 * cost, "launch_bound: the device's cost, limit 8x",
                f"{n}")
        c.check(100 <= n["launch_bound_dispatches"] <= truth["dispatches"],
                "launch_bound: at least the minimum (100), at most every dispatch", f"{n}")
        durations = dispatch_durations(c, out["trace"], "empty")
        below = sum(d < n["limit_ns"] for d in durations)
        # The histogram places a value within 1/128 of itself: those near the limit may go either way.
        near = sum(abs(d - n["limit_ns"]) <= n["limit_ns"] / 64 for d in durations)
        c.check(len(durations) == truth["dispatches"] and abs(below - n["launch_bound_dispatches"]) <= near,
                "launch_bound: the dispatches under the limit, as the trace's durations count them",
                f"trace: {len(durations)} dispatches, {below} under {n['limit_ns']} ns ({near} near it); {n}")
        c.check(lb[0]["time_at_stake_ns"] == min(n["launch_bound_dispatches"] * cost, row["total_ns"]),
                "launch_bound: time at stake = launch-bound dispatches x cost", f"{lb[0]}")
    _, rep2, run2, _ = run_program(args, c, tmp, "launch", {"HESPER_FINDINGS": "hesper_share=0.000001"})
    hs = kinds(rep2, "hesper_share")
    if c.check(len(hs) == 1, "hesper_share fires under a tiny threshold", json.dumps((rep2 or {}).get("findings"))):
        n = hs[0]["numbers"]
        c.check(n["hook_ns"] == rep2["hesper"]["hook_ns"] and n["wall_ns"] == rep2["wall_ns"]
                and n["timed_dispatches"] == rep2["hesper"]["collected"],
                "hesper_share: the run's own hook time, wall time and timed dispatches", f"{n}")
        c.check("HESPER_MODE=submit" in hs[0]["advice"], "hesper_share suggests the cheaper mode")
    return run.tail("under Hesper") + run2.tail("tiny threshold")


def case_heavy(args, c, tmp):
    truth, rep, run, _ = run_program(args, c, tmp, "heavy", {"HESPER_FINDINGS": "launch_factor=8"})
    if not truth or not rep:
        return run.tail("under Hesper")
    cost = rep["devices"][0].get("dispatch_cost_ns", 0)
    row = next((k for k in rep["kernels"] if k["name"] == "busy"), None)
    c.check(row and row["count"] == truth["dispatches"] and row["min_ns"] > 8 * cost,
            "every heavy dispatch is longer than 8 times the dispatch cost (the premise)", f"{row}, cost {cost}")
    c.check(not kinds(rep, "launch_bound"), "no launch_bound", json.dumps(rep.get("findings")))
    return run.tail("under Hesper")


def copy_buffer_row(rep):
    """The report's copy_buffer memory-operation row, or None."""
    return next((m for m in rep.get("memory_operations") or [] if m.get("name") == "copy_buffer"), None)


def case_slowcopy(args, c, tmp):
    truth, rep, run, _ = run_program(args, c, tmp, "slowcopy", {})
    if not truth or not rep:
        return run.tail("under Hesper")
    c.check(truth.get("copied_ok") is True, "the program's copies arrived", f"{truth}")
    row = copy_buffer_row(rep)
    if not c.check(row is not None and row.get("count") == truth["copies"] and row.get("bytes") == truth["bytes"],
                   "copy_buffer row: every copy and byte counted", f"{row}"):
        return run.tail("under Hesper")
    slow = kinds(rep, "slow_memory")
    if c.check(len(slow) == 1 and slow[0]["about"] == ["copy_buffer"], "slow_memory fires for copy_buffer",
               json.dumps(rep.get("findings"))):
        n = slow[0]["numbers"]
        c.check(n.get("operations") == row["timed"] and n.get("bytes") == row["timed_bytes"],
                "slow_memory: its operations and bytes are the row's timed ones", json.dumps(n))
        c.check(abs(n.get("mean_gbps", 0) - row["mean_gbps"]) <= 1e-9 * max(1, row["mean_gbps"])
                and abs(n.get("best_gbps", 0) - row["best_gbps"]) <= 1e-9 * max(1, row["best_gbps"]),
                "slow_memory: mean and best GB/s are the row's", json.dumps(n))
        c.check(n["mean_gbps"] < 0.25 * n["best_gbps"], "slow_memory: the mean is below a quarter of the best",
                json.dumps(n))
        at_best = row["timed_bytes"] / n["best_gbps"]
        c.check(abs(n.get("excess_ns", 0) - (row["total_ns"] - at_best)) <= 2,
                "slow_memory: time at stake is the time beyond the best GB/s", f"{n}, total {row['total_ns']}")
    return run.tail("under Hesper")


def case_fastcopy(args, c, tmp):
    truth, rep, run, _ = run_program(args, c, tmp, "fastcopy", {})
    if not truth or not rep:
        return run.tail("under Hesper")
    row = copy_buffer_row(rep)
    c.check(row is not None and row.get("count") == truth["copies"] and row.get("bytes") == truth["bytes"],
            "copy_buffer row: every copy and byte counted", f"{row}")
    c.check(not kinds(rep, "slow_memory"), "no slow_memory for copies of one size", json.dumps(rep.get("findings")))
    return run.tail("under Hesper")


def case_underfill(args, c, tmp):
    truth, rep, run, _ = run_program(args, c, tmp, "underfill", {})
    if not truth or not rep:
        return run.tail("under Hesper")
    units = rep["devices"][0].get("compute_units", 0)
    uf = kinds(rep, "underfilled")
    if units == 0:
        c.check(not uf, "no underfilled finding without the driver's compute-unit count", json.dumps(uf))
        c.skip("the device does not tell its compute units (no VK_NV_shader_sm_builtins or "
               "VK_AMD_shader_core_properties)")
        return run.tail("under Hesper")
    if c.check(len(uf) == 1 and uf[0]["about"] == ["empty"], "underfilled fires for the one-group kernel",
               json.dumps(rep.get("findings"))):
        n = uf[0]["numbers"]
        c.check(n["compute_units"] == units and n["underfilled_dispatches"] == truth["dispatches"],
                f"underfilled: {truth['dispatches']} dispatches of 1 group on {units} units", f"{n}")
    return run.tail("under Hesper")


def case_settings(args, c, tmp):
    # Read as every setting is (docs/settings.md): in any case, white space around it ignored.
    for value in ("off", " OFF "):
        _, rep, run, _ = run_program(args, c, tmp, "launch", {"HESPER_FINDINGS": value})
        c.check(rep is not None and rep.get("findings") == [] and rep["devices"][0].get("dispatch_cost_ns") == 0,
                f"HESPER_FINDINGS={value!r}: no findings, no dispatch-cost measurement",
                json.dumps({"findings": (rep or {}).get("findings"), "devices": (rep or {}).get("devices")}))
        lines = [l for l in run.err.splitlines() if l.startswith("hesper: ")]
        c.check(not lines, f"HESPER_FINDINGS={value!r}: no 'hesper: ' line", "\n".join(lines))
    base = e2e.Run([args.program, "launch"], e2e.base_env(args), tmp)
    json_path = os.path.join(tmp, "bad.json")
    bad = e2e.Run([args.program, "launch"], e2e.hesper_env(args, {"HESPER_FINDINGS": "idle_share=2",
                                                                  "HESPER_REPORT": "json:" + json_path}), tmp)
    lines = [l for l in bad.err.splitlines() if "HESPER_FINDINGS" in l]
    c.check(len(lines) == 1 and lines[0].startswith("hesper: "), "a bad HESPER_FINDINGS: one 'hesper: ' line",
            bad.err[-2000:])
    c.check(bad.rc == base.rc and e2e.program_lines(bad.out) == e2e.program_lines(base.out),
            "a bad HESPER_FINDINGS leaves the program's output and exit status alone")
    rep2 = e2e.load_json(c, json_path, "a report is still written")
    c.check(rep2 is not None and len(kinds(rep2, "launch_bound")) == 1, "the defaults are kept (launch_bound fires)",
            json.dumps((rep2 or {}).get("findings")))
    return run.tail("off") + bad.tail("bad value")


CASES = {
    "idle": case_idle,
    "busy": case_busy,
    "waits": case_waits,
    "launch": case_launch,
    "heavy": case_heavy,
    "underfill": case_underfill,
    "settings": case_settings,
    "slowcopy": case_slowcopy,
    "fastcopy": case_fastcopy,
}


def main():
    return e2e.case_main(__doc__, CASES, "findings")


if __name__ == "__main__":
    sys.exit(main())
