#!/usr/bin/env python3
"""llama.cpp's per-op GPU times by ggml's own perf logger, in several ways at once.

usage: bench/llama_ops.py SIMPLE MODEL TOKENS WAY...
  SIMPLE  llama.cpp's examples/simple built by tests/real/llama_files.py (bench/gpu-suite
          builds it into build-gpu/llama-simple/simple)
  MODEL   a GGUF model (tests/real/llama_model.py --preset 600m writes the one of
          bench/results/h200.md)
  WAY     NAME=ENV1=V1;ENV2=V2;... (no variables: plain; -ENV leaves ENV out, such as
          -GGML_VK_DEBUG_MARKERS, which every way otherwise sets). A way with LD_PRELOAD runs
          under that Hesper, e.g. "clock=LD_PRELOAD=$PWD/build/layer/libhesper.so;
          HESPER_MODE=clock;HESPER_CLOCK_ISOLATED=span;HESPER_REPORT=json:/tmp/h.json"

Runs every way ROUNDS times interleaved (env LLAMA_OPS_ROUNDS, default 2) for ggml's eval
time per token, then once more each with GGML_VK_PERF_LOGGER=1 for its per-op times (the
first three graphs dropped; LLAMA_OPS_PERF=0 leaves that out). Prints milliseconds per token (median over the rounds against
the first way's) and, per op of the first way's 14 largest totals, each way's mean in µs and
its ratio, and for each way whose HESPER_REPORT names a json: file, Hesper's own host time from
that summary (its last timing round's): the recording hooks', the submit hook's per call and
the collector's. Each way runs in its own process, so a way's per-op times hold what it adds to the
kernels (instrumentation, timestamps) and nothing of the others. The first way is the
baseline: put plain first.
"""
import collections
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "real"))
import run_llama  # noqa: E402

TOP = 14


def parse_ways(argv):
    """(name, env) per WAY; a variable written -NAME maps to None: left out of the run's environment."""
    ways = []
    for v in argv:
        name, _, rest = v.partition("=")
        env = {}
        for kv in (kv for kv in rest.split(";") if kv):
            key, _, value = kv.partition("=")
            if key.startswith("-"):
                env[key[1:]] = None
            else:
                env[key] = value
        ways.append((name, env))
    return ways


def json_path(env):
    """The json: file a way's HESPER_REPORT writes, or None."""
    for entry in env.get("HESPER_REPORT", "").split(","):
        if entry.startswith("json:"):
            return entry[5:]
    return None


def host_cost(path):
    """Hesper's own host time from the summary at @path: a line, or None when there is none."""
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return None
    h = s.get("hesper", {})
    submits = sum(q.get("submit_calls", 0) for q in s.get("queues", [])) or s.get("submits", {}).get("count", 0)
    dispatches = sum(k.get("count", 0) for k in s.get("kernels", []))
    record = h.get("hook_ns", 0) - h.get("submit_hook_ns", 0)
    per_submit = f"{h.get('submit_hook_ns', 0) / submits / 1e3:.2f} µs per call" if submits else "no calls counted"
    per_dispatch = f"{record / dispatches:.0f} ns per dispatch" if dispatches else "no dispatches"
    return (f"record hooks {record / 1e6:.2f} ms ({per_dispatch}), submit hook {h.get('submit_hook_ns', 0) / 1e6:.2f} ms"
            f" ({submits} calls, {per_submit}), collector {h.get('collector_ns', 0) / 1e6:.2f} ms;"
            f" {dispatches} dispatches, dropped {s.get('dropped', 0)}, clamped {s.get('clamped', 0)}")


def run(simple, model, tokens, extra, perf):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HESPER_", "GGML_", "LLAMA_"))}
    env.update({"GGML_VK_VISIBLE_DEVICES": "0", "GGML_VK_DEBUG_MARKERS": "1"})
    if perf:
        env["GGML_VK_PERF_LOGGER"] = "1"
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    p = subprocess.run([simple, "-m", model, "-n", tokens, "Hello my name is"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    return p, run_llama.ms_per_token(p.stderr)


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    simple, model, tokens = sys.argv[1:4]
    ways = parse_ways(sys.argv[4:])
    rounds = int(os.environ.get("LLAMA_OPS_ROUNDS", "2"))
    with_perf = os.environ.get("LLAMA_OPS_PERF", "1") != "0"
    ms = collections.defaultdict(list)
    text, perf, cost = {}, {}, {}
    for r in range(rounds):
        for name, env in ways:
            t = time.monotonic()
            p, per_token = run(simple, model, tokens, env, False)
            ms[name].append(per_token)
            text.setdefault(name, p.stdout.strip())
            if json_path(env):
                cost[name] = host_cost(json_path(env))
            tok = "-" if per_token is None else f"{per_token:.4f}"
            print(f"round {r} {name:<14} exit {p.returncode} {time.monotonic() - t:5.1f} s  {tok} ms/token", flush=True)
    for name, env in (ways if with_perf else []):
        p, _ = run(simple, model, tokens, env, True)
        agg = collections.defaultdict(lambda: [0, 0.0])
        for block in run_llama.perf_blocks(p.stderr)[3:]:
            for k, (n, ns) in block.items():
                agg[k][0] += n
                agg[k][1] += ns
        perf[name] = agg
    base = ways[0][0]
    print("\n## milliseconds per token (rounds)")
    b = statistics.median(x for x in ms[base] if x)
    for name, _ in ways:
        got = [x for x in ms[name] if x]
        ratio = statistics.median(got) / b if got else float("nan")
        print(f"{name:<14} {' '.join(f'{x:.4f}' for x in got)}  median {ratio:.3f}x  "
              f"text {'same' if text[name] == text[base] else 'DIFFERENT'}")
    if cost:
        print("\n## Hesper's host time (its summary of the last timing round)")
        for name, line in cost.items():
            print(f"{name:<14} {line or 'no summary'}")
    if not with_perf:
        return 0
    print("\n## per-op mean µs (ggml's perf logger)")
    bp = perf[base]
    print("| op | n | " + " | ".join(n for n, _ in ways) + " |")
    print("|---|---|" + "---|" * len(ways))
    for k in sorted(bp, key=lambda k: -bp[k][1])[:TOP]:
        row = [f"{bp[k][1] / bp[k][0] / 1e3:.2f}"]
        for name, _ in ways[1:]:
            a = perf[name].get(k)
            row.append(f"{a[1] / a[0] / 1e3:.2f} ({a[1] / a[0] / (bp[k][1] / bp[k][0]):.2f}x)" if a and a[0] else "-")
        print(f"| {k[:60]} | {bp[k][0]} | " + " | ".join(row) + " |")
    total = {n: sum(v[1] for v in perf[n].values()) for n, _ in ways}
    print("| all ops, ms | | " + " | ".join(f"{total[n] / 1e6:.2f} ({total[n] / total[base]:.2f}x)" if total[base] else "-"
                                          for n, _ in ways) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
