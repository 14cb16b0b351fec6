"""Resuming a conversation played by a Python target: `promptum run --resume`, and a Session.

A target sent the whole history each turn (`history: client`) resumes at its first
unfinished turn: the journal replays the finished ones. A target keeping the history itself
(`history: server`) lost it with the interrupted process, so its conversation starts again
from turn 1 under a new conversation id, and the run says why. Either way the resumed run's
result is the uninterrupted run's. In the CLI tests the target logs every call it gets to a
file, so the calls of each process are counted.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from promptum import Session
from promptum.cases import TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import PythonTarget
from tests.support.interrupts import interrupt_twice, stopped_when

BOT = '''\
import asyncio
import json
import os
from pathlib import Path

_HISTORIES: dict[str, list[str]] = {}
"""Each conversation's user messages, by its id: kept in this process only."""


def _answer(said: list[str]) -> str:
    name = next((t.split("My name is ")[1].rstrip(".") for t in said if "My name is " in t), None)
    if said[-1] == "What is my name?":
        return f"Your name is {name}." if name else "I do not know your name."
    return "Nice to meet you."


async def _logged(function: str, query: str, messages: list, conversation_id: str) -> None:
    call = {"pid": os.getpid(), "function": function, "query": query,
            "messages": len(messages), "conversation_id": conversation_id}
    with open("calls.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps(call) + "\\n")
    if Path("hang").exists() and query == "What is my name?":
        await asyncio.sleep(600)  # the run is interrupted here


async def remembering(query: str, messages: list, conversation_id: str) -> str:
    """Keeps the history itself, by conversation id (history: server)."""
    await _logged("remembering", query, messages, conversation_id)
    history = _HISTORIES.setdefault(conversation_id, [])
    history.append(query)
    return _answer(history)


async def reading(query: str, messages: list, conversation_id: str) -> str:
    """Reads the history promptum sends (history: client)."""
    await _logged("reading", query, messages, conversation_id)
    return _answer([m["content"] for m in messages if m["role"] == "user"])
'''

SUITE = """\
target: {target}
test_cases:
  - id: remembers-the-name
    turns:
      - query: My name is Ada.
      - query: What is my name?
        checks: [{{type: contains, value: Ada}}]
"""

SERVER = "{function: bot.py:remembering, history: server}"
CLIENT = "{function: bot.py:reading}"
RESTARTED = "run again from turn 1"


def _run(*extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "--no-store", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy(),
    )  # fmt: skip


def _finished(*extra: str) -> tuple[int, str]:
    process = _run(*extra)
    output, _ = process.communicate(timeout=120)
    return process.returncode, output


def _calls() -> list[dict[str, Any]]:
    log = Path("calls.jsonl")
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _interrupted_at_turn_2() -> list[dict[str, Any]]:
    """Run until the target is asked turn 2, then Ctrl-C twice; the calls it got."""
    Path("hang").touch()
    process = _run("-o", "run.json")
    deadline = time.monotonic() + 60
    while not any(call["query"] == "What is my name?" for call in _calls()):
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "the run never reached turn 2"
        time.sleep(0.05)
    output = interrupt_twice(process)
    assert process.returncode == 130, output
    Path("hang").unlink()
    return _calls()


def _turns(report: Path) -> tuple[str, list[tuple[str, str, str]]]:
    """A report's one result: its status and each turn's query, reply and status."""
    (result,) = json.loads(report.read_text(encoding="utf-8"))["results"]
    turns = [(t["query"], t["completion"]["text"], t["status"]) for t in result["turns"]]
    return result["status"], turns


def _interrupted_and_resumed(target: str) -> tuple[list[dict[str, Any]], str]:
    """Run the suite to the end, then again interrupted at turn 2 and resumed: the calls the
    interrupted run made, and the resumed run's output (its report as the first run's)."""
    Path("suite.yaml").write_text(SUITE.format(target=target), encoding="utf-8")
    code, output = _finished("-o", "reference.json")
    assert code == 0, output
    reference = _turns(Path("reference.json"))
    assert reference[0] == "pass"
    Path("calls.jsonl").unlink()

    before = _interrupted_at_turn_2()
    assert [call["query"] for call in before] == ["My name is Ada.", "What is my name?"]

    code, output = _finished("--resume", "-o", "run.json")
    assert code == 0, output
    assert _turns(Path("run.json")) == reference
    return before, output


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A folder holding the target's file, the working directory of every run."""
    monkeypatch.chdir(tmp_path)
    Path("bot.py").write_text(BOT, encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_a_target_keeping_its_own_history_starts_the_conversation_again_on_resume(
    project: Path,
) -> None:
    before, output = _interrupted_and_resumed(SERVER)
    # The new process never saw turn 1: it is asked again, under a new conversation id.
    resumed = _calls()[len(before) :]
    assert [call["query"] for call in resumed] == ["My name is Ada.", "What is my name?"]
    assert [call["messages"] for call in resumed] == [1, 1]  # only the new message each turn
    assert {call["pid"] for call in resumed}.isdisjoint({call["pid"] for call in before})
    (new_id,) = {call["conversation_id"] for call in resumed}
    assert new_id != before[0]["conversation_id"]
    assert RESTARTED in output
    assert "history: server" in output


@pytest.mark.slow
def test_a_target_sent_the_whole_history_resumes_at_its_unfinished_turn(project: Path) -> None:
    before, output = _interrupted_and_resumed(CLIENT)
    # Turn 1 is replayed from the journal: one call, turn 2's, with turn 1 in its history.
    resumed = _calls()[len(before) :]
    assert [call["query"] for call in resumed] == ["What is my name?"]
    assert resumed[0]["messages"] == 3  # turn 1, its reply, turn 2
    assert resumed[0]["conversation_id"] == before[0]["conversation_id"]
    assert RESTARTED not in output


class _Service:
    """A chat service keeping each conversation's messages by id, across runs.

    Its first call never answers: a call cut off when the run is interrupted.
    """

    def __init__(self) -> None:
        self.histories: dict[str, list[str]] = {}
        self.asked = threading.Event()

    async def __call__(self, query: str, conversation_id: str) -> str:
        self.histories.setdefault(conversation_id, []).append(query)
        if not self.asked.is_set():
            self.asked.set()
            await asyncio.sleep(30)  # cancelled when the run stops
        return f"seen {len(self.histories[conversation_id])}"


def _counted(target: PythonTarget) -> TestCase:
    """Two turns, each reply checked for how many messages the target holds by then."""
    return TestCase(
        id="counts",
        messages=(),
        models=(target.id,),
        target=target,
        turns=tuple(
            Turn(
                query=f"message {n}",
                checks=(CheckDefinition(type="exact_match", value=f"seen {n}"),),
            )
            for n in (1, 2)
        ),
    )


def test_a_turn_cut_off_mid_call_is_not_in_the_history_a_resumed_conversation_starts_from(
    tmp_path: Path,
) -> None:
    service = _Service()
    target = PythonTarget("service", service, history="server")
    session = Session()
    session.add_test(_counted(target))
    journal = tmp_path / "journal"
    stopped = asyncio.run(stopped_when(session, service.asked.is_set, journal))
    assert not stopped.complete
    (cut_off,) = service.histories  # the service kept turn 1, though it never answered

    resumed = session.run(journal_dir=journal, resume=True)
    assert resumed.run_id == stopped.run_id
    (result,) = resumed.results
    assert result.status == "pass", result.reasons
    (new,) = set(service.histories) - {cut_off}
    assert service.histories[new] == ["message 1", "message 2"]
    assert resumed.warnings == []  # no finished turn was asked again
