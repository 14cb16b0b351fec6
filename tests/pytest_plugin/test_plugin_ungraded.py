"""A case nothing grades is an error at setup in pytest, its reason shown, never a pass."""

from __future__ import annotations

import pytest

from promptum.pytest_plugin import PromptGradingError, assert_prompt
from tests.pytest_plugin.plugin_project import Servers, write_project

BARE = "models: [fault/m]\ntest_cases:\n  - {id: bare, query: Hi}\n"


def test_an_ungraded_case_is_an_error_saying_what_to_add(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester, {"demo.yaml": BARE})
    result = pytester.runpytest("-ra")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of demo/bare[[]fault/m[]]*",
            "ERROR bare (fault/m) prompts/demo.yaml:3",
            "    - nothing graded the response: add a check, a field assertion or a judge crit*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["ERROR prompts/demo.yaml::demo/bare[[]fault/m[]] - nothing graded the response*"]
    )


def test_assert_prompt_with_nothing_to_assert_is_a_grading_error() -> None:
    with pytest.raises(PromptGradingError, match="nothing graded the response"):
        assert_prompt("Paris is the capital of France.")
    assert assert_prompt("Paris is the capital of France.", contains="Paris").status == "pass"
