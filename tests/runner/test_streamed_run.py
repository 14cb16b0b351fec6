"""A run that streams its results: figures counted as they arrive, nothing kept, same verdicts."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from promptum import Prompt, Session
from promptum.gate import decide
from promptum.store import RunStore
from promptum.values.run_result import CaseResult, RunResult


def answer(query: str) -> str:
    """An application under test: right for even cases, wrong for the rest."""
    number = int(query.split()[-1])
    return f"The answer is {number}" if number % 2 == 0 else "I cannot say"


def _session(cases: int, repeat: int = 1) -> Session:
    session = Session(target=answer, concurrency=4)
    for n in range(cases):
        session.add_test(
            Prompt(
                name=f"case-{n:05d}",
                prompt=f"Say the number {n}",
                checks=[{"type": "contains", "value": str(n)}, {"type": "max_length", "value": 40}],
                must_pass=n == 3,
                repeat=repeat,
            )
        )
    return session


class _Counter:
    """A sink that counts results and keeps none (as a JSONL file or the store would)."""

    def __init__(self) -> None:
        self.count = 0

    def start(self, run: RunResult) -> None:
        """Nothing to prepare."""

    def add(self, result: CaseResult) -> None:
        """Count one result."""
        self.count += 1

    def finish(self, run: RunResult) -> None:
        """Nothing to close."""


def test_a_streamed_run_has_the_figures_of_a_kept_run_without_its_results() -> None:
    kept = _session(40).run()
    streamed = _session(40).run(keep_results=False)
    assert streamed.results == []
    assert len(kept.results) == streamed.result_count == 40
    timing = {"latency_p50_ms", "latency_p95_ms"}  # two runs, two clocks
    assert {m: s.model_dump(exclude=timing) for m, s in streamed.stats().items()} == {
        m: s.model_dump(exclude=timing) for m, s in kept.stats().items()
    }
    assert streamed.get_check_stats() == kept.get_check_stats()
    assert (streamed.pass_rate, streamed.passed) == (kept.pass_rate, kept.passed) == (0.5, False)
    assert decide(streamed) == decide(kept)
    assert decide(streamed).line.startswith("gate: FAIL — must-pass case case-00003")
    failures = [r.key for r in streamed.tally().failures.first()]
    assert failures == [r.key for r in kept.results if r.status != "pass"][:25]


def test_flaky_cases_are_found_without_keeping_results() -> None:
    calls: dict[str, int] = {}

    def sometimes(query: str) -> str:
        calls[query] = calls.get(query, 0) + 1
        return "yes" if calls[query] % 2 else "no"

    session = Session(target=sometimes, concurrency=1)
    session.add_test(
        Prompt(name="coin", prompt="flip", checks=[{"type": "contains", "value": "yes"}], repeat=3)
    )
    run = session.run(keep_results=False)
    (flaky,) = run.tally().flaky()
    assert (flaky.case_id, flaky.passed, flaky.total) == ("coin", 2, 3)


def test_the_store_gives_a_streamed_run_back_in_plan_order(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run = _session(30, repeat=2).run(keep_results=False, sinks=[store.recorder()])
    stored = list(store.iter_results(run.run_id, batch=7))
    assert [(r.case_id, r.repeat) for r in stored] == [
        (f"case-{n:05d}", repeat) for n in range(30) for repeat in (1, 2)
    ]
    loaded = store.load(run.run_id)
    assert loaded.results == stored
    assert loaded.stats() == run.stats()
    assert (loaded.planned_results, loaded.complete) == (60, True)


def _growth(cases: int) -> int:
    session = _session(cases)
    tracemalloc.start()
    try:
        session.run(keep_results=False, sinks=[_Counter()])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def test_memory_does_not_grow_with_the_results_of_a_streamed_run() -> None:
    small, large = _growth(300), _growth(3000)
    # The session's own test cases are held either way; results must not be: a kept
    # CaseResult is ~3 KB, a streamed one costs its latency (8 bytes) and counters.
    per_result = (large - small) / 2700
    assert per_result < 1500, per_result
