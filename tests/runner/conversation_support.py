"""Running one conversation case through a `Session`, and cases played by a Python target."""

from __future__ import annotations

from typing import Any

from promptum import Session
from promptum.cases import TestCase, Turn
from promptum.providers import ClientOptions, PythonTarget
from promptum.values.run_result import CaseResult


def run_one(case: TestCase, options: ClientOptions | None = None) -> CaseResult:
    """The result of running `case` alone in a fresh session."""
    session = Session(client_options=options)
    session.add_test(case)
    (result,) = session.run().results
    return result


def bot_case(function: Any, *turns: Turn, **fields: Any) -> TestCase:
    """A conversation case `chat` of `turns` that the Python function `function` answers."""
    target = PythonTarget("bot", function)
    return TestCase(
        id="chat", messages=(), models=(target.id,), target=target, turns=turns, **fields
    )
