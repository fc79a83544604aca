#!/usr/bin/env bash
# Runs tests/programs/patterns N times under Hesper (SHIM directory) or without it (none),
# each fence wait bounded by VKC_FENCE_TIMEOUT_MS (the program then exits, saying what
# vkGetFenceStatus returns, and Hesper still writes its summary), and counts such hangs.
# Extra environment: ENV="NAME=VALUE ...". Prints one line per hang and a total line.
# HP_KILL_S (default 8) kills a run that has not ended by then.
# usage: hangprobe.sh SHIM|none N PATTERN [ARG...]   (from the repository root)
shim=$1 n=$2; shift 2
hangs=0 fails=0 times=()
export VKC_FENCE_TIMEOUT_MS=${VKC_FENCE_TIMEOUT_MS:-3000} HESPER_EXIT_TIMEOUT_MS=${HESPER_EXIT_TIMEOUT_MS:-1000}
for i in $(seq 1 "$n"); do
	rm -f /tmp/hp.json
	pre=()
	[ "$shim" = none ] || pre=(HESPER_REPORT=json:/tmp/hp.json LD_PRELOAD="$PWD/$shim/libhesper.so")
	t0=$(date +%s.%N)
	env ${ENV:-} "${pre[@]}" timeout -s KILL ${HP_KILL_S:-8} build/tests/programs/patterns "$@" >/tmp/hp.out 2>/tmp/hp.err
	rc=$?
	t1=$(date +%s.%N)
	times+=("$(awk "BEGIN {printf \"%.2f\", $t1 - $t0}")")
	if grep -q "fence not signalled" /tmp/hp.err; then
		hangs=$((hangs + 1))
		echo "HANG run $i rc=$rc: $(grep -m1 'fence not signalled' /tmp/hp.err)"
		[ -s /tmp/hp.json ] && python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("  summary: copies_ahead", j["hesper"]["copies_ahead"], "dropped", j["dropped"],
      "queue submits", [q["submits"] for q in j["queues"]])' /tmp/hp.json
		[ $hangs = 1 ] && dmesg 2>&1 | grep -iE 'xid|nvrm' | tail -n 3 | sed 's/^/  dmesg: /'
	elif [ $rc -ne 0 ]; then
		fails=$((fails + 1))
		echo "FAIL run $i rc=$rc: $(tail -n 1 /tmp/hp.err)"
	fi
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "TOTAL $shim ${ENV:-} $*: $hangs hangs, $fails other failures in $n runs; median run ${median} s"
