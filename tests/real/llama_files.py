#!/usr/bin/env python3
"""llama.cpp for the 'real' suite: ggml's Vulkan backend as node-llama-cpp ships it, and
llama.cpp's examples/simple built against it.

    llama_files.py build --from SRC --out DIR     # DIR/simple next to the libraries it loads
    llama_files.py pack  --from SRC --out FILE    # the files a machine without npm needs (.tar.xz)
    llama_files.py unpack FILE DIR                # FILE's files into DIR (a directory build reads)
    llama_files.py install PREFIX                 # npm install the two packages into PREFIX

SRC is one of:
  - an npm prefix holding node-llama-cpp@3.22.1 and @node-llama-cpp/linux-x64-vulkan@3.22.1
    (`install`; scripts/lib/deps.sh hesper_install_real_deps puts them in
    $HESPER_NPM_CACHE/llama): the prebuilt libllama/libggml* (the Vulkan backend in
    libggml-vulkan.so, the CPU backend in one libggml-cpu-*.so per x86-64 level), and the
    matching llama.cpp source as a git bundle (node-llama-cpp/llama/gitRelease.bundle), of
    which include/, ggml/include/ and examples/simple/simple.cpp are taken (with git);
  - a directory or a .tar.xz as `pack` writes it (lib/, src/, VERSION): what
    bench/llama-prepare carries to a machine without npm or network.

`build` compiles simple.cpp with g++ against the prebuilt libraries and copies them next to
it (ggml_backend_load_all() finds the backends in the executable's directory); it does
nothing when DIR already holds a build from the same files. Python 3 standard library, git
(npm prefix only) and g++.
"""

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

VERSION = "3.22.1"
PACKAGES = [f"node-llama-cpp@{VERSION}", f"@node-llama-cpp/linux-x64-vulkan@{VERSION}"]
NPM_LIBS = os.path.join("node_modules", "@node-llama-cpp", "linux-x64-vulkan", "bins", "linux-x64-vulkan")
NPM_BUNDLE = os.path.join("node_modules", "node-llama-cpp", "llama", "gitRelease.bundle")
SOURCES = ["include", "ggml/include", "examples/simple/simple.cpp"]
# The libraries simple needs at run time: llama, ggml, ggml-base, and the backends
# ggml_backend_load_all() loads (the Vulkan one, the best CPU one for the machine).
LIB_PREFIXES = ("libllama.", "libggml.", "libggml-base.", "libggml-vulkan.", "libggml-cpu-")


class Missing(Exception):
    """The files cannot be found or used; the message says what to do."""


def package_version(prefix, name):
    try:
        with open(os.path.join(prefix, "node_modules", name, "package.json"), encoding="utf-8") as f:
            return json.load(f).get("version")
    except (OSError, ValueError):
        return None


def wanted_libs(names):
    return sorted(n for n in names if n.endswith(".so") and n.startswith(LIB_PREFIXES))


