"""Built-in checks with a bound of their own grade on the event loop, within the deadline.

Grading a response on the loop finishes without waiting on anything: the coroutine of
`grade_async` returns at its first step. Grading on a worker thread waits for the thread.
"""

from __future__ import annotations

import asyncio

import pytest

from promptum.cases import Grading, TestCase
from promptum.checks import CheckDefinition, CheckInput
from promptum.runner import grade_async
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import Message

EVERYDAY = (
    CheckDefinition(type="contains", value="42"),
    CheckDefinition(type="not_contains", value="sorry"),
    CheckDefinition(type="regex", value=r"\d+"),  # a repeat: its search has a time bound
    CheckDefinition(type="max_length", value=500),
    CheckDefinition(type="max_latency_ms", value=5000),
)
BACKTRACKS = CheckDefinition(type="regex", value="^(a|aa)*$")


def _case(*checks: CheckDefinition) -> TestCase:
    return TestCase(
        id="c", messages=(Message(role="user", content="q"),), grading=Grading(checks=checks)
    )


def _at_once(case: TestCase, completion: Completion, timeout_s: float | None) -> list[Grade]:
    """The grades, if `grade_async` gives them at its first step; fails if it waits."""
    steps = grade_async(case, completion, timeout_s=timeout_s)
    try:
        steps.send(None)
    except StopIteration as done:
        grades: list[Grade] = done.value
        return grades
    steps.close()
    pytest.fail("grading waited on something: it left the event loop")


def _on_a_loop(
    case: TestCase, completion: Completion, timeout_s: float | None
) -> tuple[bool, list[Grade]]:
    """Whether `grade_async` waits at its first step on a running loop, and its grades."""

    async def main() -> tuple[bool, list[Grade]]:
        steps = grade_async(case, completion, timeout_s=timeout_s)
        try:
            steps.send(None)
        except StopIteration as done:
            return False, done.value
        steps.close()  # it waited: graded again, to the end, for its grades
        return True, await grade_async(case, completion, timeout_s=timeout_s)

    return asyncio.run(main())


@pytest.mark.parametrize("timeout_s", [60.0, None])
def test_the_everyday_checks_grade_on_the_loop(timeout_s: float | None) -> None:
    grades = _at_once(
        _case(*EVERYDAY), Completion(text="The answer is 42.", latency_ms=12.0), timeout_s
    )
    assert [(g.name, g.passed) for g in grades] == [
        ("contains", True),
        ("not_contains", True),
        ("regex", True),
        ("max_length", True),
        ("max_latency_ms", True),
    ]


def test_a_regex_that_fails_on_the_loop_says_what_it_expected() -> None:
    (grade,) = _at_once(_case(EVERYDAY[2]), Completion(text="no digits"), 60.0)
    assert not grade.passed
    assert "expected to match /\\d+/" in (grade.reason or "")


def test_searches_that_could_pass_the_deadline_grade_on_a_thread() -> None:
    # Three searches of 1 s each at most: past a 2 s deadline, so the thread's deadline holds.
    case = _case(BACKTRACKS, BACKTRACKS, BACKTRACKS)
    waited, grades = _on_a_loop(case, Completion(text="aa"), 2.0)
    assert waited
    assert [g.passed for g in grades] == [True, True, True]


def test_a_check_the_user_wrote_grades_on_a_thread() -> None:
    check = CheckDefinition(type="python", value="tests.runner.test_grading_on_the_loop:says_42")
    waited, grades = _on_a_loop(_case(EVERYDAY[0], check), Completion(text="42"), 60.0)
    assert waited
    assert [(g.name, g.passed) for g in grades] == [("contains", True), ("says_42", True)]


def says_42(response: CheckInput) -> bool:
    """A check of the user's own, named by the case above."""
    return "42" in response.text
