"""The resume journal and the run store write one encoding of each result, whatever its text."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from promptum.cases import TestCase
from promptum.providers import ModelRequest
from promptum.runner import Journal, Runner
from promptum.store import RunStore
from promptum.values.completion import Completion
from promptum.values.run_result import Message, RunResult

LONE_SURROGATE = "half of a pair: \ud800"
"""What a JSON API's ``\\ud800`` escape decodes to: text UTF-8 cannot hold."""


class _Echo:
    def max_concurrency(self, model: str) -> int:
        return 2

    async def complete(self, request: ModelRequest) -> Completion:
        text = request.messages[-1].content
        return Completion(text=LONE_SURROGATE if text == "odd" else text, model=request.model)


def test_a_result_utf8_cannot_hold_is_journalled_and_stored_alike(tmp_path: Path) -> None:
    cases = [
        TestCase(id=f"c{n}", messages=(Message(role="user", content=text),), models=("m",))
        for n, text in enumerate(["fine", "odd"])
    ]
    store = RunStore(tmp_path / "runs.sqlite")
    journal = Journal(tmp_path / "journal", "plan")
    runner = Runner(_Echo(), sinks=[journal, store.recorder()], secrets=())
    # One more result planned than run: the run counts as interrupted and keeps its journal.
    run = asyncio.run(runner.run(cases, RunResult(run_id="r", planned_results=3)))

    assert run.warnings == []  # neither sink failed on the odd text
    assert journal.path is not None
    journalled = journal.path.read_text(encoding="utf-8").splitlines()[1:]
    with sqlite3.connect(store.path) as connection:
        stored = [row[0] for row in connection.execute("SELECT data FROM results ORDER BY seq")]
    assert sorted(journalled) == sorted(stored)
    texts = sorted(json.loads(line)["completion"]["text"] for line in journalled)
    assert texts == ["fine", "half of a pair: \ufffd"]  # replaced as every report writes it
