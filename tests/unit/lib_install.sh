#!/bin/sh
# Installs the build (meson install --destdir) and uses nothing but what was installed,
# found through pkg-config (PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR into the copy):
#   c    the layer, manifests, command, header, hesper.pc and both libraries are there;
#        a C program builds with `pkg-config --cflags --libs hesper` and runs, also linked
#        statically; the installed `hesper report` reads what it wrote; the example builds
#        out of the tree with its meson.build (and Makefile, when make is there) and runs
#        on the Vulkan device (lavapipe in CI)
#   cxx  a C++ program builds against the installed header the same way and runs
#        (exit 77, a skip, without a C++ compiler)
#   lib_install.sh BUILD_DIR SOURCE_DIR SANITIZE c|cxx    (SANITIZE: the build's b_sanitize)
set -eu
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
sanitize=$3
part=$4
cc=${CC:-cc}
cxx=${CXX:-c++}

work=$(mktemp -d "${TMPDIR:-/tmp}/hesper-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { echo "lib_install: $*"; }
fail() {
	echo "lib_install: FAIL: $*" >&2
	exit 1
}

if [ "$part" = cxx ] && ! command -v "$cxx" > /dev/null; then
	say "no C++ compiler ($cxx): skipped"
	exit 77
fi

dest=$work/dest
meson install -C "$build" --no-rebuild --destdir "$dest" > "$work/install.log" 2>&1 ||
	{ cat "$work/install.log" >&2; fail "meson install --destdir failed"; }
pc=$(find "$dest" -name hesper.pc -path '*/pkgconfig/*')
[ -n "$pc" ] || fail "hesper.pc was not installed"
PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
prefix=$(pkg-config --variable=prefix hesper)
libdir=$(pkg-config --variable=libdir hesper)
case $prefix in "$dest"/*) ;; *) fail "pkg-config's prefix '$prefix' is not inside $dest" ;; esac

# A build with sanitizers installs instrumented libraries: programs need the same runtime.
flags=""
if [ "$sanitize" != none ] && [ -n "$sanitize" ]; then
	flags="-fsanitize=$sanitize -fno-omit-frame-pointer"
fi

if [ "$part" = cxx ]; then
	# shellcheck disable=SC2046,SC2086  # pkg-config's words and the flags are meant to split
	"$cxx" -std=c++11 -Wall -Wextra -Werror -pedantic $flags -o "$work/consumer_cpp" "$src/tests/unit/lib_consumer.cpp" \
		$(pkg-config --cflags --libs hesper) || fail "the C++ program did not build"
	LD_LIBRARY_PATH=$libdir "$work/consumer_cpp" > "$work/cpp.out" || { cat "$work/cpp.out"; fail "the C++ program failed"; }
	grep -q "Hesper GPU kernel summary" "$work/cpp.out" || fail "no report from the C++ program"
	say "C++ program built against the installed header and hesper.pc: ok"
	exit 0
fi

for f in "$prefix/include/hesper/profiling.h" "$libdir/libhesper-profiling.so" "$libdir/libhesper-profiling.so.1" \
	"$libdir/libhesper-profiling.a" "$libdir/hesper/libhesper.so" "$libdir/hesper/VkLayer_hesper.json" \
	"$prefix/share/vulkan/explicit_layer.d/VkLayer_hesper_explicit.json" "$prefix/bin/hesper"; do
	[ -e "$f" ] || fail "not installed: ${f#"$dest"}"
done
say "installed: layer, manifests, command, header, hesper.pc, libhesper-profiling.so.1 and .a"

# shellcheck disable=SC2046,SC2086
"$cc" -std=c99 -Wall -Wextra -Werror -pedantic $flags -o "$work/consumer" "$src/tests/unit/lib_consumer.c" \
	$(pkg-config --cflags --libs hesper) || fail "the C program did not build"
readelf -d "$work/consumer" | grep -q 'NEEDED.*\[libhesper-profiling\.so\.1\]' || fail "the program does not need libhesper-profiling.so.1"
LD_LIBRARY_PATH=$libdir "$work/consumer" "$work/run" > "$work/c.out" || { cat "$work/c.out"; fail "the C program failed"; }
grep -q "Hesper GPU kernel summary" "$work/c.out" || fail "no report from the C program"
say "C program built with pkg-config --cflags --libs hesper: ok"

# shellcheck disable=SC2046,SC2086
"$cc" -std=c99 -Wall -Wextra -Werror $flags -o "$work/consumer_static" "$src/tests/unit/lib_consumer.c" \
	$(pkg-config --cflags hesper) $(pkg-config --static --libs hesper | sed 's/-lhesper-profiling/-l:libhesper-profiling.a/') ||
	fail "the C program did not link statically"
if readelf -d "$work/consumer_static" | grep -q 'libhesper-profiling'; then
	fail "the static program still needs the shared library"
fi
"$work/consumer_static" > "$work/static.out" || { cat "$work/static.out"; fail "the static C program failed"; }
say "C program linked with libhesper-profiling.a (pkg-config --static --libs hesper): ok"

"$prefix/bin/hesper" report "$work/run.json" > "$work/tool.out" || fail "the installed hesper report failed"
grep -q "matmul" "$work/tool.out" || fail "hesper report did not print the kernels"
say "the installed hesper command reads the library's JSON summary: ok"

# The example, copied out of the tree as a user would. lavapipe's allocations that outlive
# its unloading (see tests/programs/keep_modules.c) are no leak of the example's.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
cp -R "$src/examples/timed_dispatches" "$work/example"
meson_args=""
[ -n "$flags" ] && meson_args="-Db_sanitize=$sanitize -Db_lundef=false"
# shellcheck disable=SC2086
if ! meson setup $meson_args "$work/example/build" "$work/example" > "$work/example.log" 2>&1 ||
	! ninja -C "$work/example/build" >> "$work/example.log" 2>&1; then
	cat "$work/example.log" >&2
	fail "the example did not build with meson"
fi
LD_LIBRARY_PATH=$libdir "$work/example/build/timed_dispatches" 3 "$work/example/out" > "$work/example.out" ||
	{ cat "$work/example.out"; fail "the example (meson build) failed"; }
grep -q "results ok" "$work/example.out" || fail "the example's results are wrong"
grep -q " Time (%)" "$work/example.out" || fail "the example printed no report"
for f in "$work/example/out.json" "$work/example/out.trace.json"; do
	[ -s "$f" ] || fail "the example did not write $f"
done
say "example built out of the tree with meson and pkg-config, ran: ok"
if command -v make > /dev/null; then
	make -s -C "$work/example" CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror $flags" > "$work/make.log" 2>&1 ||
		{ cat "$work/make.log" >&2; fail "the example did not build with its Makefile"; }
	LD_LIBRARY_PATH=$libdir "$work/example/timed_dispatches" 2 > "$work/make.out" || { cat "$work/make.out"; fail "the example (make) failed"; }
	say "example built with its Makefile, ran: ok"
else
	say "no make: the example's Makefile was not tried"
fi
