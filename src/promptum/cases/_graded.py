"""Whether anything grades a case's responses, and if not, what to add: one rule.

Loading warns of an ungraded case (`promptum validate`), the run makes its result an error
(`promptum.runner`), a `Session` refuses to run it: each asks here.
"""

from __future__ import annotations

from promptum.cases._case import TestCase
from promptum.cases._grading import Grading
from promptum.cases._judging import judged_criteria
from promptum.values.grade import BUDGET_CHECKS


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
