#!/usr/bin/env bash
# Runs patterns threads 8 under Hesper N times; on a hang, dumps every thread's stack (SIGUSR2 to each task).
# Needs build-sd/stackdump.so (see stackdump.c); run from the repository root. Output: hang-stacks.txt.
n=$1
for i in $(seq 1 $n); do
	rm -f /tmp/stk-*.txt
	HESPER_REPORT=json:/tmp/hp.json LD_PRELOAD="$PWD/build/shim/libhesper.so $PWD/build-sd/stackdump.so" build/tests/programs/patterns threads 8 >/dev/null 2>&1 &
	pid=$!
	for t in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		echo "HANG run $i"
		for d in /proc/$pid/task/*; do
			tid=${d##*/}
			echo "== tid $tid $(cat $d/comm) wchan=$(cat $d/wchan)"
			grep -E "SigBlk|SigIgn" $d/status | tr '\n' ' '; echo
			python3 -c "import ctypes,sys; ctypes.CDLL(None).syscall(234, int(sys.argv[1]), int(sys.argv[2]), 12)" $pid $tid
		done
		sleep 2
		for f in /tmp/stk-*.txt; do echo "---- $f"; cat "$f"; done
		kill -9 $pid
		wait $pid 2>/dev/null
		exit 0
	fi
	wait $pid 2>/dev/null
done
echo "no hang in $n runs"