def from_npm(prefix, tmp):
    """(lib dir, source dir, version) from an npm prefix; the sources extracted into @tmp."""
    for name in ("node-llama-cpp", "@node-llama-cpp/linux-x64-vulkan"):
        v = package_version(prefix, name)
        if v != VERSION:
            raise Missing(f"{name}@{VERSION} is not installed in {prefix} (found {v or 'nothing'}): "
                          f"scripts/lib/deps.sh hesper_install_real_deps, or {sys.argv[0]} install {prefix}")
    bundle = os.path.join(prefix, NPM_BUNDLE)
    libs = os.path.join(prefix, NPM_LIBS)
    if not os.path.isfile(bundle) or not os.path.isdir(libs):
        raise Missing(f"{bundle} or {libs} missing: reinstall the packages")
    git = shutil.which("git")
    if not git:
        raise Missing("git not found (Debian package git): it reads llama.cpp's source from the bundle")
    clone = os.path.join(tmp, "clone")
    src = os.path.join(tmp, "src")
    os.makedirs(src)
    subprocess.run([git, "clone", "--quiet", "--no-checkout", bundle, clone], check=True)
    archive = subprocess.run([git, "-C", clone, "archive", "--format=tar", "HEAD"] + SOURCES,
                             check=True, stdout=subprocess.PIPE).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as t:
        extract(t, src)
    commit = subprocess.run([git, "-C", clone, "rev-parse", "HEAD"], check=True, stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    return libs, src, f"node-llama-cpp {VERSION}, llama.cpp {commit}"


def extract(t, dest):
    if hasattr(tarfile, "data_filter"):
        t.extractall(dest, filter="data")
    else:
        t.extractall(dest)


def from_packed(path, tmp):
    """(lib dir, source dir, version) from what `pack` wrote, a .tar.xz or its unpacked directory."""
    if os.path.isfile(path):
        d = os.path.join(tmp, "packed")
        with tarfile.open(path, "r:xz") as t:
            extract(t, d)
        path = d
    try:
        with open(os.path.join(path, "VERSION"), encoding="utf-8") as f:
            version = f.read().strip()
    except OSError:
        raise Missing(f"{path} holds no VERSION file: not a directory bench/llama-prepare wrote")
    if not version.startswith(f"node-llama-cpp {VERSION},"):
        raise Missing(f"{path} holds {version!r}, not node-llama-cpp {VERSION}")
    return os.path.join(path, "lib"), os.path.join(path, "src"), version


def locate(src, tmp):
    if not src:
        raise Missing("no llama.cpp files given")
    if os.path.isdir(os.path.join(src, "node_modules")):
        return from_npm(src, tmp)
    if os.path.isfile(src) or os.path.isfile(os.path.join(src, "VERSION")):
        return from_packed(src, tmp)
    raise Missing(f"{src} is neither an npm prefix with node-llama-cpp nor files from bench/llama-prepare "
                  "(scripts/lib/deps.sh hesper_install_real_deps installs them)")


def digest(paths):
    h = hashlib.sha256()
    for p in paths:
        h.update(os.path.basename(p).encode())
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()[:16]


def build(src, out):
    """Builds @out/simple; returns its path."""
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hesper-llama-") as tmp:
        libdir, srcdir, version = locate(src, tmp)
        libs = [os.path.join(libdir, n) for n in wanted_libs(os.listdir(libdir))]
        simple_cpp = os.path.join(srcdir, "examples", "simple", "simple.cpp")
        if not any(os.path.basename(l).startswith("libggml-vulkan.") for l in libs) or not os.path.isfile(simple_cpp):
            raise Missing(f"{src}: libggml-vulkan.so or examples/simple/simple.cpp missing")
        stamp = f"{version}\nlibraries {digest(libs)}\nsimple.cpp {digest([simple_cpp])}\n"
        exe = os.path.join(out, "simple")
        stamp_path = os.path.join(out, "llama-build.txt")
        if os.access(exe, os.X_OK) and os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
            return exe
        for l in libs:
            shutil.copy2(l, out)
        link = [os.path.join(out, os.path.basename(l)) for l in libs
                if os.path.basename(l).startswith(("libllama.", "libggml.", "libggml-base."))]
        gxx = shutil.which("g++")
        if not gxx:
            raise Missing("g++ not found (Debian package g++)")
        cmd = [gxx, "-std=c++17", "-O2", "-Wall", "-Wextra", "-o", exe + ".tmp", simple_cpp,
               "-I", os.path.join(srcdir, "include"), "-I", os.path.join(srcdir, "ggml", "include")] + link + [
               "-Wl,-rpath,$ORIGIN"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise Missing("building simple failed:\n" + " ".join(cmd) + "\n" + p.stdout[-3000:])
        os.replace(exe + ".tmp", exe)
        with open(stamp_path, "w") as f:
            f.write(stamp)
        return exe


def pack(src, out):
    with tempfile.TemporaryDirectory(prefix="hesper-llama-") as tmp:
        libdir, srcdir, version = locate(src, tmp)
        tmp_out = out + ".tmp"
        with tarfile.open(tmp_out, "w:xz", preset=9) as t:
            info = tarfile.TarInfo("VERSION")
            data = (version + "\n").encode()
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
            for n in wanted_libs(os.listdir(libdir)):
                t.add(os.path.join(libdir, n), arcname="lib/" + n)
            t.add(srcdir, arcname="src")
        os.replace(tmp_out, out)
        return version


def install(prefix):
    npm = shutil.which("npm")
    if not npm:
        raise Missing("npm not found (Debian package npm; scripts/lib/deps.sh hesper_install_real_deps installs it)")
    os.makedirs(prefix, exist_ok=True)
    # --omit=optional: node-llama-cpp's optional dependencies are its prebuilt binaries for every
    # platform and GPU API (CUDA's are 540 MB); the Vulkan one is named on the command line.
    p = subprocess.run([npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--ignore-scripts",
                        "--omit=optional", "--save-exact"] + PACKAGES,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    if p.returncode != 0:
        raise Missing("npm install " + " ".join(PACKAGES) + " failed:\n" + p.stdout[-3000:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("build", "pack"):
        s = sub.add_parser(name)
        s.add_argument("--from", dest="src", required=True)
        s.add_argument("--out", required=True)
    s = sub.add_parser("unpack")
    s.add_argument("file")
    s.add_argument("dir")
    s = sub.add_parser("install")
    s.add_argument("prefix")
    args = ap.parse_args()
    try:
        if args.cmd == "build":
            print(build(args.src, args.out))
        elif args.cmd == "pack":
            print(f"{args.out}: {pack(args.src, args.out)}, {os.path.getsize(args.out) / 1e6:.1f} MB")
        elif args.cmd == "unpack":
            with tarfile.open(args.file, "r:xz") as t:
                extract(t, args.dir)
        else:
            install(args.prefix)
    except (Missing, OSError, subprocess.CalledProcessError, tarfile.TarError) as e:
        print(f"llama_files.py {args.cmd}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
