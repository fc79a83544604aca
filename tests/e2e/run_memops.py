#!/usr/bin/env python3
"""End-to-end checks of memory operations and launch shapes (tests/programs/memops.c).

    run_memops.py --hesper LIB --program MEMOPS [--preload-first LIB] CASE

Cases:
  profile  MEMOPS alone, then under Hesper + the validation layer with JSON, memcsv,
           trace and text reports: same exit code and stdout, no validation messages; per
           operation kind the count and bytes equal what the program asked for, every
           operation timed, GB/s consistent with bytes over time; copies are not counted as
           dispatches; each kernel's launch shapes and local size equal what it dispatched;
           the trace has one memory event per operation with its bytes.
  submit   HESPER_MODE=submit: operations counted with exact bytes, none timed.
  merge    two runs' JSON summaries merged by `hesper merge` (--tool): every kind's count
           and bytes doubled, each kernel's shapes and local size carried through.
"""

import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check_memops(c, rep, truth, timed):
    """The "memory_operations" rows against the program's truth."""
    rows = {r.get("name"): r for r in rep.get("memory_operations", [])}
    want = {k: v for k, v in truth["memory_operations"].items() if v["count"]}
    c.check(sorted(rows) == sorted(want), "one memory_operations row per kind the program used",
            f"got {sorted(rows)}, want {sorted(want)}")
    for name, w in want.items():
        r = rows.get(name)
        if r is None:
            continue
        c.check(r["count"] == w["count"], f"{name}: count {w['count']}", f"got {r['count']}")
        c.check(r["bytes"] == w["bytes"], f"{name}: bytes {w['bytes']}", f"got {r['bytes']}")
        c.check(r["unsized"] == 0, f"{name}: every operation sized", f"unsized {r['unsized']}")
        if timed:
            c.check(r["timed"] == w["count"], f"{name}: every operation timed", f"timed {r['timed']}")
            c.check(r["timed_bytes"] == w["bytes"], f"{name}: timed_bytes equal bytes", f"got {r['timed_bytes']}")
            c.check(r["total_ns"] > 0 and close(r["mean_gbps"], r["timed_bytes"] / r["total_ns"]),
                    f"{name}: mean_gbps is timed bytes over total time",
                    f"mean_gbps {r['mean_gbps']}, bytes {r['timed_bytes']}, total_ns {r['total_ns']}")
            # The fastest single operation is at least as fast as all of them together.
            c.check(r["best_gbps"] >= r["mean_gbps"] * (1 - 1e-9) and r["best_gbps"] > 0,
                    f"{name}: best_gbps >= mean_gbps > 0", f"best {r['best_gbps']}, mean {r['mean_gbps']}")
            c.check(r["best_gbps"] <= r["timed_bytes"] / max(r["min_ns"], 1) * (1 + 1e-9),
                    f"{name}: best_gbps no faster than all bytes in the shortest time", f"{r}")
        else:
            c.check(r["timed"] == 0 and r["timed_bytes"] == 0 and r["mean_gbps"] == 0,
                    f"{name}: nothing timed in submit mode", f"{r}")


def check_shapes(c, rep, truth):
    """Each kernel row's groups and local_size; kernels matched by their distinct dispatch counts."""
    kernels = rep.get("kernels", [])
    want = truth["shapes"]
    total = sum(w["count"] for w in want.values())
    c.check(sum(k["count"] for k in kernels) == total, f"kernel rows count {total} dispatches (memory operations not among them)",
            f"got {[(k['name'], k['count']) for k in kernels]}")
    for name, w in want.items():
        rows = [k for k in kernels if k["count"] == w["count"]]
        if not c.check(len(rows) == 1, f"{name}: one kernel row with {w['count']} dispatches", f"{kernels}"):
            continue
        g = rows[0].get("groups") or {}
        c.check(rows[0].get("local_size") == w["local_size"], f"{name}: local_size {w['local_size']}",
                f"got {rows[0].get('local_size')}")
        for key in ("min", "max", "most_common", "most_common_count"):
            c.check(g.get(key) == w[key], f"{name}: groups.{key} {w[key]}", f"got {g.get(key)}")
        # Indirect dispatches are read back (Hesper adds TRANSFER_SRC where the program left it out).
        c.check(g.get("unknown") == w["unknown"], f"{name}: groups.unknown {w['unknown']} ({w['indirect']} indirect, read back)",
                f"got {g.get('unknown')}")


