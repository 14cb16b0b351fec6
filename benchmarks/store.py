"""The run store: the cost of recording a run, and listing, showing, comparing and viewing.

1. Recording overhead: the same run through the real runner, store off and store on,
   against an instant OpenAI-compatible server (the fault server, in another process, through
   the real provider stack), then against an instant in-process model (the harshest case:
   the model costs nothing, so everything the store does shows). Repeated alternately; the
   ratio is of the medians.
2. Writing 100,000 results through the recorder (one commit per result, as in a run).
3. With ten runs of 10,000 results each: listing, showing (loading) a run, comparing two
   runs, and opening a run in the viewer (the page served over HTTP by uvicorn).

Run: .venv/bin/python benchmarks/store.py [--results N] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from promptum.cases import Grading, TestCase
from promptum.checks import CheckDefinition, evaluate_checks
from promptum.compare import compare_runs
from promptum.providers import ModelRequest
from promptum.runner import Runner, planned_count
from promptum.store import RunStore
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult, JudgeVerdict, Message, RunResult

MODELS = ("local/smollm2", "openai/gpt-4o-mini")
CHECKS = (
    CheckDefinition(type="contains", value="Paris"),
    CheckDefinition(type="max_length", value=400),
)


class InstantModel:
    """A model client that answers at once: what is left is promptum's own cost."""

    def max_concurrency(self, model: str) -> int:
        return 8

    async def complete(self, request: ModelRequest) -> Completion:
        text = request.messages[-1].content.replace("Where", "Paris is")
        return Completion(
            text=text, model=request.model, latency_ms=1.0, input_tokens=30, output_tokens=12
        )


