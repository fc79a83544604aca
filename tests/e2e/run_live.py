#!/usr/bin/env python3
"""End-to-end checks of Hesper's reports while the program runs and of its capture window,
on tests/programs/long_run.c, under the validation layer.

    run_live.py --hesper LIB --program LONG_RUN [--preload-first LIB] [--keep-modules LIB] CASE

Cases:
  interval      HESPER_INTERVAL=0.25 on a 3-second run: the JSON file is read while the program
                runs; every read parses, reports come in order with counts that never go back
                and hold whole submissions, at least three come before the end, and the exit
                report matches the program's truth exactly.
  signal        HESPER_REPORT_SIGNAL=USR1 sent once the program is ready: a report marked
                "signal" appears while it runs; the exit report still comes, exact. Then with
                the program's own SIGUSR1 handler: one line, the program's handler runs, no
                report on the signal.
  control       HESPER_CONTROL=PATH: creating the file, then changing its time, each writes a
                report while the program runs ("control"); the exit report is exact.
  window_label  HESPER_START=label:capture with HESPER_STOP unset, =label:capture and
                =label:capture#2: the report is the window's: exactly the dispatches, fills,
                label runs and submissions inside it counted and timed (by execution order: a
                command buffer recorded before the label's but run before it is outside), none
                dropped, the rest counted outside; the busy share over the window's wall time,
                no total beyond it.
  window_time   HESPER_START=T (T from a first run: well after the start-up) and HESPER_STOP=1.5
                over three phases T + 1.5 s apart: only the middle phase counted and timed, the
                others counted outside; the stop read "for 1.500 s"; the busy share over the
                window (skipped when the machine was too slow for the phases to fall where they
                should).
  trace_all     HESPER_TRACE_ALL=1 with HESPER_MAX_EVENTS=50 and HESPER_INTERVAL=0.3: the trace
                (read while the program runs and at the end) holds every event, one per
                dispatch, label, batch and submit call, while the JSON summary says the
                capped timeline (for the HTML report) left events out.
  interval_sinks  HESPER_INTERVAL=0.25 with the prom: and sqlite: sinks: the Prometheus file,
                read with python3-prometheus-client's parser while the program runs, parses every
                time and its counters never go down; the database, queried with the sqlite3 shell
                while the program runs, only gains dispatches; at the end both agree with the
                program's truth and the JSON summary.
  bad_input     bad values of the new settings, one at a time: one "hesper: " line each, the
                program's stdout and exit code unchanged, the exit report exact.

Exit status 0 when every check passes, 1 otherwise, 77 when skipped.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402
import run_sinks  # noqa: E402
import trace_rules  # noqa: E402

READY = "long_run: ready"
HESPER_LINE = "hesper: "
KERNEL = "live_step"


class LiveRun:
    """Runs argv; calls on_ready() once it prints READY, and poll() every @period seconds while
    it runs. Then waits for the end (rc, out, err)."""

    def __init__(self, argv, env, cwd, poll=None, on_ready=None, period=0.02, timeout=180):
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = [], []
        ready = threading.Event()

        def pump(stream, sink, watch):
            for line in iter(stream.readline, b""):
                sink.append(line)
                if watch and line.decode("utf-8", "replace").rstrip("\n") == READY:
                    ready.set()
            stream.close()

        threads = [threading.Thread(target=pump, args=(p.stdout, out, True), daemon=True),
                   threading.Thread(target=pump, args=(p.stderr, err, False), daemon=True)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + timeout
        fired = False
        while p.poll() is None and time.monotonic() < deadline:
            if on_ready and not fired and ready.is_set():
                fired = True
                on_ready(p)
            if poll:
                poll()
            time.sleep(period)
        if p.poll() is None:
            p.kill()
        self.rc = p.wait()
        for t in threads:
            t.join(10)
        self.ready = ready.is_set()
        self.out = b"".join(out).decode("utf-8", "replace")
        self.err = b"".join(err).decode("utf-8", "replace")

    tail = e2e.Run.tail


class Reader:
    """Reads the JSON file at @path while the program runs: every distinct report seen, and
    reads that did not parse."""

    def __init__(self, path):
        self.path = path
        self.seen = {}        # report number -> the report (partial ones)
        self.order = []       # report numbers in the order they were read
        self.bad = []
        self.last_mtime = None

    def __call__(self):
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return
        key = (st.st_mtime_ns, st.st_ino, st.st_size)
        if key == self.last_mtime:
            return
        try:
            with open(self.path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            return
        self.last_mtime = key
        try:
            rep = json.loads(text)
        except ValueError as e:
            self.bad.append(f"{len(text)} bytes: {e}")
            return
        info = rep.get("report") or {}
        if info.get("final") is False:
            n = info.get("number")
            if n not in self.seen:
                self.seen[n] = rep
                self.order.append(n)


def validation_env(args, extra):
    return e2e.hesper_env(args, dict({"VK_INSTANCE_LAYERS": e2e.VALIDATION_LAYER, "VK_LOADER_DEBUG": "layer"},
                                     **extra))


def kernel_row(rep):
    rows = [r for r in rep.get("kernels") or [] if isinstance(r, dict) and r.get("name") == KERNEL]
    return rows[0] if len(rows) == 1 else None


def check_program(c, run, base, what):
    """Same exit code and stdout as alone, no validation message, the layer order."""
    c.check(run.rc == base.rc == 0, f"{what}: exit code 0, as alone", f"alone {base.rc}, under Hesper {run.rc}")
    a, b = e2e.program_lines(base.out), e2e.program_lines(run.out)
    strip = [line for line in b if not line.startswith(e2e.TRUTH_PREFIX)]
    c.check([line for line in a if not line.startswith(e2e.TRUTH_PREFIX)] == strip,
            f"{what}: program's stdout unchanged", e2e.diff(a, b, "alone", "under Hesper"))
    msgs = e2e.validation_messages(run)
    c.check(not msgs, f"{what}: no validation messages", "\n".join(msgs[:20]))


def hesper_lines(run):
    return [line for line in run.err.splitlines() if line.startswith(HESPER_LINE)]


def check_final(c, rep, truth, what, timed=None, regions=None):
    """The exit report against the truth: the kernel's count and timed (@timed: a capture
    window's, counted and timed alike; default all), regions (@regions: {name: count} inside
    a window; default the truth's)."""
    if rep is None:
        return
    want = truth["kernels"][0]["count"] if timed is None else timed
    row = kernel_row(rep)
    if not c.check(row is not None, f"{what}: one {KERNEL!r} row", f"{rep.get('kernels')!r}"):
        return
    c.check(row.get("count") == want, f"{what}: {want} dispatches counted", f"got {row.get('count')!r}")
    want_timed = want if timed is None else timed
    c.check(row.get("timed") == want_timed, f"{what}: {want_timed} timed", f"got {row.get('timed')!r}")
    c.check(rep.get("dropped") == 0, f"{what}: none dropped", f"got {rep.get('dropped')!r}")
    if regions is None:
        regions = {reg["name"]: reg["count"] for reg in truth.get("regions", [])}
    for name, count in regions.items():
        got = [r for r in rep.get("regions") or [] if r.get("name") == name]
        c.check(len(got) == 1 and got[0].get("count") == count,
                f"{what}: region {name!r} counted {count} times", f"{rep.get('regions')!r}")


