"""Running one conversation case through a `Session`, and cases played by a Python target."""

from __future__ import annotations

from typing import Any

from promptum import Session
from promptum.cases import ConversationGrading, Grading, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import ClientOptions, PythonTarget
from promptum.values.run_result import CaseResult

NO_DISCOUNT_CODE = Grading(
    conversation=ConversationGrading(checks=(CheckDefinition(type="not_contains", value="SAVE20"),))
)
"""A conversation's grading: no reply of it may give away the discount code SAVE20."""


def run_one(case: TestCase, options: ClientOptions | None = None) -> CaseResult:
    """The result of running `case` alone in a fresh session."""
    session = Session(client_options=options)
    session.add_test(case)
    (result,) = session.run().results
    return result


def bot_case(function: Any, *turns: Turn, case_id: str = "chat", **fields: Any) -> TestCase:
    """A conversation case `case_id` of `turns` that the Python function `function` answers."""
    target = PythonTarget("bot", function)
    return TestCase(
        id=case_id, messages=(), models=(target.id,), target=target, turns=turns, **fields
    )
