#!/usr/bin/env bash
# Same-machine A/B and accuracy runs behind bench/README.md (H200 results, ab.txt).
# Usage, from the repository root: ab.sh build build-old OUT_DIR, where build-old is a
# release build of the earlier layer (commit 5e2a376) and build one of this tree.
# ITERS (default 4695, about 47 us on the H200) sets the busy kernel's loop length.
set -u
new=$1 old=$2 out=$3
mkdir -p "$out"
# 1. demo_pipeline under the previous layer and this one, alternating, three times each.
for i in 1 2 3; do
	for b in "$old" "$new"; do
		TEST_SPV_DIR=$PWD/$b/tests/programs HESPER_REPORT=json:"$out/demo-$(basename "$b")-$i.json" \
			LD_PRELOAD=$PWD/$b/shim/libhesper.so "$b/tests/programs/demo_pipeline" >/dev/null 2>&1
	done
done
# 2. Accuracy on a ~36 us kernel (4695 loop iterations on the H200): the program's own
#    pairs alone, Hesper alone, and Hesper with the program's pairs (same dispatches).
for w in short resubmit; do
	"$new/bench/vkbench" --workload "$w" --way manual --iters "${ITERS:-4695}" ${VKB_ARGS:-} --json >"$out/acc-$w-manual.json" 2>/dev/null
	HESPER_REPORT=json:"$out/acc-$w-hesper.hjson" LD_PRELOAD=$PWD/$new/shim/libhesper.so \
		"$new/bench/vkbench" --workload "$w" --way plain --iters "${ITERS:-4695}" ${VKB_ARGS:-} --json >"$out/acc-$w-hesper.json" 2>/dev/null
	HESPER_REPORT=json:"$out/acc-$w-hesper-on-manual.hjson" LD_PRELOAD=$PWD/$new/shim/libhesper.so \
		"$new/bench/vkbench" --workload "$w" --way manual --iters "${ITERS:-4695}" ${VKB_ARGS:-} --json >"$out/acc-$w-hesper-on-manual.json" 2>/dev/null
done
python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
def kern(path, name):
    return {k["name"]: k for k in json.load(open(path))["kernels"]}[name]
for b in ("build-old", "build"):
    rows = {}
    for p in sorted(glob.glob(os.path.join(out, "demo-%s-[0-9].json" % b))):
        for k in json.load(open(p))["kernels"]:
            rows.setdefault(k["name"], []).append(k["median_ns"] / 1000)
    print("demo_pipeline %-9s median us per kernel over 3 runs:" % b,
          ", ".join("%s %s" % (n, "/".join("%.2f" % v for v in vs)) for n, vs in sorted(rows.items())))
for w in ("short", "resubmit"):
    own = json.load(open(os.path.join(out, "acc-%s-manual.json" % w)))["own"]["mean_ns"]
    alone = kern(os.path.join(out, "acc-%s-hesper.hjson" % w), "vkbench_short")["mean_ns"]
    nested_own = json.load(open(os.path.join(out, "acc-%s-hesper-on-manual.json" % w)))["own_all"]["mean_ns"]
    nested = kern(os.path.join(out, "acc-%s-hesper-on-manual.hjson" % w), "vkbench_short")["mean_ns"]
    print("%-8s own %.3f us | Hesper alone %.3f us (%+.2f%%) | same dispatches: own %.3f, Hesper %.3f (%+.2f%%)" % (
        w, own / 1e3, alone / 1e3, 100 * (alone / own - 1), nested_own / 1e3, nested / 1e3, 100 * (nested / nested_own - 1)))
PY