def check_window_share(c, rep, text, what):
    """The window's busy share: GPU busy time over the window's wall time, in the JSON and the
    text report; the window's totals within its wall time (not extrapolated to the whole run)."""
    cap = rep.get("capture") or {}
    wall, busy = cap.get("wall_ns") or 0, rep.get("gpu_busy_ns", 0)
    opened = cap.get("opened_ns", 0)
    closed = cap.get("closed_ns", opened)
    c.check(wall >= closed - opened and wall < rep.get("wall_ns", 0),
            f"{what}: the window's wall time runs from its opening to its close (or later), within the run",
            f"{cap!r}, run {rep.get('wall_ns')!r}")
    if not c.check(wall > 0, f"{what}: the window has a wall time", f"{cap!r}"):
        return
    # Mapping GPU times to the host's clock may err by a little: 2 % of slack.
    c.check(busy <= wall * 1.02, f"{what}: GPU busy {busy} ns fits in the window's {wall} ns", f"{cap!r}")
    for table in ("kernels", "regions"):
        for r in rep.get(table) or []:
            c.check(r.get("total_ns", 0) <= wall * 1.02,
                    f"{what}: {table} {r.get('name')!r} total {r.get('total_ns')} ns within the window's {wall} ns",
                    f"{r!r}")
    share = f"({100.0 * busy / wall:.1f}% of the capture window's wall time)"
    c.check(share in text, f"{what}: the text report's busy share is over the window: {share}",
            "\n".join(line for line in text.splitlines() if "GPU busy" in line))


