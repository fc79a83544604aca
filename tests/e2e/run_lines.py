#!/usr/bin/env python3
"""End-to-end checks of HESPER_LINES (per-line hot spots in clock mode).

    run_lines.py --hesper LIB --program HOT_LINES --source HOT_LINES_COMP [--preload-first LIB] CASE

Cases:
  counts  HOT_LINES (hot_lines.comp built with -g: a loop whose trip count it sets, a branch
          taken by 37 of every 100 invocations) alone, then under Hesper (HESPER_MODE=clock,
          HESPER_LINES) + the validation layer, with few and with many trips: exit code and
          stdout unchanged (the kernel computes what it does alone), no validation messages;
          the kernel's dispatches counted exactly and timed by timestamps (a clock fallback
          saying its lines are counted); its JSON lines: the loop body's line executed
          invocations x trips x dispatches times, the branch's as often as its condition
          held, the store's once per invocation and dispatch, the shares adding up to 1;
          with many trips the loop's lines (marked LOOP and HOT) hold at least 80 % of the
          kernel's clock time, and more than with few trips; the text report's "Hot lines"
          names them, and its annotated listing shows the loop body's source line with its
          share (the JSON holds the source text the module embeds). In every case the SQLite
          sink's hot_lines and hot_line_sources rows are the JSON's lines and source. The first run chooses the kernel by `*`, the second by its name in a
          list with a name that matches nothing. Skipped (77) when Hesper says the device
          cannot count lines.
  named   HOT_LINES names its pipeline after making it (vkSetDebugUtilsObjectNameEXT), and
          HESPER_LINES chooses it by that name, beside a name that matches nothing: the
          report's one kernel has that name, its lines are counted (the loop body's line
          executed invocations x trips x dispatches times), output unchanged, validation
          clean. Skipped (77) without VK_EXT_debug_utils.
  modes   HESPER_LINES under dispatch mode: one line saying it has an effect in clock mode
          only, no lines in the JSON, output unchanged.
  blocks  HOT_LINES with hot_lines.comp built without line information (HOT_LINES_MODULE=plain),
          many trips: every JSON entry is a block named by its label and first opcodes, no
          file or line; blocks run exactly invocations x trips x dispatches times (the loop's
          body), as often as the branch's condition held and once per invocation and dispatch
          are there; the blocks that ran at least as often as the loop's body hold at least
          80 % of the clock time; the hottest blocks (at most three) carry their SPIR-V,
          which opens with their OpLabel, and the text report shows it; output unchanged,
          validation clean.
  source_path  HOT_LINES with hot_lines.comp built with -g, its source text taken out of the
          module (OpSource's text, OpSourceContinued): without HESPER_SOURCE_PATH no listing
          text; with a relative HESPER_SOURCE_PATH (a missing directory, then the file's,
          relative to where the program starts) the JSON's source holds the file's text and
          the file it was read from, and the text report's listing says so.
"""

import json
import os
import struct
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402

FEW, MANY, DISPATCHES = 4, 2000, 3
TRUTH_PREFIX = "HESPER-LINES-TRUTH "


