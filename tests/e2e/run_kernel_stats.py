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
                             driver's figures move the way the kernels were built. Each
                             kernel has its "occupancy": on an NVIDIA device (an
                             "occupancy_model" of vendor "nvidia") a known one, the
                             register-heavy kernel's share below the light one's with limit
                             "registers", the shared-memory kernel's limit "shared memory" or
                             its work groups per SM below the light one's; on another
                             vendor's, limit "unknown" with why, as its device's model says;
  not offered by the driver  (lavapipe) no statistics, and the text report says so once;
                             no occupancy anywhere (no model, no line).
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
        check_occupancy(c, rep)
    else:
        c.check(not listed, "no statistics where the driver has none", f"got {sorted(listed)}")
        with open(out_text, encoding="utf-8") as f:
            text = f.read()
        c.check(text.count("has no VK_KHR_pipeline_executable_properties") == 1,
                "the text report says once that the driver has none", text[-3000:])
        models = [d.get("occupancy_model") for d in rep.get("devices") or [] if "occupancy_model" in d]
        c.check(not models and "occupancy" not in text,
                "no statistics: no occupancy model and no occupancy in the report", f"models {models}")
    return context


def check_occupancy(c, rep):
    """Each kernel's occupancy: known and moving the way the kernels were built on NVIDIA's
    devices, unknown with its device's why on others."""
    device = (rep.get("devices") or [{}])[0]
    model = device.get("occupancy_model")
    occ = {s.get("kernel"): s.get("occupancy") for s in rep.get("pipeline_stats") or []}
    if not c.check(isinstance(model, dict) and all(isinstance(o, dict) for o in occ.values()),
                   "the device's occupancy model and each kernel's occupancy are there",
                   f"model {model!r}, occupancy {occ}"):
        return
    if model.get("vendor") != "nvidia":
        c.check(all(o.get("limit") == "unknown" and o.get("why") == model.get("why") for o in occ.values()),
                "a device Hesper has no model of: every kernel's occupancy unknown, with the device's why",
                f"model {model}, occupancy {occ}")
        return
    light, regs, shared = (occ.get(k) or {} for k in ("stats_light", "stats_registers", "stats_shared"))
    c.check(all(o.get("limit") not in (None, "unknown") and 0 < o.get("share", 0) <= 1 for o in occ.values()),
            "NVIDIA: every kernel's occupancy known, a share of the SM in (0, 1]", f"occupancy {occ}")
    c.check(regs.get("limit") == "registers" and regs.get("share", 1) < light.get("share", 0),
            "stats_registers: limited by registers, below stats_light's occupancy", f"{regs} against {light}")
    c.check(shared.get("limit") == "shared memory" or
            shared.get("groups_per_sm", 1 << 30) < light.get("groups_per_sm", 0),
            "stats_shared: limited by shared memory, or fewer work groups per SM than stats_light",
            f"{shared} against {light}")


CASES = {"stats": case_stats}


def main():
    return e2e.case_main(__doc__, CASES, "kernel_stats")


if __name__ == "__main__":
    sys.exit(main())
