#!/usr/bin/env python3
"""End-to-end checks of Hesper's outputs and of the `hesper` tool, on real runs.

    run_outputs.py --hesper LIB --tool HESPER --programs DIR [--preload-first LIB]... CASE

DIR holds the built test programs (demo_pipeline, multi_kernel, plain_exit).

Cases:
  trace      demo_pipeline and multi_kernel with json and trace sinks: the trace parses,
             has its metadata, keeps the Trace Event Format's rules (trace_rules.py: one
             thread_name per track and every name distinct, no partial overlap on one
             (pid, tid), flows in pairs from each submit call to the first GPU work it
             started, host threads named), and its dispatch events agree with the JSON
             summary (count per kernel = timed count, durations sum to span_total_ns);
             `patterns threads 3`: each worker thread's tracks carry its name.
  trace_cap  HESPER_MAX_EVENTS=50: the trace keeps 50 events and reports the rest as left out.
  html       demo_pipeline's HTML report in headless Chromium: the page script ran without
             console errors, the kernel table lists every kernel of the JSON summary, the
             timeline shows one row per track with distinct names (dispatches and memory
             operations apart), holds every event kept, has a legend of every kind drawn and
             zoom buttons, and opened zoomed to a range (#t=FROM,TO) draws exactly the events
             there; findings print times, bytes and shares; the host-wait table has a mean;
             and a 1280x900 screenshot is a PNG of that size that is not one flat colour.
  tool       `hesper -- program`: reports written, exit status and signals passed through,
             one-line errors for bad options, settings taken as their variables take them;
             `hesper help`; `hesper report` reprints the run's own table.
  reprint    `hesper report FILE.json` prints exactly the text report of the run that wrote
             FILE.json (HESPER_REPORT=stdout,json:FILE.json): in clock mode with a capture
             window at a label and one in seconds, and in submit mode.
  reports    where `hesper -- program` writes its reports and that it says so: a plain run,
             -o with an extension, two Vulkan processes (one file each), a missing folder
             (refused before the program starts), every sink format.
  diff       `hesper diff --runs 5`: two sets of identical multi_kernel runs exit 0; its busy
             kernel planted 1.5x slower exits 1 and is named alone; sides of different
             programs or modes exit 2 with a warning; summaries edited to hold impossible
             numbers (negative, 1e300, NaN, a median past the maximum) exit 2 with one line.
  merge      three runs merged: per-kernel counts add up exactly, one process per run in the
             JSON and in the merged trace, the header naming the program and its pids; files
             named by overlapping globs, a file given twice and a copy merged once; two
             processes that had one pid kept apart.

Exit status 0 when every check passes, 1 otherwise (never 77: a test that cannot run fails).
"""

import argparse
import collections
import difflib
import html
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402  (shared helpers: runs, environment, checks)
import trace_rules  # noqa: E402  (the Trace Event Format's rules)

CHROMIUM_TIMEOUT_S = 120
TRACE_META_KEYS = ["schema", "hesper_version", "pid", "exe", "host", "origin_ns", "calibrated",
                   "alignment_error_ns", "events", "events_left_out", "max_events"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0"]


def run(argv, env, cwd, timeout=None):
    """Runs @argv (e2e.Run); returns (returncode, stdout, stderr) as text ("timeout" on a timeout)."""
    r = e2e.Run(argv, env, cwd, timeout=timeout)
    return r.rc, r.out, r.err


class Env:
    """The environments runs get (e2e.base_env and e2e.hesper_env): the caller's without
    Hesper/loader steering, plus sanitizer preloads."""

    def __init__(self, args):
        self.args = args
        args.sanitizer_preload = e2e.sanitizer_preload(args, [args.hesper, args.tool])

    def plain(self, extra=None):
        env = e2e.base_env(self.args)
        env.update(extra or {})
        return env

    def hesper(self, extra):
        """Hesper preloaded directly (after any sanitizer runtime), with @extra settings."""
        return e2e.hesper_env(self.args, extra)


def program(args, name):
    return os.path.join(args.programs, name)


def load_json(c, path, what):
    return e2e.load_json(c, path, f"{what} is readable JSON")


def ns(us):
    """A trace time in microseconds (three decimals) as integer nanoseconds."""
    return int(round(float(us) * 1000))


def profile_run(c, args, env, workdir, prog, extra_env=None):
    """Runs @prog under Hesper with json and trace sinks; returns (summary, trace) or (None, None)."""
    prefix = os.path.join(workdir, os.path.basename(prog))
    settings = {"HESPER_REPORT": f"json:{prefix}.json,trace:{prefix}.trace.json"}
    settings.update(extra_env or {})
    rc, out, err = run([prog], env.hesper(settings), workdir)
    if not c.check(rc == 0, f"{os.path.basename(prog)} under Hesper exits 0", f"rc={rc}\n{err[-3000:]}"):
        return None, None
    return load_json(c, prefix + ".json", "JSON summary"), load_json(c, prefix + ".trace.json", "trace")


def check_trace_shape(c, trace, label, named_threads=True):
    """Structure, metadata and the Trace Event Format's rules (trace_rules.py). Returns the X events."""
    ok = c.check(isinstance(trace, dict) and trace.get("displayTimeUnit") == "ns"
                 and isinstance(trace.get("traceEvents"), list) and isinstance(trace.get("metadata"), dict),
                 f"{label}: a trace-event object with displayTimeUnit, traceEvents, metadata",
                 str(trace)[:500])
    if not ok:
        return []
    meta = trace["metadata"]
    missing = [k for k in TRACE_META_KEYS if k not in meta]
    c.check(not missing, f"{label}: metadata has {', '.join(TRACE_META_KEYS)}", f"missing {missing}")
    c.check(meta.get("schema") == "hesper-trace/1", f"{label}: schema hesper-trace/1", meta.get("schema"))
    c.check(isinstance(meta.get("calibrated"), bool), f"{label}: calibrated is true/false", meta.get("calibrated"))
    c.check(meta.get("alignment_error_ns") is None or isinstance(meta.get("alignment_error_ns"), (int, float)),
            f"{label}: alignment_error_ns is a number or null", meta.get("alignment_error_ns"))

    xs = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    bad = [e for e in trace["traceEvents"]
           if e.get("ph") not in ("X", "M", "s", "f") or not isinstance(e.get("pid"), int)
           or not isinstance(e.get("tid"), int)]
    c.check(not bad, f"{label}: every event is X, M or a flow (s, f) with integer pid and tid", bad[:3])
    c.check(len(xs) + meta.get("events_not_drawn", 0) == meta.get("events"),
            f"{label}: X events + not drawn = metadata events",
            f"{len(xs)} + {meta.get('events_not_drawn')} != {meta.get('events')}")
    c.check(all(isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float))
                and e["ts"] >= 0 and e["dur"] >= 0 for e in xs),
            f"{label}: X events have ts >= 0 and dur >= 0 (microseconds)")
    flows = trace_rules.check_trace_rules(c, trace, label, named_threads)
    c.check(flows == meta.get("flows"), f"{label}: metadata flows = the flows in the file",
            f"{flows} vs {meta.get('flows')}")
    return xs