def marked_line(path, marker):
    """The 1-based line of @path holding @marker."""
    with open(path, encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            if marker in text:
                return n
    raise ValueError(f"no line of {path} holds {marker}")


def lines_truth(text):
    """The program's HESPER-LINES-TRUTH object from its stdout, or None."""
    for line in text.splitlines():
        if line.startswith(TRUTH_PREFIX):
            return json.loads(line[len(TRUTH_PREFIX):])
    return None


def lines_env(args, mode, chosen, out_json, out_text):
    out_db = os.path.splitext(out_json)[0] + ".db"
    env = e2e.hesper_env(args, {"HESPER_MODE": mode, "HESPER_LINES": chosen,
                                "HESPER_REPORT": f"json:{out_json},text:{out_text},sqlite:{out_db}"})
    env["VK_INSTANCE_LAYERS"] = e2e.VALIDATION_LAYER
    return env


def run_once(args, c, tmp, trips, chosen, mode="clock", name=None, plain=False):
    """The program alone and under Hesper with @trips (its pipeline named @name after it is
    made, when given; its module without line information when @plain); returns (run,
    report, text)."""
    argv = [args.program, str(trips), str(DISPATCHES)] + ([name] if name else [])
    module = {"HOT_LINES_MODULE": "plain"} if plain else {}
    base = e2e.Run(argv, {**e2e.base_env(args), **module}, tmp)
    out_json, out_text = os.path.join(tmp, f"{trips}.json"), os.path.join(tmp, f"{trips}.txt")
    run = e2e.Run(argv, {**lines_env(args, mode, chosen, out_json, out_text), **module}, tmp)
    e2e.check_like_alone(c, base, run, f"under Hesper ({mode} mode, HESPER_LINES={chosen}, {trips} trips)")
    rep = e2e.load_json(c, out_json, f"{trips} trips: Hesper wrote a readable JSON summary")
    for kernel in (rep or {}).get("lines") or []:
        check_database(c, f"{trips} trips", out_json, kernel)
    try:
        with open(out_text, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        text = ""
    return run, rep, text


def check_database(c, what, json_path, kernel):
    """The SQLite sink's hot_lines rows of @kernel against the JSON's lines (their keys and
    counts), and its hot_line_sources against the JSON's source."""
    try:
        db = sqlite3.connect(os.path.splitext(json_path)[0] + ".db")
        rows = db.execute("SELECT file, line, block, executions, code FROM hot_lines WHERE kernel = ? "
                          "ORDER BY cycles DESC", (kernel["kernel"],)).fetchall()
        sources = db.execute("SELECT file, text, read_from FROM hot_line_sources WHERE kernel = ?",
                             (kernel["kernel"],)).fetchall()
        db.close()
    except sqlite3.Error as e:
        c.check(False, f"{what}: the SQLite sink's hot lines can be read", str(e))
        return
    want = [(ln.get("file") if ln.get("line") else None, ln.get("line") or None, ln.get("block"),
             ln.get("executions"), ln.get("code")) for ln in kernel.get("lines") or []]
    c.check(sorted(rows, key=repr) == sorted(want, key=repr),
            f"{what}: the SQLite sink's hot_lines rows are the JSON's lines ({len(want)})",
            f"{rows[:3]!r} against {want[:3]!r}")
    source = kernel.get("source")
    c.check(sources == ([(source["file"], source["text"], source.get("read_from"))] if source else []),
            f"{what}: the SQLite sink's hot_line_sources row is the JSON's source", f"{len(sources)} rows")


def kernel_row(rep):
    rows = [k for k in rep.get("kernels") or [] if isinstance(k, dict)]
    return rows[0] if len(rows) == 1 else None


def check_counts(args, c, run, rep, text, trips, marks):
    """The checks of one run under clock mode with HESPER_LINES; returns the loop's share or None."""
    truth = lines_truth(run.out)
    if not c.check(truth is not None and rep is not None, f"{trips} trips: truth line and JSON summary"):
        return None
    row = kernel_row(rep)
    if not c.check(row is not None, f"{trips} trips: one kernel in the report", f"{rep.get('kernels')!r}"):
        return None
    name, d = row.get("name"), truth["dispatches"]
    c.check(row.get("count") == d and row.get("timed") == d, f"{trips} trips: {d} dispatches counted and timed",
            f"{row!r}")
    c.check({"kernel": name, "why": "its lines are counted (HESPER_LINES)"} in (rep.get("clock_fallbacks") or []),
            f"{trips} trips: the kernel is a clock fallback whose lines are counted", f"{rep.get('clock_fallbacks')!r}")
    kernels = [k for k in rep.get("lines") or [] if isinstance(k, dict) and k.get("kernel") == name]
    if not c.check(len(kernels) == 1, f"{trips} trips: the JSON has the lines of {name!r}", f"{rep.get('lines')!r}"):
        return None
    k = kernels[0]
    c.check(k.get("dispatches") == d, f"{trips} trips: the lines say {d} dispatches", f"{k.get('dispatches')!r}")
    by_line = {}
    for ln in k.get("lines") or []:
        if str(ln.get("file", "")).endswith(truth["source"]):
            by_line[ln.get("line")] = ln
    n, t = truth["invocations"], truth["trips"]
    expect = {"HOT": n * t * d, "BRANCH": truth["taken"] * d, "STORE": n * d}
    for mark, executions in expect.items():
        got = by_line.get(marks[mark], {}).get("executions")
        c.check(got == executions, f"{trips} trips: line {marks[mark]} ({mark}) executed {executions} times",
                f"got {got!r}; lines {sorted(by_line)}")
    shares = [ln.get("share", 0) for ln in k.get("lines") or []]
    c.check(abs(sum(shares) - 1) < 1e-6, f"{trips} trips: the lines' shares add up to 1", f"{sum(shares)!r}")
    c.check("Hot lines" in text and f"hot_lines.comp:{marks['HOT']}" in text,
            f"{trips} trips: the text report's Hot lines name the loop's line", text[-3000:])
    source = k.get("source") or {}
    c.check(str(source.get("file", "")).endswith(truth["source"]) and "// HOT loop body" in str(source.get("text")),
            f"{trips} trips: the JSON holds the source file the module embeds", f"{str(source)[:300]!r}")
    hot_share = 100 * by_line.get(marks["HOT"], {}).get("share", 0)
    listed = [ln for ln in text.splitlines() if ln.split()[1:2] == [str(marks["HOT"])] and "// HOT loop body" in ln]
    c.check(len(listed) == 1 and listed[0].split()[0] == f"{hot_share:.1f}%",
            f"{trips} trips: the annotated listing shows line {marks['HOT']}'s text with its share ({hot_share:.1f} %)",
            "\n".join(listed) or text[-2000:])
    loop = sum(by_line.get(marks[m], {}).get("share", 0) for m in ("LOOP", "HOT"))
    print(f"  {trips} trips: the loop's lines hold {100 * loop:.1f} % of {name}'s clock time")
    return loop


def case_counts(args, c, tmp):
    marks = {m: marked_line(args.source, "// " + m) for m in ("LOOP", "HOT", "BRANCH", "STORE")}
    run, rep, text = run_once(args, c, tmp, FEW, "*")
    if "no lines are counted on" in run.err:
        c.skip("the device cannot count lines: " + next(ln for ln in run.err.splitlines() if "no lines" in ln))
        return run.tail("under Hesper")
    few = check_counts(args, c, run, rep, text, FEW, marks)
    row = kernel_row(rep or {}) or {}
    run2, rep2, text2 = run_once(args, c, tmp, MANY, f"no_such_kernel, {row.get('name', '?')}")
    many = check_counts(args, c, run2, rep2, text2, MANY, marks)
    if few is not None and many is not None:
        c.check(many >= 0.8, f"with {MANY} trips the loop's lines hold at least 80 % of the clock time",
                f"{100 * many:.1f} %")
        c.check(many > few, "the loop's share grows with its trips", f"{100 * few:.1f} % -> {100 * many:.1f} %")
    return run2.tail("under Hesper (many trips)")


def case_named(args, c, tmp):
    marks = {m: marked_line(args.source, "// " + m) for m in ("LOOP", "HOT", "BRANCH", "STORE")}
    run, rep, text = run_once(args, c, tmp, MANY, "no_such_kernel,hot_loop", name="hot_loop")
    truth = lines_truth(run.out)
    if truth is not None and not truth.get("named"):
        c.skip("the program could not name its pipeline (no VK_EXT_debug_utils)")
        return run.tail("under Hesper")
    if "no lines are counted on" in run.err:
        c.skip("the device cannot count lines")
        return run.tail("under Hesper")
    row = kernel_row(rep or {})
    c.check(row is not None and row.get("name") == "hot_loop", "the report's kernel has the name given later",
            f"{(rep or {}).get('kernels')!r}")
    many = check_counts(args, c, run, rep, text, MANY, marks)
    if many is not None:
        c.check(many >= 0.8, f"with {MANY} trips the loop's lines hold at least 80 % of the clock time",
                f"{100 * many:.1f} %")
    return run.tail("under Hesper (named)")


def case_modes(args, c, tmp):
    run, rep, _ = run_once(args, c, tmp, FEW, "*", mode="dispatch")
    said = [ln for ln in run.err.splitlines() if "HESPER_LINES" in ln]
    c.check(len(said) == 1 and "clock" in said[0], "one line says HESPER_LINES has an effect in clock mode only",
            "\n".join(said) or run.err[-2000:])
    c.check(rep is not None and not rep.get("lines"), "no lines in dispatch mode's JSON",
            f"{(rep or {}).get('lines')!r}")
    return run.tail("under Hesper (dispatch mode)")


def case_blocks(args, c, tmp):
    run, rep, text = run_once(args, c, tmp, MANY, "*", plain=True)
    truth = lines_truth(run.out)
    if "no lines are counted on" in run.err:
        c.skip("the device cannot count lines")
        return run.tail("under Hesper")
    if not c.check(truth is not None and truth.get("lines") is False and rep is not None,
                   "the module without line information ran, and Hesper wrote its summary"):
        return run.tail("under Hesper")
    kernels = [k for k in rep.get("lines") or [] if isinstance(k, dict)]
    if not c.check(len(kernels) == 1, "the JSON has one kernel's lines", f"{rep.get('lines')!r}"):
        return run.tail("under Hesper")
    entries = kernels[0].get("lines") or []
    named = [e for e in entries if e.get("line") == 0 and e.get("file") == "" and
             str(e.get("block", "")).startswith("%") and ": Op" in str(e.get("block", ""))]
    c.check(entries and len(named) == len(entries), "every entry is a block named by its label and first opcodes",
            f"{entries[:3]!r}")
    n, t, d = truth["invocations"], truth["trips"], truth["dispatches"]
    runs = sorted(e.get("executions") for e in entries)
    for what, executions in (("the loop's body", n * t * d), ("the branch", truth["taken"] * d),
                             ("the store", n * d)):
        c.check(executions in runs, f"a block ran exactly as often as {what}: {executions} times", f"{runs!r}")
    loop = sum(e.get("share", 0) for e in entries if e.get("executions", 0) >= n * t * d)
    c.check(loop >= 0.8, "the blocks run at least once per trip hold at least 80 % of the clock time",
            f"{100 * loop:.1f} %")
    print(f"  the loop's blocks hold {100 * loop:.1f} % of the clock time, {len(entries)} blocks")
    listed = [e for e in entries if e.get("code")]
    c.check(1 <= len(listed) <= 3 and listed[0] is entries[0],
            "the hottest blocks (at most three, the first among them) carry their SPIR-V",
            f"{[e.get('block') for e in listed]!r}")
    for e in listed:
        label = str(e.get("block", "")).split(":")[0]
        c.check(str(e["code"]).startswith(f"{label} = OpLabel\n"), f"block {label}'s code opens with its OpLabel",
                str(e["code"])[:200])
    top = str(entries[0].get("block", "")) if entries else "?"
    c.check(f"block {top} (" in text and "its SPIR-V:" in text and "= OpLabel" in text,
            "the text report shows the hottest block's SPIR-V", text[-3000:])
    return run.tail("under Hesper (blocks)")


def without_source_text(words):
    """SPIR-V @words (a list of ints) with OpSource's text and every OpSourceContinued left
    out: the module still names its file and lines (OpString, OpLine), as modules built
    without their source embedded do."""
    out = words[:5]
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        inst = words[i:i + count]
        if opcode == 3 and count > 4:  # OpSource language version file "text"
            inst = [(4 << 16) | 3] + inst[1:4]
        if opcode != 2:  # OpSourceContinued
            out += inst
        i += max(count, 1)
    return out


def case_source_path(args, c, tmp):
    spv = os.path.join(os.path.dirname(args.program), "hot_lines_g.spv")
    with open(spv, "rb") as f:
        data = f.read()
    words = list(struct.unpack(f"<{len(data) // 4}I", data))
    stripped = without_source_text(words)
    spv_dir = os.path.join(tmp, "spv")
    os.mkdir(spv_dir)
    with open(os.path.join(spv_dir, "hot_lines_g.spv"), "wb") as f:
        f.write(struct.pack(f"<{len(stripped)}I", *stripped))
    c.check(len(stripped) < len(words), "the module's source text taken out", f"{len(words)} words both")
    argv = [args.program, str(MANY), str(DISPATCHES)]
    found = {}
    for label, extra in (("without HESPER_SOURCE_PATH", {}),
                         # relative: taken from the directory the program starts in (tmp)
                         ("with HESPER_SOURCE_PATH", {"HESPER_SOURCE_PATH":
                                                      "/no/such/dir:" + os.path.relpath(
                                                          os.path.dirname(args.source), tmp)})):
        out_json, out_text = os.path.join(tmp, f"{len(found)}.json"), os.path.join(tmp, f"{len(found)}.txt")
        env = {**lines_env(args, "clock", "*", out_json, out_text), "TEST_SPV_DIR": spv_dir, **extra}
        run = e2e.Run(argv, env, tmp)
        if "no lines are counted on" in run.err:
            c.skip("the device cannot count lines")
            return run.tail(label)
        c.check(run.rc == 0, f"{label}: the program exits 0", run.tail(label))
        msgs = e2e.validation_messages(run)
        c.check(not msgs, f"{label}: no validation messages", "\n".join(msgs[:20]))
        rep = e2e.load_json(c, out_json, f"{label}: Hesper wrote a readable JSON summary")
        kernels = [k for k in (rep or {}).get("lines") or [] if isinstance(k, dict)]
        if not c.check(len(kernels) == 1, f"{label}: the JSON has one kernel's lines", f"{(rep or {}).get('lines')!r}"):
            return run.tail(label)
        check_database(c, label, out_json, kernels[0])
        with open(out_text, encoding="utf-8") as f:
            found[label] = (kernels[0].get("source"), f.read())
    none, _ = found["without HESPER_SOURCE_PATH"]
    c.check(none is None, "without HESPER_SOURCE_PATH: no source text (the module holds none)", f"{none!r}"[:300])
    source, text = found["with HESPER_SOURCE_PATH"]
    with open(args.source, encoding="utf-8") as f:
        want = f.read()
    c.check(isinstance(source, dict) and source.get("text") == want,
            "with HESPER_SOURCE_PATH: the JSON holds the file's text, found by its last component", f"{source!r}"[:300])
    c.check(isinstance(source, dict) and source.get("read_from") == os.path.realpath(args.source),
            "the JSON says which file the text was read from", f"{(source or {}).get('read_from')!r}")
    c.check(f"(read from {os.path.realpath(args.source)}, HESPER_SOURCE_PATH)" in text and
            "// HOT loop body" in text, "the text report's listing shows the file and says where it was read",
            text[-2000:])
    return ""


def main():
    return e2e.case_main(__doc__, {"counts": case_counts, "named": case_named, "modes": case_modes,
                                   "blocks": case_blocks, "source_path": case_source_path}, "lines",
                         extra_args=lambda ap: ap.add_argument("--source", required=True))


if __name__ == "__main__":
    sys.exit(main())
