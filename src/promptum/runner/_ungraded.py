"""A response nothing graded: one error grade saying why, never a silent pass.

A case with no check, no field assertion and no judge criterion (or whose judge is off)
would pass whenever its call succeeds. This producer gives such a result one grade of kind
``check`` named ``ungraded``, with an error: the result is then an error through the usual
path (`status_of_grades`), and every report, the gate, JUnit and pytest show the reason.
"""

from __future__ import annotations

from promptum.cases import Grading, TestCase
from promptum.runner._judge import judged_criteria
from promptum.values.completion import Completion
from promptum.values.grade import BUDGET_CHECKS, UNGRADED, Grade


def grades_something(case: TestCase) -> bool:
    """Whether anything is set to grade the case's responses (a turn's or conversation's too).

    A JSON schema alone counts: the response is graded as fitting it (or not). With its
    judge off (--no-judge), budget checks alone do not: a latency budget says nothing of
    what the judge would have graded, so the case is not a pass on it.
    """
    grading = case.grading
    checks = grading.checks
    if grading.judge_off:
        checks = tuple(check for check in checks if check.type not in BUDGET_CHECKS)
    if checks or grading.validator is not None or case.response_schema is not None:
        return True
    return _asserted_or_judged(grading) or _part_grades(case)


def _asserted_or_judged(grading: Grading) -> bool:
    """Whether a case has field assertions, or judge criteria its judge grades."""
    if grading.expected or grading.attack_target:
        return True
    judge = grading.judge
    return judge is not None and bool(judged_criteria(judge, grading.expected_behavior))


def _part_grades(case: TestCase) -> bool:
    """Whether a turn of the case, or its conversation as a whole, has something to grade."""
    judged = case.grading.judge is not None
    for turn in case.turns:
        if turn.checks or turn.expected or turn.attack_target or (judged and turn.criteria):
            return True
    whole = case.grading.conversation
    return whole is not None and bool(whole.checks or (judged and whole.criteria))


def _unjudged(case: TestCase) -> bool:
    """Whether the case has what a judge grades (expected_behavior, criteria) but no judge."""
    if case.grading.judge is not None:
        return False
    whole = case.grading.conversation
    return bool(
        case.grading.expected_behavior
        or any(turn.criteria for turn in case.turns)
        or (whole is not None and whole.criteria)
    )


def ungraded_fix(case: TestCase) -> str:
    """Why nothing grades the case's responses, or what to add, for a person to read."""
    if case.grading.judge_off:
        return (
            "only its judge would grade it, and the judge is off (--no-judge): run it with "
            "its judge, or add a check or a field assertion"
        )
    if _unjudged(case):
        return (
            "its expected_behavior (or judge criteria) needs a judge, and the case has none: "
            "add `judge:` to the suite, run with --judge MODEL, or add a check"
        )
    return "add a check, a field assertion or a judge criterion"


def ungraded_grade(case: TestCase) -> Grade:
    """The error grade of a response to `case` that nothing graded."""
    return Grade(
        "check",
        UNGRADED,
        False,
        description="Something grades the response",
        error=f"nothing graded the response: {ungraded_fix(case)}",
    )


def with_ungraded(case: TestCase, completion: Completion, grades: list[Grade]) -> list[Grade]:
    """`grades`, and the ungraded error grade when the call succeeded and nothing graded it.

    A call that failed is the error it is: it gets no grade here. A case whose judge is off
    and whose other grades are budgets alone keeps them beside the ungraded error.
    """
    if not completion.ok:
        return grades
    if not grades:
        return [ungraded_grade(case)]
    if case.grading.judge_off and not grades_something(case):
        return [*grades, ungraded_grade(case)]
    return grades
