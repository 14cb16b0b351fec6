"""Conversation results built by hand, as the runner makes them (docs/conversations.md)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from promptum.values.completion import Completion
from promptum.values.grade import Grade, status_of_grades
from promptum.values.run_result import CaseResult, Message, RunResult, TurnResult

MODEL = "local/smollm2"
# The payloads of the report's XSS tests (report_samples.py), here in a conversation's turns.
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
PWN = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'
STARTED = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Said(NamedTuple):
    """One turn: the user's message, the reply, and whether the turn's `contains` check passed.

    `passed` None: the turn has no grade; `error`: its call failed (the conversation ends).
    """

    query: str
    reply: str
    passed: bool | None = True
    error: str | None = None


def _check(turn: int | None, passed: bool, name: str = "contains", value: str = "Ada") -> Grade:
    """A `contains` grade of turn `turn` (None: a `not_contains` over the whole conversation)."""
    details = {} if turn is None else {"turn": turn}
    verb = "contain" if name == "contains" else "not contain"
    reason = None if passed else f"expected to {verb} {value!r}"
    return Grade("check", name, passed, None, reason, f"{verb} {value!r}", None, details)


def conversation(
    case_id: str,
    turns: Sequence[Said],
    *,
    model: str = MODEL,
    repeat: int = 1,
    whole: bool | None = None,
    latency: float = 100.0,
    cost: float = 0.0001,
) -> CaseResult:
    """A conversation's result: per turn a reply and its grade, then the conversation's grade.

    `whole` is the outcome of a `not_contains` over every reply (None: no conversation grade).
    Each call took `latency` ms, 10 tokens in and 5 out, and cost `cost`: the result sums them.
    """
    grades: list[Grade] = []
    kept: list[TurnResult] = []
    error = None
    for number, said in enumerate(turns, start=1):
        if said.error is not None:
            failed = Completion(model=model, latency_ms=latency, error=said.error)
            kept.append(TurnResult(query=said.query, completion=failed, status="error"))
            error = f"turn {number}: {said.error}"
            break
        reply = Completion(
            text=said.reply,
            model=model,
            latency_ms=latency,
            input_tokens=10,
            output_tokens=5,
            cost_usd=cost,
        )
        own = [] if said.passed is None else [_check(number, said.passed)]
        grades += own
        kept.append(TurnResult(query=said.query, completion=reply, status=status_of_grades(own)))
    if whole is not None and error is None:
        grades.append(_check(None, whole, "not_contains", "SAVE20"))
    answered = [turn.completion for turn in kept if turn.completion.error is None]
    completion = Completion(
        text=kept[-1].completion.text,
        model=model,
        latency_ms=latency * len(kept),
        input_tokens=10 * len(answered),
        output_tokens=5 * len(answered),
        cost_usd=cost * len(answered),
        error=error,
    )
    return CaseResult(
        case_id=case_id,
        model=model,
        repeat=repeat,
        status="error" if error else status_of_grades(grades),
        messages=[Message(role="system", content="You are a support assistant.")],
        completion=completion,
        grades=grades,
        source="suite.yaml:3",
        turns=kept,
    )


FOUR_TURNS = [
    Said("Hi, I'm Ada.", "Hello Ada!", None),
    Said("What's the weather?", "Sunny, Ada.", True),
    Said("What is my name?", "I do not know your name.", False),
    Said("Thanks, bye.", "Bye, Ada.", True),
]
"""The issue's example: a scripted 4-turn conversation whose turn 3 fails its check."""

HOSTILE = [
    Said(SCRIPT, IMG, True),
    Said(PWN, PWN, False),
]


def conversation_run(*results: CaseResult) -> RunResult:
    """A run of the given results (a finished run)."""
    models = list(dict.fromkeys(result.model for result in results))
    return RunResult(
        run_id="conv-run",
        suite="conversations",
        models=models,
        started_at=STARTED,
        finished_at=STARTED + timedelta(seconds=1.5),
        results=list(results),
    )


def mixed_run() -> RunResult:
    """A failing conversation (turn 3), a passing one, one failing only as a whole, one
    ending on an error at turn 2, a hostile one, and a single request."""
    single = CaseResult(
        case_id="single",
        model=MODEL,
        status="pass",
        messages=[Message(role="user", content="2+2?")],
        completion=Completion(text="4", model=MODEL, latency_ms=50.0),
    )
    return conversation_run(
        conversation("remembers-the-name", FOUR_TURNS, whole=True),
        conversation("polite", FOUR_TURNS[:2], whole=True),
        conversation("leaks-code", FOUR_TURNS[:2], whole=False),
        conversation(
            "target-fails", [FOUR_TURNS[0], Said("And now?", "", error="HTTP 500 from target")]
        ),
        conversation("hostile", HOSTILE, whole=True),
        single,
    )