def final_report(c, path, what):
    rep = e2e.load_json(c, path, f"{what}: the exit report is readable")
    if rep is not None:
        info = rep.get("report") or {}
        c.check(info.get("final") is True, f"{what}: the last report written is the exit report",
                f"report: {info!r}")
    return rep


def check_partials(c, reader, truth, what, reason, at_least):
    """The reports read while the program ran: parsed, in order, counts that never go back,
    whole submissions, marked with @reason."""
    c.check(not reader.bad, f"{what}: every read of the JSON file while the program ran parsed",
            "\n".join(reader.bad[:5]))
    c.check(len(reader.order) >= at_least, f"{what}: at least {at_least} report(s) read while the program ran",
            f"read {reader.order}")
    c.check(reader.order == sorted(reader.order), f"{what}: reports read in the order written", f"{reader.order}")
    per = truth.get("per_submission", 1)
    counts = []
    for n in reader.order:
        rep = reader.seen[n]
        row = kernel_row(rep) or {"count": 0, "timed": 0}
        counts.append(row.get("count"))
        c.check(rep["report"].get("reason") == reason, f"{what}: report {n} is marked {reason!r}",
                f"report: {rep['report']!r}")
        c.check(isinstance(row.get("count"), int) and row["count"] % per == 0,
                f"{what}: report {n} holds whole submissions ({per} dispatches each)", f"count {row.get('count')!r}")
        c.check(row.get("timed") == row.get("count"), f"{what}: report {n}: every dispatch so far timed",
                f"{row!r}")
        c.check(row.get("count", 0) <= truth["kernels"][0]["count"], f"{what}: report {n} counts no more than ran")
    c.check(counts == sorted(counts), f"{what}: counts never go back from one report to the next", f"{counts}")
    return counts


def baseline(args, tmp, argv):
    return e2e.Run(argv, e2e.base_env(args), tmp)


# --- cases ---------------------------------------------------------------------------------

def case_interval(args, c, tmp):
    argv = [args.program, "steps", "16", "40", "180"]
    base = baseline(args, tmp, argv)
    out = os.path.join(tmp, "live.json")
    reader = Reader(out)
    run = LiveRun(argv, validation_env(args, {"HESPER_INTERVAL": "0.25",
                                              "HESPER_REPORT": f"json:{out},text:{tmp}/live.txt"}), tmp, poll=reader)
    check_program(c, run, base, "interval")
    c.check(not hesper_lines(run), "no 'hesper: ' line", "\n".join(hesper_lines(run)))
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "the program prints its truth"):
        return run.tail("interval")
    counts = check_partials(c, reader, truth, "interval", "interval", 3)
    c.check(len(set(counts)) >= 2, "counts grew while the program ran", f"{counts}")
    rep = final_report(c, out, "interval")
    check_final(c, rep, truth, "exit report")
    if rep is not None:
        number = (rep.get("report") or {}).get("number")
        c.check(isinstance(number, int) and number >= len(reader.order) and
                (not reader.order or number > max(reader.order)),
                "the exit report's number counts the reports written before it", f"{number}, read {reader.order}")
    with open(os.path.join(tmp, "live.txt"), encoding="utf-8") as f:
        text = f.read()
    c.check("written while the program runs" not in text, "the text file holds the exit report at the end")
    print(f"  reports read while it ran: {reader.order}, counts {counts}")
    return run.tail("interval")


