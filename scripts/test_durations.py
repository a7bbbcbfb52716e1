"""Where the Python suite's time goes, per test file, from pytest's JUnit XML (issue 64):

    bash scripts/test.sh --junitxml=/tmp/junit.xml
    python scripts/test_durations.py /tmp/junit.xml --json benchmarks/results/test_durations.json

Prints the files by their summed test time (setup, call and teardown, as pytest reports
them; with pytest-xdist the files run side by side, so the sum exceeds the wall time) with
their test counts and slowest test. With ``--before OLD.json`` adds the old figures beside.

    python scripts/test_durations.py --compare BEFORE.json AFTER.json   # a Markdown table

compares two --json outputs file by file (the issue's before/after).
"""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def per_file(xml: Path) -> dict[str, dict]:
    files: dict[str, dict] = defaultdict(lambda: {"seconds": 0.0, "tests": 0, "slowest": "", "slowest_s": 0.0})
    for case in ET.parse(xml).getroot().iter("testcase"):
        # classname: tests.python.test_file[.TestClass]
        parts = case.get("classname", "").split(".")
        name = next((p for p in parts if p.startswith("test_")), parts[-1]) + ".py"
        t = float(case.get("time", 0.0))
        f = files[name]
        f["seconds"] += t
        f["tests"] += 1
        if t > f["slowest_s"]:
            f["slowest"], f["slowest_s"] = case.get("name", ""), t
    return dict(files)


def compare(before: dict, after: dict) -> str:
    """Markdown: each file's summed seconds and test count before and after, slowest first
    (by the larger of the two); files only in one run show a dash in the other."""
    b, a = before["files"], after["files"]
    names = sorted(set(b) | set(a), key=lambda n: -max(b.get(n, {}).get("seconds", 0), a.get(n, {}).get("seconds", 0)))
    cell = lambda f, n: f"{f[n]['seconds']:.1f} ({f[n]['tests']})" if n in f else "-"  # noqa: E731
    lines = ["| file | before: s (tests) | after: s (tests) |", "|---|---:|---:|"]
    lines += [f"| {n} | {cell(b, n)} | {cell(a, n)} |" for n in names]
    tb, ta = (sum(f["seconds"] for f in x.values()) for x in (b, a))
    nb, na = (sum(f["tests"] for f in x.values()) for x in (b, a))
    lines.append(f"| all | {tb:.1f} ({nb}) | {ta:.1f} ({na}) |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="print the two files' table and stop")
    ap.add_argument("xml", type=Path, nargs="?")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--before", type=Path, help="an earlier --json output, shown beside")
    args = ap.parse_args(argv)
    if args.compare:
        print(compare(*(json.loads(p.read_text()) for p in args.compare)))
        return
    if args.xml is None:
        ap.error("the JUnit XML file (or --compare BEFORE AFTER)")
    files = per_file(args.xml)
    before = json.loads(args.before.read_text())["files"] if args.before else {}
    total = sum(f["seconds"] for f in files.values())
    print(f"{'file':<40}{'tests':>6}{'seconds':>9}{'before':>9}  slowest test")
    for name, f in sorted(files.items(), key=lambda kv: -kv[1]["seconds"]):
        old = f"{before[name]['seconds']:9.1f}" if name in before else f"{'':>9}"
        print(f"{name:<40}{f['tests']:>6}{f['seconds']:9.1f}{old}  {f['slowest']} ({f['slowest_s']:.1f} s)")
    print(f"{'all':<40}{sum(f['tests'] for f in files.values()):>6}{total:9.1f}")
    if args.json is not None:
        args.json.write_text(json.dumps({"files": files, "total_seconds": total,
                                         "command": f"python scripts/test_durations.py {args.xml} --json {args.json}"},
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
