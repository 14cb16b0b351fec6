"""The recorder attached to the real runner, as `promptum run` attaches it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from promptum.cases import Grading, TestCase
from promptum.checks import CheckDefinition
from promptum.providers import ModelRequest
from promptum.runner import Runner
from promptum.store import RunStore
from promptum.values.completion import Completion
from promptum.values.run_result import Message, RunResult


class EchoModel:
    """Answers at once with the question turned around; fails on the case named 'down'."""

    def max_concurrency(self, model: str) -> int:
        return 4

    async def complete(self, request: ModelRequest) -> Completion:
        question = request.messages[-1].content
        if question == "down":
            return Completion(model=request.model, error="HTTP 503: overloaded", attempts=3)
        return Completion(text=f"You asked: {question}", model=request.model, latency_ms=1.0)


def test_every_result_of_a_real_run_is_recorded(tmp_path: Path) -> None:
    cases = [
        TestCase(
            id=question,
            messages=(Message(role="user", content=question),),
            models=("echo/a", "echo/b"),
            repeat=2,
            grading=Grading(checks=(CheckDefinition(type="contains", value="Paris"),)),
        )
        for question in ("Paris?", "Lyon?", "down")
    ]
    store = RunStore(tmp_path / "runs.sqlite")
    run = asyncio.run(
        Runner(EchoModel(), sinks=[store.recorder()]).run(cases, RunResult(run_id="real"))
    )

    loaded = store.load("real")
    assert len(loaded.results) == 12
    key = lambda r: (r.case_id, r.model, r.repeat)  # noqa: E731
    assert sorted(loaded.results, key=key) == sorted(run.results, key=key)
    assert loaded.complete
    summary = store.summary("real")
    assert (summary.passed, summary.failed, summary.errors) == (4, 4, 4)
    assert loaded.planned_results == 12
