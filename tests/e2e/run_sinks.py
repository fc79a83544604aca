#!/usr/bin/env python3
"""End-to-end checks of the sqlite: and prom: sinks on real runs of multi_kernel.

    run_sinks.py --hesper LIB --tool HESPER --program MULTI_KERNEL --prom-fixture EXE
                 [--preload-first LIB]... CASE

Cases:
  sqlite         multi_kernel under Hesper and the validation layer with json, sqlite, prom
                 and trace sinks, HESPER_MAX_EVENTS=20: the database, queried with the real
                 sqlite3 shell, holds every dispatch (not only the 20 the trace keeps): per
                 kernel, its dispatch rows number the program's own count and the JSON
                 count, their durations sum to the JSON span_total_ns, and its summary row
                 equals the JSON row; the README's three queries run; no WAL is left. The Prometheus
                 file, read by python3-prometheus-client's parser, has the JSON's counts,
                 totals, queue busy time and dropped count.
  merge          two runs, `hesper merge -o all.db a.db b.db`: two processes with their own
                 ids, every dispatch joined to a kernel and a queue of its own process, per
                 process the same rows as its own database.
  prom_escaping  kernel names with a double quote, a backslash and a newline: the parser
                 reads each label value back exactly.
  bad_paths      sqlite: and prom: sinks that cannot be written (missing folder, empty
                 PATH): one "hesper: " line each, the program's output and exit code
                 unchanged, the good sink written.
  locale         multi_kernel taking a decimal-comma locale (de_DE.UTF-8, made with
                 localedef): the JSON summary and trace are valid JSON, every CSV row has
                 the header's columns, the Prometheus file parses.
  relative_paths json, html, sqlite, prom and trace sinks with relative PATHs, the program
                 changing directory before it exits: every file is written where the
                 program started, none where it went.
  stream_fields  a dispatch as every sink gets it: with json, trace and sqlite sinks, each
                 dispatch of the in-memory trace equals its database row field by field
                 (kernel, queue, command buffer, submission, start, end, groups) and carries
                 the JSON's local size; with HESPER_TRACE_ALL=1 the streamed trace equals its
                 database the same way and the first run's in-memory trace in every field
                 that does not depend on timing (queue, submission, kernel, groups, local
                 size, in order); in clock mode too the trace's dispatches carry the local size.

Exit status 0 when every check passes, 1 otherwise.
"""

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402

HESPER_LINE = "hesper: "
# Debian's python3-prometheus-client (pure Python) lives in the system's dist-packages, which
# a python3 other than Debian's own (pyenv, a venv) does not search.
DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"


def prometheus_parser():
    """text_string_to_metric_families from python3-prometheus-client."""
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        if DEBIAN_DIST_PACKAGES not in sys.path and os.path.isdir(DEBIAN_DIST_PACKAGES):
            sys.path.append(DEBIAN_DIST_PACKAGES)
        from prometheus_client.parser import text_string_to_metric_families
    return text_string_to_metric_families

# The README's example queries (README.md, "SQLite database"): kept identical to it.
TOP_KERNELS = """SELECT k.name, count(*) AS dispatches, sum(d.duration_ns) / 1e6 AS total_ms,
       avg(d.duration_ns) / 1e3 AS mean_us
FROM dispatches d JOIN kernels k ON k.id = d.kernel
GROUP BY k.id ORDER BY total_ms DESC LIMIT 10;"""
KERNEL_OVER_TIME = """SELECT (d.start_ns - p.origin_ns) / 1e6 AS at_ms, d.duration_ns / 1e3 AS us
FROM dispatches d JOIN kernels k ON k.id = d.kernel JOIN process p ON p.id = d.process
WHERE k.name = 'saxpy_named' ORDER BY d.start_ns;"""
QUEUE_GAPS = """SELECT queue, start_ns - lag(end_ns) OVER (PARTITION BY queue ORDER BY start_ns) AS gap_ns
FROM dispatches ORDER BY gap_ns DESC LIMIT 5;"""