def case_signal(args, c, tmp):
    argv = [args.program, "steps", "14", "20", "200"]
    base = baseline(args, tmp, argv)
    out = os.path.join(tmp, "sig.json")
    reader = Reader(out)
    sent = []

    def send(p):
        p.send_signal(signal.SIGUSR1)
        sent.append(time.monotonic())

    run = LiveRun(argv, validation_env(args, {"HESPER_REPORT_SIGNAL": "USR1", "HESPER_REPORT": f"json:{out}"}),
                  tmp, poll=reader, on_ready=send)
    check_program(c, run, base, "signal")
    c.check(run.ready and sent, "the program got ready and the signal was sent")
    c.check(not hesper_lines(run), "no 'hesper: ' line", "\n".join(hesper_lines(run)))
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "the program prints its truth"):
        return run.tail("signal")
    check_partials(c, reader, truth, "signal", "signal", 1)
    c.check(list(reader.seen) == [0], "one report on the one signal", f"{reader.order}")
    rep = final_report(c, out, "signal")
    check_final(c, rep, truth, "signal: exit report")
    if rep is not None:
        c.check(rep["report"].get("number") == 1, "signal: the exit report is the second", f"{rep['report']!r}")
    context = run.tail("signal")

    # The program's own SIGUSR1 handler stays: Hesper says so once and writes no report on it.
    argv_own = argv
    env_own = {"LONG_RUN_OWN_USR1": "1"}
    base = e2e.Run(argv_own, dict(e2e.base_env(args), **env_own), tmp)
    out2 = os.path.join(tmp, "own.json")
    reader2 = Reader(out2)
    run = LiveRun(argv_own, validation_env(args, dict(env_own, HESPER_REPORT_SIGNAL="USR1",
                                                      HESPER_REPORT=f"json:{out2}")),
                  tmp, poll=reader2, on_ready=lambda p: p.send_signal(signal.SIGUSR1))
    c.check(run.rc == 0, "own handler: exit code 0", f"got {run.rc}")
    c.check("long_run: own SIGUSR1 handler ran" in run.out, "own handler: the program's handler ran", run.out)
    lines = hesper_lines(run)
    c.check(len(lines) == 1 and "HESPER_REPORT_SIGNAL" in lines[0],
            "own handler: one 'hesper: ' line saying the signal is left to the program", "\n".join(lines))
    c.check(not reader2.order, "own handler: no report on the signal", f"{reader2.order}")
    rep = final_report(c, out2, "own handler")
    check_final(c, rep, e2e.parse_truth(run.out) or truth, "own handler: exit report")
    return context + "\n" + run.tail("own handler")


def case_control(args, c, tmp):
    argv = [args.program, "steps", "14", "20", "200"]
    base = baseline(args, tmp, argv)
    out = os.path.join(tmp, "ctl.json")
    ctl = os.path.join(tmp, "hesper.ctl")
    reader = Reader(out)
    steps = []

    def poll():
        reader()
        # Create the file once the program is ready; change its time once the first report came.
        if run_state["ready"] and not steps:
            with open(ctl, "w"):
                pass
            steps.append("created")
        elif steps == ["created"] and reader.order:
            os.utime(ctl, ns=(time.time_ns() + 5_000_000_000,) * 2)
            steps.append("touched")

    run_state = {"ready": False}

    def ready(p):
        run_state["ready"] = True

    run = LiveRun(argv, validation_env(args, {"HESPER_CONTROL": ctl, "HESPER_REPORT": f"json:{out}"}), tmp,
                  poll=poll, on_ready=ready)
    check_program(c, run, base, "control")
    c.check(not hesper_lines(run), "no 'hesper: ' line", "\n".join(hesper_lines(run)))
    c.check(steps == ["created", "touched"], "the control file was created, then its time changed", f"{steps}")
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "the program prints its truth"):
        return run.tail("control")
    check_partials(c, reader, truth, "control", "control", 2)
    c.check(reader.order == [0, 1], "one report each time the file appeared or changed", f"{reader.order}")
    rep = final_report(c, out, "control")
    check_final(c, rep, truth, "control: exit report")
    return run.tail("control")


