#!/usr/bin/env bash
# The device calls behind bench/results/h200-2026-11-30e (see bench/README.md). From the
# repository root, with a release build of this tree in build.
#
#   device.sh ab OUT_DIR     (the first call) needs two older builds' shim directories
#                            (libhesper.so and VkLayer_hesper.json) in .probe/:
#       .probe/base   the code before this change, commit 5754b9d (results with
#                     availability words, a submitting thread wakes the idle collector)
#       .probe/slots  one word per result only: commit 3c96bda without the collector's
#                     naps (the hunks of bench/results/lavapipe-2026-11-30/quiet-enqueue.patch)
#       build/shim    one word per result, and the collector naps while submissions flow
#     Results in ab/.
#     1. bench/run, the whole sweep, on build (run.log; its result files did not come back
#        from the device, only the tables in run.log);
#     2. bench/hostcost in 4 x 3 fresh processes, the three builds alternating: Hesper's
#        added host time per case and its own submit hook time per submission
#        (hostcost-ab.txt);
#     3. peak memory of the million workload (10 million dispatches) under base and under
#        build, alternating, 2 each (memory-ab.txt);
#     4. tests/programs/patterns against the program's truth, and 30 runs of
#        `patterns threads 8` through hangprobe.sh (patterns.txt).
#
#   device.sh sweep OUT_DIR  (the second call, on the same code; results in sweep/)
#     1. bench/run, the whole sweep, packed into bench.tgz with run.log beside it (kept
#        here: its table.txt, results.jsonl, meta.json, calibration.jsonl, hostcost.jsonl);
#     2. bench/hostcost 3 more times in fresh processes (hostcost-fresh.txt);
#     3. where the submission time goes (submitN-breakdown.txt): hostcost --only submitN with
#        Hesper's own hook time, 3 processes, then copy_probe's copy costs and its submit
#        shapes at 1,000 queries with each copy way.
#
#   device.sh rss OUT_DIR    (the third call) where Hesper's resident memory goes on the
#                            device (rss.txt): bench/rss_probe twice, then the million
#                            workload's peak and after-setup memory without Hesper, with
#                            Hesper loaded but off (HESPER_DISABLE=1) and in submit mode,
#                            alternating, 3 each. (rss.txt's probe lines come from the
#                            first version of rss_probe, before the steps with more command
#                            buffers, the thread and the batches; rss_probe.txt has them.)
#
#   device.sh maps OUT_DIR   (the fourth call) the million workload's resident memory by
#                            mapping at its peak (rss_by_mapping.py), without Hesper, with
#                            Hesper loaded but off, in submit mode and in dispatch mode
#                            (maps.txt); and bench/rss_probe twice (rss_probe.txt).
#
#   device.sh shapes OUT_DIR (the fifth call) the heap growth of submit mode against the
#                            shape of the work: the million workload's peak by mapping
#                            with and without Hesper in submit mode, for 100,000 dispatches
#                            x 50 or x 2 submissions, and 10,000 x 500 (shapes.txt).
set -u
what=$1 out=$2
mkdir -p "$out"
export TEST_SPV_DIR=$PWD/build/tests/programs

# One line per process: Hesper's added time per hostcost case and its own submit hook time.
hostcost_line() {
	python3 - "$@" <<'PY'
import json, sys
b, hj, rows = sys.argv[1:]
h = json.load(open(hj))
out = ["%s %+.2f" % (r["case"], r["added"]) for r in map(json.loads, open(rows))]
print(b, " ".join(out), "| own submit hook us/submission %.2f"
      % (h["hesper"]["submit_hook_ns"] / h["submits"]["count"] / 1e3))
PY
}

if [ "$what" = ab ]; then
	bench/run --prebuilt build --out "$out/bench" >"$out/run.log" 2>&1
	echo "bench/run exit status $?" >>"$out/run.log"

	for i in 1 2 3 4; do
		for b in .probe/base .probe/slots build/shim; do
			VK_ADD_LAYER_PATH=$PWD/$b HESPER_REPORT=json:/tmp/ab.json build/bench/hostcost --rounds 200 --json \
				>/tmp/ab.out 2>/tmp/ab.err
			hostcost_line "$b" /tmp/ab.json /tmp/ab.out
		done
	done >"$out/hostcost-ab.txt" 2>&1

	for i in 1 2; do
		for b in .probe/base build/shim; do
			HESPER_REPORT=json:/tmp/m.json LD_PRELOAD=$PWD/$b/libhesper.so \
				build/bench/vkbench --workload million --way plain --repeat 1 --json >/tmp/m.out 2>/dev/null
			python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); print(sys.argv[1], "maxrss_kib", r["maxrss_kib"], "setup", r["maxrss_setup_kib"])' \
				"$b" /tmp/m.out
		done
	done >"$out/memory-ab.txt" 2>&1

	{
		for p in simultaneous secondary multisubmit resubmit "threads 8" "million 1000000"; do
			echo "== $p"
			HESPER_REPORT=json:/tmp/p.json LD_PRELOAD=$PWD/build/shim/libhesper.so build/tests/programs/patterns $p \
				>/tmp/p.out 2>/tmp/p.err
			echo "rc=$?"
			python3 tests/e2e/compare_truth.py /tmp/p.out /tmp/p.json | tail -n 3
			python3 -c 'import json,sys; print("copies_ahead", json.load(open(sys.argv[1]))["hesper"]["copies_ahead"])' /tmp/p.json
		done
		HP_KILL_S=6 bench/results/h200-2026-11-30d/hangprobe.sh build/shim 30 threads 8
	} >"$out/patterns.txt" 2>&1
