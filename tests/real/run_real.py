#!/usr/bin/env python3
"""Hesper on real Vulkan compute software, checked against an independent dispatch counter.

    run_real.py --hesper LIB --counter-dir DIR [--vkfft EXE] [--deno-cache DIR] WORKLOAD

Workloads (README.md, "Checked against real software"):
  ffmpeg-avgblur     ffmpeg 5.1, testsrc -> hwupload -> avgblur_vulkan -> hwdownload, 30 frames
  ffmpeg-chain       ffmpeg 5.1, eight Vulkan filters in a row, 30 frames
  ffmpeg-libplacebo  ffmpeg 5.1's libplacebo filter (compute EWA upscaler + debanding, draws
                     elsewhere), 30 frames
  vkfft              tests/real/vkfft_driver (VkFFT 1.2.26 from libvkfft-dev)
  webgpu-matmul      Deno's WebGPU (wgpu) running tests/real/webgpu_matmul.js

Each workload runs four times:
  alone        the reference: exit code and output (frame MD5s, FFT errors, matmul result);
  counter      the counter layer (tests/counter_layer) above the validation layer, no Hesper:
               the ground-truth counts and the validation messages the workload causes itself;
  hesper       Hesper alone (LD_PRELOAD, JSON + text report), as a user runs it;
  hesper+all   Hesper above the counter above the validation layer, in one process.
Checks: every run's exit code and output equal the reference's; in "hesper+all" Hesper's
per-kernel counts equal the counter's of the same run exactly (debug-named kernels by name,
the rest as a sorted list of counts; the totals), and the counter's equal those of the
"counter" run; "hesper"'s counts equal them too; the validation messages (by message id)
are the same with and without Hesper; nothing dropped; the loader put the layers in that
order. Exit 0 when every check passes, 1 otherwise (never a skip: a workload that cannot
run is a failure).
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import run_e2e  # noqa: E402  (Run, validation_messages, layer_callstacks, Checks, run_checked, load_json)

COUNTER_LAYER = "VK_LAYER_HESPERTEST_dispatch_counter"
DENO_VERSION = "2.9.6"  # as HESPER_DENO_VERSION in scripts/lib/deps.sh
RUN_TIMEOUT_S = 300
FRAMES = "30"

# ffmpeg: lavfi test source, through Vulkan filters, frame checksums to a file.
FFMPEG_HEAD = ["ffmpeg", "-nostdin", "-y", "-hide_banner", "-loglevel", "error",
               "-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk",
               "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-frames:v", FRAMES]
FFMPEG_FILTERS = {
    "ffmpeg-avgblur": "format=yuv420p,hwupload,avgblur_vulkan,hwdownload,format=yuv420p",
    "ffmpeg-chain": "format=yuv420p,hwupload,scale_vulkan=w=256:h=192,gblur_vulkan=sigma=1.5,"
                    "chromaber_vulkan=dist_x=3:dist_y=2,avgblur_vulkan=sizeX=2,transpose_vulkan,"
                    "hflip_vulkan,vflip_vulkan,flip_vulkan,hwdownload,format=yuv420p",
    "ffmpeg-libplacebo": "format=yuv420p,hwupload,libplacebo=w=480:h=360:format=yuv420p:"
                         "upscaler=ewa_lanczos:deband=1,hwdownload,format=yuv420p",
}
WORKLOADS = sorted(list(FFMPEG_FILTERS) + ["vkfft", "webgpu-matmul"])

SCRUBBED_ENV = run_e2e.SCRUBBED_ENV + ["DISPATCH_COUNTER_OUT"]
MSG_ID_RE = re.compile(r"(VUID-[\w-]+|UNASSIGNED-[\w-]+|MessageID = 0x[0-9a-f]+)")


def deno_binary(cache):
    """Deno from the npm registry (package "deno", its binary in @deno/linux-x64-glibc),
    installed under @cache by npm on first use and reused afterwards."""
    exe = os.path.join(cache, "node_modules", "@deno", "linux-x64-glibc", "deno")
    if os.access(exe, os.X_OK):
        return exe, None
    npm = shutil.which("npm")
    if not npm:
        return None, "npm not found (scripts/lib/deps.sh hesper_install_real_deps installs it)"
    os.makedirs(cache, exist_ok=True)
    p = subprocess.run([npm, "install", "--prefix", cache, "--no-audit", "--no-fund", "--ignore-scripts",
                        f"deno@{DENO_VERSION}"], capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or not os.access(exe, os.X_OK):
        return None, f"npm install deno@{DENO_VERSION} failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
    return exe, None


class Workload:
    """How to run one workload: argv, extra environment, and where its output is."""

    def __init__(self, args):
        self.name = args.workload
        self.env = {}
        self.output_file = None  # relative to the run's cwd; None: stdout is the output
        if self.name in FFMPEG_FILTERS:
            self.argv = FFMPEG_HEAD + ["-vf", FFMPEG_FILTERS[self.name], "-f", "framemd5", "frames.md5"]
            self.output_file = "frames.md5"
            if not shutil.which("ffmpeg"):
                raise RuntimeError("ffmpeg not found (Debian package ffmpeg)")
        elif self.name == "vkfft":
            if not args.vkfft or not os.path.isfile(args.vkfft):
                raise RuntimeError(f"vkfft_driver not built ({args.vkfft}): are libvkfft-dev and glslang-dev "
                                   "installed? (scripts/lib/deps.sh hesper_install_real_deps)")
            self.argv = [os.path.abspath(args.vkfft)]
        elif self.name == "webgpu-matmul":
            deno, why = deno_binary(args.deno_cache)
            if not deno:
                raise RuntimeError(why)
            self.argv = [deno, "run", "--quiet", os.path.join(HERE, "webgpu_matmul.js")]
            self.env = {"DENO_DIR": os.path.join(args.deno_cache, "deno-dir"), "DENO_NO_UPDATE_CHECK": "1",
                        "NO_COLOR": "1"}
        else:
            raise RuntimeError(f"unknown workload {self.name}")

    def output(self, run, cwd):
        """The workload's own result: its output file, or its stdout without layer chatter."""
        if self.output_file:
            path = os.path.join(cwd, self.output_file)
            return open(path, encoding="utf-8").read().splitlines() if os.path.exists(path) else ["<no output file>"]
        return run_e2e.program_lines(run.out)


