"""`--resume` finds its own interrupted run, whatever other runs of the same cases did since."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from promptum import CaseResult, Prompt, RunResult, Session
from promptum.providers import ClientOptions
from promptum.runner import plan_fingerprint
from tests.support.fault_server import FaultServer, Reply

MODEL = "fault/model-a"
NAMES = "abcde"


def _session(options: ClientOptions) -> Session:
    session = Session(models=[MODEL], client_options=options, concurrency=1)
    for name in NAMES:
        session.add_test(Prompt(name=name, prompt=f"question {name}"))
    return session


class _StopAfter:
    """A sink that asks the run to stop once `count` results have arrived."""

    def __init__(self, stop: asyncio.Event, count: int) -> None:
        self.stop, self.left = stop, count

    def start(self, run: RunResult) -> None: ...

    def add(self, result: CaseResult) -> None:
        self.left -= 1
        if self.left == 0:
            self.stop.set()

    def finish(self, run: RunResult) -> None: ...


def _interrupted(
    server: FaultServer, options: ClientOptions, journal: Path, *texts: str
) -> RunResult:
    """A run that gets `texts` as its first answers, then is stopped while the next call hangs."""
    server.queue(*(Reply.ok(text) for text in texts))
    server.default = Reply.hang(30)

    async def go() -> RunResult:
        stop = asyncio.Event()
        return await _session(options).arun(
            sinks=[_StopAfter(stop, len(texts))], stop=stop, journal_dir=journal, grace_s=0.1
        )

    run = asyncio.run(go())
    server.default = Reply.ok("later")
    assert not run.complete
    assert len(run.results) == len(texts)
    return run


def test_resume_survives_a_complete_run_of_the_same_cases(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    journal = tmp_path / "runs"
    first = _interrupted(server, options, journal, "one", "two")

    # Another run of the same cases, started and finished in the meantime (a colleague, CI).
    other = _session(options).run(journal_dir=journal)
    assert other.complete
    assert other.run_id != first.run_id

    calls_before = len(server.requests)
    resumed = _session(options).run(journal_dir=journal, resume=True)
    assert resumed.complete
    assert resumed.run_id == first.run_id
    assert resumed.resumed is True
    assert sorted(r.case_id for r in resumed.results) == list(NAMES)
    texts = {r.case_id: r.completion.text for r in resumed.results}
    assert (texts["a"], texts["b"]) == ("one", "two")
    # Only the three units that had not finished were called again.
    assert len(server.requests) - calls_before == 3
    assert list(journal.glob("*.jsonl")) == []


def test_resume_takes_the_latest_interrupted_run(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    journal = tmp_path / "runs"
    older = _interrupted(server, options, journal, "one")
    newer = _interrupted(server, options, journal, "uno", "dos")
    assert len(list(journal.glob("*.jsonl"))) == 2  # each run has its own journal

    calls_before = len(server.requests)
    resumed = _session(options).run(journal_dir=journal, resume=True)
    assert resumed.run_id == newer.run_id
    assert {r.case_id: r.completion.text for r in resumed.results}["b"] == "dos"
    assert len(server.requests) - calls_before == 3
    # The older interrupted run is not this run's to remove: it can still be resumed.
    (left,) = journal.glob("*.jsonl")
    assert left.name.endswith(f"-{older.run_id}.jsonl")
    again = _session(options).run(journal_dir=journal, resume=True)
    assert again.run_id == older.run_id
    assert len(server.requests) - calls_before == 3 + 4
    assert list(journal.glob("*.jsonl")) == []


def test_a_journal_from_an_older_version_is_resumed_and_then_removed(
    tmp_path: Path, server: FaultServer, options: ClientOptions
) -> None:
    journal = tmp_path / "runs"
    first = _interrupted(server, options, journal, "one", "two")
    (path,) = journal.glob("*.jsonl")
    fingerprint = plan_fingerprint(_session(options).planned_cases())
    path.rename(journal / f"{fingerprint}.jsonl")  # the name every run of the plan once shared

    calls_before = len(server.requests)
    resumed = _session(options).run(journal_dir=journal, resume=True)
    assert resumed.run_id == first.run_id
    assert len(server.requests) - calls_before == 3
    assert list(journal.glob("*.jsonl")) == []


def test_the_journal_header_holds_no_secret(
    tmp_path: Path, server: FaultServer, options: ClientOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-journal-HeaderMustNotCarryThis-7781"
    monkeypatch.setenv("ACME_API_KEY", secret)
    journal = tmp_path / "runs"
    session = Session(name=f"suite {secret}", models=[MODEL], client_options=options)
    session.add_test(Prompt(name="a", prompt="q"))
    session.add_test(Prompt(name="b", prompt="q"))
    server.queue(Reply.ok("fine"))
    server.default = Reply.hang(30)

    async def go() -> RunResult:
        stop = asyncio.Event()
        return await session.arun(
            sinks=[_StopAfter(stop, 1)], stop=stop, journal_dir=journal, grace_s=0.1
        )

    run = asyncio.run(go())
    (path,) = journal.glob("*.jsonl")
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert set(header) == {"run_id", "started_at"}
    assert header["run_id"] == run.run_id
    assert secret not in path.name
