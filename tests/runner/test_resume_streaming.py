"""A resumed run reads its earlier results from the journal as it needs them, never all at
once, and appends to the journal instead of writing it again."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from pathlib import Path

from promptum.cases import TestCase
from promptum.providers import ModelRequest
from promptum.runner import Journal, Runner
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult, Message, RunResult

LONG = "x" * 10_000
"""Each earlier answer's text: held in memory, 2,000 of them would take over 20 MB."""


def _cases(count: int) -> list[TestCase]:
    message = (Message(role="user", content="q"),)
    return [TestCase(id=f"c{i}", messages=message, models=("m",)) for i in range(count)]


class _Client:
    def __init__(self) -> None:
        self.asked = 0

    def max_concurrency(self, model: str) -> int:
        return 4

    async def complete(self, request: ModelRequest) -> Completion:
        self.asked += 1
        return Completion(text="new", model=request.model)


def _result(case: TestCase, text: str) -> CaseResult:
    completion = Completion(text=text, model="m")
    return CaseResult(
        case_id=case.id,
        model="m",
        status="pass",
        messages=list(case.messages),
        completion=completion,
    )


def _interrupted(folder: Path, cases: list[TestCase], finished: int) -> RunResult:
    """A run whose journal holds the first `finished` results, as an interrupted run leaves it."""
    run = RunResult(run_id="earlier")
    journal = Journal(folder, "plan")
    journal.start(run)
    for case in cases[:finished]:
        journal.add(_result(case, LONG))
    run.complete = False
    journal.finish(run)
    return run


async def _resume(folder: Path, cases: list[TestCase], client: _Client) -> RunResult:
    journal = Journal(folder, "plan")
    earlier = journal.load()
    assert earlier is not None
    run_id, started_at, finished = earlier
    run = RunResult(run_id=run_id, started_at=started_at, resumed=True)
    runner = Runner(client, sinks=[journal], keep_results=False)
    return await runner.run(cases, run, finished)


def test_resuming_reads_the_earlier_results_from_the_journal_without_holding_them(
    tmp_path: Path,
) -> None:
    cases = _cases(2_010)
    _interrupted(tmp_path, cases, 2_000)
    client = _Client()

    tracemalloc.start()
    try:
        run = asyncio.run(_resume(tmp_path, cases, client))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert client.asked == 10  # nothing finished runs again
    assert (run.result_count, run.complete) == (2_010, True)
    assert peak < 8 * 2**20  # the earlier results' texts alone are over 20 MB


def test_a_resumed_journal_is_appended_to_not_written_again(tmp_path: Path) -> None:
    cases = _cases(5)
    _interrupted(tmp_path, cases, 3)
    (path,) = tmp_path.glob("plan-*.jsonl")
    with path.open("a", encoding="utf-8") as journal:
        journal.write('{"case_id": "c3", "mod')  # the kill came mid-line
    before = path.read_text(encoding="utf-8")

    async def stopped_after_one() -> RunResult:
        client = _Client()
        journal = Journal(tmp_path, "plan")
        earlier = journal.load()
        assert earlier is not None
        run_id, started_at, finished = earlier
        run = RunResult(run_id=run_id, started_at=started_at, resumed=True)
        runner = Runner(client, sinks=[journal], concurrency=1)
        original = client.complete

        async def then_stop(request: ModelRequest) -> Completion:
            runner.stop()
            return await original(request)

        client.complete = then_stop  # type: ignore[method-assign]
        return await runner.run(cases, run, finished)

    run = asyncio.run(stopped_after_one())

    assert not run.complete
    after = path.read_text(encoding="utf-8")
    assert after.startswith(before)  # the earlier lines as they were, none written twice
    added = after[len(before) :].splitlines()
    assert added[0] == ""  # the cut line ends, so the next result is a line of its own
    assert [json.loads(line)["case_id"] for line in added[1:]] == ["c3"]
    texts = [json.loads(line)["completion"]["text"] for line in after.splitlines()[1:4]]
    assert texts == [LONG] * 3
