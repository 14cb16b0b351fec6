"""YAML case files against inline cases: loading the same cases both ways, side by side.

Generates, in a temporary folder, N cases written inline under a suite's `test_cases:` and
the same N cases in a YAML case file read with `cases_from`, and loads each in a fresh
process (`load_suite`, every case built), which reports its wall time and peak RSS. A case
file is read a case at a time like `test_cases`, so the ratios should be close to 1.0.

Run: .venv/bin/python benchmarks/case_files.py [--cases 40000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

CASE = """\
- id: case-{i}
  query: "What is {a} + {b}? Answer with the number only."
  tags: [math]
  checks:
    - {{type: contains, value: "{c}"}}
    - {{type: min_length, value: 1}}
"""


def write(folder: Path, cases: int) -> dict[str, Path]:
    """The inline suite and the case-file suite of the same `cases`."""
    text = "".join(CASE.format(i=i, a=i % 97, b=i % 89, c=i % 97 + i % 89) for i in range(cases))
    inline = folder / "inline" / "suite.yaml"
    inline.parent.mkdir(parents=True)
    indented = "".join("  " + line + "\n" for line in text.splitlines())
    inline.write_text("models: local/smollm2\ntest_cases:\n" + indented, encoding="utf-8")
    case_file = folder / "file" / "suite.yaml"
    case_file.parent.mkdir(parents=True)
    (case_file.parent / "cases.yaml").write_text(text, encoding="utf-8")
    case_file.write_text("models: local/smollm2\ncases_from: cases.yaml\n", encoding="utf-8")
    return {"inline": inline, "case file": case_file}


def _child(suite: str) -> None:
    sys.path.insert(0, str(SRC))
    from promptum.suites import load_suite

    start = time.perf_counter()
    cases = len(list(load_suite(suite).cases))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"cases": cases, "seconds": seconds, "peak_mb": peak}))


def measure(suite: Path) -> dict[str, float]:
    """Load `suite` in a fresh process: its case count, seconds and peak RSS (MB)."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(suite)],
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


def main() -> None:
    """Measure both ways and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40_000)
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return
    with tempfile.TemporaryDirectory(prefix="promptum-case-files-") as folder:
        suites = write(Path(folder), args.cases)
        found = {name: measure(path) for name, path in suites.items()}
    for name, figures in found.items():
        print(
            f"{name:10} {int(figures['cases']):>8,} cases  {figures['seconds']:6.1f} s  "
            f"{figures['peak_mb']:6.0f} MB peak"
        )
    inline, case_file = found["inline"], found["case file"]
    print(
        f"case file / inline: time {case_file['seconds'] / inline['seconds']:.2f}×, "
        f"peak RSS {case_file['peak_mb'] / inline['peak_mb']:.2f}×"
    )


if __name__ == "__main__":
    main()
