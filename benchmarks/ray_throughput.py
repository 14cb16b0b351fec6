"""Embedded-model throughput in-process and on Ray (1 and 2 workers), measured side by side.

The same 32 cases (SmolLM2-135M, temperature 0, up to 48 tokens, no cache) run in one
process: in-process, then on a local Ray instance (2 CPUs) with one worker and with two,
then in-process again (how far a busy machine drifted meanwhile). Each run is timed whole
(for Ray: starting the worker actors, each loading its own copy of the model, and stopping
them; the Ray instance itself is started once, timed apart) and between its first and last
result (the steady rate). Figures are ratios to the first in-process run. For scale, two
plain in-process runs of half the cases each, side by side in two processes, show what the
machine's cores give two copies of the model without Ray.

Run from the repository root: ``.venv/bin/python benchmarks/ray_throughput.py`` (~2 minutes).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

from promptum import Prompt, Session
from promptum.executors import RayExecutor, quiet_local_ray
from promptum.providers import ClientOptions
from promptum.values.run_result import CaseResult, RunResult

CASES = 32
QUESTIONS = (
    "What is the capital of France?",
    "What is 2+2?",
    "Name a primary colour.",
    "What is the opposite of hot?",
    "Which planet is closest to the sun?",
    "How many legs does a spider have?",
    "What do bees make?",
    "What is frozen water called?",
)


@dataclass
class Clock:
    """A sink noting when each result arrives."""

    arrivals: list[float] = field(default_factory=list)

    def start(self, run: RunResult) -> None: ...

    def add(self, result: CaseResult) -> None:
        self.arrivals.append(time.perf_counter())

    def finish(self, run: RunResult) -> None: ...


@dataclass(frozen=True)
class Figures:
    """One run: results per second over the whole run and between first and last result."""

    name: str
    whole: float
    steady: float


def measure(name: str, executor: RayExecutor | None, cases: int = CASES) -> Figures:
    session = Session(
        models=["local/smollm2"], client_options=ClientOptions(cache=False), executor=executor
    )
    for index in range(cases):
        question = QUESTIONS[index % len(QUESTIONS)]
        session.add_test(
            Prompt(name=f"q{index}", prompt=f"{question} ({index})", temperature=0, max_tokens=48)
        )
    clock = Clock()
    started = time.perf_counter()
    run = session.run(sinks=[clock])
    elapsed = time.perf_counter() - started
    assert run.complete, run.warnings
    assert all(r.completion.ok for r in run.results)
    first, last = clock.arrivals[0], clock.arrivals[-1]
    return Figures(name, cases / elapsed, (cases - 1) / (last - first))


def side_by_side() -> float:
    """Results per second of two in-process runs of half the cases each, at the same time."""
    started = time.perf_counter()
    halves = [
        subprocess.Popen([sys.executable, __file__, "--half"], stdout=subprocess.DEVNULL)
        for _ in range(2)
    ]
    for half in halves:
        if half.wait() != 0:
            raise SystemExit("a side-by-side run failed")
    return CASES / (time.perf_counter() - started)


def main() -> None:
    if sys.argv[1:] == ["--half"]:
        measure("half", None, CASES // 2)
        return
    baseline = measure("in-process", None)
    pair = side_by_side()
    started = time.perf_counter()
    with quiet_local_ray(num_cpus=2):
        ray_start = time.perf_counter() - started
        runs = [
            baseline,
            measure("ray, 1 worker", RayExecutor(workers=1)),
            measure("ray, 2 workers", RayExecutor(workers=2)),
        ]
    # Measured again last: how far the machine's speed drifted during the runs above.
    runs.append(measure("in-process again", None))
    print(f"{CASES} cases on local/smollm2, {os.cpu_count()} CPUs; ray.init took {ray_start:.1f} s")
    print(f"{'':16} {'results/s':>9} {'ratio':>6}   {'steady/s':>8} {'ratio':>6}")
    for figures in runs:
        print(
            f"{figures.name:16} {figures.whole:9.2f} {figures.whole / baseline.whole:5.2f}x"
            f"   {figures.steady:8.2f} {figures.steady / baseline.steady:5.2f}x"
        )
    print(f"{'2 processes':16} {pair:9.2f} {pair / baseline.whole:5.2f}x   (no Ray, side by side)")


if __name__ == "__main__":
    main()