def check_trace(c, path, truth):
    trace = e2e.load_json(c, path, "Hesper wrote a readable trace")
    if trace is None:
        return
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    mem = [e for e in events if e.get("cat") == "memory"]
    want = truth["memory_operations"]
    for name, w in want.items():
        mine = [e for e in mem if e.get("name") == name]
        c.check(len(mine) == w["count"], f"trace: {w['count']} '{name}' events", f"got {len(mine)}")
        c.check(sum(e["args"]["bytes"] for e in mine) == w["bytes"], f"trace: '{name}' events carry {w['bytes']} bytes",
                f"got {[e['args'] for e in mine]}")
    disp = [e for e in events if e.get("cat") == "dispatch"]
    shapes = sorted(tuple(e["args"]["groups"]) for e in disp)
    want_shapes = sorted([(3, 2, 1)] * 5 + [(7, 1, 1)] * 2 + [(2, 2, 2)] + [(4, 1, 1), (5, 1, 1)] + [(1, 1, 9)] * 3)
    c.check(shapes == want_shapes, "trace: dispatch events carry the dispatched group counts", f"got {shapes}")
    sizes = sorted(tuple(e["args"].get("local_size", ())) for e in disp)
    want_sizes = sorted([(8, 4, 2)] * 10 + [(16, 2, 1)] * 3)
    c.check(sizes == want_sizes, "trace: dispatch events carry their kernel's local size", f"got {sizes}")


def check_csv(c, path, truth):
    with open(path, newline="", encoding="utf-8") as f:
        rows = {r["operation"]: r for r in csv.DictReader(f)}
    for name, w in truth["memory_operations"].items():
        r = rows.get(name)
        if c.check(r is not None, f"memcsv: a '{name}' row", f"rows {sorted(rows)}"):
            c.check(int(r["count"]) == w["count"] and int(r["bytes"]) == w["bytes"],
                    f"memcsv: '{name}' count {w['count']} and bytes {w['bytes']}", f"{r}")


def case_profile(args, c, tmp):
    base, _ = e2e.baseline(args, c, tmp)
    out_json, out_csv = os.path.join(tmp, "out.json"), os.path.join(tmp, "out.csv")
    out_trace, out_text = os.path.join(tmp, "out.trace.json"), os.path.join(tmp, "out.txt")
    out_html = os.path.join(tmp, "out.html")
    run = e2e.Run([args.program], e2e.hesper_env(args, {
        "HESPER_REPORT": f"json:{out_json},memcsv:{out_csv},trace:{out_trace},text:{out_text},html:{out_html}",
        "VK_INSTANCE_LAYERS": e2e.VALIDATION_LAYER,
        "VK_LOADER_DEBUG": "layer",
    }), tmp)
    context = run.tail("under Hesper")
    e2e.check_like_alone(c, base, run)
    e2e.check_layer_order(c, run)
    truth = e2e.parse_truth(run.out)
    rep = e2e.load_json(c, out_json, "Hesper wrote a readable JSON summary")
    if truth is None or rep is None:
        return context
    check_memops(c, rep, truth, timed=True)
    check_shapes(c, rep, truth)
    check_trace(c, out_trace, truth)
    check_csv(c, out_csv, truth)
    with open(out_text, encoding="utf-8") as f:
        text = f.read()
    c.check("Memory operations" in text and all(k in text for k in truth["memory_operations"]),
            "text report has the memory-operation table", text[-3000:])
    with open(out_html, encoding="utf-8") as f:
        html = f.read()
    c.check('id="memops"' in html and all(f'<td class="name">{k}</td>' in html for k in truth["memory_operations"]),
            "HTML report has the memory-operation table with every kind", "")
    c.check('id="shapes"' in html and "8\u00d74\u00d72" in html and "16\u00d72\u00d71" in html
            and "3\u00d72\u00d71" in html, "HTML report has the launch-shape table with local sizes and shapes", "")
    if c.failures:
        context += "\n--- JSON summary ---\n" + json.dumps(rep, indent=1)[:20000]
    return context


