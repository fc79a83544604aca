#!/usr/bin/env python3
"""Runs a command and samples its resident memory by mapping (/proc/PID/smaps) every 50 ms;
prints, for the sample with the largest total, the resident KiB of each kind of mapping:
[heap], anonymous, each device file, each library. usage: rss_by_mapping.py CMD [ARG...]"""
import collections, subprocess, sys, time


def sample(pid):
    kinds = collections.Counter()
    name = None
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                parts = line.split()
                if "-" in parts[0] and len(parts) >= 5 and ":" in parts[3]:
                    name = parts[5] if len(parts) > 5 else "[anon]"
                elif parts[0] == "Rss:":
                    kinds[name] += int(parts[1])
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return kinds


proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
best = collections.Counter()
while proc.poll() is None:
    s = sample(proc.pid)
    if s and sum(s.values()) > sum(best.values()):
        best = s
    time.sleep(0.05)
print("total", sum(best.values()), "KiB;",
      ", ".join(f"{k} {v}" for k, v in best.most_common(12)))