def case_window_label(args, c, tmp):
    argv = [args.program, "label"]
    base = baseline(args, tmp, argv)
    truth = e2e.parse_truth(base.out)
    if not c.check(base.rc == 0 and truth is not None, "the program alone runs and prints its truth",
                   base.tail("alone")):
        return base.tail("alone")
    variants = [("open", {"HESPER_START": "label:capture"}, "label:capture", ""),
                ("capture#1", {"HESPER_START": "label:capture", "HESPER_STOP": "label:capture"},
                 "label:capture", "label:capture#1"),
                ("capture#2", {"HESPER_START": "label:capture", "HESPER_STOP": "label:capture#2"},
                 "label:capture", "label:capture#2")]
    context = []
    for key, env, start, stop in variants:
        out = os.path.join(tmp, f"{key.replace('#', '_')}.json")
        txt = os.path.join(tmp, f"{key.replace('#', '_')}.txt")
        run = e2e.Run(argv, validation_env(args, dict(env, HESPER_REPORT=f"json:{out},text:{txt}")), tmp)
        check_program(c, run, base, key)
        c.check(not hesper_lines(run), f"{key}: no 'hesper: ' line", "\n".join(hesper_lines(run)))
        rep = e2e.load_json(c, out, f"{key}: the report is readable")
        inside = truth["inside"][key]
        # The report is the window's: its dispatches, its runs of the label, counted and timed.
        check_final(c, rep, truth, key, timed=inside, regions={"capture": truth["regions_inside"][key]})
        if rep is not None:
            cap = rep.get("capture") or {}
            count = truth["kernels"][0]["count"]
            c.check(cap.get("start") == start and cap.get("stop") == stop, f"{key}: the report states the window",
                    f"{cap!r}")
            c.check(cap.get("dispatches_outside") == count - inside,
                    f"{key}: {count - inside} dispatches counted outside", f"{cap!r}")
            c.check(cap.get("state") == ("closed" if stop else "open"), f"{key}: the window's state", f"{cap!r}")
            lab = [r for r in rep.get("kernels_by_label") or [] if r.get("name") == f"capture/{KERNEL}"]
            n = min(inside, 10)
            c.check(len(lab) == 1 and lab[0].get("count") == n and lab[0].get("timed") == n,
                    f"{key}: the label's row counts and times the {n} inside", f"{lab!r}")
            fills = [r for r in rep.get("memory_operations") or [] if r.get("name") == "fill_buffer"]
            want = truth["fills_inside"][key]
            c.check(len(fills) == 1 and fills[0].get("count") == want and fills[0].get("timed") == want,
                    f"{key}: the {want} fills inside the window counted and timed", f"{fills!r}")
            c.check(cap.get("memory_ops_outside") == truth["fills"] - want,
                    f"{key}: {truth['fills'] - want} fills counted outside", f"{cap!r}")
            subs = truth["submits_inside"][key]
            calls = sum(q.get("submit_calls", 0) for q in rep.get("queues") or [])
            trips = sum(q.get("round_trips", 0) for q in rep.get("queues") or [])
            c.check(calls == subs and trips == subs and cap.get("submissions_outside") == truth["submits"] - subs,
                    f"{key}: {subs} submissions (each a round trip) inside, {truth['submits'] - subs} outside",
                    f"submit_calls {calls}, round_trips {trips}, {cap!r}")
            with open(txt, encoding="utf-8") as f:
                text = f.read()
            check_window_share(c, rep, text, key)
            line = (f"outside      the window: {count - inside} dispatches, {truth['submits'] - subs} submissions, "
                    f"{truth['fills'] - want} memory operations")
            c.check(line in text, f"{key}: the text report says what ran outside: {line!r}", text[:1500])
        context.append(run.tail(key, 10))
    return "\n".join(context)


def case_window_time(args, c, tmp):
    # A first run under the same layers says how long starting up takes here (much longer under
    # AddressSanitizer): the window opens well after the first phase ends, and the phases are
    # further apart than the window is long.
    probe = e2e.Run([args.program, "phases", "5", "7", "9", "0"],
                    validation_env(args, {"HESPER_REPORT": f"json:{tmp}/probe.json"}), tmp)
    ptruth = e2e.parse_truth(probe.out)
    if not c.check(probe.rc == 0 and ptruth is not None, "the probe run works", probe.tail("probe")):
        return probe.tail("probe")
    start_s = max(1.5, round(3 * ptruth["t_phase_end_ms"][0] / 1000 + 1.0, 1))
    gap_ms = int(start_s * 1000) + 1500
    argv = [args.program, "phases", "5", "7", "9", str(gap_ms)]
    out = os.path.join(tmp, "time.json")
    run = e2e.Run(argv, validation_env(args, {"HESPER_START": str(start_s), "HESPER_STOP": "1.5",
                                              "HESPER_REPORT": f"json:{out},text:{tmp}/time.txt"}), tmp)
    c.check(run.rc == 0, "exit code 0", f"got {run.rc}")
    c.check(not e2e.validation_messages(run), "no validation messages")
    c.check(not hesper_lines(run), "no 'hesper: ' line", "\n".join(hesper_lines(run)))
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "the program prints its truth"):
        return run.tail("time")
    # Hesper's clock starts between the program's t0 and the end of its instance creation.
    begin, end = truth["t_phase_begin_ms"], truth["t_phase_end_ms"]
    print(f"  phases (ms since start): {list(zip(begin, end))}, instance ready at {truth['t_init_ms']}")
    if not (end[0] < start_s * 1000 and end[1] - begin[1] < 1500):
        c.skip(f"the machine was too slow for the phases to fall before and inside the window: {truth}")
        return run.tail("time")
    rep = e2e.load_json(c, out, "the report is readable")
    n1, n2, n3 = truth["phases"]
    check_final(c, rep, truth, "time window", timed=n2)
    if rep is not None:
        cap = rep.get("capture") or {}
        c.check(cap.get("state") == "closed" and cap.get("dispatches_outside") == n1 + n3,
                f"the window closed with {n1 + n3} dispatches outside", f"{cap!r}")
        c.check(cap.get("start") == f"{start_s:.3f} s" and cap.get("stop") == "1.500 s",
                "the report states the window", f"{cap!r}")
        opened, closed = cap.get("opened_ns", 0), cap.get("closed_ns", 0)
        c.check(opened >= start_s * 1e9 and closed - opened >= 1.5e9,
                f"opened after {start_s} s, closed 1.5 s after that or later", f"{cap!r}")
        c.check(cap.get("submissions_outside") == n1 + n3, f"{n1 + n3} submissions outside", f"{cap!r}")
    with open(os.path.join(tmp, "time.txt"), encoding="utf-8") as f:
        text = f.read()
    # A time stop counts from the opening: "for 1.500 s", never "to" a time before the start.
    c.check(f"capture      from {start_s:.3f} s (opened at " in text and " for 1.500 s (closed at " in text,
            "the text report states the window", text[:2000])
    if rep is not None:
        check_window_share(c, rep, text, "time window")
    return run.tail("time")


