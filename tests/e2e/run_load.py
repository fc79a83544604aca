#!/usr/bin/env python3
"""Nothing dropped on a busy machine: a test program under Hesper in every way of timing
while load comes and goes beside it.

    run_load.py --hesper LIB --program PROG [--preload-first LIB] loaded

Case:
  loaded  PROG alone, then under Hesper + the validation layer in each way (dispatch,
          submit, clock, clock with HESPER_CLOCK_ISOLATED=span, dispatch with
          HESPER_SAMPLE=4), twice each, while CPU hogs (one per core) are switched on
          and off every 0.2-1.5 s and another copy of PROG runs without Hesper in a loop:
          same exit code and program output as alone, no validation message, dropped 0
          with no drop cause, every kernel's count as the program's HESPER-TRUTH line
          says, and every dispatch timed where the way times them all (dispatch, clock,
          clock-span), none where it times none (submit), at most all where it samples.
          Only what is exact is checked: a busy machine may slow every run, never lose
          or misplace a dispatch.
"""

import multiprocessing
import os
import random
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402

WAYS = {"dispatch": {"HESPER_MODE": "dispatch"},
        "submit": {"HESPER_MODE": "submit"},
        "clock": {"HESPER_MODE": "clock"},
        "clock-span": {"HESPER_MODE": "clock", "HESPER_CLOCK_ISOLATED": "span"},
        "sample4": {"HESPER_MODE": "dispatch", "HESPER_SAMPLE": "4"}}
ROUNDS = 2


def spin(stop):
    """A CPU hog: spins until @stop is set (a multiprocessing.Event)."""
    while not stop.is_set():
        for _ in range(100000):
            pass


class Load:
    """Hogs switched on and off at random, and @program run alone in a loop, until stop()."""

    def __init__(self, program, env, cwd):
        self.done = threading.Event()
        self.switches = 0
        self.beside = 0
        self.threads = [threading.Thread(target=self.hogs, daemon=True),
                        threading.Thread(target=self.vulkan, args=(program, env, cwd), daemon=True)]
        for t in self.threads:
            t.start()

    def hogs(self):
        rng = random.Random(os.getpid())
        cores = os.cpu_count() or 2
        while not self.done.is_set():
            stop = multiprocessing.Event()
            procs = [multiprocessing.Process(target=spin, args=(stop,), daemon=True)
                     for _ in range(rng.randint(1, cores))]
            for p in procs:
                p.start()
            self.switches += 1
            self.done.wait(rng.uniform(0.2, 1.5))
            stop.set()
            for p in procs:
                p.join(5)
            self.done.wait(rng.uniform(0.2, 1.5))

    def vulkan(self, program, env, cwd):
        while not self.done.is_set():
            try:
                subprocess.run([program], env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               timeout=120)
            except subprocess.TimeoutExpired:
                pass
            self.beside += 1

    def stop(self):
        self.done.set()
        for t in self.threads:
            t.join(150)


def check_way(c, args, tmp, base, way, rnd):
    label = f"{way} #{rnd}"
    out_json = os.path.join(tmp, f"{way}-{rnd}.json")
    run = e2e.Run([args.program], e2e.hesper_env(args, dict(WAYS[way], HESPER_REPORT="json:" + out_json,
                                                            VK_INSTANCE_LAYERS=e2e.VALIDATION_LAYER)), tmp)
    c.check(run.rc == base.rc, f"{label}: exit code as alone ({base.rc})", f"got {run.rc}\n{run.tail(label)}")
    a, b = e2e.program_lines(base.out), e2e.program_lines(run.out)
    c.check(a == b, f"{label}: program's stdout unchanged", e2e.diff(a, b, "alone", label))
    msgs = e2e.validation_messages(run)
    c.check(not msgs, f"{label}: no validation messages", "\n".join(msgs[:20]))
    truth = e2e.parse_truth(run.out)
    rep = e2e.load_json(c, out_json, f"{label}: Hesper wrote a readable JSON summary")
    if not c.check(truth is not None, f"{label}: the program printed its HESPER-TRUTH line") or rep is None:
        return run.tail(label)
    c.check(rep.get("dropped") == 0 and not rep.get("dropped_causes"), f"{label}: dropped 0, no drop cause",
            f"dropped {rep.get('dropped')!r}, causes {rep.get('dropped_causes')!r}")
    rows = [r for r in rep.get("kernels", []) if isinstance(r, dict)]
    want = sum(k["count"] for k in truth["kernels"])
    c.check(sum(r.get("count", 0) for r in rows) == want, f"{label}: dispatch counts sum to {want}",
            f"{[(r.get('name'), r.get('count')) for r in rows]}")
    for tk, row in e2e.match_kernels(c, rep, truth):
        if row is None:
            c.fail(f"{label}: a row for {tk['spv']}", f"{[r.get('name') for r in rows]}")
            continue
        name, n, timed = row.get("name"), row.get("count"), row.get("timed")
        c.check(n == tk["count"], f"{label}: {name}: count {tk['count']}", f"got {n}")
        if way == "submit":
            c.check(timed == 0, f"{label}: {name}: no dispatch timed in submit mode", f"timed {timed}")
        elif way == "sample4":
            c.check(isinstance(timed, int) and 0 < timed <= n, f"{label}: {name}: some dispatches timed, at most all",
                    f"timed {timed} of {n}")
        else:
            c.check(timed == n, f"{label}: {name}: every dispatch timed", f"timed {timed} of {n}")
    return None


def case_loaded(args, c, tmp):
    base, truth = e2e.baseline(args, c, tmp)
    if truth is None:
        return base.tail("alone")
    load = Load(args.program, e2e.base_env(args), tmp)
    context = []
    try:
        for rnd in range(1, ROUNDS + 1):
            for way in WAYS:
                ctx = check_way(c, args, tmp, base, way, rnd)
                if ctx:
                    context.append(ctx)
    finally:
        load.stop()
    print(f"load: hogs switched on {load.switches} times; the program ran {load.beside} times beside")
    c.check(load.switches > 0 and load.beside > 0, "the load ran: hogs switched, the program ran beside",
            f"switches {load.switches}, runs beside {load.beside}")
    return "\n".join(context) or None


if __name__ == "__main__":
    sys.exit(e2e.case_main(__doc__, {"loaded": case_loaded}, "load"))
