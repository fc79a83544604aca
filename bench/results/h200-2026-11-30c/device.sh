#!/usr/bin/env bash
# The device calls behind bench/results/h200-2026-11-30c (see bench/README.md).
# Usage, from the repository root, with a release build of this tree in build:
#   device.sh sweep OUT_DIR   bench/run (the paired host-cost run included), then bench/hostcost
#                             three more times in fresh processes, then tests/programs/patterns
#                             checked against the program's own truth (compare_truth.py)
#   device.sh breakdown OUT   bench/hostcost --only submitN with Hesper's own hook time (dispatch
#                             mode twice, submit mode, HESPER_COPY=wait), then copy_probe's
#                             submit shapes at 20 and 1,000 queries (submitN-breakdown.txt)
#   device.sh ab OUT_DIR      nested accuracy A/B of the opening stage after the program's own
#                             TOP_OF_PIPE timestamp: needs build-v0/shim from commit 2b8dd1f
#                             (BOTTOM_OF_PIPE there); the program's pair around every dispatch
#                             of a busy kernel, Hesper on top, alternating, 3 runs each
set -u
what=$1 out=$2
mkdir -p "$out"
case "$what" in
sweep)
	bench/run --prebuilt build --out "$out/bench" >"$out/run.log" 2>&1
	echo "bench/run exit status $?" >>"$out/run.log"
	for i in 1 2 3; do
		VK_ADD_LAYER_PATH=$PWD/build/shim HESPER_REPORT=json:"$out/hostcost-$i.hjson" \
			build/bench/hostcost --rounds 300 --dispatches 1000 --json >"$out/hostcost-$i.jsonl" 2>&1
	done
	export TEST_SPV_DIR=$PWD/build/tests/programs
	for p in simultaneous secondary multisubmit labels dispatch_kinds two_devices resubmit lifetimes "threads 8" \
		"million 1000000"; do
		echo "== $p"
		HESPER_REPORT=json:/tmp/p.json LD_PRELOAD=$PWD/build/shim/libhesper.so build/tests/programs/patterns $p \
			>/tmp/p.out 2>/tmp/p.err
		echo "rc=$?"
		python3 tests/e2e/compare_truth.py /tmp/p.out /tmp/p.json
		python3 -c 'import json,sys; print("copies_ahead", json.load(open(sys.argv[1]))["hesper"]["copies_ahead"])' /tmp/p.json
	done >"$out/patterns.txt" 2>&1
	;;
breakdown)
	export VK_ADD_LAYER_PATH=$PWD/build/shim
	for v in HESPER_MODE=dispatch HESPER_MODE=dispatch HESPER_MODE=submit HESPER_COPY=wait; do
		echo "== submitN $v"
		env "$v" HESPER_REPORT=json:/tmp/s.json build/bench/hostcost --rounds 300 --only submitN --json
		python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hesper"]; print("own submit hook us per submission %.2f" % (h["submit_hook_ns"] / 305 / 1e3))' /tmp/s.json
	done
	for pairs in 10 500; do
		for w in wait barrier_avail; do
			build/bench/copy_probe --queries 2 --submits 300 --submit-pairs "$pairs" --submit-copy "$w" | grep '"submit"'
		done
	done
	;;
ab)
	mkdir -p "$out/ab"
	for iters in 4695 9390; do
		for i in 1 2 3; do
			for b in build-v0 build; do
				HESPER_REPORT=json:"$out/ab/$b-$iters-$i.hjson" LD_PRELOAD=$PWD/$b/shim/libhesper.so \
					build/bench/vkbench --workload short --way manual --iters "$iters" --json \
					>"$out/ab/$b-$iters-$i.json" 2>>"$out/ab/stderr.txt"
			done
		done
		build/bench/vkbench --workload short --way manual --iters "$iters" --json \
			>"$out/ab/alone-$iters.json" 2>>"$out/ab/stderr.txt"
	done
	python3 - "$out/ab" <<'PY' | tee "$out/ab.txt"
import json, os, sys
d = sys.argv[1]
print("Nested accuracy: the program's own TOP/BOTTOM pair around every dispatch, Hesper on top (vkbench short, manual way)")
print("%-8s %-6s %-3s %12s %12s %9s %12s" % ("build", "iters", "run", "own us", "hesper us", "h vs own", "GPU us/disp"))
for iters in (4695, 9390):
    alone = json.load(open(os.path.join(d, "alone-%d.json" % iters)))
    print("%-8s %-6d %-3s %12.3f %12s %9s %12.3f" % ("none", iters, "-", alone["own_all"]["mean_ns"] / 1e3, "-", "-",
                                                 alone["median"]["gpu_ns_per_dispatch"] / 1e3))
    for b in ("build-v0", "build"):
        for i in (1, 2, 3):
            r = json.load(open(os.path.join(d, "%s-%d-%d.json" % (b, iters, i))))
            h = json.load(open(os.path.join(d, "%s-%d-%d.hjson" % (b, iters, i))))
            k = [k for k in h["kernels"] if k["name"] == "vkbench_short"][0]
            own = r["own_all"]["mean_ns"]
            print("%-8s %-6d %-3d %12.3f %12.3f %+8.2f%% %12.3f" % (b, iters, i, own / 1e3, k["mean_ns"] / 1e3,
                  100 * (k["mean_ns"] / own - 1), r["median"]["gpu_ns_per_dispatch"] / 1e3))
PY
	;;
*)
	echo "usage: device.sh sweep|breakdown|ab OUT_DIR" >&2
	exit 2
	;;
esac