def case_trace_all(args, c, tmp):
    argv = [args.program, "steps", "8", "30", "150"]
    base = baseline(args, tmp, argv)
    out, trace = os.path.join(tmp, "all.json"), os.path.join(tmp, "all.trace.json")
    partial_traces = []

    def poll():
        try:
            with open(trace, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return
        n = sum(1 for e in doc.get("traceEvents", []) if e.get("cat") == "dispatch")
        if not partial_traces or partial_traces[-1] != n:
            partial_traces.append(n)

    run = LiveRun(argv, validation_env(args, {"HESPER_TRACE_ALL": "1", "HESPER_MAX_EVENTS": "50",
                                              "HESPER_INTERVAL": "0.3",
                                              "HESPER_REPORT": f"json:{out},trace:{trace},html:{tmp}/all.html"}),
                  tmp, poll=poll)
    check_program(c, run, base, "trace_all")
    c.check(not hesper_lines(run), "no 'hesper: ' line", "\n".join(hesper_lines(run)))
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "the program prints its truth"):
        return run.tail("trace_all")
    count, steps = truth["kernels"][0]["count"], truth["regions"][0]["count"]
    c.check(len(partial_traces) >= 2, "the trace was read while the program ran, and grew", f"{partial_traces}")
    c.check(partial_traces == sorted(partial_traces) and all(n % truth["per_submission"] == 0 for n in partial_traces),
            "every trace read while it ran holds whole submissions, more each time", f"{partial_traces}")
    rep = final_report(c, out, "trace_all")
    check_final(c, rep, truth, "trace_all: exit report")
    doc = e2e.load_json(c, trace, "the trace is readable JSON")
    if doc is None:
        return run.tail("trace_all")
    events = doc.get("traceEvents", [])
    by_cat = {}
    for e in events:
        if e.get("ph") == "X":
            by_cat[e.get("cat")] = by_cat.get(e.get("cat"), 0) + 1
    c.check(by_cat.get("dispatch") == count, f"the trace holds every dispatch: {count}", f"{by_cat}")
    c.check(by_cat.get("region") == steps, f"the trace holds every label run: {steps}", f"{by_cat}")
    c.check(by_cat.get("batch") == steps and by_cat.get("submit") == steps,
            f"the trace holds every batch and submit call: {steps}", f"{by_cat}")
    meta = doc.get("metadata") or {}
    total = sum(by_cat.values())
    c.check(meta.get("streamed") is True and meta.get("events") == total and meta.get("events_left_out") == 0,
            "the trace's metadata: streamed, every event, none left out", f"{meta}")
    tids = {e.get("tid") for e in events if e.get("ph") == "X"}
    named = {e.get("tid") for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    c.check(tids <= named, "every event's track is named", f"unnamed: {tids - named}")
    flows = trace_rules.check_trace_rules(c, doc, "streamed trace", named_threads=True)
    c.check(flows == steps and meta.get("flows") == steps, f"one flow per submit call: {steps}",
            f"{flows} in the file, metadata {meta.get('flows')}")
    for tid in tids:
        spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("ph") == "X" and e.get("tid") == tid)
        c.check(all(a[1] <= b[0] + 0.001 for a, b in zip(spans, spans[1:])),
                f"track {tid}: its events do not overlap")
    if rep is not None:
        h = rep.get("hesper") or {}
        c.check(h.get("trace_events") == 50 and h.get("trace_left_out", 0) > 0,
                "the capped timeline (for the HTML report) kept 50 events and left the rest out", f"{h}")
    return run.tail("trace_all")


