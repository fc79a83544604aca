#!/bin/sh
# The ABI of the shared profiling library: soname libhesper-profiling.so.1, and exactly
# the functions <hesper/profiling.h> declares with HESPER_API exported (all hesper_*,
# all versioned HESPER_PROFILING_1); nothing else.
#   lib_abi.sh LIBRARY HEADER
set -eu
lib=$1
header=$2
status=0
fail() {
	echo "lib_abi: $*" >&2
	status=1
}

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libhesper-profiling.so.1 ] || fail "soname is '$soname', not libhesper-profiling.so.1"

# "ADDRESS TYPE NAME@@VERSION", less the version definition itself (type A).
exported=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $2, $3 }')
[ -n "$exported" ] || fail "nothing exported"
echo "$exported" | while read -r type sym; do
	case $sym in
	hesper_*@@HESPER_PROFILING_1) ;;
	*) echo "lib_abi: exported symbol '$sym' (type $type) is not hesper_*@@HESPER_PROFILING_1" >&2; exit 1 ;;
	esac
	[ "$type" = T ] || { echo "lib_abi: '$sym' is exported as type $type, not a function" >&2; exit 1; }
done || status=1

names=$(echo "$exported" | awk '{ sub(/@.*/, "", $2); print $2 }' | sort)
declared=$(grep 'HESPER_API' "$header" | grep -v '#define' | sed 's/(.*//' | awk '{ print $NF }' | tr -d '*' | sort)
[ -n "$declared" ] || fail "no HESPER_API declarations found in $header"
if [ "$names" != "$declared" ]; then
	fail "exported and declared functions differ (< exported, > declared):"
	printf '%s\n' "$names" > "${TMPDIR:-/tmp}/lib_abi.$$.exported"
	printf '%s\n' "$declared" | diff "${TMPDIR:-/tmp}/lib_abi.$$.exported" - >&2 || true
	rm -f "${TMPDIR:-/tmp}/lib_abi.$$.exported"
fi
[ $status -eq 0 ] && echo "lib_abi: $(echo "$names" | wc -l) functions exported, all declared, soname $soname"
exit $status
