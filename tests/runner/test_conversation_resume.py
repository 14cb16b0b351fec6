"""Conversations across runs: the cache replays every turn, and `--resume` continues an
interrupted conversation from its first unfinished turn. Calls are counted at the fault
server (a real OpenAI-compatible HTTP server on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from promptum import Session
from promptum.cases import GOAL_REACHED, ConversationGrading, Grading, Simulation, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import ClientOptions
from promptum.values.run_result import CaseResult, Message
from tests.support.fault_server import FaultServer, Reply
from tests.support.interrupts import stopped_when

MODEL = "fault/chat"


def _scripted() -> TestCase:
    contains = (CheckDefinition(type="contains", value="r"),)
    return TestCase(
        id="four-turns",
        messages=(Message(role="system", content="Be brief."),),
        models=(MODEL,),
        turns=tuple(Turn(query=f"question {n}", checks=contains) for n in range(1, 5)),
        grading=Grading(
            conversation=ConversationGrading(
                checks=(CheckDefinition(type="not_contains", value="x"),)
            )
        ),
    )


def _session(options: ClientOptions, case: TestCase) -> Session:
    session = Session(client_options=options)
    session.add_test(case)
    return session


def _shape(result: CaseResult) -> dict[str, Any]:
    """Everything of a result but the timings, which differ from run to run."""
    data = result.model_dump(mode="json")
    data["completion"].pop("latency_ms")
    for turn in data["turns"]:
        turn["completion"].pop("latency_ms")
    return data


def test_a_resumed_conversation_does_not_ask_finished_turns_again(
    server: FaultServer, options: ClientOptions, tmp_path: Path
) -> None:
    journal = tmp_path / "journal"
    replies = [Reply.ok(f"r{n}") for n in range(1, 5)]
    # Uninterrupted, for reference.
    server.queue(*replies)
    reference = _session(options, _scripted()).run()
    (expected,) = reference.results
    assert expected.status == "pass", expected.reasons
    server.requests.clear()

    # Turns 1 and 2 answered, turn 3 hangs: the run stops with it in flight.
    server.queue(replies[0], replies[1], Reply.hang(5))
    session = _session(options, _scripted())
    stopped = asyncio.run(stopped_when(session, lambda: len(server.requests) >= 3, journal))
    assert not stopped.complete
    assert not stopped.results
    lines = (next(journal.iterdir())).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["turn"]["number"] for line in lines[1:]] == [1, 2]

    server.requests.clear()
    server.queue(replies[2], replies[3])
    resumed = _session(options, _scripted()).run(journal_dir=journal, resume=True)
    # Only turns 3 and 4 were asked, with the history of the first two as they were.
    assert len(server.requests) == 2
    assert [m["content"] for m in server.requests[0].body["messages"]] == [
        "Be brief.",
        "question 1",
        "r1",
        "question 2",
        "r2",
        "question 3",
    ]
    assert resumed.complete
    assert resumed.run_id == stopped.run_id
    (result,) = resumed.results
    assert _shape(result) == _shape(expected)
    assert not list(journal.iterdir())  # a complete run removes its journal


def _simulated(max_turns: int = 3, stop: tuple[CheckDefinition, ...] = ()) -> TestCase:
    return TestCase(
        id="refund",
        messages=(),
        models=(MODEL,),
        # Graded: else an error.
        grading=Grading(checks=(CheckDefinition(type="min_length", value=1),)),
        simulate=Simulation(
            model="fault/user", goal="Get a refund", max_turns=max_turns, stop=stop
        ),
    )


def test_a_rerun_of_a_simulated_conversation_with_the_cache_makes_no_call(
    server: FaultServer, options: ClientOptions, tmp_path: Path
) -> None:
    cached = options.model_copy(update={"cache": True})
    first = _session(cached, _simulated()).run()
    (before,) = first.results
    assert len(before.turns or []) == 3  # max_turns: the server never says the goal is reached
    assert len(server.requests) == 6  # the simulated user's three, the assistant's three
    users = [r for r in server.requests if r.body["model"] == "user"]
    assert users[0].body["messages"][0]["role"] == "system"
    assert "Get a refund" in users[0].body["messages"][0]["content"]
    # Roles swapped: the simulated user's own messages are the assistant's to it.
    assert [m["role"] for m in users[1].body["messages"]] == ["system", "user", "assistant", "user"]
    assert len({json.dumps(u.body.get("seed")) for u in users}) == 1

    server.requests.clear()
    second = _session(cached, _simulated()).run()
    assert server.requests == []
    (after,) = second.results
    assert after.completion.cached
    assert [t.query for t in after.turns or []] == [t.query for t in before.turns or []]


def test_the_simulated_user_ends_the_conversation_when_its_goal_is_reached(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(
        Reply.ok("I want a refund for order 123."),  # the user
        Reply.ok("Your refund is on its way."),  # the assistant
        Reply.ok(GOAL_REACHED),  # the user again
    )
    (result,) = _session(options, _simulated(max_turns=5)).run().results
    assert result.status == "pass"
    assert [(t.query, t.completion.text) for t in result.turns or []] == [
        ("I want a refund for order 123.", "Your refund is on its way.")
    ]
    assert len(server.requests) == 3


def test_a_failing_simulated_user_ends_the_conversation_as_an_error(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok("Hi"), Reply.ok("Hello!"), Reply.error(400, "bad request"))
    (result,) = _session(options, _simulated()).run().results
    assert result.status == "error"
    assert (result.completion.error or "").startswith("turn 2: the simulated user: ")
    assert [t.status for t in result.turns or []] == ["pass", "error"]


def test_a_stop_check_passing_on_a_reply_ends_the_conversation(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok("Refund please."), Reply.ok("Not yet."), Reply.ok("Now?"))
    server.queue(Reply.ok("Your refund is issued."))
    stop = (CheckDefinition(type="contains", value="refund is issued"),)
    (result,) = _session(options, _simulated(max_turns=5, stop=stop)).run().results
    assert [t.completion.text for t in result.turns or []] == ["Not yet.", "Your refund is issued."]
    assert len(server.requests) == 4


def test_a_simulated_user_reaching_its_goal_before_writing_anything_is_an_error(
    server: FaultServer, options: ClientOptions
) -> None:
    server.queue(Reply.ok(GOAL_REACHED))
    (result,) = _session(options, _simulated()).run().results
    assert result.status == "error"
    assert result.turns == []
    assert "before its first message" in (result.completion.error or "")
