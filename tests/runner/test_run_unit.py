"""`promptum.runner.run_unit`: one unit of a run, out of a run, without the secrets
(in the response it grades, and in the whole result, the prompt too)."""

from __future__ import annotations

import asyncio

from promptum.cases import Grading, TestCase
from promptum.checks import CheckDefinition
from promptum.providers import ModelRequest
from promptum.runner import run_unit
from promptum.values.completion import Completion
from promptum.values.run_result import Message

SECRET = "sk-test-0123456789abcdef"


async def _echo(request: ModelRequest) -> Completion:
    return Completion(text=f"the key is {SECRET}", model=request.model)


def test_a_unit_is_graded_and_comes_back_without_the_secrets() -> None:
    case = TestCase(
        id="leak",
        messages=(Message(role="user", content=f"is {SECRET} the key?"),),
        grading=Grading(checks=(CheckDefinition(type="contains", value="the key"),)),
    )
    result = asyncio.run(run_unit(_echo, case, "fake/model", 1, (SECRET,)))
    assert (result.case_id, result.model, result.repeat) == ("leak", "fake/model", 1)
    assert result.status == "pass", result
    assert SECRET not in result.model_dump_json()
