#!/bin/sh
# Runs the example under Hesper's layer (LD_PRELOAD) with a text report and a trace, then
# checks that the library prints the layer's table for the trace's events (lib_table_check).
#   lib_layer_table.sh EXAMPLE LAYER CHECKER [PRELOAD_FIRST]   (PRELOAD_FIRST: the ASan runtime)
set -eu
example=$1
layer=$2
checker=$3
first=${4:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/hesper-layer-table.XXXXXX")
trap 'rm -rf "$work"' EXIT

unset HESPER_MODE HESPER_SAMPLE HESPER_MAX_EVENTS HESPER_DISABLE HESPER_COPY VK_INSTANCE_LAYERS VK_LOADER_LAYERS_ENABLE
# lavapipe's allocations that outlive its unloading are no leak of the example's (tests/programs/keep_modules.c).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
if ! LD_PRELOAD="${first:+$first }$layer" HESPER_REPORT="text:$work/layer.txt,trace:$work/layer.trace.json" \
	"$example" 4 > "$work/example.out" 2> "$work/example.err"; then
	cat "$work/example.out" "$work/example.err" >&2
	echo "lib_layer_table: the example failed under the layer" >&2
	exit 1
fi
"$checker" "$work/layer.txt" "$work/layer.trace.json"