def sqlite(c, db, sql, what):
    """Rows of @sql on @db from the sqlite3 shell (-json), or None after a failed check."""
    sh = shutil.which("sqlite3")
    if not c.check(sh is not None, "the sqlite3 shell is installed (Debian package sqlite3)"):
        return None
    p = subprocess.run([sh, "-readonly", "-json", db, sql], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    if not c.check(p.returncode == 0 and not p.stderr, f"sqlite3 runs: {what}", f"rc={p.returncode}\n{p.stderr}"):
        return None
    return json.loads(p.stdout) if p.stdout.strip() else []


def run_profiled(c, args, tmp, name, sinks, extra=None):
    """multi_kernel under Hesper and validation with HESPER_REPORT=@sinks; returns the Run."""
    env = e2e.hesper_env(args, dict({"HESPER_REPORT": sinks, "VK_INSTANCE_LAYERS": e2e.VALIDATION_LAYER},
                                    **(extra or {})))
    run = e2e.Run([args.program], env, tmp)
    c.check(run.rc == 0, f"{name}: multi_kernel exits 0 under Hesper", run.tail(name))
    msgs = e2e.validation_messages(run)
    c.check(not msgs, f"{name}: no validation messages", "\n".join(msgs[:20]))
    return run


def check_database(c, db, rep, truth, label):
    """The database @db against the JSON summary @rep and the program's HESPER-TRUTH @truth."""
    rows = sqlite(c, db, "SELECT name, version FROM hesper_schema", "schema")
    c.check(rows == [{"name": "hesper-sqlite", "version": 3}], f"{label}: schema hesper-sqlite version 3", rows)
    kernels = sqlite(c, db, "SELECT k.name, k.count, k.timed, k.total_ns, k.mean_ns, k.median_ns, k.min_ns,"
                     " k.max_ns, k.stddev_ns, k.p95_ns, k.p99_ns,"
                     " (SELECT count(*) FROM dispatches d WHERE d.kernel = k.id) AS rows,"
                     " (SELECT coalesce(sum(d.duration_ns), 0) FROM dispatches d WHERE d.kernel = k.id) AS sum_ns"
                     " FROM kernels k", "kernels")
    if kernels is None:
        return
    by_name = {k["name"]: k for k in kernels}
    json_rows = {k["name"]: k for k in rep["kernels"]}
    c.check(set(by_name) == set(json_rows), f"{label}: the same kernels as the JSON summary",
            f"{sorted(by_name)} vs {sorted(json_rows)}")
    want_counts = sorted(k["count"] for k in truth["kernels"])
    c.check(sorted(k["rows"] for k in kernels) == want_counts,
            f"{label}: dispatch rows per kernel are the program's own counts", f"{kernels} vs {want_counts}")
    for name, j in json_rows.items():
        k = by_name.get(name)
        if not k:
            continue
        c.check(k["rows"] == j["count"] == j["timed"] == k["count"] == k["timed"],
                f"{label}: {name}: dispatch rows = JSON count = JSON timed ({j['count']})", k)
        # Every dispatch is streamed: the rows' durations (whole spans) are exactly the measured
        # span total; the kernels table's total is the JSON's (shares of the GPU time).
        c.check(k["sum_ns"] == j["span_total_ns"] and k["total_ns"] == j["total_ns"],
                f"{label}: {name}: durations sum to the JSON span_total_ns, total_ns as in the JSON",
                f"rows {k['sum_ns']}, kernels {k['total_ns']}, JSON {j['total_ns']} (spans {j['span_total_ns']})")
        for key in ("median_ns", "min_ns", "max_ns", "p95_ns", "p99_ns"):
            c.check(k[key] == j[key], f"{label}: {name}: {key} as in the JSON", f"{k[key]} vs {j[key]}")
        for key in ("mean_ns", "stddev_ns"):
            c.check(abs(k[key] - j[key]) <= 1e-9 * max(1.0, abs(j[key])), f"{label}: {name}: {key} as in the JSON",
                    f"{k[key]} vs {j[key]}")
    proc = sqlite(c, db, "SELECT pid, exe, wall_ns, gpu_busy_ns, dropped FROM process", "process")
    if proc:
        c.check(len(proc) == 1 and proc[0]["pid"] == rep["process"]["pid"] and proc[0]["exe"] == rep["process"]["exe"],
                f"{label}: one process row, the JSON's pid and exe", proc)
        c.check(proc[0]["gpu_busy_ns"] == rep["gpu_busy_ns"] and proc[0]["dropped"] == rep["dropped"],
                f"{label}: GPU busy time and dropped as in the JSON", proc)
    queues = sqlite(c, db, "SELECT family, queue_index, submits, busy_ns FROM queues ORDER BY id", "queues")
    if queues is not None:
        want = [{"family": q["family"], "queue_index": q["index"], "submits": q["submits"], "busy_ns": q["busy_ns"]}
                for q in rep["queues"]]
        c.check(queues == want, f"{label}: queues as in the JSON", f"{queues} vs {want}")
    cost = sqlite(c, db, "SELECT timestamps_written, collected, events_streamed FROM hesper_cost", "cost")
    if cost:
        c.check(cost[0]["timestamps_written"] == rep["hesper"]["timestamps_written"]
                and cost[0]["collected"] == rep["hesper"]["collected"] and cost[0]["events_streamed"] > 0,
                f"{label}: Hesper's own cost as in the JSON", f"{cost} vs {rep['hesper']}")
    subs = sqlite(c, db, "SELECT (SELECT count(*) FROM submissions) AS gpu, (SELECT count(*) FROM host_submits) AS host,"
                  " (SELECT count(*) FROM dispatches WHERE end_ns < start_ns OR queue NOT IN (SELECT id FROM queues))"
                  " AS bad", "submissions")
    if subs:
        c.check(subs[0]["gpu"] == rep["submits"]["count"], f"{label}: one submissions row per timed batch", subs)
        c.check(subs[0]["host"] > 0 and subs[0]["bad"] == 0, f"{label}: host submits kept, every dispatch well formed",
                subs)


def case_sqlite(c, args, tmp):
    base = e2e.Run([args.program], e2e.base_env(args), tmp)
    c.check(base.rc == 0, "multi_kernel passes on its own", base.tail("alone"))
    js, db, prom, trace = (os.path.join(tmp, n) for n in ("r.json", "r.db", "r.prom", "r.trace.json"))
    run = run_profiled(c, args, tmp, "sqlite", f"json:{js},sqlite:{db},prom:{prom},trace:{trace}",
                       {"HESPER_MAX_EVENTS": "20"})
    a, b = e2e.program_lines(base.out), e2e.program_lines(run.out)
    c.check(a == b, "program's stdout unchanged under Hesper", e2e.diff(a, b, "alone", "under Hesper"))
    c.check(not [l for l in run.err.splitlines() if l.startswith(HESPER_LINE)], "no 'hesper: ' line", run.err[-2000:])
    truth = e2e.parse_truth(run.out)
    rep = e2e.load_json(c, js, "JSON summary")
    if not truth or not rep:
        return run.tail("sqlite")
    c.check(rep["hesper"]["trace_left_out"] > 0, "the trace kept only 20 events (the database gets them all)",
            rep["hesper"])
    check_database(c, db, rep, truth, "database")
    leftovers = sorted(n for n in os.listdir(tmp) if n.startswith(".hesper") or n.endswith(("-wal", "-shm")))
    c.check(not leftovers, "no WAL or temporary file left next to the database", leftovers)

    # The README's queries, as a user would run them.
    top = sqlite(c, db, TOP_KERNELS, "README: top kernels")
    if top:
        totals = [r["total_ms"] for r in top]
        c.check(totals == sorted(totals, reverse=True) and len(top) == len(rep["kernels"]),
                "README top kernels: every kernel, by total time", top)
        c.check(top[0]["name"] == rep["kernels"][0]["name"], "README top kernels: the JSON's first kernel first", top)
    over = sqlite(c, db, KERNEL_OVER_TIME, "README: a kernel over time")
    if over is not None:
        want = next(k["count"] for k in truth["kernels"] if k["debug_name"] == "saxpy_named")
        c.check(len(over) == want and all(r["at_ms"] >= 0 for r in over),
                "README durations over time: one row per saxpy_named dispatch, after the process start", over[:5])
    gaps = sqlite(c, db, QUEUE_GAPS, "README: gaps on a queue")
    if gaps is not None:
        c.check(0 < len(gaps) <= 5 and all(g["gap_ns"] is None or isinstance(g["gap_ns"], int) for g in gaps),
                "README gaps: up to five gaps", gaps)

    check_prom(c, prom, rep)
    return run.tail("sqlite")


def check_prom(c, path, rep):
    """The Prometheus file at @path against the JSON summary @rep, through the real parser."""
    try:
        text_string_to_metric_families = prometheus_parser()
    except ImportError as e:
        c.fail("python3-prometheus-client is installed", str(e))
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        families = {f.name: f for f in text_string_to_metric_families(text)}
    except Exception as e:  # noqa: BLE001 (any parse error is the finding)
        c.fail("the Prometheus file parses", f"{e}\n{text[:2000]}")
        return
    c.check(families.get("hesper_kernel_dispatches") and families["hesper_kernel_dispatches"].type == "counter",
            "hesper_kernel_dispatches_total is a counter", sorted(families))

    def samples(family, suffix="_total"):
        fam = families.get(family)
        return [s for s in fam.samples if s.name == family + suffix] if fam else []

    pid = str(rep["process"]["pid"])
    counts = {s.labels["kernel"]: s.value for s in samples("hesper_kernel_dispatches")}
    c.check(counts == {k["name"]: k["count"] for k in rep["kernels"]}, "prom: dispatches per kernel = JSON count",
            counts)
    secs = {s.labels["kernel"]: s.value for s in samples("hesper_kernel_gpu_seconds")}
    c.check(set(secs) == set(counts) and all(abs(secs[k["name"]] - k["total_ns"] / 1e9) < 1e-9 for k in rep["kernels"]),
            "prom: GPU seconds per kernel = JSON total_ns", secs)
    busy = [s.value for s in samples("hesper_queue_busy_seconds")]
    c.check(len(busy) == len(rep["queues"]) and
            all(abs(b - q["busy_ns"] / 1e9) < 1e-9 for b, q in zip(busy, rep["queues"])),
            "prom: queue busy seconds = JSON busy_ns", busy)
    dropped = samples("hesper_dispatches_dropped")
    c.check(len(dropped) == 1 and dropped[0].value == rep["dropped"], "prom: dropped = JSON dropped", dropped)
    parts = {s.labels["part"]: s.value for s in samples("hesper_overhead_seconds")}
    c.check(set(parts) == {"hooks", "collector"} and all(v >= 0 for v in parts.values()),
            "prom: Hesper's own cost, hooks and collector", parts)
    every = [s for f in families.values() for s in f.samples]
    c.check(all(s.labels.get("pid") == pid for s in every), "prom: every series carries the pid", every[:3])


def case_merge(c, args, tmp):
    dbs = []
    for i in range(2):
        db = os.path.join(tmp, f"p{i}.db")
        run_profiled(c, args, tmp, f"run {i}", f"sqlite:{db}")
        dbs.append(db)
    out = os.path.join(tmp, "all.db")
    run = e2e.Run([args.tool, "merge", "-o", out] + dbs, e2e.base_env(args), tmp)
    if not c.check(run.rc == 0, "hesper merge -o all.db exits 0", run.tail("merge")):
        return run.tail("merge")
    procs = sqlite(c, out, "SELECT id, pid FROM process ORDER BY id", "merged processes")
    pids = [sqlite(c, db, "SELECT pid FROM process", "pid")[0]["pid"] for db in dbs]
    c.check([p["pid"] for p in procs or []] == pids and len({p["id"] for p in procs or []}) == 2,
            "two processes, distinct ids, the inputs' pids in order", procs)
    bad = sqlite(c, out, "SELECT count(*) AS n FROM dispatches d LEFT JOIN kernels k ON k.id = d.kernel"
                 " LEFT JOIN queues q ON q.id = d.queue"
                 " WHERE k.process IS NOT d.process OR q.process IS NOT d.process", "joins")
    c.check(bad == [{"n": 0}], "every dispatch joins a kernel and a queue of its own process", bad)
    per_input = [sqlite(c, db, "SELECT k.name, count(*) AS n, sum(d.duration_ns) AS ns FROM dispatches d"
                        " JOIN kernels k ON k.id = d.kernel GROUP BY k.name ORDER BY k.name", "input") for db in dbs]
    for i, proc in enumerate(procs or []):
        got = sqlite(c, out, "SELECT k.name, count(*) AS n, sum(d.duration_ns) AS ns FROM dispatches d"
                     f" JOIN kernels k ON k.id = d.kernel WHERE d.process = {proc['id']} GROUP BY k.name ORDER BY k.name",
                     "merged per process")
        c.check(got == per_input[i], f"process {proc['id']}: the same dispatches as its own database",
                f"{got}\nvs\n{per_input[i]}")
    # A database named twice is merged once.
    run = e2e.Run([args.tool, "merge", "-o", os.path.join(tmp, "once.db"), dbs[0], dbs[0]], e2e.base_env(args), tmp)
    once = sqlite(c, os.path.join(tmp, "once.db"), "SELECT count(*) AS n FROM process", "processes") if run.rc == 0 else None
    c.check(once == [{"n": 1}], "a database named twice is merged once", f"{once}\n{run.tail('merge')}")
    # A database and a JSON file do not merge: one line, exit 2.
    run = e2e.Run([args.tool, "merge", "-o", os.path.join(tmp, "x.db"), dbs[0], args.program],
                  e2e.base_env(args), tmp)
    c.check(run.rc == 2 and run.err.count("\n") == 1 and run.err.startswith(HESPER_LINE),
            "a database with another file: exit 2, one line", run.err)
    return ""


def case_prom_escaping(c, args, tmp):
    text_string_to_metric_families = prometheus_parser()
    names = ['say "hi"', "back\\slash", "two\nlines", 'all \\ " \n of them\\n']
    p = subprocess.run([args.prom_fixture] + names, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if not c.check(p.returncode == 0, "the fixture writes its file", p.stderr):
        return ""
    text = p.stdout.decode("utf-8")
    try:
        fams = {f.name: f for f in text_string_to_metric_families(text)}
    except Exception as e:  # noqa: BLE001
        c.fail("the file parses", f"{e}\n{text}")
        return ""
    got = {s.labels["kernel"]: s.value for s in fams["hesper_kernel_gpu_seconds"].samples}
    want = {n: (i + 1) * 1e-6 for i, n in enumerate(names)}
    c.check(set(got) == set(want), "every kernel name reads back exactly", f"{sorted(got)} vs {sorted(want)}")
    c.check(all(abs(got.get(n, -1) - v) < 1e-12 for n, v in want.items()), "each with its own value", got)
    exes = {s.labels["exe"] for f in fams.values() for s in f.samples}
    c.check(exes == {'fixture "exe"'}, "the exe label reads back", exes)
    return ""


def case_bad_paths(c, args, tmp):
    base = e2e.Run([args.program], e2e.base_env(args), tmp)
    good = os.path.join(tmp, "good.json")
    missing = os.path.join(tmp, "missing")
    spec = f"sqlite:{missing}/x.db,prom:{missing}/x.prom,json:{good},sqlite:"
    run = run_profiled(c, args, tmp, "bad paths", spec)
    c.check(run.rc == base.rc, "exit code unchanged", f"{run.rc} vs {base.rc}")
    a, b = e2e.program_lines(base.out), e2e.program_lines(run.out)
    c.check(a == b, "program's stdout unchanged", e2e.diff(a, b, "alone", "under Hesper"))
    lines = [l for l in run.err.splitlines() if l.startswith(HESPER_LINE)]
    c.check(len(lines) == 3, "three 'hesper: ' lines: the empty PATH, the database, the metrics", "\n".join(lines))
    c.check(any("x.db" in l for l in lines) and any("x.prom" in l for l in lines) and any("'sqlite:'" in l for l in lines),
            "each line names its sink", "\n".join(lines))
    rep = e2e.load_json(c, good, "the good sink is written")
    if rep:
        c.check(sum(k["count"] for k in rep["kernels"]) == 95, "the good sink has every dispatch (95)", rep["kernels"])
    c.check(not os.path.exists(missing), "nothing created for the bad sinks")
    return run.tail("bad paths")


def case_relative_paths(c, args, tmp):
    """Relative PATHs are taken from the directory the program started in, though it changes
    directory before it exits (TEST_CHDIR_AT_END)."""
    away = os.path.join(tmp, "away")
    os.mkdir(away)
    names = ("rel.json", "rel.html", "rel.db", "rel.prom", "rel.trace.json")
    spec = ",".join(f"{kind}:{name}" for kind, name in zip(("json", "html", "sqlite", "prom", "trace"), names))
    run = run_profiled(c, args, tmp, "relative paths", spec, {"TEST_CHDIR_AT_END": away})
    for name in names:
        c.check(os.path.exists(os.path.join(tmp, name)), f"{name} written where the program started",
                f"in {sorted(os.listdir(tmp))}")
    c.check(not os.listdir(away), "nothing written where the program went at its end", sorted(os.listdir(away)))
    rep = e2e.load_json(c, os.path.join(tmp, "rel.json"), "the JSON summary is readable")
    if rep:
        c.check(sum(k["count"] for k in rep["kernels"]) == 95, "it has every dispatch (95)", rep["kernels"])
    return run.tail("relative paths")


def case_locale(c, args, tmp):
    """A program that takes a decimal-comma locale (de_DE, made here with localedef): every
    file sink still writes its numbers with a decimal point."""
    locales = os.path.join(tmp, "locales")
    os.mkdir(locales)
    made = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", os.path.join(locales, "de_DE.UTF-8")],
                          capture_output=True, text=True)
    if not c.check(made.returncode in (0, 1) and os.path.isdir(os.path.join(locales, "de_DE.UTF-8")),
                   "localedef makes de_DE.UTF-8 (package locales)", made.stderr[-2000:]):
        return ""
    files = {kind: os.path.join(tmp, f"loc.{ext}") for kind, ext in
             (("json", "json"), ("csv", "csv"), ("prom", "prom"), ("trace", "trace.json"))}
    spec = ",".join(f"{kind}:{path}" for kind, path in files.items())
    env = {"TEST_SETLOCALE": "1", "LOCPATH": locales, "LC_ALL": "de_DE.UTF-8"}
    run = run_profiled(c, args, tmp, "locale", spec, env)
    if not c.check("decimal point ','" in run.err, "the program runs with a decimal comma",
                   [l for l in run.err.splitlines() if l.startswith("vkc:")]):
        return run.tail("locale")
    rep = e2e.load_json(c, files["json"], "the JSON summary is valid JSON")
    if rep:
        c.check(sum(k["count"] for k in rep["kernels"]) == 95, "the JSON summary has every dispatch (95)",
                rep["kernels"])
    e2e.load_json(c, files["trace"], "the trace is valid JSON")
    with open(files["csv"], encoding="utf-8") as f:
        rows = list(csv.reader(f))
    c.check(rows and all(len(r) == len(rows[0]) for r in rows), "every CSV row has the header's columns",
            "\n".join(",".join(r) for r in rows[:5]))
    with open(files["prom"], encoding="utf-8") as f:
        text = f.read()
    try:
        families = list(prometheus_parser()(text))
        c.check(families, "the Prometheus file parses", "no families")
    except ValueError as e:
        c.fail("the Prometheus file parses", str(e))
    return run.tail("locale")


def ns(us):
    """A trace time in microseconds (three decimals) as integer nanoseconds."""
    return int(round(float(us) * 1000))


def trace_dispatches(c, path, label):
    """The dispatch events of the trace at @path as dicts of their fields (absolute host ns), or None."""
    trace = e2e.load_json(c, path, f"{label}: the trace is readable JSON")
    if trace is None:
        return None
    origin = trace["metadata"]["origin_ns"]
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"]
              if e.get("ph") == "M" and e.get("name") == "thread_name"}
    out = []
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or e.get("cat") != "dispatch":
            continue
        a = e["args"]
        queue = re.search(r"queue family (\d+) index (\d+)", tracks.get((e["pid"], e["tid"]), ""))
        start = origin + ns(e["ts"])
        out.append({"kernel": a["kernel"], "queue": queue and (int(queue.group(1)), int(queue.group(2))),
                    "command_buffer": int(a.get("command_buffer", "0x0"), 16), "submission": a["submission"],
                    "start_ns": start, "end_ns": start + ns(e["dur"]), "groups": a["groups"],
                    "local_size": a.get("local_size")})
    return sorted(out, key=lambda d: (d["start_ns"], d["queue"], d["submission"], d["kernel"]))