fi

if [ "$what" = sweep ]; then
	bench/run --prebuilt build --out "$out/bench" >"$out/run.log" 2>&1
	echo "bench/run exit status $?" >>"$out/run.log"
	tar czf "$out/bench.tgz" -C "$out" bench && rm -rf "$out/bench"
	for i in 1 2 3; do
		VK_ADD_LAYER_PATH=$PWD/build/shim HESPER_REPORT=json:/tmp/h.json build/bench/hostcost --rounds 300 --json \
			>/tmp/h.out 2>/dev/null
		hostcost_line build/shim /tmp/h.json /tmp/h.out
	done >"$out/hostcost-fresh.txt" 2>&1
	{
		for i in 1 2 3; do
			VK_ADD_LAYER_PATH=$PWD/build/shim HESPER_REPORT=json:/tmp/s.json \
				build/bench/hostcost --rounds 300 --only submitN --json >/tmp/s.out 2>/dev/null
			cat /tmp/s.out
			hostcost_line "submitN alone" /tmp/s.json /tmp/s.out
		done
		build/bench/copy_probe --queries 1000 --queries 100000
		for i in 1 2; do
			for w in wait barrier barrier_avail; do
				build/bench/copy_probe --queries 2 --submits 300 --submit-pairs 500 --submit-copy "$w" |
					grep '"submit"'
			done
		done
	} >"$out/submitN-breakdown.txt" 2>&1
fi

if [ "$what" = rss ]; then
	{
		build/bench/rss_probe
		build/bench/rss_probe
		for i in 1 2 3; do
			for e in "NONE=1" "LD_PRELOAD=$PWD/build/shim/libhesper.so HESPER_DISABLE=1" \
				"LD_PRELOAD=$PWD/build/shim/libhesper.so HESPER_MODE=submit HESPER_REPORT=json:/tmp/r.json"; do
				env $e build/bench/vkbench --workload million --way plain --repeat 1 --json 2>/dev/null |
					python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(sys.argv[1].split("/")[-1] if len(sys.argv[1]) < 30 else sys.argv[1][sys.argv[1].index("libhesper"):], "maxrss_setup_kib", r["maxrss_setup_kib"], "maxrss_kib", r["maxrss_kib"])' "$e"
			done
		done
	} >"$out/rss.txt" 2>&1
fi

if [ "$what" = maps ]; then
	maps=bench/results/h200-2026-11-30e/rss_by_mapping.py
	hesper="LD_PRELOAD=$PWD/build/shim/libhesper.so HESPER_REPORT=json:/tmp/r.json"
	{
		for e in "PLAIN=1" "$hesper HESPER_MODE=submit" "PLAIN=1" "$hesper HESPER_MODE=submit" \
			"$hesper HESPER_DISABLE=1" "$hesper HESPER_MODE=dispatch"; do
			echo "== ${e##*/}"
			env $e $maps build/bench/vkbench --workload million --way plain --repeat 1
		done
	} >"$out/maps.txt" 2>&1
	{
		build/bench/rss_probe
		build/bench/rss_probe
	} >"$out/rss_probe.txt" 2>&1
fi

if [ "$what" = shapes ]; then
	maps=bench/results/h200-2026-11-30e/rss_by_mapping.py
	hesper="LD_PRELOAD=$PWD/build/shim/libhesper.so HESPER_REPORT=json:/tmp/r.json HESPER_MODE=submit"
	for shape in "--dispatches 100000 --submits 50" "--dispatches 100000 --submits 2" \
		"--dispatches 10000 --submits 500"; do
		for e in "PLAIN=1" "$hesper" "PLAIN=1" "$hesper"; do
			echo "== ${e##*/} $shape"
			env $e $maps build/bench/vkbench --workload million --way plain --repeat 1 $shape
		done
	done >"$out/shapes.txt" 2>&1
fi