def base_env(args, wl):
    env = {k: v for k, v in os.environ.items()
           if k not in SCRUBBED_ENV and not k.startswith("HESPER_")}
    env.update(wl.env)
    return env


def run_once(args, wl, label, tmp, extra, hesper):
    """Runs the workload in a fresh directory; returns (Run, output lines, cwd, seconds)."""
    cwd = tempfile.mkdtemp(prefix=label + "-", dir=tmp)
    env = base_env(args, wl)
    env.update(extra)
    if hesper:
        env["LD_PRELOAD"] = args.hesper
    run = run_e2e.Run(wl.argv, env, cwd, timeout=RUN_TIMEOUT_S)
    print(f"run {label:<10} exit {run.rc}  {run.seconds:6.1f} s")
    return run, wl.output(run, cwd), cwd, run.seconds


def load_json(c, path, what):
    return run_e2e.load_json(c, path, f"{what} was written")


def msg_ids(run):
    """Multiset of the validation messages' ids (VUID, UNASSIGNED-..., or MessageID)."""
    ids = collections.Counter()
    for line in run_e2e.validation_messages(run):
        m = MSG_ID_RE.search(line)
        ids[m.group(1) if m else line[:120]] += 1
    return ids


def hesper_counts(rep):
    return {r["name"]: r["count"] for r in rep.get("kernels", [])}


