"""How long `promptum --help` and `promptum validate` take to start, as whole processes.

Each command runs as a fresh process, alternating between the sides, and each figure is the
best of its repeats (other load on the machine only ever adds time). Target: `--help` and
`validate` on a small suite within 0.25 s. What the everyday `run ... -o r.json` imports
before its first call is measured too (`benchmarks/run_overhead.py` times the whole run).
The interpreter starting and doing nothing is measured alongside, as the floor, and so are
the libraries every `validate` imports (click, PyYAML, pydantic building one model); with
``--before SRC`` (another checkout's ``src``, e.g. from ``git archive HEAD src | tar -x -C
/tmp/before``; repeatable) that tree is measured too, and the ratio is this tree's time over
its time. Each process's CPU time (user + system) is measured too, and its best printed as
a second table: on a shared, busy machine it is the steadier figure.

The processes cache their compiled bytecode (in a temporary folder, so the tree stays
clean), as an installed package does: pip compiles it on install. Without the cache
(``PYTHONDONTWRITEBYTECODE=1``, as on some CI machines, with an editable install) every
start compiles promptum's modules again, ~0.07 s more.

``--instructions`` also counts the instructions each command executes, once per side, under
valgrind's callgrind (about 50 times slower): a figure other load does not change, for a
machine too busy for times to compare.

``--imports`` also prints, per top-level package, the self time of the imports of
`validate` on a small suite and on the quick start (``python -X importtime``), on each
side: where start-up time goes.

Run from the repository root:
``.venv/bin/python benchmarks/startup.py [--before SRC]... [--instructions] [--imports]``.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What any `validate` pays before promptum's own modules: the libraries it is built on, and
# pydantic building a first model (which loads its plugins through importlib.metadata).
LIBRARIES = "import click, yaml\nfrom pydantic import BaseModel\nclass A(BaseModel):\n    x: int"
# What `promptum run suite.yaml -o r.json` imports before it calls a model, without the
# model's SDK (a bare SDK loop imports that too): its fixed cost over such a loop.
RUN_IMPORTS = (
    "import promptum.cli._run, promptum.suite_run, promptum.runner._grade, promptum.store, "
    "promptum.reporting._json"
)
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "click, yaml, a pydantic model": ["-c", LIBRARIES],
    "promptum --help": ["-m", "promptum", "--help"],
    "validate deterministic_checks.yaml": [
        "-m", "promptum", "validate", "examples/deterministic_checks.yaml"
    ],
    "validate capitals.yaml": ["-m", "promptum", "validate", "examples/capitals.yaml"],
    "validate quickstart.yaml": ["-m", "promptum", "validate", "examples/quickstart.yaml"],
    "imports of run -o r.json": ["-c", RUN_IMPORTS],
}  # fmt: skip
TARGET_S = 0.25


def _environment(bytecode: Path, source: Path | None = None) -> dict[str, str]:
    """The measured processes' environment: bytecode cached under `bytecode`, `source` first."""
    environment = dict(os.environ, PYTHONPYCACHEPREFIX=str(bytecode))
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    if source is not None:
        environment["PYTHONPATH"] = str(source)
    return environment


def _seconds(arguments: list[str], environment: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one fresh process running `arguments`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *arguments], cwd=ROOT, env=environment, capture_output=True, check=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def _instructions(arguments: list[str], environment: dict[str, str]) -> int:
    """Instructions one fresh process running `arguments` executes, counted by callgrind."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, *arguments],
        cwd=ROOT, env=environment, capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind counted nothing:\n{done.stderr[-1000:]}")
    return int(found[1])


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
    parser.add_argument(
        "--before", type=Path, action="append", default=[],
        help="another checkout's src, measured alongside (repeatable)",
    )  # fmt: skip
    parser.add_argument("--imports", action="store_true", help="print the import profile too")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions too (needs valgrind)"
    )
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind")
    with tempfile.TemporaryDirectory() as bytecode:
        sides = {"this tree": _environment(Path(bytecode))}
        for number, source in enumerate(args.before, 1):
            name = "before" if len(args.before) == 1 else f"before{number}"
            print(f"{name}: {source}")
            sides[name] = _environment(Path(bytecode), source.resolve())
        _report(sides, args.repeats, args.imports)
        if args.instructions:
            _report_instructions(sides)


def _report_instructions(sides: dict[str, dict[str, str]]) -> None:
    """Millions of instructions of every command on every side, with the ratios."""
    others = [side for side in sides if side != "this tree"]
    print(f"{'instructions, millions':<36} {'this tree':>9}", end="")
    print("".join(f" {side:>7} {'ratio':>6}" for side in others))
    for name, arguments in COMMANDS.items():
        counts = {side: _instructions(arguments, sides[side]) for side in sides}
        line = f"{name:<36} {counts['this tree'] / 1e6:>9.0f}"
        for side in others:
            line += f" {counts[side] / 1e6:>7.0f} {counts['this tree'] / counts[side]:>5.2f}x"
        print(line, flush=True)


def _report(sides: dict[str, dict[str, str]], repeats: int, imports: bool) -> None:
    """Time every command on every side, once untimed first to fill the bytecode cache."""
    for arguments in COMMANDS.values():
        for environment in sides.values():
            _seconds(arguments, environment)
    best = {
        (side, name, kind): float("inf") for side in sides for name in COMMANDS for kind in (0, 1)
    }
    for _ in range(repeats):
        for name, arguments in COMMANDS.items():
            for side, environment in sides.items():
                for kind, seconds in enumerate(_seconds(arguments, environment)):
                    best[side, name, kind] = min(best[side, name, kind], seconds)
    print(f"best of {repeats}, seconds (target for promptum commands: {TARGET_S} s)")
    others = [side for side in sides if side != "this tree"]
    for kind, title in enumerate(("wall time", "CPU time")):
        header = f"{title:<36} {'this tree':>9}"
        print(header + "".join(f" {side:>7} {'ratio':>6}" for side in others))
        for name in COMMANDS:
            line = f"{name:<36} {best['this tree', name, kind]:>9.3f}"
            for side in others:
                before = best[side, name, kind]
                line += f" {before:>7.3f} {best['this tree', name, kind] / before:>5.2f}x"
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