BAD = [
    ({"HESPER_INTERVAL": "soon"}, "HESPER_INTERVAL"),
    ({"HESPER_INTERVAL": "0"}, "HESPER_INTERVAL"),
    ({"HESPER_INTERVAL": "0.01"}, "HESPER_INTERVAL"),
    ({"HESPER_INTERVAL": "-1"}, "HESPER_INTERVAL"),
    ({"HESPER_REPORT_SIGNAL": "KILL"}, "HESPER_REPORT_SIGNAL"),
    ({"HESPER_REPORT_SIGNAL": "TERM"}, "HESPER_REPORT_SIGNAL"),
    ({"HESPER_REPORT_SIGNAL": "bogus"}, "HESPER_REPORT_SIGNAL"),
    ({"HESPER_CONTROL": ""}, "HESPER_CONTROL"),
    ({"HESPER_START": "label:"}, "HESPER_START"),
    ({"HESPER_START": "later"}, "HESPER_START"),
    ({"HESPER_STOP": "label:capture#0"}, "HESPER_STOP"),
    ({"HESPER_STOP": "-2"}, "HESPER_STOP"),
    ({"HESPER_STOP": "1e3"}, "HESPER_STOP"),
    ({"HESPER_TRACE_ALL": "everything"}, "HESPER_TRACE_ALL"),
]


def case_bad_input(args, c, tmp):
    argv = [args.program, "steps", "3", "5", "0"]
    base = baseline(args, tmp, argv)
    truth = e2e.parse_truth(base.out)
    if not c.check(base.rc == 0 and truth is not None, "the program alone runs", base.tail("alone")):
        return base.tail("alone")
    context = []
    for i, (env, name) in enumerate(BAD):
        what = " ".join(f"{k}={v!r}" for k, v in env.items())
        out = os.path.join(tmp, f"bad{i}.json")
        run = e2e.Run(argv, e2e.hesper_env(args, dict(env, HESPER_REPORT=f"json:{out}")), tmp)
        before = len(c.failures)
        check_program(c, run, base, what)
        lines = hesper_lines(run)
        c.check(len(lines) == 1 and name in lines[0], f"{what}: exactly one 'hesper: ' line naming {name}",
                "\n".join(lines))
        rep = e2e.load_json(c, out, f"{what}: the report is written")
        check_final(c, rep, truth, what)
        if rep is not None:
            c.check("capture" not in rep, f"{what}: no window in effect")
        if len(c.failures) > before:
            context.append(run.tail(what, 10))
    # Reports while running need a file sink: with none, one line, and the exit report.
    run = e2e.Run(argv, e2e.hesper_env(args, {"HESPER_INTERVAL": "1", "HESPER_REPORT": "stderr"}), tmp)
    check_program(c, run, base, "no file sink")
    lines = hesper_lines(run)
    c.check(len(lines) == 1 and "file sink" in lines[0], "no file sink: one line saying so", "\n".join(lines))
    c.check(e2e.TEXT_REPORT_HEADER in run.err, "no file sink: the exit report on stderr")
    # HESPER_TRACE_ALL without a trace: sink: one line, the other sinks as usual.
    out = os.path.join(tmp, "notrace.json")
    run = e2e.Run(argv, e2e.hesper_env(args, {"HESPER_TRACE_ALL": "1", "HESPER_REPORT": f"json:{out}"}), tmp)
    check_program(c, run, base, "trace_all without trace sink")
    lines = hesper_lines(run)
    c.check(len(lines) == 1 and "HESPER_TRACE_ALL" in lines[0], "trace_all without trace sink: one line",
            "\n".join(lines))
    check_final(c, e2e.load_json(c, out, "trace_all without trace sink: the report is written"), truth,
                "trace_all without trace sink")
    return "\n".join(context)


