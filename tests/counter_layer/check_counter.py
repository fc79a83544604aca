#!/usr/bin/env python3
"""Self-test of the dispatch counter layer against a program with known counts.

    check_counter.py --layer-dir DIR --program PROG [--preload LIB]...

Runs PROG (tests/programs/multi_kernel) with only the counter layer enabled and checks the
counter's JSON against the program's HESPER-TRUTH line: the debug-named kernel under its
name, the multiset of per-kernel counts, the total, and no dispatch without a pipeline.
Exit 0 when every check passes, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

LAYER = "VK_LAYER_HESPERTEST_dispatch_counter"
SCRUB = ("LD_PRELOAD", "VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE",
         "VK_LAYER_PATH", "VK_ADD_LAYER_PATH")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layer-dir", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--preload", action="append", default=[], help="e.g. the ASan runtime")
    args = ap.parse_args()
    args.program = os.path.abspath(args.program)
    args.layer_dir = os.path.abspath(args.layer_dir)
    failures = []
    with tempfile.TemporaryDirectory(prefix="hesper-counter-") as tmp:
        out = os.path.join(tmp, "counts.json")
        env = {k: v for k, v in os.environ.items() if k not in SCRUB and not k.startswith("HESPER_")}
        env.update(VK_ADD_LAYER_PATH=args.layer_dir, VK_INSTANCE_LAYERS=LAYER, DISPATCH_COUNTER_OUT=out)
        if args.preload:
            env["LD_PRELOAD"] = " ".join(args.preload)
            env["ASAN_OPTIONS"] = "quarantine_size_mb=32"
        p = subprocess.run([args.program], env=env, cwd=tmp, capture_output=True, text=True, timeout=100)
        truth = next((json.loads(l.split(" ", 1)[1]) for l in p.stdout.splitlines()
                      if l.startswith("HESPER-TRUTH ")), None)
        if p.returncode != 0 or truth is None:
            print(p.stdout[-4000:], p.stderr[-4000:])
            failures.append(f"program ran (exit {p.returncode}) and printed its truth")
        elif not os.path.exists(out):
            failures.append(f"counter wrote {out}")
        else:
            counts = json.load(open(out))
            kernels = counts["kernels"]
            print("counter:", json.dumps(counts))
            want = sorted(k["count"] for k in truth["kernels"])
            got = sorted(kernels.values())
            if want != got:
                failures.append(f"per-kernel counts {got}, want {want}")
            if counts["total"] != sum(want):
                failures.append(f"total {counts['total']}, want {sum(want)}")
            if counts["unbound"] != 0:
                failures.append(f"unbound dispatches: {counts['unbound']}")
            for k in truth["kernels"]:
                if k["debug_name"] and kernels.get("name:" + k["debug_name"]) != k["count"]:
                    failures.append(f"name:{k['debug_name']} has count {kernels.get('name:' + k['debug_name'])}, "
                                    f"want {k['count']}")
    for f in failures:
        print("FAIL:", f)
    print("PASS counter-layer-selftest" if not failures else "FAIL counter-layer-selftest")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
