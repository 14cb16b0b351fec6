"""Does `promptum run` stay flat as a suite grows? 10,000 / 100,000 / 1,000,000 cases.

Each size is one CSV (one case per row) behind a suite with five checks per case, run as
a whole process by `promptum run` against the instant local server of `run_overhead.py`
(concurrency 16, no cache, the run store on, a JSONL report streamed), with its output
thrown away. For each size: wall time per result and the process's peak RSS, as ratios
to the smallest size measured in the same run. Targets: peak RSS at 1,000,000 within
+100 MB of the RSS at 10,000, and time per result not growing with size (the store's
commits included).

Run from the repository root: ``.venv/bin/python benchmarks/scale.py [SIZES...]``
(default ``10000 100000 1000000``; the million takes a while).
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run_overhead import instant_server

ROOT = Path(__file__).resolve().parent.parent
PROMPTUM = ROOT / ".venv" / "bin" / "promptum"
SIZES = (10_000, 100_000, 1_000_000)
SUITE = """\
name: scale
endpoints:
  bench:
    base_url: {base_url}
    max_concurrency: 16
models: [bench/m]
prompt: "Say hello to {{{{ name }}}}"
defaults:
  checks:
    - {{type: contains, value: Hello}}
    - {{type: not_contains, value: error, case_insensitive: true}}
    - {{type: regex, value: '\\bserver\\b'}}
    - {{type: max_length, value: 500}}
    - {{type: max_latency_ms, value: 5000}}
cases_from: cases.csv
"""


def _write_suite(folder: Path, base_url: str, size: int) -> Path:
    with (folder / "cases.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "name"])
        writer.writerows((f"case-{n:07d}", f"person {n}") for n in range(size))
    suite = folder / "suite.yaml"
    suite.write_text(SUITE.format(base_url=base_url))
    return suite


def _run(folder: Path, suite: Path) -> tuple[float, float, int]:
    """One `promptum run`: its wall seconds, peak RSS in MB and exit code."""
    env = {**os.environ, "PROMPTUM_DB": str(folder / "runs.sqlite")}
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(PROMPTUM), "run", str(suite), "-c", "16", "--no-cache", "-o", "out.jsonl"],
        cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    assert process.stderr is not None
    error = process.stderr.read().decode()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise RuntimeError(f"promptum run exited {code}:\n{error[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, code


def main(sizes: tuple[int, ...]) -> None:
    """Run every size and print time per result and peak RSS against the smallest."""
    rows = []
    with instant_server() as base_url:
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="promptum-scale-") as name:
                folder = Path(name)
                suite = _write_suite(folder, base_url, size)
                seconds, peak_mb, code = _run(folder, suite)
                lines = sum(1 for _ in (folder / "out.jsonl").open())
                rows.append((size, seconds, peak_mb, code, lines))
    base_size, base_seconds, base_peak, _, _ = rows[0]
    base_per = base_seconds / base_size
    print("promptum run, 5 checks per case, concurrency 16, store on, JSONL out, instant server")
    print(f"{'cases':>9} {'wall s':>8} {'µs/result':>10} {'× base':>7} {'peak MB':>8} "
          f"{'+MB vs base':>11} {'exit':>4} {'jsonl':>9}")  # fmt: skip
    for size, seconds, peak, code, lines in rows:
        per = seconds / size
        print(
            f"{size:>9} {seconds:>8.1f} {per * 1e6:>10.0f} {per / base_per:>6.2f}x "
            f"{peak:>8.0f} {peak - base_peak:>+11.0f} {code:>4} {lines:>9}"
        )
    print(f"base: {base_size} cases; targets: +MB at the largest <= 100, x base not growing")


if __name__ == "__main__":
    main(tuple(int(arg) for arg in sys.argv[1:]) or SIZES)
