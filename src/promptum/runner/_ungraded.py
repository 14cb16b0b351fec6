"""A response nothing graded: one error grade saying why, never a silent pass.

A case with no check, no field assertion and no judge criterion (or whose judge is off)
would pass whenever its call succeeds. This producer gives such a result one grade of kind
``check`` named ``ungraded``, with an error: the result is then an error through the usual
path (`status_of_grades`), and every report, the gate, JUnit and pytest show the reason.
"""

from __future__ import annotations

from promptum.cases import TestCase, grades_something, ungraded_fix
from promptum.values.completion import Completion
from promptum.values.grade import UNGRADED, Grade


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
