"""How long `promptum --help` and `promptum validate` take to start, as whole processes.

Each command runs as a fresh process, alternating between the sides, and each figure is the
best of its repeats (other load on the machine only ever adds time). Target: `--help` and
`validate` on a small suite within 0.25 s. The interpreter starting and doing nothing is
measured alongside, as the floor; with ``--before SRC`` (another checkout's ``src``, e.g.
from ``git archive HEAD src | tar -x -C /tmp/before``) that tree is measured too, and the
ratio is this tree's time over its time.

``--imports`` also prints, per top-level package, the self time of the imports of
`validate` on the quick start (``python -X importtime``): where start-up time goes.

Run from the repository root: ``.venv/bin/python benchmarks/startup.py [--before SRC]``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "promptum --help": ["-m", "promptum", "--help"],
    "validate deterministic_checks.yaml": [
        "-m", "promptum", "validate", "examples/deterministic_checks.yaml"
    ],
    "validate capitals.yaml": ["-m", "promptum", "validate", "examples/capitals.yaml"],
    "validate quickstart.yaml": ["-m", "promptum", "validate", "examples/quickstart.yaml"],
}  # fmt: skip
TARGET_S = 0.25


def _seconds(arguments: list[str], source: Path | None) -> float:
    """Wall time of one fresh process running `arguments`, with `source` first on the path."""
    environment = dict(os.environ)
    if source is not None:
        environment["PYTHONPATH"] = str(source)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *arguments], cwd=ROOT, env=environment, capture_output=True, check=True
    )
    return time.perf_counter() - started


def _import_profile(command: list[str]) -> Counter[str]:
    """Milliseconds of import self time per top-level package, from ``-X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    totals: Counter[str] = Counter()
    for line in done.stderr.splitlines():
        found = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if found:
            totals[found[2].split(".")[0]] += int(found[1]) / 1000
    return totals


def main() -> None:
    """Measure every command on every side and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--before", type=Path, help="another checkout's src, measured alongside")
    parser.add_argument("--imports", action="store_true", help="print the import profile too")
    args = parser.parse_args()
    sides: dict[str, Path | None] = {"this tree": None}
    if args.before is not None:
        sides["before"] = args.before.resolve()
    best = {(side, name): float("inf") for side in sides for name in COMMANDS}
    for _ in range(args.repeats):
        for name, arguments in COMMANDS.items():
            for side, source in sides.items():
                best[side, name] = min(best[side, name], _seconds(arguments, source))
    print(f"best of {args.repeats}, seconds (target for promptum commands: {TARGET_S} s)")
    header = f"{'command':<36} {'this tree':>9}"
    print(header + (f" {'before':>7} {'ratio':>6}" if "before" in sides else ""))
    for name in COMMANDS:
        line = f"{name:<36} {best['this tree', name]:>9.3f}"
        if "before" in sides:
            before = best["before", name]
            line += f" {before:>7.3f} {best['this tree', name] / before:>5.2f}x"
        print(line)
    if args.imports:
        profile = _import_profile(COMMANDS["validate quickstart.yaml"])
        print(f"imports of validate quickstart.yaml: {sum(profile.values()):.0f} ms in all")
        for package, milliseconds in profile.most_common(15):
            print(f"  {milliseconds:6.1f} ms  {package}")


if __name__ == "__main__":
    main()