def cases(count: int) -> list[TestCase]:
    return [
        TestCase(
            id=f"case-{i}",
            messages=(
                Message(role="system", content="You are terse."),
                Message(role="user", content=f"Where is the capital of France? ({i})"),
            ),
            models=MODELS,
            tags=("geo",),
            grading=Grading(checks=CHECKS),
        )
        for i in range(count // len(MODELS))
    ]


def timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def run_once(
    client: Callable[[], Any], store: RunStore | None, planned: list[TestCase], run_id: str
) -> float:
    sinks = [store.recorder()] if store is not None else []

    async def go() -> None:
        model = client()
        try:
            await Runner(model, sinks=sinks).run(planned, RunResult(run_id=run_id))
        finally:
            if hasattr(model, "aclose"):
                await model.aclose()

    return timed(lambda: asyncio.run(go()))


@contextmanager
def instant_server() -> Iterator[str]:
    """The project's fault server in its own process (no shared GIL), answering at once."""
    root = Path(__file__).resolve().parents[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fault_server"],
        cwd=root, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{root / 'src'}"},
    )  # fmt: skip
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("READY "):
            raise SystemExit(f"the instant server did not start: {line!r}")
        yield line.split()[1]
    finally:
        server.terminate()
        server.wait(timeout=10)


def overhead(
    label: str, client: Callable[[], Any], folder: Path, planned: list[TestCase], rounds: int
) -> None:
    store = RunStore(folder / f"overhead-{label.split()[0]}.sqlite")
    run_once(client, None, planned, "warm-up")
    off, on = [], []
    for r in range(rounds):
        off.append(run_once(client, None, planned, f"off-{r}"))
        on.append(run_once(client, store, planned, f"on-{r}"))
    base, recorded = statistics.median(off), statistics.median(on)
    count = planned_count(planned)
    print(f"   {label}: {count:,} results, median of {rounds}")
    print(
        f"     store off {base:.3f} s, store on {recorded:.3f} s: ratio {recorded / base:.3f} "
        f"(recording adds {(recorded / base - 1) * 100:+.1f}%)"
    )


def recording_overhead(folder: Path, results: int, rounds: int) -> None:
    from promptum.providers import ClientOptions, EndpointConfig, ModelClient

    print("1. recording a run (target: under 10% against an instant server)")
    with instant_server() as base_url:
        endpoint = EndpointConfig(base_url=base_url, api_key="sk-bench", max_concurrency=8)
        options = ClientOptions(cache=False, endpoints={"instant": endpoint})
        http_cases = [
            replace(case, models=("instant/model-a", "instant/model-b")) for case in cases(results)
        ]
        overhead("instant HTTP server", lambda: ModelClient(options), folder, http_cases, rounds)
    overhead("in-process instant model", InstantModel, folder, cases(results), rounds)


def make_result(i: int, model: str, repeat: int, rng_fail: bool) -> CaseResult:
    text = "It is Lyon." if rng_fail else f"The capital of France is Paris. ({i})"
    completion = Completion(
        text=text, model=model, latency_ms=300.0 + i % 97, input_tokens=30, output_tokens=12,
        cost_usd=0.0001,
    )  # fmt: skip
    checks = evaluate_checks(CHECKS, completion)
    passed = all(c.passed for c in checks)
    return CaseResult(
        case_id=f"case-{i}", model=model, repeat=repeat, status="pass" if passed else "fail",
        messages=[Message(role="user", content=f"Where is the capital of France? ({i})")],
        completion=completion, check_results=checks,
        judge=JudgeVerdict(model="local/smollm2", score=0.9 if passed else 0.1, passed=passed),
        tags=["geo"], source="suites/geo.yaml:3",
    )  # fmt: skip


def make_run(run_id: str, results: int, started: datetime, seed: int) -> RunResult:
    per_model = results // len(MODELS)
    return RunResult(
        run_id=run_id,
        suite="geo",
        models=list(MODELS),
        started_at=started,
        finished_at=started + timedelta(minutes=3),
        results=[
            make_result(i, model, 0, (i * 7 + seed) % 10 == 0)
            for model in MODELS
            for i in range(per_model)
        ],
    )


def record(store: RunStore, run: RunResult) -> None:
    recorder = store.recorder()
    recorder.start(run)
    for result in run.results:
        recorder.add(result)
    recorder.finish(run)


def write_many(folder: Path, total: int) -> RunStore:
    store = RunStore(folder / "history.sqlite")
    started = datetime(2026, 11, 30, tzinfo=UTC)
    runs = [
        make_run(f"run-{n:02d}", 10_000, started + timedelta(hours=n), n)
        for n in range(total // 10_000)
    ]
    seconds = timed(lambda: [record(store, run) for run in runs])
    per = seconds / total * 1e6
    print(f"2. wrote {total:,} results ({len(runs)} runs) in {seconds:.2f} s: ", end="")
    print(f"{total / seconds:,.0f} results/s, {per:.0f} µs per result")
    return store


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def query(store: RunStore) -> None:
    list_s = timed(lambda: store.list_runs(limit=100))
    show_s = timed(lambda: store.load("latest"))
    a, b = store.load("latest~1"), store.load("latest")
    compare_s = timed(lambda: compare_runs(a, b))
    print(f"3. with {len(store.list_runs(limit=None))} runs of 10,000 results each:")
    print(f"   list the runs       {list_s * 1000:8.1f} ms")
    print(f"   show (load) a run   {show_s * 1000:8.1f} ms")
    print(f"   compare two runs    {compare_s * 1000:8.1f} ms  (already loaded)")

    import uvicorn

    from promptum.viewer import create_app

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        for label, path in (
            ("open a run in the viewer", f"/runs/{b.run_id}"),
            ("compare in the viewer", f"/compare?a={a.run_id}&b={b.run_id}"),
            ("the viewer's run list", "/"),
        ):
            url = f"http://127.0.0.1:{port}{path}"
            size = 0

            def fetch(url: str = url) -> None:
                nonlocal size
                with urllib.request.urlopen(url, timeout=120) as response:
                    size = len(response.read())

            seconds = timed(fetch)
            print(f"   {label:<20}{seconds * 1000:8.1f} ms  ({size / 1e6:.1f} MB page)")
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=int, default=100_000, help="results written in part 2")
    parser.add_argument("--run-results", type=int, default=400, help="results per run in part 1")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        recording_overhead(Path(folder), options.run_results, options.rounds)
        store = write_many(Path(folder), options.results)
        query(store)


if __name__ == "__main__":
    main()
