"""A recorder that commits results arriving close together in one transaction: what another
connection sees, when, and that a failed commit is not silently lost."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from promptum.store import RunStore, StoreRecorder
from promptum.values.run_result import RunResult
from tests.store.samples import make_run, mixed_outcomes

NEVER_S = 3600.0
"""A commit interval no test outlasts: only a flush, a full batch or the end commits."""


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "runs.sqlite")


def _started(
    store: RunStore, run_id: str, commit_every_s: float
) -> tuple[StoreRecorder, RunResult]:
    run = make_run(run_id, mixed_outcomes())
    recorder = store.recorder(commit_every_s=commit_every_s)
    recorder.start(run.model_copy(update={"results": [], "finished_at": None}))
    return recorder, run


def _visible(store: RunStore, run_id: str) -> int:
    """How many results of the run another connection sees committed."""
    return RunStore(store.path).summary(run_id).total


def test_the_first_result_commits_at_once_the_next_wait_for_a_flush(store: RunStore) -> None:
    async def scenario() -> None:
        recorder, run = _started(store, "batched", NEVER_S)
        for result in run.results[:5]:
            recorder.add_at(result, 0)
        assert _visible(store, "batched") == 1
        recorder.flush()
        assert _visible(store, "batched") == 5
        recorder.finish(run)

    asyncio.run(scenario())
    assert store.summary("batched").state == "complete"


def test_waiting_results_are_committed_when_the_interval_is_over(store: RunStore) -> None:
    async def scenario() -> None:
        recorder, run = _started(store, "timed", 0.05)
        for result in run.results[:4]:
            recorder.add_at(result, 0)
        await asyncio.sleep(0.5)  # the loop runs the recorder's timer, due well before
        assert _visible(store, "timed") == 4
        recorder.finish(run)

    asyncio.run(scenario())


def test_finish_commits_the_waiting_results_with_the_end_of_the_run(store: RunStore) -> None:
    async def scenario() -> None:
        recorder, run = _started(store, "finished", NEVER_S)
        for position, result in enumerate(run.results):
            recorder.add_at(result, position)
        recorder.finish(run)

    asyncio.run(scenario())
    run = make_run("finished", mixed_outcomes())
    loaded = store.load("finished")
    assert [r.model_dump() for r in loaded.results] == [r.model_dump() for r in run.results]
    assert store.summary("finished").total == len(run.results)


def test_outside_an_event_loop_every_result_commits_at_once(store: RunStore) -> None:
    recorder, run = _started(store, "no-loop", NEVER_S)
    for result in run.results[:3]:
        recorder.add(result)
    assert _visible(store, "no-loop") == 3  # nothing could commit them later
    recorder.finish(run)


class _BrokenConnection:
    """A connection whose batch insert fails as a full disk makes it fail."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        raise sqlite3.OperationalError("database or disk is full")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


def test_a_commit_failing_on_the_timer_fails_the_next_result(store: RunStore) -> None:
    async def scenario() -> None:
        recorder, run = _started(store, "broken", 0.05)
        recorder.add_at(run.results[0], 0)
        recorder._connection = _BrokenConnection(recorder._connection)  # type: ignore[assignment]
        recorder.add_at(run.results[1], 1)
        recorder.add_at(run.results[2], 2)
        await asyncio.sleep(0.5)  # the timer's commit fails
        with pytest.raises(sqlite3.OperationalError, match="disk is full"):
            recorder.add_at(run.results[3], 3)  # the runner then drops the sink, and says so

    asyncio.run(scenario())
    assert _visible(store, "broken") == 1
