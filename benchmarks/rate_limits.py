"""Running at an endpoint's rate limit, not into it: `promptum run` against a rate-limited server.

The server (`tests.support.limited_server`, in a process of its own on 127.0.0.1) is an
OpenAI-compatible API that enforces requests and tokens per minute as token buckets holding
one second of each limit, sends OpenAI's ``x-ratelimit-*`` headers (or none), answers past
either limit with 429 and ``retry-after``, answers every admitted call after `LATENCY_S`,
and counts calls and 429s. Each side is a fresh server and a fresh ``promptum run`` of the
same suite (`--cases` inline cases of ~100 tokens each, prompt and answer, so both limits
bind about equally), ``-c 64``:

- ``stated``: the limits given (``--rpm``/``--tpm``);
- ``adaptive``: nothing stated; the server's headers tell the limits;
- ``no headers``: nothing stated or told; the rate is found from the 429s (AIMD);
- ``judged``: ``stated`` with a judge on the same endpoint (twice the calls, one budget);
- ``before``: ``-c 64`` on the tree before pacing (`BEFORE`, extracted with ``git archive``).

Each line: the run's time (its report's start to finish), the limit's minimum time for the
calls the server answered (past its first second's burst), their ratio, the calls the server
was asked, the share answered 429 and the cases that ended in error. Targets (issue 37):
``stated`` within 1.1x of the minimum with at most 1% 429s, ``adaptive`` within 1.3x with at
most 5%, no case in error.

Run from the repository root: ``.venv/bin/python benchmarks/rate_limits.py`` (RPM 6,000 /
TPM 600,000, 2,000 cases: ~20 s a side) or ``--rpm 600 --tpm 60000`` (the issue's limits:
~200 s a side).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "547471b"
"""The commit before pacing: calls go at ``-c`` and each backs off from its own 429 alone."""
CONCURRENCY = 64
LATENCY_S = 0.3
QUERY = "Read this question about the rate limits of a model endpoint and answer it briefly. "
"""A case's query is this four times (~340 characters, ~90 tokens with its case number)."""


@contextmanager
def limited(rpm: int, tpm: int, headers: bool) -> Iterator[str]:
    """A fresh rate-limited server in its own process; its root URL."""
    command = [sys.executable, "-m", "tests.support.limited_server", "--rpm", str(rpm),
               "--tpm", str(tpm), "--latency-s", str(LATENCY_S)]  # fmt: skip
    if not headers:
        command.append("--no-headers")
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("READY "):
            raise RuntimeError(f"the limited server did not start: {line!r}")
        yield line.removeprefix("READY ")
    finally:
        process.terminate()
        process.wait(timeout=10)


def counts(root_url: str) -> dict[str, int]:
    """The server's counts: requests, limited (429s), answered, tokens."""
    with urllib.request.urlopen(f"{root_url}/stats", timeout=10) as answer:
        figures: dict[str, int] = json.load(answer)
    return figures


def write_suite(path: Path, count: int, root_url: str, judged: bool) -> None:
    """`count` inline cases on ``lim/m`` served at `root_url`; judged by ``lim/judge``."""
    lines = [
        "models: [lim/m]",
        f'endpoints: {{lim: {{base_url: "{root_url}/v1"}}}}',
        "defaults: {params: {max_tokens: 32}}",
        *(["judge: {model: lim/judge, threshold: 0.5}"] if judged else []),
        "test_cases:",
    ]
    for i in range(count):
        behaviour = ", expected_behavior: Answers it" if judged else ""
        lines.append(
            f"  - {{id: c{i}, query: 'Case {i}. {QUERY * 4}', "
            f"checks: [{{type: contains, value: '42'}}]{behaviour}}}"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def before_tree(folder: Path) -> Path:
    """The source of `BEFORE`, extracted into `folder` (git state untouched); its ``src``."""
    archive = subprocess.run(
        ["git", "archive", BEFORE, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "src"


def run_side(
    folder: Path, root_url: str, limits: list[str], judged: bool, source: Path | None, count: int
) -> dict[str, float]:
    """One ``promptum run`` against the server: its run time, errors and the server's counts."""
    suite = folder / "suite.yaml"
    write_suite(suite, count, root_url, judged)
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb"}
    if source is not None:
        env["PYTHONPATH"] = str(source)
    command = [sys.executable, "-m", "promptum", "run", str(suite), "-c", str(CONCURRENCY),
               "--no-cache", "--no-store", "-o", "r.json", *limits]  # fmt: skip
    if not judged:
        command.append("--no-judge")
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"promptum run failed ({done.returncode}):\n{done.stdout[-2000:]}")
    report = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    run = report.get("run", report)
    seconds = (
        datetime.fromisoformat(run["finished_at"]) - datetime.fromisoformat(run["started_at"])
    ).total_seconds()
    errors = sum(result["status"] == "error" for result in report["results"])
    return {"run": seconds, "wall": wall, "errors": errors, **counts(root_url)}


def minimum_s(figures: dict[str, float], rpm: int, tpm: int) -> float:
    """The least time the server's limits allow for the calls it answered, past its burst."""
    requests = (figures["answered"] - rpm / 60) / (rpm / 60)
    tokens = (figures["tokens"] - tpm / 60) / (tpm / 60)
    return max(requests, tokens)


def main() -> None:
    """Run every side once against a fresh server and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2_000)
    parser.add_argument("--rpm", type=int, default=6_000)
    parser.add_argument("--tpm", type=int, default=600_000)
    parser.add_argument("--sides", nargs="+", default=list(SIDES))
    args = parser.parse_args()
    print(f"{args.cases} cases, -c {CONCURRENCY}, server RPM {args.rpm:,} / TPM {args.tpm:,}, "
          f"{LATENCY_S:g} s an answer")  # fmt: skip
    print(f"{'side':<11} {'run':>8} {'minimum':>8} {'ratio':>6} {'calls':>6} {'429s':>6} "
          f"{'429 %':>6} {'errors':>6} {'tokens':>8}")  # fmt: skip
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        for side in args.sides:
            stated, headers, judged, before = SIDES[side]
            limits = ["--rpm", str(args.rpm), "--tpm", str(args.tpm)] if stated else []
            folder = base / side.replace(" ", "-")
            folder.mkdir()
            source = before_tree(base / "before") if before else None
            with limited(args.rpm, args.tpm, headers) as root_url:
                figures = run_side(folder, root_url, limits, judged, source, args.cases)
            least = minimum_s(figures, args.rpm, args.tpm)
            share = figures["limited"] / figures["requests"] * 100
            print(f"{side:<11} {figures['run']:>7.1f}s {least:>7.1f}s "
                  f"{figures['run'] / least:>5.2f}x {figures['requests']:>6.0f} "
                  f"{figures['limited']:>6.0f} {share:>5.1f}% {figures['errors']:>6.0f} "
                  f"{figures['tokens']:>8.0f}")  # fmt: skip


SIDES = {
    "stated": (True, True, False, False),
    "adaptive": (False, True, False, False),
    "no headers": (False, False, False, False),
    "judged": (True, True, True, False),
    "before": (False, True, False, True),
}
"""Each side: (limits stated, the server sends headers, a judge, the tree before pacing)."""


if __name__ == "__main__":
    main()
