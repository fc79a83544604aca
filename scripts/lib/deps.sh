# Sourced by the scripts: installs the Debian packages Hesper needs when they are missing.
# Usage: hesper_install_deps PACKAGE...   (the base set is always included)

HESPER_BASE_PACKAGES="gcc libc6-dev meson ninja-build pkg-config python3 libvulkan-dev libvulkan1 \
libvulkan-volk-dev check mesa-vulkan-drivers glslc vulkan-validationlayers libjson-c-dev libsqlite3-dev \
spirv-headers"

hesper_install_deps() {
	local missing=() pkg
	for pkg in $HESPER_BASE_PACKAGES "$@"; do
		if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
			missing+=("$pkg")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "hesper: installing missing Debian packages: ${missing[*]}"
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "hesper: run as root or install: ${missing[*]}" >&2; return 1; }
		sudo=(sudo)
	fi
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -qq || return 1
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" || return 1
}

# Only the tests need these (the HTML report is checked in headless Chromium; the SQLite
# database is queried with the sqlite3 shell and the Prometheus file read with its Python
# client's parser; the installed library is compiled against from C++; spirv-val checks
# clock mode's rewrite; clang-format 14 checks the C code's format, suite 'style'; a
# program under a decimal-comma locale, made with localedef from the locales' sources).
HESPER_TEST_PACKAGES="chromium g++ sqlite3 python3-prometheus-client spirv-tools clang-format locales"

# One line per package that these scripts install, with its version and dpkg status (one
# never installed prints nothing): what a meson build folder was configured with.
hesper_packages_state() {
	{ dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' \
		$HESPER_BASE_PACKAGES $HESPER_REAL_PACKAGES $HESPER_TEST_PACKAGES 2>/dev/null || true; } | sort
}

# Usage: hesper_configure BUILD_DIR SOURCE_DIR [MESON_SETUP_ARGS...]
# Configures BUILD_DIR (with the arguments when it is new). Meson keeps what it found at
# configure time, so a folder configured before packages were installed (scripts/demo,
# then scripts/test, which installs more) would go on building without them. A plain
# `meson setup --reconfigure` is not enough: Meson 1.0 (Debian 12) keeps the results of
# cc.has_header() and other compiler checks across it, and `meson configure --clearcache`
# clears only dependency() results. So when the packages' state differs from the one the
# folder was configured with (recorded in it), or is not recorded, the folder is configured
# anew with `meson setup --wipe`, which keeps its options. When nothing changed this costs
# one dpkg-query; ninja still reconfigures by itself when a meson.build changed.
hesper_configure() {
	local dir=$1 src=$2 state
	shift 2
	local stamp="$dir/hesper-packages.txt"
	state=$(hesper_packages_state)
	if [ -f "$dir/meson-private/coredata.dat" ]; then
		if [ -f "$dir/build.ninja" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$state" ]; then
			return 0
		fi
		echo "hesper: $dir was configured before the packages last changed: configuring it anew"
		# No arguments: the folder keeps the options it was configured with, as it would
		# without the wipe.
		meson setup --wipe "$dir" "$src" || return 1
	else
		meson setup "$dir" "$src" "$@" || return 1
	fi
	printf '%s\n' "$state" >"$stamp"
}

# Vulkan's loader wants a runtime directory; headless machines often have none.
hesper_runtime_dir() {
	if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
		XDG_RUNTIME_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hesper-xdg.XXXXXX")
		export XDG_RUNTIME_DIR
	fi
}

# The real software that the 'real' test suite profiles (tests/real): ffmpeg with its Vulkan
# filters and libplacebo, VkFFT (a header library: it needs glslang and SPIRV-Tools to
# build), npm for Deno, whose WebGPU runs on Vulkan, and for llama.cpp's prebuilt Vulkan
# backend, and git, which reads llama.cpp's source from the bundle node-llama-cpp ships.
# Deno and node-llama-cpp come from the npm registry into a cache kept between runs
# (HESPER_NPM_CACHE, default ~/.cache/hesper-npm; node-llama-cpp in its own prefix, llama/).
HESPER_REAL_PACKAGES="ffmpeg libvkfft-dev glslang-dev spirv-tools git"
HESPER_DENO_VERSION=2.9.6
HESPER_LLAMA_VERSION=3.22.1  # as VERSION in tests/real/llama_files.py

# Whether npm package $2 is installed at version $3 under prefix $1.
hesper_npm_has() {
	grep -q "\"version\": \"$3\"" "$1/node_modules/$2/package.json" 2>/dev/null
}

hesper_install_real_deps() {
	local pkgs=$HESPER_REAL_PACKAGES
	command -v npm >/dev/null || pkgs="$pkgs npm"
	hesper_install_deps $pkgs || return 1
	local cache=${HESPER_NPM_CACHE:-$HOME/.cache/hesper-npm}
	if [ ! -x "$cache/node_modules/@deno/linux-x64-glibc/deno" ]; then
		echo "hesper: installing deno@$HESPER_DENO_VERSION from the npm registry into $cache"
		mkdir -p "$cache" &&
			npm install --prefix "$cache" --no-audit --no-fund --ignore-scripts "deno@$HESPER_DENO_VERSION" >/dev/null &&
			[ -x "$cache/node_modules/@deno/linux-x64-glibc/deno" ] || return 1
	fi
	# llama.cpp: the prebuilt Vulkan libraries and the source bundle (tests/real/llama_files.py
	# builds examples/simple from them). --omit=optional: node-llama-cpp's optional
	# dependencies are its binaries for every other platform and GPU API (over 600 MB).
	local llama=$cache/llama v=$HESPER_LLAMA_VERSION
	if ! hesper_npm_has "$llama" node-llama-cpp "$v" || ! hesper_npm_has "$llama" @node-llama-cpp/linux-x64-vulkan "$v"; then
		echo "hesper: installing node-llama-cpp@$v and @node-llama-cpp/linux-x64-vulkan@$v from the npm registry into $llama"
		mkdir -p "$llama" &&
			npm install --prefix "$llama" --no-audit --no-fund --ignore-scripts --omit=optional --save-exact \
				"node-llama-cpp@$v" "@node-llama-cpp/linux-x64-vulkan@$v" >/dev/null &&
			hesper_npm_has "$llama" @node-llama-cpp/linux-x64-vulkan "$v" || return 1
	fi
}
