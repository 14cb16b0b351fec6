"""How long `promptum --help` and `promptum validate` take to start, as whole processes.

Each command runs as a fresh process, alternating between the sides, and each figure is the
best of its repeats (other load on the machine only ever adds time). Target: `--help` and
`validate` on a small suite within 0.25 s. The interpreter starting and doing nothing is
measured alongside, as the floor; with ``--before SRC`` (another checkout's ``src``, e.g.
from ``git archive HEAD src | tar -x -C /tmp/before``) that tree is measured too, and the
ratio is this tree's time over its time.

The processes cache their compiled bytecode (in a temporary folder, so the tree stays
clean), as an installed package does: pip compiles it on install. Without the cache
(``PYTHONDONTWRITEBYTECODE=1``, as on some CI machines, with an editable install) every
start compiles promptum's modules again, ~0.07 s more.

``--imports`` also prints, per top-level package, the self time of the imports of
`validate` on a small suite and on the quick start (``python -X importtime``), on each
side: where start-up time goes.

Run from the repository root: ``.venv/bin/python benchmarks/startup.py [--before SRC]``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
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


def _environment(bytecode: Path, source: Path | None = None) -> dict[str, str]:
    """The measured processes' environment: bytecode cached under `bytecode`, `source` first."""
    environment = dict(os.environ, PYTHONPYCACHEPREFIX=str(bytecode))
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    if source is not None:
        environment["PYTHONPATH"] = str(source)
    return environment


def _seconds(arguments: list[str], environment: dict[str, str]) -> float:
    """Wall time of one fresh process running `arguments`."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *arguments], cwd=ROOT, env=environment, capture_output=True, check=True
    )
    return time.perf_counter() - started


def _import_profile(command: list[str], environment: dict[str, str]) -> Counter[str]:
    """Milliseconds of import self time per top-level package, from ``-X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        cwd=ROOT, env=environment, capture_output=True, text=True, check=True,
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
    with tempfile.TemporaryDirectory() as bytecode:
        sides = {"this tree": _environment(Path(bytecode))}
        if args.before is not None:
            sides["before"] = _environment(Path(bytecode), args.before.resolve())
        _report(sides, args.repeats, args.imports)


def _report(sides: dict[str, dict[str, str]], repeats: int, imports: bool) -> None:
    """Time every command on every side, once untimed first to fill the bytecode cache."""
    for arguments in COMMANDS.values():
        for environment in sides.values():
            _seconds(arguments, environment)
    best = {(side, name): float("inf") for side in sides for name in COMMANDS}
    for _ in range(repeats):
        for name, arguments in COMMANDS.items():
            for side, environment in sides.items():
                best[side, name] = min(best[side, name], _seconds(arguments, environment))
    print(f"best of {repeats}, seconds (target for promptum commands: {TARGET_S} s)")
    header = f"{'command':<36} {'this tree':>9}"
    print(header + (f" {'before':>7} {'ratio':>6}" if "before" in sides else ""))
    for name in COMMANDS:
        line = f"{name:<36} {best['this tree', name]:>9.3f}"
        if "before" in sides:
            before = best["before", name]
            line += f" {before:>7.3f} {best['this tree', name] / before:>5.2f}x"
        print(line)
    if imports:
        for name in ("validate deterministic_checks.yaml", "validate quickstart.yaml"):
            for side, environment in sides.items():
                profile = _import_profile(COMMANDS[name], environment)
                print(f"imports of {name}, {side}: {sum(profile.values()):.0f} ms in all")
                for package, milliseconds in profile.most_common(12):
                    print(f"  {milliseconds:6.1f} ms  {package}")


if __name__ == "__main__":
    main()
