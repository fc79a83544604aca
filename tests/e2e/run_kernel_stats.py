#!/usr/bin/env python3
"""The pipeline statistics of kernels built to differ (tests/programs/kernel_stats.c).

    run_kernel_stats.py --hesper LIB --program kernel_stats [--preload-first LIB] stats

The program alone, then under Hesper (HESPER_PIPELINE_STATS on, its default) with the
validation layer: same exit code and stdout, no validation message, and the JSON summary
against the HESPER-TRUTH line (counts exact, every dispatch timed). Then, by what the
device said of its statistics (devices[].pipeline_stats):
  captured                   every kernel has its statistics in "pipeline_stats"; the
                             register-heavy kernel's register count (the first statistic
                             whose name has "register" or "gpr" in it) above the light
                             kernel's, and the shared-memory kernel's shared memory (a
                             name with "shared" or "lds") above the light kernel's: the
                             driver's figures move the way the kernels were built;
  not offered by the driver  (lavapipe) no statistics, and the text report says so once.
Any other value is a failure.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402

REGISTERS_RE = re.compile(r"regist|gpr", re.I)
SHARED_RE = re.compile(r"shared|lds", re.I)


def figure(stats, pattern):
    """The first numeric statistic of @stats whose name matches @pattern, or None."""
    for name, value in (stats or {}).items():
        if pattern.search(name) and isinstance(value, (int, float)) and not isinstance(value, bool):
            return name, value
    return None


def case_stats(args, c, tmp):
    base, _ = e2e.baseline(args, c, tmp)
    out_json, out_text = os.path.join(tmp, "out.json"), os.path.join(tmp, "out.txt")
    run = e2e.Run([args.program], e2e.hesper_env(args, {
        "HESPER_REPORT": f"json:{out_json},text:{out_text}",
        "VK_INSTANCE_LAYERS": e2e.VALIDATION_LAYER,
        "VK_LOADER_DEBUG": "layer",
    }), tmp)
    context = run.tail("under Hesper")
    e2e.check_like_alone(c, base, run)
    truth = e2e.parse_truth(run.out)
    rep = e2e.load_json(c, out_json, "Hesper wrote a readable JSON summary")
    if rep is None or not c.check(truth is not None, "program prints a HESPER-TRUTH line under Hesper"):
        return context
    e2e.check_report(c, rep, truth, args.program)
    said = {d.get("pipeline_stats") for d in rep.get("devices") or []}
    c.check(len(said) == 1 and said <= {"captured", "not offered by the driver"},
            "the device says whether its driver has pipeline statistics", f"got {sorted(map(str, said))}")
    listed = {s.get("kernel"): s.get("stats") for s in rep.get("pipeline_stats") or []}
    if "captured" in said:
        names = [k["debug_name"] for k in truth["kernels"]]
        c.check(set(names) <= set(listed), "every kernel has its statistics", f"listed {sorted(listed)}")
        light = listed.get("stats_light")
        for heavy, pattern, what in (("stats_registers", REGISTERS_RE, "registers"),
                                     ("stats_shared", SHARED_RE, "shared memory")):
            a, b = figure(light, pattern), figure(listed.get(heavy), pattern)
            c.check(a is not None and b is not None and b[1] > a[1],
                    f"{heavy}: more {what} than stats_light by the driver's own figure",
                    f"stats_light {a}, {heavy} {b}; statistics: {listed}")
    else:
        c.check(not listed, "no statistics where the driver has none", f"got {sorted(listed)}")
        with open(out_text, encoding="utf-8") as f:
            text = f.read()
        c.check(text.count("has no VK_KHR_pipeline_executable_properties") == 1,
                "the text report says once that the driver has none", text[-3000:])
    return context


CASES = {"stats": case_stats}


def main():
    return e2e.case_main(__doc__, CASES, "kernel_stats")


if __name__ == "__main__":
    sys.exit(main())
