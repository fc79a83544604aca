"""The Trace Event Format's rules, as Perfetto and chrome://tracing apply them, checked on a
trace Hesper wrote (hesper-trace/1), for the end-to-end runners and their self-test.

check_trace_rules(c, trace, label) records one check per rule in @c (run_e2e.Checks):

  names    one thread_name per (pid, tid), no two tracks of a process named alike, every
           slice's track named; GPU tracks named "<queue> dispatches", "... memory
           operations", "... labels", "... submissions", host tracks "CPU thread <tid>
           [(<name>)] submits" or "... waits", each maybe with " lane N".
  nesting  the "X" slices of one (pid, tid) are disjoint or nested, never partly overlapping.
  flows    every flow start "s" has exactly one flow end "f" with the same id, category and
           name, and the end binds to its enclosing slice ("bp": "e"); the start lies inside
           (start <= ts < end) a submit call's slice on its track, the end inside the first
           GPU slice (batch, dispatch or memory operation, of some duration) of that call's
           submission on that call's queue; every submit call whose submission has such a
           slice has its flow.
"""

import collections
import re

GPU_TRACK = re.compile(r"^(GPU .*) (dispatches|memory operations|labels|submissions)( lane \d+)?$")
HOST_TRACK = re.compile(r"^CPU thread (\d+)( \((.*)\))? (submits|waits)( lane \d+)?$")
TRACK_OF_CATEGORY = {"dispatch": "dispatches", "memory": "memory operations", "region": "labels",
                     "batch": "submissions", "submit": "submits", "wait": "waits"}
GPU_WORK = ("batch", "dispatch", "memory")


def ns(us):
    """A trace time in microseconds (three decimals) as integer nanoseconds."""
    return int(round(float(us) * 1000))


def track_names(trace):
    """{(pid, tid): [names given by thread_name events]}."""
    names = collections.defaultdict(list)
    for e in trace.get("traceEvents", []):
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e.get("pid"), e.get("tid"))].append((e.get("args") or {}).get("name"))
    return names


def enclosing(slices, ts):
    """The innermost of @slices (start, end, event) with start <= @ts < end, or None."""
    best = None
    for start, end, e in slices:
        if start <= ts < end and (best is None or start >= best[0]):
            best = (start, end, e)
    return best


def check_names(c, trace, label, named_threads):
    names = track_names(trace)
    twice = {k: v for k, v in names.items() if len(v) > 1}
    c.check(not twice, f"{label}: one thread_name per (pid, tid)", twice)
    by_pid = collections.defaultdict(collections.Counter)
    for (pid, _), v in names.items():
        by_pid[pid].update(v)
    alike = {pid: [n for n, k in cnt.items() if k > 1] for pid, cnt in by_pid.items() if any(k > 1 for k in cnt.values())}
    c.check(not alike, f"{label}: no two tracks of a process named alike", alike)
    xs = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    unnamed = sorted({(e["pid"], e["tid"]) for e in xs} - set(names))
    c.check(not unnamed, f"{label}: every slice's track is named", unnamed[:5])
    wrong = []
    for e in xs:
        name = (names.get((e["pid"], e["tid"])) or [""])[0]
        m = GPU_TRACK.match(name) or HOST_TRACK.match(name)
        kind = m and (m.group(2) if m.re is GPU_TRACK else m.group(4))
        if kind != TRACK_OF_CATEGORY.get(e.get("cat")):
            wrong.append(f"{e.get('cat')} {e.get('name')} on {name!r}")
        elif m.re is HOST_TRACK and named_threads and not m.group(3):
            wrong.append(f"{e.get('cat')} on {name!r}: the thread's name is missing")
    c.check(not wrong, f"{label}: each slice on a track named for its kind"
            + (" (host threads with their names)" if named_threads else ""), "\n".join(sorted(set(wrong))[:10]))
    return names


