#!/usr/bin/env bash
# Runs tests/programs/patterns N times, under Hesper (SHIM directory) or without it (none),
# and counts the runs still alive after LIMIT seconds (hangs), printing each hung run's
# threads (name, kernel wait channel) before killing it. Extra environment: ENV=... words.
# usage: hangprobe.sh SHIM|none N LIMIT_S PATTERN [ARG]   (from the repository root)
shim=$1 n=$2 limit=$3; shift 3
hangs=0
for i in $(seq 1 "$n"); do
	if [ "$shim" = none ]; then
		env ${ENV:-} build/tests/programs/patterns "$@" >/dev/null 2>&1 &
	else
		env ${ENV:-} HESPER_REPORT=json:/tmp/hp.json LD_PRELOAD="$PWD/$shim/libhesper.so" \
			build/tests/programs/patterns "$@" >/dev/null 2>&1 &
	fi
	pid=$!
	for t in $(seq 1 $((limit * 10))); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		hangs=$((hangs + 1))
		echo "HANG run $i ($shim ${ENV:-} $*):"
		for d in /proc/$pid/task/*; do echo "  $(cat $d/comm) wchan=$(cat $d/wchan)"; done
		kill -9 $pid
	fi
	wait $pid 2>/dev/null
done
echo "$shim ${ENV:-} $*: $hangs hangs in $n runs"