def compare_counts(c, label, hes, counter):
    """Hesper's rows against the counter's kernels: named ones by name, all by sorted counts."""
    hk = hesper_counts(hes)
    ck = counter.get("kernels", {})
    c.check(counter.get("unbound") == 0, f"{label}: counter saw no dispatch without a pipeline",
            f"unbound {counter.get('unbound')}")
    for key, n in ck.items():
        if key.startswith("name:"):
            name = key[len("name:"):]
            c.check(hk.get(name) == n, f"{label}: debug-named kernel {name!r} counted {n} by both",
                    f"Hesper: {hk.get(name)!r}")
    want, got = sorted(ck.values()), sorted(hk.values())
    c.check(got == want, f"{label}: per-kernel dispatch counts equal the counter's ({len(want)} kernels)",
            f"Hesper  {got}\ncounter {want}\nHesper rows: {sorted(hk.items())}")
    c.check(sum(got) == counter.get("total"), f"{label}: total dispatches {counter.get('total')}",
            f"Hesper {sum(got)}")
    c.check(hes.get("dropped") == 0, f"{label}: nothing dropped", f"dropped {hes.get('dropped')}")
    for r in hes.get("kernels", []):
        ok = r.get("timed") == r["count"] and r["min_ns"] <= r["median_ns"] <= r["p95_ns"] + 1 <= r["max_ns"] + 2
        c.check(ok, f"{label}: kernel {r['name']!r} all timed, min <= median <= p95 <= max",
                json.dumps(r))


# Hesper's dispatch-cost measurement at vkCreateDevice (docs/findings.md): its own empty
# shader, 1 + 16 + 64 + 64 dispatches per device, seen by a layer below Hesper.
HESPER_CALIBRATION_DISPATCHES = 145


def without_calibration(c, counts, ref_counts):
    """@counts (the counter below Hesper) less Hesper's own measurement: the one kernel the
    counter saw only with Hesper, 145 dispatches per device."""
    extra = [k for k in counts.get("kernels", {}) if k not in ref_counts.get("kernels", {})]
    ok = c.check(len(extra) == 1 and counts["kernels"][extra[0]] % HESPER_CALIBRATION_DISPATCHES == 0,
                 f"the counter below Hesper sees one kernel of Hesper's own: {HESPER_CALIBRATION_DISPATCHES} "
                 "dispatches per device (the dispatch-cost measurement)", f"extra kernels {extra}")
    if not ok:
        return counts
    out = dict(counts, kernels=dict(counts["kernels"]))
    out["total"] = counts.get("total", 0) - out["kernels"].pop(extra[0])
    return out


def check_same(c, label, ref_rc, ref_out, run, out):
    c.check(run.rc == ref_rc, f"{label}: exit code {ref_rc} as alone", f"got {run.rc}\n" + run.tail(label, 20))
    c.check(out == ref_out, f"{label}: output identical to the run alone",
            run_e2e.diff(ref_out, out, "alone", label))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hesper", required=True)
    ap.add_argument("--counter-dir", required=True, help="build directory of tests/counter_layer")
    ap.add_argument("--vkfft", help="the vkfft_driver executable")
    ap.add_argument("--deno-cache", default=os.environ.get("HESPER_NPM_CACHE") or
                    os.path.join(os.path.expanduser("~"), ".cache", "hesper-npm"),
                    help="npm prefix for Deno, kept between runs (default $HESPER_NPM_CACHE or ~/.cache/hesper-npm)")
    ap.add_argument("--fail", metavar="REASON", help="fail at once with REASON")
    ap.add_argument("workload", choices=WORKLOADS)
    args = ap.parse_args()
    args.hesper = os.path.abspath(args.hesper)
    args.counter_dir = os.path.abspath(args.counter_dir)
    c = run_e2e.Checks("real " + args.workload)
    if args.fail:
        c.fail("workload can run", args.fail)
        return c.finish()
    try:
        wl = Workload(args)
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        c.fail("workload can run", str(e))
        return c.finish()
    return run_e2e.run_checked(c, "hesper-real-", lambda tmp: check(args, wl, c, tmp))


