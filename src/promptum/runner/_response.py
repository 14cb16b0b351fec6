"""Grading one response as a run grades it: checks, validator, field assertions, then the judge.

A single request's result and each turn of a conversation are graded by this one path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from promptum.cases import TestCase
from promptum.providers import ModelRequest
from promptum.runner._grade import DEFAULT_GRADE_TIMEOUT_S, grade_async
from promptum.runner._judge import judge_grades
from promptum.runner._ungraded import with_ungraded
from promptum.values.asr import REDTEAM_TAG, SUITE_DEFAULT
from promptum.values.completion import Completion
from promptum.values.grade import Grade, Status, status_of_grades
from promptum.values.metrics import METRIC, WEIGHT, Label, labelled, thresholded_status
from promptum.values.run_result import CaseResult, TurnResult

Complete = Callable[[ModelRequest], Awaitable[Completion]]


def status_of(completion: Completion, grades: Iterable[Grade]) -> Status:
    """Error if the call failed; else what the grades say (`status_of_grades`)."""
    if not completion.ok:
        return "error"
    return status_of_grades(grades)


def _check_labels(case: TestCase) -> list[Label]:
    """What each check adds to its grade's details; empty if none adds anything.

    Its metric and weight, and on an attack, whether it is one of the suite's default checks:
    never the attack's detector (`promptum.values.asr.SUITE_DEFAULT`).
    """
    grading = case.grading
    defaults = grading.default_checks if REDTEAM_TAG in case.tags else 0
    labels = [
        _label(check.metric, check.weight, index < defaults)
        for index, check in enumerate(grading.checks)
    ]
    return labels if any(labels) else []


def _label(metric: str | None, weight: float | None, suite_default: bool) -> Label:
    label: dict[str, object] = {}
    if metric is not None:
        label[METRIC] = metric
    if weight is not None:
        label[WEIGHT] = weight
    if suite_default:
        label[SUITE_DEFAULT] = True
    return label


async def graded(
    case: TestCase,
    completion: Completion,
    model: str,
    repeat: int,
    complete: Complete,
    *,
    grade_timeout_s: float | None = DEFAULT_GRADE_TIMEOUT_S,
    on_abandon: Callable[[], None] | None = None,
) -> tuple[Completion, list[Grade]]:
    """The grades of `completion` to `case`, judge's included (its calls through `complete`).

    A bug in grading costs this response, not the run: the completion comes back with the
    error and no grades.
    """
    try:
        # A check sees repeats from 0, as CheckInput has always documented.
        grades = await grade_async(
            case,
            completion,
            model=model,
            repeat=repeat - 1,
            timeout_s=grade_timeout_s,
            on_abandon=on_abandon,
        )
        grades = labelled(grades, _check_labels(case))
        judge = case.grading.judge
        if completion.ok and judge is not None:
            grades += await judge_grades(judge, case, completion.text, complete)
    except Exception as exc:  # a bug in grading must cost one result, not the run
        error = f"grading failed: {type(exc).__name__}: {exc}"
        return completion.model_copy(update={"error": error}), []
    return completion, grades


def result_of(
    case: TestCase,
    model: str,
    repeat: int,
    completion: Completion,
    grades: list[Grade],
    turns: list[TurnResult] | None = None,
) -> CaseResult:
    """The result of `case` on `model` from its (last) completion and every grade found.

    A response nothing graded gets the ungraded error grade; a thresholded case that was
    graded passes on its weighted score.
    """
    graded_grades = with_ungraded(case, completion, grades)  # nothing graded it: no pass
    status, score = status_of(completion, graded_grades), None
    threshold = case.grading.threshold
    if threshold is not None and completion.ok and grades:
        status, score = thresholded_status(graded_grades, threshold)
    return CaseResult(
        case_id=case.id,
        suite=case.suite or None,
        variant=case.variant or None,
        model=model,
        repeat=repeat,
        status=status,
        messages=list(case.messages),
        completion=completion,
        grades=graded_grades,
        expected_behavior=case.grading.expected_behavior,
        tags=list(case.tags),
        source=case.source,
        must_pass=case.must_pass,
        score=score,
        threshold=threshold,
        turns=turns,
    )