def database_dispatches(c, db):
    """The dispatches table of @db as trace_dispatches() gives them (no local size: the table has none)."""
    rows = sqlite(c, db, "SELECT k.name AS kernel, q.family, q.queue_index, d.command_buffer, d.submission,"
                  " d.start_ns, d.end_ns, d.groups_x, d.groups_y, d.groups_z FROM dispatches d"
                  " JOIN kernels k ON k.id = d.kernel JOIN queues q ON q.id = d.queue", "dispatches")
    if rows is None:
        return None
    out = [{"kernel": r["kernel"], "queue": (r["family"], r["queue_index"]),
            "command_buffer": r["command_buffer"] & 0xFFFFFFFFFFFFFFFF, "submission": r["submission"],
            "start_ns": r["start_ns"], "end_ns": max(r["end_ns"], r["start_ns"]),
            "groups": [r["groups_x"], r["groups_y"], r["groups_z"]]} for r in rows]
    return sorted(out, key=lambda d: (d["start_ns"], d["queue"], d["submission"], d["kernel"]))


def same_fields(c, got, want, fields, label):
    """@got and @want, lists of dispatches, agree in @fields one by one; names the first difference."""
    if not c.check(len(got) == len(want) and got, f"{label}: as many dispatches ({len(want)})",
                   f"{len(got)} vs {len(want)}"):
        return
    for i, (g, w) in enumerate(zip(got, want)):
        bad = [f for f in fields if g.get(f) != w.get(f)]
        if bad:
            c.fail(f"{label}: every dispatch field by field", f"dispatch {i}: {bad}\n{g}\nvs\n{w}")
            return
    c.check(True, f"{label}: every dispatch field by field ({', '.join(fields)})")