def case_submit(args, c, tmp):
    out_json = os.path.join(tmp, "out.json")
    run = e2e.Run([args.program], e2e.hesper_env(args, {
        "HESPER_REPORT": f"json:{out_json}", "HESPER_MODE": "submit",
        "VK_INSTANCE_LAYERS": e2e.VALIDATION_LAYER,
    }), tmp)
    c.check(run.rc == 0, "exit code 0 under Hesper", run.tail("under Hesper"))
    msgs = e2e.validation_messages(run)
    c.check(not msgs, "no validation messages", "\n".join(msgs[:20]))
    truth = e2e.parse_truth(run.out)
    rep = e2e.load_json(c, out_json, "Hesper wrote a readable JSON summary")
    if truth is not None and rep is not None:
        check_memops(c, rep, truth, timed=False)
    return run.tail("under Hesper")


def case_merge(args, c, tmp):
    if not c.check(bool(args.tool), "--tool given (the hesper command)"):
        return None
    paths = []
    for i in range(2):
        path = os.path.join(tmp, f"run{i}.json")
        run = e2e.Run([args.program], e2e.hesper_env(args, {"HESPER_REPORT": f"json:{path}"}), tmp)
        c.check(run.rc == 0, f"run {i} exits 0", run.tail(f"run {i}"))
        paths.append(path)
    truth = e2e.parse_truth(run.out)
    out = os.path.join(tmp, "merged")
    merged = e2e.Run([args.tool, "merge"] + paths + ["-o", out], e2e.base_env(args), tmp)
    c.check(merged.rc == 0, "hesper merge exits 0", merged.tail("merge"))
    rep = e2e.load_json(c, out + ".json", "hesper merge wrote a readable summary")
    if rep is None or truth is None:
        return merged.tail("merge")
    doubled = {"memory_operations": {k: {"count": 2 * v["count"], "bytes": 2 * v["bytes"]}
                                     for k, v in truth["memory_operations"].items()}}
    rows = {r["name"]: r for r in rep.get("memory_operations", [])}
    for name, w in doubled["memory_operations"].items():
        r = rows.get(name, {})
        c.check(r.get("count") == w["count"] and r.get("bytes") == w["bytes"],
                f"merged {name}: count {w['count']} and bytes {w['bytes']}", f"got {r}")
    for name, w in truth["shapes"].items():
        k = [k for k in rep.get("kernels", []) if k["count"] == 2 * w["count"]]
        if c.check(len(k) == 1, f"merged {name}: one row of {2 * w['count']} dispatches"):
            g = k[0].get("groups") or {}
            c.check(k[0].get("local_size") == w["local_size"] and g.get("most_common") == w["most_common"]
                    and g.get("most_common_count") == 2 * w["most_common_count"]
                    and g.get("unknown") == 2 * w["unknown"], f"merged {name}: shapes carried through", f"{k[0]}")
    return merged.tail("merge")


CASES = {"profile": case_profile, "submit": case_submit, "merge": case_merge}


def main():
    return e2e.case_main(__doc__, CASES, "memops",
                         extra_args=lambda ap: ap.add_argument("--tool", help="the hesper command (merge case)"))


if __name__ == "__main__":
    sys.exit(main())