def case_trace(c, args, env, workdir):
    for name in ("demo_pipeline", "multi_kernel"):
        summary, trace = profile_run(c, args, env, workdir, program(args, name))
        if summary is None or trace is None:
            continue
        xs = check_trace_shape(c, trace, name)
        meta = trace["metadata"]
        c.check(meta.get("pid") == summary["process"]["pid"], f"{name}: trace pid is the summary's pid")
        c.check(meta.get("events_left_out") == 0, f"{name}: nothing left out at the default cap",
                meta.get("events_left_out"))
        dispatches = [e for e in xs if e.get("cat") == "dispatch"]
        c.check(len(dispatches) > 0, f"{name}: the trace has dispatch events")
        counts = collections.Counter(e["args"]["kernel"] for e in dispatches)
        durations = collections.Counter()
        for e in dispatches:
            durations[e["args"]["kernel"]] += ns(e["dur"])
        for k in summary["kernels"]:
            timed = k.get("timed", k["count"])
            c.check(counts.get(k["name"], 0) == timed, f"{name}: {k['name']}: dispatch events = timed count",
                    f"{counts.get(k['name'], 0)} events, {timed} timed")
            if timed == k["count"] and timed > 0:
                # The events are whole spans: their sum is span_total_ns (total_ns splits overlap).
                total = k.get("span_total_ns", k["total_ns"])
                c.check(abs(durations[k["name"]] - total) <= max(0.01 * total, 1000 * timed),
                        f"{name}: {k['name']}: event durations sum to span_total_ns (1%)",
                        f"sum {durations[k['name']]} ns, span_total_ns {total}")
        extra = set(counts) - {k["name"] for k in summary["kernels"]}
        c.check(not extra, f"{name}: every dispatch event's kernel is in the summary", extra)
        kinds = collections.Counter(e.get("cat") for e in xs)
        c.check(kinds.get("batch", 0) > 0 and kinds.get("submit", 0) > 0,
                f"{name}: the trace has batch and host submit events", dict(kinds))
        c.check(meta.get("flows", 0) > 0, f"{name}: the trace has flows from submit calls to GPU work",
                meta.get("flows"))
        names = {e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"}
        c.check(any(re.fullmatch(r"GPU 0 .* queue family \d+ index \d+ dispatches", n) for n in names),
                f"{name}: a GPU queue's dispatch track is named 'GPU 0 <device> queue family F index I dispatches'",
                names)
        # The main thread's name is the program's (the kernel keeps 15 bytes of it).
        main = re.escape(name[:15])
        c.check(any(re.fullmatch(rf"CPU thread {summary['process']['pid']} \({main}\) submits", n) for n in names),
                f"{name}: the main thread's track is named 'CPU thread <pid> ({name[:15]}) submits'", names)
    # Worker threads named by the program keep their names on their tracks.
    prog = program(args, "patterns")
    prefix = os.path.join(workdir, "threads")
    rc, out, err = run([prog, "threads", "3"], env.hesper({"HESPER_REPORT": f"trace:{prefix}.trace.json"}), workdir)
    if c.check(rc == 0, "patterns threads 3 under Hesper exits 0", f"rc={rc}\n{err[-3000:]}"):
        trace = load_json(c, prefix + ".trace.json", "trace of patterns threads")
        if trace is not None:
            check_trace_shape(c, trace, "patterns threads 3")
            names = {e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"}
            for i in range(3):
                for kind in ("submits", "waits"):
                    c.check(any(re.fullmatch(rf"CPU thread \d+ \(hsp-worker-{i}\) {kind}", n) for n in names),
                            f"patterns threads: worker {i}'s {kind} track carries its name", sorted(names))


def case_trace_cap(c, args, env, workdir):
    summary, trace = profile_run(c, args, env, workdir, program(args, "multi_kernel"), {"HESPER_MAX_EVENTS": "50"})
    if summary is None or trace is None:
        return
    xs = check_trace_shape(c, trace, "multi_kernel, cap 50")
    meta = trace["metadata"]
    c.check(meta.get("max_events") == 50, "max_events is 50", meta.get("max_events"))
    c.check(meta.get("events") == 50, "50 events kept", meta.get("events"))
    timed = sum(k.get("timed", k["count"]) for k in summary["kernels"])
    c.check(meta.get("events_left_out", 0) > 0 and meta.get("events", 0) + meta.get("events_left_out", 0) >= timed,
            "the rest are reported as left out (kept + left out >= timed dispatches)",
            f"kept {meta.get('events')}, left out {meta.get('events_left_out')}, timed dispatches {timed}")
    c.check(len(xs) <= 50, "at most 50 X events in the file", len(xs))
    total = sum(k["count"] for k in summary["kernels"])
    c.check(total == 95, "the summary still counts every dispatch (95)", total)


def png_info(path):
    """(width, height, pixels as rows of bytes, bytes per pixel) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG signature")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError(f"unexpected PNG format depth {depth} colour type {colour}")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        filt = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            cc = prev[i - bpp] if i >= bpp else 0
            if filt == 1:
                line[i] = (line[i] + a) & 0xff
            elif filt == 2:
                line[i] = (line[i] + b) & 0xff
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif filt == 4:
                p = a + b - cc
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else cc
                line[i] = (line[i] + pred) & 0xff
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def chromium(args_list, workdir):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        return None
    profile = tempfile.mkdtemp(prefix="hesper-chromium-", dir=workdir)
    return run([exe] + CHROMIUM_FLAGS + [f"--user-data-dir={profile}"] + args_list, None, workdir,
               timeout=CHROMIUM_TIMEOUT_S)


def console_errors(log):
    return [line for line in log.splitlines()
            if ("CONSOLE" in line and ("Uncaught" in line or "Error" in line)) or "Uncaught" in line]


def html_escape(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def check_submit_mode(c, args, env, workdir):
    """HESPER_MODE=submit counts dispatches without timing them: the text and HTML reports show
    '-' where a time or share would be (never 0.0 or 0 ns), no bar, and JSON regions say timed 0."""
    prog = program(args, "demo_pipeline")
    prefix = os.path.join(workdir, "submit")
    rc, out, err = run([prog], env.hesper({"HESPER_MODE": "submit", "HESPER_REPORT":
                                           f"text:{prefix}.txt,json:{prefix}.json,html:{prefix}.html"}), workdir)
    if not c.check(rc == 0, "demo_pipeline in submit mode exits 0", err[-3000:]):
        return
    summary = load_json(c, prefix + ".json", "submit mode JSON summary")
    if summary is None:
        return
    c.check(summary["kernels"] and all(k["timed"] == 0 for k in summary["kernels"]),
            "submit mode: no kernel timed", summary["kernels"][:2])
    c.check(summary["regions"] and all(r.get("timed") == 0 for r in summary["regions"]),
            "submit mode: every JSON region says \"timed\": 0", summary["regions"])
    with open(prefix + ".txt", encoding="utf-8") as f:
        text = f.read()
    rows = re.findall(r"^ +(\S+) +(\S+) +\d+ +- +- +- +- +- +- +(\S+)$", text, re.M)
    names = {k["name"] for k in summary["kernels"]}
    c.check({r[2] for r in rows} == names and all(r[0] == "-" and r[1] == "-" for r in rows),
            "submit mode text: every kernel row shows '-' for Time (%) and Total", text[-2500:])
    regions = re.search(r"Regions \(debug labels\)\n.*?\n.*?\n((?: .*\n?)+)", text)
    c.check(regions is not None and all(line.split()[0] == "-" and line.split()[2] == "-"
                                        for line in regions.group(1).splitlines()),
            "submit mode text: every region shows '-' for Total and Avg", regions and regions.group(1))
    with open(prefix + ".html", encoding="utf-8") as f:
        page = f.read()
    tables = re.search(r'<table id="kernels".*?aria-label="total time per kernel".*?</svg>', page, re.S)
    if c.check(tables is not None, "submit mode HTML: kernel table, region table and bar chart"):
        zeros = re.findall(r">(?:0 ns|0\.0)<", tables.group(0))
        c.check(not zeros, "submit mode HTML: no 0 ns or 0.0 in the tables and the bar chart", zeros[:5])
        c.check('<rect class="bar"' not in tables.group(0), "submit mode HTML: no bar for an untimed kernel")


def case_html(c, args, env, workdir):
    check_submit_mode(c, args, env, workdir)
    if not c.check(shutil.which("chromium") or shutil.which("chromium-browser"),
                   "chromium is installed (Debian package 'chromium'; scripts/test installs it)"):
        return
    prog = program(args, "demo_pipeline")
    prefix = os.path.join(workdir, "demo")
    rc, out, err = run([prog], env.hesper({"HESPER_REPORT": f"json:{prefix}.json,html:{prefix}.html"}), workdir)
    if not c.check(rc == 0, "demo_pipeline under Hesper exits 0", err[-3000:]):
        return
    summary = load_json(c, prefix + ".json", "JSON summary")
    if summary is None:
        return
    url = "file://" + prefix + ".html"

    res = chromium(["--dump-dom", url], workdir)
    rc, dom, log = res
    if not c.check(rc == 0 and "<html" in dom, "chromium --dump-dom renders the page", f"rc={rc}\n{log[-2000:]}"):
        return
    c.check('data-hesper-script="ok"' in dom, "the page script ran to the end (data-hesper-script=\"ok\")",
            re.findall(r'data-hesper-script="[^"]*"', dom) or dom[:300])
    c.check(not console_errors(log), "no console errors", "\n".join(console_errors(log)[:5]))
    c.check("<canvas" in dom, "the timeline was drawn (a canvas element)")
    data = re.search(r'<script type="application/json" id="hesper-data">(.*?)</script>', dom, re.S)
    if not c.check(data is not None, "the DOM has the timeline's data"):
        return
    data = json.loads(data.group(1))
    # The rows as the page shows them: one label per track, its full name in the title.
    labels = [html.unescape(t) for t in re.findall(r'<div class="tl-label" title="([^"]*)">', dom)]
    c.check(labels == data["tracks"] and len(labels) == len(set(labels)),
            "the timeline shows one row per track, every name distinct", labels)
    c.check(any(t.endswith(" dispatches") for t in labels) and any(t.endswith(" memory operations") for t in labels),
            "dispatches and memory operations have rows of their own", labels)
    kept = summary["hesper"]["trace_events"]
    c.check(data["shown"] == data["total"] == len(data["events"]) == kept,
            "the page holds every event the run kept", f"{data['shown']} shown, {data['total']} total, {kept} kept")
    legend = re.search(r'<ul class="tl-legend">(.*?)</ul>', dom, re.S)
    kinds = {data["kinds"][e[3]]["name"] for e in data["events"]}
    c.check(legend is not None and all(f"{k} (" in legend.group(1) or f"{k}: " in legend.group(1) for k in kinds),
            "the legend names every kind of event drawn", f"{kinds}\n{legend and legend.group(1)[:500]}")
    c.check(all(f'title="{t}"' in dom for t in ("zoom in", "zoom out", "show the whole run")),
            "the timeline has zoom buttons")
    findings = re.search(r'<section id="findings">(.*?)</section>', dom, re.S)
    if c.check(findings is not None, "demo_pipeline has findings (round trips)"):
        raw = re.findall(r"\b\w+=[-0-9.e+]+", findings.group(1))
        c.check(not raw and 'class="num"' in findings.group(1), "findings print times, bytes and shares, not raw numbers",
                raw[:5])
    waits = re.search(r'<table id="waits".*?</thead>', dom, re.S)
    c.check(waits is not None and re.findall(r">(\w+)</th>", waits.group(0)) ==
            ["thread", "call", "count", "total", "mean", "max"], "the host-wait table has a mean column",
            waits and waits.group(0))

    # Zoomed into a range (from the address), the page draws exactly the events that reach into it.
    end = max(e[1] + e[2] for e in data["events"])
    v0, v1 = end // 3, end // 3 + end // 10
    res = chromium(["--dump-dom", f"{url}#t={v0},{v1}"], workdir)
    view = re.search(r'data-view="([^"]*)"', res[1]) if res and res[0] == 0 else None
    want = sum(1 for e in data["events"] if e[1] <= v1 and e[1] + e[2] >= v0)
    c.check(view is not None and view.group(1) == f"{v0} {v1} {want}",
            f"zoomed to [{v0}, {v1}] ns: the {want} events there are drawn", view and view.group(1))
    table = re.search(r'<table id="kernels".*?</table>', dom, re.S)
    if c.check(table is not None, "the DOM has the kernel table"):
        names = re.findall(r'<td class="name">(.*?)</td>', table.group(0), re.S)
        want = [html_escape(k["name"]) for k in summary["kernels"]]
        c.check(names == want, "the kernel table lists the summary's kernels, largest total first",
                f"table {names}\nsummary {want}")
    c.check(len(summary["kernels"]) >= 5, "demo_pipeline has several kernels", len(summary["kernels"]))

    shot = os.path.join(workdir, "shot.png")
    rc, _, log = chromium([f"--screenshot={shot}", "--window-size=1280,900", "--hide-scrollbars", url], workdir)
    if not c.check(rc == 0 and os.path.exists(shot), "chromium --screenshot writes a file", log[-2000:]):
        return
    try:
        width, height, rows, bpp = png_info(shot)
    except (ValueError, zlib.error, struct.error) as e:
        c.fail("the screenshot is a readable PNG", e)
        return
    c.check((width, height) == (1280, 900), "the screenshot is 1280x900", (width, height))
    pixels = collections.Counter()
    for row in rows[::4]:
        for x in range(0, len(row), bpp * 4):
            pixels[row[x:x + 3]] += 1
    top_share = pixels.most_common(1)[0][1] / sum(pixels.values())
    c.check(len(pixels) > 20 and top_share < 0.97, "the screenshot is not blank (many colours, no single one >97%)",
            f"{len(pixels)} colours, most common {top_share:.1%}")


def tool_env(env, extra=None):
    """Environment for running the hesper tool itself: sanitizer preloads only (the tool adds Hesper)."""
    return env.plain(extra)


def case_tool(c, args, env, workdir):
    tool = args.tool
    lib = ["--lib", args.hesper]
    prefix = os.path.join(workdir, "mk")
    mk = program(args, "multi_kernel")

    rc_plain, out_plain, _ = run([mk], env.plain(), workdir)
    rc, out, err = run([tool] + lib + ["-o", prefix, "--format", "text,json,trace,csv,html", "--", mk],
                       tool_env(env), workdir)
    c.check(rc == rc_plain == 0, "hesper -- multi_kernel exits as the program does (0)", f"{rc} vs {rc_plain}\n{err[-2000:]}")
    timing = re.compile(r'"own_mean_ns":[0-9.]+')  # the program's own timing varies run to run
    c.check(timing.sub("", out) == timing.sub("", out_plain), "the program's stdout is unchanged", out[-500:])
    for ext in (".json", ".trace.json", ".csv", ".html"):
        c.check(os.path.exists(prefix + ext), f"-o PREFIX --format writes PREFIX{ext}")
    summary = load_json(c, prefix + ".json", "JSON summary")
    c.check("Time (%)" in err, "the text format goes to stderr", err[-1000:])

    # `hesper report` reprints the table the run printed.
    rc, rep, rep_err = run([tool, "report", prefix + ".json"], tool_env(env), workdir)
    c.check(rc == 0, "hesper report exits 0", rep_err)
    # (the run's stderr ends with the tool's line saying where the reports went)
    start, end = err.find("Hesper GPU kernel summary"), err.rfind("hesper: report written to ")
    end = end if end > start else len(err)
    c.check(start >= 0 and rep == err[start:end], "hesper report FILE.json prints the run's own text report",
            f"--- run ---\n{err[start:]}\n--- report ---\n{rep}")
    if summary:
        c.check(all(k["name"] in rep for k in summary["kernels"]), "hesper report lists every kernel")

    # Exit status and signals pass through; a program that is not Vulkan is left alone.
    rc, out, err = run([tool] + lib + ["-o", os.path.join(workdir, "pe"), "--", program(args, "plain_exit")],
                       tool_env(env), workdir)
    c.check(rc == 3, "hesper -- plain_exit exits 3 as plain_exit does", f"rc={rc}\n{err}")
    rc, _, _ = run([tool] + lib + ["--", "sh", "-c", "kill -TERM $$"], tool_env(env), workdir)
    c.check(rc == -15, "a program killed by SIGTERM: hesper dies of SIGTERM too", rc)
    # A signal sent to hesper reaches the program, and hesper ends as the program does: the
    # fault signals too when another process sends them (kill -SEGV), not only TERM.
    for name in ("TERM", "SEGV", "ABRT"):
        sig = getattr(signal, "SIG" + name)
        proc = subprocess.Popen([tool] + lib + ["--", "sh", "-c", f"trap 'kill $!; exit 7' {name}; sleep 30 & "
                                                "echo ready; wait"],
                                env=tool_env(env), cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
        ready = proc.stdout.readline()
        proc.send_signal(sig)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = "timeout"
        proc.communicate()
        c.check(ready == "ready\n" and rc == 7, f"SIG{name} sent to hesper reaches the program (its trap exits 7)",
                rc)
    rc, _, err = run([tool] + lib + ["--", "sh", "-c", 'case "$LD_PRELOAD" in *libhesper.so*) exit 0;; *) exit 9;; esac'],
                     tool_env(env), workdir)
    c.check(rc == 0, "the program sees libhesper.so in LD_PRELOAD", err)
    rc, out, err = run([tool] + lib + ["--mode", "submit", "--sample", "3", "--max-events", "7", "--", "sh", "-c",
                                      'echo "$HESPER_MODE $HESPER_SAMPLE $HESPER_MAX_EVENTS $HESPER_REPORT"'],
                       tool_env(env), workdir)
    want = f"submit 3 7 stderr,json:{os.path.realpath(workdir)}/hesper-%p.json"
    c.check(out.strip() == want, "options become HESPER_* settings (report paths made absolute)", f"{out}{want}")
    # Settings take what their variables take (layer/state/settings_list.h), no more, no less.
    rc, out, err = run([tool] + lib + ["--max-events", "0", "--sample", "1000000", "--mode", "Clock", "--", "sh",
                                      "-c", 'echo "$HESPER_MAX_EVENTS $HESPER_SAMPLE $HESPER_MODE"'],
                       tool_env(env), workdir)
    c.check(rc == 0 and out.strip() == "0 1000000 Clock",
            "--max-events 0, --sample 1000000 and --mode Clock are accepted, as their variables accept them",
            f"rc={rc} out={out!r} err={err!r}")

    # One clear line and status 2 for bad usage; 127 for a program that is not there.
    for argv, what in ((["--bogus", "--", "true"], "an unknown option"),
                       (["--mode", "fast", "--", "true"], "a bad --mode"),
                       (["--sample", "0", "--", "true"], "a bad --sample"),
                       (["--sample", "2000000", "--", "true"], "a --sample past HESPER_SAMPLE's range"),
                       (["--max-events", "1000000001", "--", "true"], "a --max-events past its range"),
                       (["--max-events", "-1", "--", "true"], "a negative --max-events"),
                       (["--format", "xml", "--", "true"], "an unknown format"),
                       (["-o"], "a missing value"),
                       ([], "no program")):
        rc, out, err = run([tool] + lib + argv, tool_env(env), workdir)
        c.check(rc == 2 and err.count("\n") == 1 and err.startswith("hesper: "),
                f"{what}: exit 2 with one 'hesper: ' line", f"rc={rc} stderr={err!r}")
    rc, _, err = run([tool] + lib + ["--", os.path.join(workdir, "no-such-program")], tool_env(env), workdir)
    c.check(rc == 127 and err.startswith("hesper: cannot run"), "a missing program: exit 127", f"rc={rc} {err!r}")
    rc, _, err = run([tool, "--lib", os.path.join(workdir, "nothing.so"), "--", "true"], tool_env(env), workdir)
    c.check(rc == 2 and err.count("\n") == 1, "a missing --lib: exit 2 with one line", err)
    rc, out, _ = run([tool, "--version"], tool_env(env), workdir)
    c.check(rc == 0 and re.fullmatch(r"hesper \d+\.\d+\.\d+\n", out), "--version prints the version", out)
    rc, out, _ = run([tool, "--help"], tool_env(env), workdir)
    c.check(rc == 0 and "Usage: hesper" in out, "--help prints usage", out[:200])
    # `hesper help` is the usage, not a program called "help" (that one runs as `hesper -- help`).
    bindir = os.path.join(workdir, "bin")
    os.makedirs(bindir, exist_ok=True)
    marker = os.path.join(workdir, "help-ran")
    with open(os.path.join(bindir, "help"), "w") as f:
        f.write(f"#!/bin/sh\ntouch '{marker}'\n")
    os.chmod(os.path.join(bindir, "help"), 0o755)
    path_env = tool_env(env, {"PATH": bindir + os.pathsep + os.environ.get("PATH", "")})
    rc, out, err = run([tool, "help"], path_env, workdir)
    c.check(rc == 0 and "Usage: hesper" in out and not os.path.exists(marker), "hesper help prints usage",
            f"rc={rc} ran={os.path.exists(marker)} {out[:200]}{err}")
    rc, out, err = run([tool] + lib + ["--", "help"], path_env, workdir)
    c.check(rc == 0 and os.path.exists(marker), "hesper -- help runs a program called help", f"rc={rc} {err}")
    # Without --lib the tool finds the library itself (build tree or installed layout).
    rc, out, err = run([tool, "--", "sh", "-c", 'echo "$LD_PRELOAD"'], tool_env(env), workdir)
    c.check(rc == 0 and "libhesper.so" in out, "without --lib the tool finds libhesper.so", f"{out}{err}")
    rc, _, err = run([tool, "report", os.path.join(workdir, "pe.json")], tool_env(env), workdir)
    c.check(rc == 2 and err.count("\n") == 1, "hesper report on a missing file: exit 2, one line", err)


# (label, program, settings, lines the run's text must hold): runs whose text reports hold
# what a reprint has to carry over: the clock mode's lines, the capture window, estimates.
REPRINT_RUNS = [
    ("clock, label window", "demo_pipeline",
     {"HESPER_MODE": "clock", "HESPER_CLOCK_ISOLATED": "barriers", "HESPER_START": "label:analyze",
      "HESPER_STOP": "label:analyze#20"},
     [", timed by clock", " isolated dispatches timed from barrier to barrier", "  capture      from label:analyze",
      "  outside      the window: "]),
    ("clock, time window", "multi_kernel", {"HESPER_MODE": "clock", "HESPER_START": "0.001", "HESPER_STOP": "0.05"},
     [", timed by clock", "  capture      from "]),
    ("submit mode", "demo_pipeline", {"HESPER_MODE": "submit"},
     ["  mode         submit", re.compile(r"\n +- +36 +- +- +- +- +- +analyze\n")]),
    # The regions' tree with the kernels under each label and every instance statistic.
    ("region tree", "demo_pipeline", {},
     [re.compile(r"\nRegions \(debug labels\)\n +Total +Instances +Avg +Med +P95 +Min +Max +Name\n"),
      re.compile(r"\n +\S+ \S+ +36 +(\S+ \S+ +){5}analyze\n(.*\n)*? +\S+ \S+ +\d+ +\S+ \S+ +\* ")]),
]


def case_reprint(c, args, env, workdir):
    """`hesper report FILE.json` prints the text report the run printed (HESPER_REPORT=stdout)."""
    for label, name, settings, wanted in REPRINT_RUNS:
        path = os.path.join(workdir, f"{name}-{len(os.listdir(workdir))}.json")
        rc, out, err = run([program(args, name)], env.hesper(dict(settings, HESPER_REPORT=f"stdout,json:{path}")),
                           workdir)
        if not c.check(rc == 0, f"{label}: {name} under Hesper exits 0", f"rc={rc}\n{err[-3000:]}"):
            continue
        start = out.find("Hesper GPU kernel summary")
        text = out[start:] if start >= 0 else ""
        # The runs' own texts must hold what a reprint used to lose, or the comparison proves nothing.
        missing = [w if isinstance(w, str) else w.pattern for w in wanted
                   if not (w in text if isinstance(w, str) else w.search(text))]
        c.check(start >= 0 and not missing, f"{label}: the run's text report has what the check needs",
                f"missing {missing}\n{text}")
        rc, rep, rep_err = run([args.tool, "report", path], tool_env(env), workdir)
        c.check(rc == 0 and rep == text, f"{label}: hesper report FILE.json prints the run's own text report",
                f"rc={rc} {rep_err}\n" + "".join(difflib.unified_diff(
                    text.splitlines(True), rep.splitlines(True), "run", "hesper report")))


def report_line(err):
    """The tool's closing line about the report files (the last "hesper: " line on stderr)."""
    lines = [line for line in err.splitlines() if line.startswith("hesper: ")]
    return lines[-1] if lines else ""


def new_files(folder, before):
    return sorted(set(os.listdir(folder)) - set(before))


def case_reports(c, args, env, workdir):
    """Where `hesper -- program` writes its reports, and that it says so."""
    tool, lib, mk = args.tool, ["--lib", args.hesper], program(args, "multi_kernel")

    # A plain run: hesper-PID.json, named on stderr.
    plain = os.path.join(workdir, "plain")
    os.makedirs(plain)
    rc, _, err = run([tool] + lib + ["-f", "json", "--", mk], tool_env(env), plain)
    files = os.listdir(plain)
    c.check(rc == 0 and len(files) == 1 and re.fullmatch(r"hesper-\d+\.json", files[0]),
            "a plain run writes one hesper-PID.json", f"rc={rc} {files}\n{err[-1000:]}")
    c.check(files and report_line(err) == f"hesper: report written to {files[0]}",
            "a plain run says on stderr where its report went", err[-1000:])

    # -o with an extension of Hesper's: not doubled.
    before = os.listdir(workdir)
    res = os.path.join(workdir, "res.json")
    rc, _, err = run([tool] + lib + ["-o", res, "-f", "json,csv", "--", mk], tool_env(env), workdir)
    got = new_files(workdir, before)
    c.check(rc == 0 and got == ["res.csv", "res.json"], "-o res.json -f json,csv writes res.json and res.csv",
            f"rc={rc} {got}\n{err[-1000:]}")
    c.check(report_line(err) == f"hesper: report written to {res[:-5]}.csv, {res}",
            "the closing line names both files", err[-1000:])
    summary = load_json(c, res, "res.json")
    c.check(summary and summary.get("schema") == "hesper-summary/1", "res.json is a summary")

    # Two Vulkan processes under one hesper: one file each, named by pid, and said so.
    before = os.listdir(workdir)
    two = os.path.join(workdir, "two")
    rc, _, err = run([tool] + lib + ["-o", two, "-f", "json", "--", "sh", "-c", f"'{mk}'; '{mk}'"],
                     tool_env(env), workdir)
    got = new_files(workdir, before)
    pids = []
    for name in got:
        m = re.fullmatch(r"two-(\d+)\.json", name)
        s = load_json(c, os.path.join(workdir, name), name) if m else None
        if s:
            c.check(s["process"]["pid"] == int(m.group(1)), f"{name} holds the report of pid {m.group(1)}",
                    s["process"])
            pids.append(int(m.group(1)))
    c.check(rc == 0 and len(got) == 2 and len(set(pids)) == 2,
            "two Vulkan processes write two files, two-PID.json each", f"rc={rc} {got}\n{err[-1000:]}")
    line = report_line(err)
    c.check(line.startswith("hesper: 2 processes wrote reports, each its own: ") and all(
        os.path.join(workdir, n) in line for n in got), "the closing line names both processes' files", line)

    # One Vulkan process below a shell that changed folders: the plain name, where -o said.
    elsewhere = os.path.join(workdir, "elsewhere")
    os.makedirs(elsewhere)
    before = os.listdir(workdir)
    rc, _, err = run([tool] + lib + ["-o", "one", "-f", "json", "--", "sh", "-c", f"cd '{elsewhere}'; '{mk}'; true"],
                     tool_env(env), workdir)
    got = new_files(workdir, before)
    c.check(rc == 0 and got == ["one.json"] and not os.listdir(elsewhere),
            "one Vulkan process below a shell, in another folder: one.json where -o said", f"{got}\n{err[-500:]}")

    # A folder that cannot take the files: refused before the program starts.
    marker = os.path.join(workdir, "started")
    rc, _, err = run([tool] + lib + ["-o", "/nonexistent/dir/p", "--", "sh", "-c", f"touch '{marker}'"],
                     tool_env(env), workdir)
    c.check(rc == 2 and err.count("\n") == 1 and "/nonexistent/dir" in err and not os.path.exists(marker),
            "-o into a missing folder: exit 2, one line, the program never started",
            f"rc={rc} started={os.path.exists(marker)} {err!r}")

    # Every sink format the layer has.
    before = os.listdir(workdir)
    rc, _, err = run([tool] + lib + ["-o", os.path.join(workdir, "all"), "-f",
                                     "stderr,stdout,text,json,csv,memcsv,trace,html,sqlite,prom", "--", mk],
                     tool_env(env), workdir)
    got = new_files(workdir, before)
    want = ["all.csv", "all.db", "all.html", "all.json", "all.memops.csv", "all.prom", "all.trace.json"]
    c.check(rc == 0 and got == want, "-f with every format writes every file", f"rc={rc} {got}\n{err[-1000:]}")
    if os.path.exists(os.path.join(workdir, "all.memops.csv")):
        with open(os.path.join(workdir, "all.memops.csv")) as f:
            c.check(f.readline().startswith("operation,count,"), "memcsv writes the memory-operation CSV")
    c.check(err.count("Hesper GPU kernel summary") == 1, "stderr and text are one table on stderr", err[-2000:])


def busy_kernel(summary):
    """The busy kernel: the largest mean (it takes milliseconds; the others microseconds)."""
    return max(summary["kernels"], key=lambda k: k["mean_ns"])["name"]


# Runs a side for the repeated-runs comparisons. Measured on lavapipe with one thread while
# hogs came and went beside it (scripts/test-under-load, 400 runs of each side pooled;
# docs/testing.md): with 10 runs a side the busy kernel planted 1.5x was found, and alone,
# in 40 of 40 tries, and identical sides read slower in 0 of 40; with 5, 75 of 80 and 1 of
# 80 (short kernels run ~40 or ~100 µs by the load of the moment: a side whose five runs all
# met the load reads them 2x slower).
DIFF_RUNS = 10
PLANTED_ITERS = 3750   # multi_kernel's busy kernel 1.5x its default length (2500)


def diff_profile(c, args, env, workdir, label, extra=None, prog="multi_kernel"):
    """One profiled run into LABEL.json; the file, or None."""
    prefix = os.path.join(workdir, label)
    rc, _, err = run([args.tool, "--lib", args.hesper, "-o", prefix, "--format", "json", "--", program(args, prog)],
                     tool_env(env, extra), workdir)
    if not c.check(rc == 0 and os.path.exists(prefix + ".json"), f"{prog} run {label} exits 0", err[-2000:]):
        return None
    return prefix + ".json"


def edited(c, workdir, source, label, edit):
    """A copy of the summary @source with @edit applied to its text (a str -> str function)."""
    with open(source) as f:
        text = edit(f.read())
    path = os.path.join(workdir, label + ".json")
    with open(path, "w") as f:
        f.write(text)
    return path


def case_diff(c, args, env, workdir):
    tool = args.tool
    # lavapipe runs its kernels on the CPU's threads, two here: another process on the
    # machine takes one and a kernel runs 2x longer, for whole runs at a time. One thread
    # (LP_NUM_THREADS=1) keeps the kernels' times about what the program does, which is
    # what these checks are about; the machine's load still varies between runs, and the
    # sides' runs alternate so that both see it alike.
    lp1 = {"LP_NUM_THREADS": "1"}
    sides = {"a": lp1, "same": lp1, "slow": dict(lp1, TEST_BUSY_ITERS=str(PLANTED_ITERS))}

    def alternate(first, last, names):
        """Runs first..last-1 of the sides @names, one of each in turn; a list per side, None when a run failed."""
        made = {name: [] for name in names}
        for i in range(first, last):
            for name in names:
                made[name].append(diff_profile(c, args, env, workdir, f"{name}{i}", sides[name]))
        return None if any(None in v for v in made.values()) else [made[name] for name in names]

    made = alternate(0, DIFF_RUNS, ("a", "same", "slow"))
    if made is None:
        return
    a, a2, b = made
    busy = busy_kernel(load_json(c, a[0], "run A"))
    runs = ["--runs", str(DIFF_RUNS)]

    # Identical sides: exit 0, whatever the machine did meanwhile.
    rc, out, err = run([tool, "diff"] + runs + a + a2, tool_env(env), workdir)
    c.check(rc == 0 and "No kernel slower" in out, f"two sets of {DIFF_RUNS} identical runs: exit 0",
            f"rc={rc}\n{out}\n{err}")
    # The busy kernel 1.5x longer: exit 1, named, its row marked. Where the runs cannot tell it
    # from noise (a machine far busier than CI's: load average 9 on 2 cores, most runs with a
    # dispatch stalled 20-40 ms), more runs, as a user told "noise" would add them.
    rc, out, err = run([tool, "diff"] + runs + a + b, tool_env(env), workdir)
    if rc == 0 and any(busy in line for line in out.splitlines() if '("noise")' in line):
        more = alternate(DIFF_RUNS, 2 * DIFF_RUNS, ("a", "slow"))
        if more is None:
            return
        more_a, more_b = more
        print(f"note: {DIFF_RUNS} runs a side put the planted change down to noise; judged over {2 * DIFF_RUNS}")
        rc, out, err = run([tool, "diff", "--runs", str(2 * DIFF_RUNS)] + a + more_a + b + more_b, tool_env(env),
                           workdir)
    c.check(rc == 1, "the busy kernel planted 1.5x slower: exit 1", f"rc={rc}\n{out}\n{err}")
    verdict = [line for line in out.splitlines() if "slower by more than" in line]
    c.check(verdict and busy in verdict[0] and all(k not in verdict[0] for k in ("saxpy", "reduce")),
            f"the verdict line names {busy}, and it alone", out)
    rows = [line for line in out.splitlines() if line.rstrip().endswith("  " + busy)]
    ratio = re.search(r"(\d+\.\d+)x\s+slower !", rows[0]) if rows else None
    c.check(ratio and 1.3 < float(ratio.group(1)) < 1.75, f"{busy}'s row is marked slower, about 1.5x", out)
    rc, out, err = run([tool, "diff"] + a[:1] + a[:1], tool_env(env), workdir)
    c.check(rc == 0 and "1.00x" in out and "slower !" not in out, "a run against itself: exit 0, ratios 1.00x", out)
    c.check("One run a side: the noise is the spread within each run only" in out and "--runs N" in out,
            "one run a side: the verdict says how little it can tell", out)
    rc, out, err = run([tool, "diff"] + runs + a + a2, tool_env(env), workdir)
    c.check("One run a side" not in out, f"{DIFF_RUNS} runs a side: no word about one run", out)

    # Different programs, modes: a warning and exit 2 (comparing them anyway on request).
    demo = diff_profile(c, args, env, workdir, "demo", None, "demo_pipeline")
    submit = diff_profile(c, args, env, workdir, "submit", {"HESPER_MODE": "submit"})
    if demo and submit:
        for other, what in ((demo, "programs (multi_kernel, demo_pipeline)"), (submit, "modes (dispatch, submit)")):
            rc, out, err = run([tool, "diff", a[0], other], tool_env(env), workdir)
            c.check(rc == 2 and err.count("\n") == 1 and what in err and out == "",
                    f"sides of different {what.split()[0]}: exit 2, one line naming them", f"rc={rc}\n{err}")
        rc, out, err = run([tool, "diff", "--allow-mismatch", a[0], demo], tool_env(env), workdir)
        c.check(rc in (0, 1) and "warning" in err and "new" in out and "gone" in out,
                "--allow-mismatch compares them anyway, with the warning", f"rc={rc}\n{out}\n{err}")
        rc, out, err = run([tool, "diff"] + runs + a[:-1] + [demo] + a2, tool_env(env), workdir)
        c.check(rc == 2 and "programs" in err, "a side whose runs are different programs: exit 2", err)

    # Different groupings (hesper -g): never compared, not even with --allow-mismatch; the
    # same grouping is compared row by row.
    shape = [diff_profile(c, args, env, workdir, f"shape{i}", {"HESPER_GROUP_BY": "shape"}) for i in range(2)]
    prefix = os.path.join(workdir, "shape_g")
    rc, _, err = run([tool, "--lib", args.hesper, "-o", prefix, "--format", "json", "-g", " Shape ", "--",
                      program(args, "multi_kernel")], tool_env(env), workdir)
    got = load_json(c, prefix + ".json", "the run with -g") if rc == 0 else None
    c.check(got is not None and got.get("group_by") == "shape" and
            any(k["name"].endswith("\u00d71\u00d71]") for k in got.get("kernels", [])),
            "hesper -g ' Shape ': a row per launch shape, group_by shape", f"rc={rc}\n{err[-2000:]}")
    rc, out, err = run([tool, "-g", "shapes", "--", program(args, "multi_kernel")], tool_env(env), workdir)
    c.check(rc == 2 and err.count("\n") == 1 and "kernel, shape or label" in err and out == "",
            "hesper -g shapes: exit 2, one line naming the groupings", f"rc={rc}\n{out}\n{err}")
    if None not in shape:
        for extra in ([], ["--allow-mismatch"]):
            rc, out, err = run([tool, "diff"] + extra + [a[0], shape[0]], tool_env(env), workdir)
            c.check(rc == 2 and err.count("\n") == 1 and "groupings (kernel, shape)" in err and out == "",
                    f"sides of different groupings{' (--allow-mismatch)' if extra else ''}: exit 2, one line",
                    f"rc={rc}\n{out}\n{err}")
        rc, out, err = run([tool, "diff", shape[0], shape[1]], tool_env(env), workdir)
        c.check(rc in (0, 1) and "\u00d71\u00d71]" in out and err == "",
                "two runs grouped by shape are compared, row by row", f"rc={rc}\n{out}\n{err}")

    # Numbers no run can hold: one line naming the file, the kernel and the key; exit 2.
    for label, edit, what in (
            ("negative", lambda t: re.sub(r'"mean_ns": [0-9.e+]+', '"mean_ns": -5', t, count=1), '"mean_ns" is -5'),
            ("huge", lambda t: re.sub(r'"total_ns": [0-9]+', '"total_ns": 1e300', t, count=1), '"total_ns" is 1e+300'),
            ("nan", lambda t: re.sub(r'"stddev_ns": [0-9.e+]+', '"stddev_ns": NaN', t, count=1), '"stddev_ns" is nan'),
            ("median", lambda t: re.sub(r'"median_ns": [0-9]+', '"median_ns": 999999999999', t, count=1),
             '"median_ns"'),
            ("document", lambda t: re.sub(r'\n  "wall_ns": [0-9]+', '\n  "wall_ns": -1', t, count=1), '"wall_ns"')):
        bad = edited(c, workdir, a[0], label, edit)
        rc, out, err = run([tool, "diff", a[0], bad], tool_env(env), workdir)
        c.check(rc == 2 and err.count("\n") == 1 and bad in err and what in err and out == "",
                f"a summary with {label} numbers: exit 2, one line", f"rc={rc}\n{out}\n{err!r}")
        # One reader, one verdict: `hesper report` refuses the same file for the same key.
        rc, out, err = run([tool, "report", bad], tool_env(env), workdir)
        c.check(rc == 2 and err.count("\n") == 1 and bad in err and what in err and out == "",
                f"hesper report refuses the summary with {label} numbers as diff does", f"rc={rc}\n{out}\n{err!r}")

    # Bad usage and foreign files.
    rc, out, err = run([tool, "diff", a[0]], tool_env(env), workdir)
    c.check(rc == 2 and err.count("\n") == 1, "diff with one file: exit 2, one line", err)
    rc, out, err = run([tool, "diff"] + runs + a + b[:-1], tool_env(env), workdir)
    c.check(rc == 2 and err.count("\n") == 1, "--runs with a file missing on a side: exit 2, one line", err)
    bad = os.path.join(workdir, "bad.json")
    with open(bad, "w") as f:
        f.write('{"schema": "something-else/1"}')
    rc, out, err = run([tool, "diff", a[0], bad], tool_env(env), workdir)
    c.check(rc == 2 and "not a Hesper summary" in err, "diff with a foreign JSON file: exit 2", err)
    with open(bad, "w") as f:
        f.write('{"schema": ')
    rc, out, err = run([tool, "diff", bad, a[0]], tool_env(env), workdir)
    c.check(rc == 2 and err.count("\n") == 1, "diff with broken JSON: exit 2, one line", err)
    for option in (["--threshold", "lots"], ["--sigmas", "-1"], ["--runs", "0"]):
        rc, out, err = run([tool, "diff"] + option + a[:1] + b[:1], tool_env(env), workdir)
        c.check(rc == 2 and err.count("\n") == 1, f"a bad {option[0]}: exit 2, one line", err)


def case_merge(c, args, env, workdir):
    tool, mk = args.tool, program(args, "multi_kernel")
    summaries, traces = [], []
    for i in range(3):
        prefix = os.path.join(workdir, f"p{i}")
        rc, _, err = run([tool, "--lib", args.hesper, "-o", prefix, "--format", "json,trace", "--", mk],
                         tool_env(env), workdir)
        c.check(rc == 0, f"run {i} exits 0", err[-2000:])
        summaries.append(prefix + ".json")
        traces.append(prefix + ".trace.json")
    inputs = [load_json(c, p, "summary") for p in summaries]
    in_traces = [load_json(c, p, "trace") for p in traces]
    if None in inputs or None in in_traces:
        return

    out_prefix = os.path.join(workdir, "all")
    rc, out, err = run([tool, "merge"] + summaries + traces + ["-o", out_prefix], tool_env(env), workdir)
    if not c.check(rc == 0, "hesper merge exits 0", f"{out}\n{err}"):
        return
    merged = load_json(c, out_prefix + ".json", "merged summary")
    if not merged:
        return
    c.check(merged.get("schema") == "hesper-summary/1", "the merged summary keeps the hesper-summary/1 schema")
    want = collections.Counter()
    for s in inputs:
        for k in s["kernels"]:
            want[k["name"]] += k["count"]
    got = {k["name"]: k["count"] for k in merged["kernels"]}
    c.check(got == dict(want), "merged counts are the sums of the processes' counts", f"{got}\n{dict(want)}")
    total_want = sum(k["total_ns"] for s in inputs for k in s["kernels"])
    total_got = sum(k["total_ns"] for k in merged["kernels"])
    c.check(total_got == total_want, "merged totals add up", f"{total_got} vs {total_want}")
    procs = merged.get("processes", [])
    c.check(len(procs) == 3 and sorted(p["pid"] for p in procs) == sorted(s["process"]["pid"] for s in inputs),
            "one entry per process in \"processes\"", procs)
    imb = {r["name"]: r for r in merged.get("imbalance", [])}
    c.check(set(imb) == set(want) and all(r["processes"] == 3 and r["max_over_min"] >= 1 for r in imb.values()),
            "\"imbalance\" per kernel: 3 processes, max/min >= 1", merged.get("imbalance"))
    c.check("Imbalance between processes" in out and "Processes" in out and "Merged 3 processes" in out,
            "the text shows the merged table, the processes and the imbalance", out[:3000])
    # One summary: merged, with no imbalance table of 1 / 1.
    rc1, out1, err1 = run([tool, "merge", summaries[0], "-o", os.path.join(workdir, "one")], tool_env(env), workdir)
    c.check(rc1 == 0 and "Merged 1 process" in out1 and "Imbalance between processes" not in out1,
            "one summary merged: exit 0, no imbalance table", f"rc={rc1}\n{out1[-2000:]}\n{err1}")
    # "-o one.json" names the file itself, as the run's -o does: not one.json.json.
    rc1, out1, err1 = run([tool, "merge", summaries[0], "-o", os.path.join(workdir, "named.json")], tool_env(env),
                          workdir)
    c.check(rc1 == 0 and os.path.exists(os.path.join(workdir, "named.json"))
            and not os.path.exists(os.path.join(workdir, "named.json.json")),
            "merge -o named.json writes named.json", f"rc={rc1}\n{sorted(os.listdir(workdir))}\n{err1}")
    # An output folder that does not exist: one line, before anything is printed.
    rc1, out1, err1 = run([tool, "merge"] + summaries + ["-o", os.path.join(workdir, "nowhere", "x")], tool_env(env),
                         workdir)
    c.check(rc1 == 2 and not out1 and err1.count("\n") == 1 and "nowhere" in err1 and "json_object" not in err1,
            "merge into a folder that does not exist: exit 2, one line naming it, nothing printed before",
            f"rc={rc1}\nstdout {out1[:500]!r}\nstderr {err1!r}")
    # An empty file: said so.
    empty = os.path.join(workdir, "empty.json")
    open(empty, "w").close()
    rc1, out1, err1 = run([tool, "report", empty], tool_env(env), workdir)
    c.check(rc1 == 2 and err1.count("\n") == 1 and "the file is empty" in err1, "hesper report of an empty file: "
            "exit 2, one line saying it is empty", f"rc={rc1}\n{err1}")

    mt = load_json(c, out_prefix + ".trace.json", "merged trace")
    if mt:
        xs = check_trace_shape_merged(c, mt)
        pids = {e["pid"] for e in xs}
        c.check(len(pids) == 3, "the merged trace has 3 processes", pids)
        n_in = sum(1 for t in in_traces for e in t["traceEvents"] if e.get("ph") == "X")
        c.check(len(xs) == n_in, "every input event is in the merged trace", f"{len(xs)} vs {n_in}")
        # Flow ids carry the pid: the processes' flows stay apart, each still bound to its slices.
        flows = trace_rules.check_trace_rules(c, mt, "merged trace", named_threads=True)
        ids = [e["id"] for e in mt["traceEvents"] if e.get("ph") == "s"]
        c.check(flows == sum(t["metadata"]["flows"] for t in in_traces) and len(ids) == len(set(ids)),
                "every input flow is in the merged trace, no two with one id", f"{flows}, {len(ids)} ids")

    c.check(f"program      multi_kernel (pids {', '.join(str(s['process']['pid']) for s in inputs)}), host "
            in out, "the merged header names the program and its pids", out[:600])
    c.check(merged["process"]["exe"].startswith("multi_kernel (pids "), "the merged JSON's exe names the pids",
            merged["process"])

    # A glob such as rank*.json also matches the traces: each file is still merged once.
    rc, out, err = run([tool, "merge"] + sorted(summaries + traces) + traces + ["-o", os.path.join(workdir, "glob")],
                       tool_env(env), workdir)
    c.check(rc == 0 and "Merged 3 processes" in out and err == "", "overlapping globs: 3 processes, quietly",
            f"rc={rc}\n{out[:300]}\n{err}")
    mt = load_json(c, os.path.join(workdir, "glob.trace.json"), "merged trace")
    if mt:
        xs = [e for e in mt["traceEvents"] if e.get("ph") == "X"]
        n_in = sum(1 for t in in_traces for e in t["traceEvents"] if e.get("ph") == "X")
        c.check(len(xs) == n_in and len({e["pid"] for e in xs}) == 3, "overlapping globs: each trace once",
                f"{len(xs)} events vs {n_in}")

    # A trace is told by its content, whatever its name.
    renamed = os.path.join(workdir, "timeline0.json")
    shutil.copyfile(traces[0], renamed)
    rc, out, err = run([tool, "merge", summaries[0], renamed, "-o", os.path.join(workdir, "named")],
                       tool_env(env), workdir)
    c.check(rc == 0 and "Merged 1 process\n" in out and os.path.exists(os.path.join(workdir, "named.trace.json")),
            "a trace named *.json is merged as a trace", f"rc={rc}\n{out[:300]}\n{err}")

    # The same file twice, or a copy of one process's files: merged once, and said so.
    copy = os.path.join(workdir, "copy.json")
    shutil.copyfile(summaries[0], copy)
    shutil.copyfile(traces[0], os.path.join(workdir, "copy.trace.json"))
    rc, out, err = run([tool, "merge", summaries[0], summaries[0], copy, "--trace", traces[0], "--trace",
                        os.path.join(workdir, "copy.trace.json"), "-o", os.path.join(workdir, "twice")],
                       tool_env(env), workdir)
    c.check(rc == 0 and "Merged 1 process\n" in out, "a file with itself and its copy: merged as 1 process",
            f"rc={rc}\n{out[:300]}\n{err}")
    c.check(err.count("merged once") == 2 and "copy.json" in err and "copy.trace.json" in err,
            "each copy is named on stderr", err)
    mt = load_json(c, os.path.join(workdir, "twice.trace.json"), "merged trace")
    if mt:
        pids = {e["pid"] for e in mt["traceEvents"] if e.get("ph") == "X"}
        c.check(len(pids) == 1, "the trace of one process given twice is merged once", pids)

    # Another process that had the same pid (another host, or a pid reused): two processes.
    other_s, other_t = os.path.join(workdir, "other.json"), os.path.join(workdir, "other.trace.json")
    pid0 = inputs[0]["process"]["pid"]
    summary1, trace1 = dict(inputs[1]), load_json(c, traces[1], "trace")
    summary1["process"] = dict(summary1["process"], pid=pid0)
    for e in trace1["traceEvents"]:
        if "pid" in e:
            e["pid"] = pid0
    trace1["metadata"]["pid"] = pid0
    with open(other_s, "w") as f:
        json.dump(summary1, f)
    with open(other_t, "w") as f:
        json.dump(trace1, f)
    rc, out, err = run([tool, "merge", summaries[0], other_s, traces[0], other_t, "-o",
                        os.path.join(workdir, "reused")], tool_env(env), workdir)
    c.check(rc == 0 and "Merged 2 processes" in out and err == "", "two processes that had one pid: 2 processes",
            f"rc={rc}\n{out[:300]}\n{err}")
    mt = load_json(c, os.path.join(workdir, "reused.trace.json"), "merged trace")
    if mt:
        pids = {e["pid"] for e in mt["traceEvents"] if e.get("ph") == "X"}
        c.check(len(pids) == 2, "a pid seen twice is given a fresh one", pids)
    rc, out, err = run([tool, "merge", summaries[0]], tool_env(env), workdir)
    c.check(rc == 2 and err.count("\n") == 1, "merge without -o: exit 2, one line", err)


def check_trace_shape_merged(c, trace):
    ok = c.check(isinstance(trace.get("traceEvents"), list) and trace.get("metadata", {}).get("merged") is True,
                 "the merged trace has traceEvents and metadata.merged")
    if not ok:
        return []
    xs = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    by_track = collections.defaultdict(list)
    for e in xs:
        by_track[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    problems = 0
    for spans in by_track.values():
        spans.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for start, end in spans:
            while stack and stack[-1] <= start:
                stack.pop()
            problems += bool(stack and end > stack[-1])
            stack.append(end)
    c.check(problems == 0, "merged trace: no partial overlap on any (pid, tid)", problems)
    return xs


CASES = {"trace": case_trace, "trace_cap": case_trace_cap, "html": case_html, "tool": case_tool,
         "reprint": case_reprint, "reports": case_reports, "diff": case_diff, "merge": case_merge}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hesper", required=True, help="libhesper.so")
    ap.add_argument("--tool", required=True, help="the hesper executable")
    ap.add_argument("--programs", required=True, help="directory of the built test programs")
    e2e.add_preload_args(ap)
    ap.add_argument("case", choices=sorted(CASES))
    args = ap.parse_args()
    args.hesper = os.path.abspath(args.hesper)
    args.tool = os.path.abspath(args.tool)
    args.programs = os.path.abspath(args.programs)

    c = e2e.Checks(f"{args.case}", detail_lines=60)
    return e2e.run_checked(c, f"hesper-outputs-{args.case}-",
                           lambda workdir: CASES[args.case](c, args, Env(args), workdir))


if __name__ == "__main__":
    sys.exit(main())