def case_interval_sinks(args, c, tmp):
    argv = [args.program, "steps", "16", "40", "180"]
    base = baseline(args, tmp, argv)
    prom, db, out = (os.path.join(tmp, n) for n in ("live.prom", "live.db", "live.json"))
    try:
        parse = run_sinks.prometheus_parser()
    except ImportError as e:
        c.fail("python3-prometheus-client is installed", str(e))
        return ""
    scrapes, bad, db_counts = [], [], []
    last = {"prom": None}

    def poll():
        try:
            st = os.stat(prom)
        except FileNotFoundError:
            st = None
        if st is not None and (st.st_mtime_ns, st.st_ino) != last["prom"]:
            last["prom"] = (st.st_mtime_ns, st.st_ino)
            try:
                with open(prom, encoding="utf-8") as f:
                    text = f.read()
                samples = {}
                for fam in parse(text):
                    for sm in fam.samples:
                        if sm.labels.get("kernel", KERNEL) == KERNEL:
                            samples[sm.name] = samples.get(sm.name, 0) + sm.value
                scrapes.append(samples)
            except Exception as e:  # the parser raises ValueError and others on a torn file
                bad.append(str(e))
        if os.path.exists(db) and len(db_counts) < 8:
            sh = run_sinks.shutil.which("sqlite3")
            if sh:
                p = subprocess.run([sh, "-readonly", db, "SELECT count(*) FROM dispatches;"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
                if p.returncode == 0 and p.stdout.strip().isdigit():
                    db_counts.append(int(p.stdout.strip()))

    run = LiveRun(argv, validation_env(args, {"HESPER_INTERVAL": "0.25",
                                              "HESPER_REPORT": f"prom:{prom},sqlite:{db},json:{out}"}),
                  tmp, poll=poll, period=0.05)
    poll()  # the exit report's rewrite, after the last poll while the program ran
    check_program(c, run, base, "interval_sinks")
    c.check(not hesper_lines(run), "no 'hesper: ' line", "\n".join(hesper_lines(run)))
    truth = e2e.parse_truth(run.out)
    if not c.check(truth is not None, "the program prints its truth"):
        return run.tail("interval_sinks")
    want = truth["kernels"][0]["count"]
    c.check(not bad, "every read of the Prometheus file while the program ran parsed", "\n".join(bad[:5]))
    c.check(len(scrapes) >= 3, "at least three Prometheus files read", f"{len(scrapes)}")
    for name in ("hesper_kernel_dispatches_total", "hesper_kernel_gpu_seconds_total",
                 "hesper_overhead_seconds_total", "hesper_queue_busy_seconds_total"):
        series = [sm.get(name) for sm in scrapes if sm.get(name) is not None]
        c.check(len(series) >= 2 and series == sorted(series), f"{name} never goes down across rewrites",
                f"{series}")
    counts = [sm.get("hesper_kernel_dispatches_total") for sm in scrapes]
    c.check(counts and counts[-1] == want, f"the Prometheus file at exit counts the {want} dispatches",
            f"{counts[-1:]!r}")
    c.check(len(set(x for x in counts if x is not None)) >= 2, "the counters grew while the program ran", f"{counts}")
    c.check(db_counts == sorted(db_counts), "the database only gains dispatches while the program runs",
            f"{db_counts}")
    rep = e2e.load_json(c, out, "interval_sinks: the JSON summary is readable")
    check_final(c, rep, truth, "interval_sinks")
    rows = run_sinks.sqlite(c, db, f"SELECT count(*) AS n, sum(d.duration_ns) AS ns FROM dispatches d "
                                   f"JOIN kernels k ON k.id = d.kernel WHERE k.name = '{KERNEL}';", "final count")
    row = kernel_row(rep) if rep else None
    if rows and row:
        c.check(rows[0]["n"] == want, f"the database holds the {want} dispatches", f"{rows!r}")
        c.check(rows[0]["ns"] == row.get("span_total_ns"), "the database's durations sum to the JSON span total",
                f"{rows[0]['ns']} vs {row.get('span_total_ns')}")
    print(f"  Prometheus files read: {len(scrapes)}, dispatch counts {counts}; database counts {db_counts}")
    return run.tail("interval_sinks")


CASES = {"interval": case_interval, "signal": case_signal, "control": case_control,
         "window_label": case_window_label, "window_time": case_window_time, "trace_all": case_trace_all,
         "bad_input": case_bad_input, "interval_sinks": case_interval_sinks}


def main():
    return e2e.case_main(__doc__, CASES, "live")


if __name__ == "__main__":
    sys.exit(main())