def check_nesting(c, trace, label):
    by_track = collections.defaultdict(list)
    for e in trace["traceEvents"]:
        if e.get("ph") == "X":
            by_track[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e.get("name")))
    problems = []
    for track, spans in by_track.items():
        spans.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for start, end, name in spans:
            while stack and stack[-1][0] <= start:
                stack.pop()
            if stack and end > stack[-1][0]:
                problems.append(f"{track}: {name} [{start}, {end}) overlaps {stack[-1][1]} ending at {stack[-1][0]}")
            stack.append((end, name))
    c.check(not problems, f"{label}: slices of one (pid, tid) are disjoint or nested", "\n".join(problems[:10]))
    return by_track


def check_flows(c, trace, label, names):
    """The flow rules; returns the number of flows."""
    events = trace["traceEvents"]
    slices = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            start = ns(e["ts"])
            slices[(e["pid"], e["tid"])].append((start, start + ns(e["dur"]), e))

    def queue_of(e):
        m = GPU_TRACK.match((names.get((e["pid"], e["tid"])) or [""])[0])
        return m and m.group(1)

    # The first GPU slice with a duration of each (pid, queue, submission).
    first = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in GPU_WORK and ns(e["dur"]) > 0:
            key = (e["pid"], queue_of(e), e["args"]["submission"])
            if key not in first or (ns(e["ts"]), -ns(e["dur"])) < (ns(first[key]["ts"]), -ns(first[key]["dur"])):
                first[key] = e
    flows = [e for e in events if e.get("ph") in ("s", "t", "f")]
    by_id = collections.defaultdict(list)
    for e in flows:
        by_id[(e.get("pid"), e.get("id"))].append(e)
    problems = []
    linked = set()
    for key, group in by_id.items():
        phases = sorted(e["ph"] for e in group)
        if phases != ["f", "s"]:
            problems.append(f"flow {key}: events {phases}, not one 's' and one 'f'")
            continue
        s, f = sorted(group, key=lambda e: e["ph"] != "s")
        if (s.get("cat"), s.get("name")) != (f.get("cat"), f.get("name")) or not s.get("cat"):
            problems.append(f"flow {key}: start and end differ in category or name: {s} {f}")
        if f.get("bp") != "e":
            problems.append(f"flow {key}: the end does not bind to its enclosing slice (\"bp\": \"e\"): {f}")
        src = enclosing(slices[(s["pid"], s["tid"])], ns(s["ts"]))
        dst = enclosing(slices[(f["pid"], f["tid"])], ns(f["ts"]))
        if not src or src[2].get("cat") != "submit":
            problems.append(f"flow {key}: the start is inside no submit call's slice: {s}")
            continue
        submit = src[2]
        want = first.get((submit["pid"], submit["args"].get("queue"), submit["args"]["submission"]))
        if not dst or dst[2] is not want:
            problems.append(f"flow {key}: the end is not inside the first GPU slice of its submission: "
                            f"{dst and dst[2]} vs {want}")
        linked.add(id(submit))
    missing = [e for e in events if e.get("ph") == "X" and e.get("cat") == "submit" and ns(e["dur"]) > 0
               and (e["pid"], e["args"].get("queue"), e["args"]["submission"]) in first and id(e) not in linked]
    c.check(not problems, f"{label}: flow events in pairs, from a submit call to the first GPU work it started",
            "\n".join(problems[:10]))
    c.check(not missing, f"{label}: every submit call with timed GPU work has its flow",
            "\n".join(str(e) for e in missing[:5]))
    return len(by_id)


def check_trace_rules(c, trace, label, named_threads=False):
    """Every rule above on @trace; returns the number of flows (None when it is no trace)."""
    if not c.check(isinstance(trace, dict) and isinstance(trace.get("traceEvents"), list),
                   f"{label}: a trace-event object with traceEvents", str(trace)[:300]):
        return None
    names = check_names(c, trace, label, named_threads)
    check_nesting(c, trace, label)
    return check_flows(c, trace, label, names)
