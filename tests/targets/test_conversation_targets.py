"""Targets in conversation: history carried by promptum (client) or kept by the target (server).

No model: the targets are Python functions and a small HTTP service of the test's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from promptum.cases import ConversationGrading, Grading, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import HttpTarget, PythonTarget, Target
from promptum.values.run_result import Message
from tests.runner.conversation_support import run_one
from tests.support.serving import send_json, serving

_NAME = re.compile(r"I'm (\w+)")


def _conversation(target: Target, **fields: Any) -> TestCase:
    """Turn 1 gives a name; turn 2 asks for it back and checks the reply uses it."""
    return TestCase(
        id="remembers-the-name",
        messages=(Message(role="system", content="You are a support assistant."),),
        models=(target.id,),
        target=target,
        turns=(
            Turn(query="Hi, I'm Ada."),
            Turn(
                query="What is my name?",
                checks=(CheckDefinition(type="contains", value="Ada"),),
            ),
        ),
        grading=Grading(
            conversation=ConversationGrading(
                checks=(CheckDefinition(type="contains", value="Ada"),)  # uses the name at any turn
            )
        ),
        **fields,
    )


def _name_in(texts: list[str]) -> str | None:
    return next((m.group(1) for t in texts if (m := _NAME.search(t))), None)


def forgetful(query: str) -> str:
    """Answers each message as if it were the first: it forgets the history."""
    name = _name_in([query])
    return f"Nice to meet you, {name}!" if name else "Sorry, I don't know your name."


def keeper(messages: list[dict[str, Any]]) -> str:
    """Reads the history it is sent."""
    name = _name_in([m["content"] for m in messages if m["role"] == "user"])
    if messages[-1]["content"].startswith("What is my name"):
        return f"Your name is {name}." if name else "Sorry, I don't know your name."
    return f"Nice to meet you, {name}!"


def test_a_target_that_forgets_the_history_fails_the_memory_check() -> None:
    result = run_one(_conversation(PythonTarget("forgetful", forgetful)))
    assert result.status == "fail"
    assert result.failing_turn == 2
    assert [t.completion.text for t in result.turns or []] == [
        "Nice to meet you, Ada!",
        "Sorry, I don't know your name.",
    ]
    assert result.reasons[0].startswith("turn 2: ")


def test_a_target_that_keeps_the_history_passes_the_memory_check() -> None:
    result = run_one(_conversation(PythonTarget("keeper", keeper)))
    assert result.status == "pass", result.reasons
    assert result.failing_turn is None
    assert [t.completion.text for t in result.turns or []] == [
        "Nice to meet you, Ada!",
        "Your name is Ada.",
    ]
    # Each turn's grades carry its number; the conversation's carry none, and come last.
    assert [g.details.get("turn") for g in result.grades] == [2, None]
    assert result.completion.text == "Your name is Ada."


def test_client_history_sends_every_earlier_reply_as_it_was() -> None:
    seen: list[list[dict[str, Any]]] = []

    def numbered(messages: list[dict[str, Any]]) -> str:
        seen.append(messages)
        return f"reply {len(seen)}"

    case = TestCase(
        id="history",
        messages=(Message(role="system", content="Be brief."),),
        models=("target:numbered",),
        target=PythonTarget("numbered", numbered),
        turns=(Turn(query="one"), Turn(query="two"), Turn(query="three")),
        grading=Grading(checks=(CheckDefinition(type="contains", value="reply"),)),
    )
    result = run_one(case)
    assert result.status == "pass"
    assert [(m["role"], m["content"]) for m in seen[2]] == [
        ("system", "Be brief."),
        ("user", "one"),
        ("assistant", "reply 1"),
        ("user", "two"),
        ("assistant", "reply 2"),
        ("user", "three"),
    ]
    assert [m.content for m in result.messages] == ["Be brief."]  # the opening messages


class _Stateful:
    """A target keeping each conversation's history itself, by its conversation id."""

    def __init__(self) -> None:
        self.histories: dict[str, list[str]] = {}
        self.received: list[tuple[list[dict[str, Any]], str | None]] = []

    def __call__(self, messages: list[dict[str, Any]], conversation_id: str | None) -> str:
        self.received.append((messages, conversation_id))
        assert conversation_id is not None
        history = self.histories.setdefault(conversation_id, [])
        history += [m["content"] for m in messages if m["role"] == "user"]
        name = _name_in(history)
        return f"Your name is {name}." if name else "Hello."


def test_a_server_history_target_gets_only_the_new_turn_and_a_stable_conversation_id() -> None:
    target = _Stateful()
    python = PythonTarget("stateful", target, history="server")
    first = run_one(_conversation(python))
    assert first.status == "pass", first.reasons
    sent = [[(m["role"], m["content"]) for m in messages] for messages, _ in target.received]
    assert sent == [
        [("system", "You are a support assistant."), ("user", "Hi, I'm Ada.")],
        [("user", "What is my name?")],
    ]
    ids = {conversation_id for _, conversation_id in target.received}
    assert len(ids) == 1
    assert None not in ids
    run_one(_conversation(python))  # another run: another conversation
    assert len(target.histories) == 2


def test_the_same_stateful_target_with_client_history_is_sent_everything() -> None:
    target = _Stateful()
    result = run_one(_conversation(PythonTarget("stateful", target)))
    # It keeps what it is sent as well, so the history reaches it twice: still a pass,
    # but the second call carried the first turn again.
    assert result.status == "pass"
    assert len(target.received[1][0]) == 4  # system, user, assistant, user


@contextmanager
def _chat_service() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """An HTTP chat service keeping histories by ``conversation_id``; yields its URL and bodies."""
    bodies: list[dict[str, Any]] = []
    histories: dict[str, list[str]] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            bodies.append(body)
            history = histories.setdefault(body["conversation_id"], [])
            history.append(body.get("message", body.get("query")))
            name = _name_in(history)
            send_json(self, {"reply": f"Your name is {name}." if name else "Hello."})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}/chat", bodies


def test_an_http_target_body_template_sees_the_conversation_id() -> None:
    with _chat_service() as (url, bodies):
        target = HttpTarget(
            name="chat",
            url=url,
            body={"message": "{{ query }}", "conversation_id": "{{ conversation_id }}"},
            output="reply",
            history="server",
        )
        result = run_one(_conversation(target))
    assert result.status == "pass", result.reasons
    assert [body["message"] for body in bodies] == ["Hi, I'm Ada.", "What is my name?"]
    assert len({body["conversation_id"] for body in bodies}) == 1
    assert bodies[0]["conversation_id"] not in ("", "None")


def test_an_http_target_default_body_carries_the_history_in_a_conversation() -> None:
    with _chat_service() as (url, bodies):
        target = HttpTarget(name="chat", url=url, output="reply", history="server")
        result = run_one(_conversation(target))
    assert result.status == "pass", result.reasons
    assert set(bodies[0]) == {"query", "messages", "conversation_id", "vars", "context"}
    assert [m["content"] for m in bodies[1]["messages"]] == ["What is my name?"]