def timing_free(dispatches):
    """What does not depend on timing, in order within each submission of each queue."""
    keys = ("queue", "submission", "kernel", "groups", "local_size")
    order = sorted(dispatches, key=lambda d: (d["queue"], d["submission"], d["start_ns"]))
    return [{k: d[k] for k in keys} for d in order]


def case_stream_fields(c, args, tmp):
    every = ("kernel", "queue", "command_buffer", "submission", "start_ns", "end_ns", "groups")
    kept = {}
    for label, extra in (("in-memory", {}), ("streamed", {"HESPER_TRACE_ALL": "1"})):
        js, db, trace = (os.path.join(tmp, f"{label}.{n}") for n in ("json", "db", "trace.json"))
        run_profiled(c, args, tmp, label, f"json:{js},sqlite:{db},trace:{trace}", extra)
        rep = e2e.load_json(c, js, f"{label}: JSON summary")
        from_trace, from_db = trace_dispatches(c, trace, label), database_dispatches(c, db)
        if rep is None or from_trace is None or from_db is None:
            return ""
        same_fields(c, from_trace, from_db, every, f"{label}: trace against database")
        sizes = {k["name"]: k.get("local_size") for k in rep["kernels"]}
        wrong = [d for d in from_trace if d["local_size"] != sizes.get(d["kernel"]) or not d["local_size"]]
        c.check(not wrong, f"{label}: every dispatch in the trace has its kernel's local size from the JSON",
                f"{wrong[:3]}\nJSON: {sizes}")
        kept[label] = from_trace
    if len(kept) == 2:
        got, want = timing_free(kept["streamed"]), timing_free(kept["in-memory"])
        same_fields(c, got, want, list(want[0]) if want else [], "streamed trace against the in-memory trace")

    # Clock mode times dispatches by another path: its trace events carry the local size too.
    js, trace = os.path.join(tmp, "clock.json"), os.path.join(tmp, "clock.trace.json")
    run_profiled(c, args, tmp, "clock", f"json:{js},trace:{trace}", {"HESPER_MODE": "clock"})
    rep, from_trace = e2e.load_json(c, js, "clock: JSON summary"), trace_dispatches(c, trace, "clock")
    if rep is not None and from_trace is not None:
        sizes = {k["name"]: k.get("local_size") for k in rep["kernels"]}
        wrong = [d for d in from_trace if d["local_size"] != sizes.get(d["kernel"]) or not d["local_size"]]
        c.check(from_trace and not wrong, "clock: every dispatch in the trace has its kernel's local size",
                f"{len(from_trace)} dispatches; {wrong[:3]}\nJSON: {sizes}")
    return ""


CASES = {"sqlite": case_sqlite, "merge": case_merge, "prom_escaping": case_prom_escaping, "bad_paths": case_bad_paths,
         "relative_paths": case_relative_paths, "locale": case_locale,
         "stream_fields": case_stream_fields}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hesper", required=True, help="libhesper.so")
    ap.add_argument("--tool", required=True, help="the hesper executable")
    ap.add_argument("--program", required=True, help="the built multi_kernel")
    ap.add_argument("--prom-fixture", required=True, help="tests/unit/prom_fixture")
    e2e.add_preload_args(ap)
    ap.add_argument("case", choices=sorted(CASES))
    args = ap.parse_args()
    for k in ("hesper", "tool", "program", "prom_fixture"):
        setattr(args, k, os.path.abspath(getattr(args, k)))
    args.sanitizer_preload = e2e.sanitizer_preload(args, [args.hesper, args.tool])
    c = e2e.Checks(f"sinks-{args.case}", detail_lines=60)
    return e2e.run_checked(c, f"hesper-sinks-{args.case}-", lambda tmp: CASES[args.case](c, args, tmp))


if __name__ == "__main__":
    sys.exit(main())
