#!/usr/bin/env python3
"""Compares a Vulkan test program's HESPER-TRUTH line with Hesper's JSON summary (counts, timed, dropped).

For machines without the validation layer (the GPU machine); run_e2e.py does the full checks.
Usage: compare_truth.py PROGRAM_OUTPUT SUMMARY_JSON
"""
import json, sys
# Compares a patterns program's HESPER-TRUTH line with Hesper's JSON summary: counts, timed, dropped.
truth = None
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("HESPER-TRUTH "):
        truth = json.loads(line[len("HESPER-TRUTH "):])
got = json.load(open(sys.argv[2]))
rows = {k["name"]: k for k in got["kernels"]}
ok = True
for k in truth["kernels"]:
    name = k["debug_name"]
    cand = [r for r in got["kernels"] if (r["name"] == name if name else r["count"] == k["count"])]
    r = cand[0] if cand else None
    good = r is not None and r["count"] == k["count"] and ("timed" not in k or r["timed"] == k["timed"])
    ok &= good
    print("  %-14s truth count=%d timed=%s  hesper %s -> %s" % (name or k["spv"], k["count"], k.get("timed"), r and (r["name"], r["count"], r["timed"]), "ok" if good else "MISMATCH"))
d_ok = "dropped" not in truth or int(truth["dropped"]) == got["dropped"]
ok &= d_ok
print("  dropped truth=%s hesper=%d queues=%s -> %s" % (truth.get("dropped"), got["dropped"], truth.get("queues"), "ok" if d_ok else "MISMATCH"))
print("PASS" if ok else "FAIL")