def check(args, wl, c, tmp):
    layers_below = {"VK_ADD_LAYER_PATH": args.counter_dir,
                    "VK_INSTANCE_LAYERS": f"{COUNTER_LAYER}:{run_e2e.VALIDATION_LAYER}"}

    alone, ref_out, _, _ = run_once(args, wl, "alone", tmp, {}, hesper=False)
    if not c.check(alone.rc == 0, "the workload passes on its own (exit 0)", alone.tail("alone")):
        return None

    counter_json = os.path.join(tmp, "counter-only.json")
    ref, out, _, _ = run_once(args, wl, "counter", tmp, dict(layers_below, DISPATCH_COUNTER_OUT=counter_json),
                              hesper=False)
    check_same(c, "counter+validation", alone.rc, ref_out, ref, out)
    ref_counts = load_json(c, counter_json, "the counter's JSON (counter run)")
    ref_msgs = msg_ids(ref)

    hes_json = os.path.join(tmp, "hesper.json")
    hes_txt = os.path.join(tmp, "hesper.txt")
    hes, out, _, _ = run_once(args, wl, "hesper", tmp, {"HESPER_REPORT": f"json:{hes_json},text:{hes_txt}"},
                              hesper=True)
    check_same(c, "Hesper alone", alone.rc, ref_out, hes, out)
    hes_rep = load_json(c, hes_json, "Hesper's JSON summary (Hesper alone)")
    if hes_rep and ref_counts:
        c.check(ref_counts.get("total", 0) > 0, "the workload dispatched compute work",
                json.dumps(ref_counts))
        compare_counts(c, "Hesper alone vs counter run", hes_rep, ref_counts)

    all_json = os.path.join(tmp, "hesper-all.json")
    all_counter = os.path.join(tmp, "counter-all.json")
    full, out, _, _ = run_once(args, wl, "hesper+all", tmp, dict(
        layers_below, DISPATCH_COUNTER_OUT=all_counter, HESPER_REPORT=f"json:{all_json}", VK_LOADER_DEBUG="layer"),
        hesper=True)
    check_same(c, "Hesper+counter+validation", alone.rc, ref_out, full, out)
    all_rep = load_json(c, all_json, "Hesper's JSON summary (with counter and validation)")
    all_counts = load_json(c, all_counter, "the counter's JSON (with Hesper)")
    if all_counts and ref_counts:
        all_counts = without_calibration(c, all_counts, ref_counts)
    if all_rep and all_counts:
        compare_counts(c, "same process", all_rep, all_counts)
    if all_counts and ref_counts:
        c.check(sorted(all_counts["kernels"].values()) == sorted(ref_counts["kernels"].values()),
                "the counter counts the same with Hesper as without it",
                f"with {sorted(all_counts['kernels'].items())}\nwithout {sorted(ref_counts['kernels'].items())}")
    # Hesper may remove messages (it enables VK_EXT_debug_utils below itself, so a program
    # that calls debug-utils commands without enabling the extension stops being reported
    # for it) but must never add one.
    msgs = msg_ids(full)
    c.check(not (msgs - ref_msgs), f"no validation message with Hesper that is not there without it "
            f"({sum(ref_msgs.values())} caused by the workload itself)",
            f"only with Hesper: {dict(msgs - ref_msgs)}\nonly without: {dict(ref_msgs - msgs)}")
    if ref_msgs - msgs:
        print(f"note: validation messages seen only without Hesper: {dict(ref_msgs - msgs)}")
    for kind, layers in run_e2e.layer_callstacks(full.err):
        want = [run_e2e.HESPER_LAYER, COUNTER_LAYER, run_e2e.VALIDATION_LAYER]
        c.check([l for l in layers if l in want] == want, f"{kind} call stack: Hesper, counter, validation",
                "layers, application side first: " + " -> ".join(layers))

    if os.path.exists(hes_txt):
        print("--- Hesper's report (Hesper alone) ---")
        print(open(hes_txt, encoding="utf-8").read().rstrip())
    if ref_msgs:
        print(f"--- validation messages the workload causes by itself: {dict(ref_msgs)}")
    return "\n".join([hes.tail("Hesper alone", 30), full.tail("Hesper+counter+validation", 30)])


if __name__ == "__main__":
    sys.exit(main())
