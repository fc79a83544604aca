#!/usr/bin/env bash
# The device calls behind bench/results/h200-2026-11-30d: probes of the `patterns threads`
# hang (hangs.md). From the repository root, with a release build of this tree in build.
#   device.sh matrix OUT_DIR   hangprobe.sh over Hesper's settings and the program's
#                              submission forms, 30 runs each
#   device.sh variants OUT_DIR probes with Hesper builds that differ in one thing (.probe/)
set -u
what=$1 out=$2
mkdir -p "$out"
probe=bench/results/h200-2026-11-30d/hangprobe.sh
export TEST_SPV_DIR=$PWD/build/tests/programs
case "$what" in
matrix)
	{
		$probe build/shim 30 threads 8
		$probe none 30 threads 8
		ENV=HESPER_DISABLE=1 $probe build/shim 30 threads 8
		ENV=HESPER_COPY=wait $probe build/shim 30 threads 8
		ENV=HESPER_MODE=submit $probe build/shim 30 threads 8
		$probe build/shim 30 threads 8 submit
		$probe build/shim 30 threads 8 submit2
		$probe build/shim 30 threads 8 mixed steady
		$probe build/shim 30 threads 4
	} 2>&1 | tee "$out/matrix.txt"
	;;
variants)
	# Hesper builds with one thing changed (.probe/NAME/libhesper.so, see hangs.md), and the
	# program's first submissions made from the main thread.
	{
		$probe build/shim 40 threads 8
		$probe .probe/tl0 40 threads 8
		$probe .probe/early 40 threads 8
		$probe .probe/nocal 40 threads 8
		$probe build/shim 40 threads 8 mixed churn main
		$probe build/shim 40 threads 8 mixed steady
		$probe build/shim 40 threads 4
	} 2>&1 | grep -v Killed | tee "$out/variants.txt"
	;;
esac
# device.sh fixed OUT_DIR: the build with the queue warm-up (layer/submit.c warm_up), 100 runs
# of threads 8 and 30 of threads 8 with steady handles, then threads 8 and resubmit checked
# against the program's truth
if [ "$what" = fixed ]; then
	export HP_KILL_S=6
	{
		$probe build/shim 100 threads 8
		$probe build/shim 30 threads 8 mixed steady
		for p in "threads 8" resubmit; do
			HESPER_REPORT=json:/tmp/p.json LD_PRELOAD=$PWD/build/shim/libhesper.so build/tests/programs/patterns $p \
				>/tmp/p.out 2>/tmp/p.err
			echo "== $p rc=$? stderr: $(head -c 300 /tmp/p.err)"
			python3 tests/e2e/compare_truth.py /tmp/p.out /tmp/p.json | tail -n 3
		done
	} 2>&1 | grep -v Killed | tee "$out/fixed.txt"
fi
