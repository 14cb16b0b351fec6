"""Between grades and the three verdict channels results had before (and the reference APIs).

`CheckResult`, `EvalResult` and `JudgeVerdict` stay what the documented APIs return; here
they become grades (results built the old way, runs stored before grades existed) and are
read back from grades (`CaseResult.check_results`, `.eval_result`, `.judge`).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from promptum.checks import CheckResult
from promptum.evaluations import EvalResult, FieldEvalResult
from promptum.grades import Grade, GradeKind

if TYPE_CHECKING:
    from promptum.results import JudgeVerdict

CHECK_KINDS: frozenset[GradeKind] = frozenset({"check", "validator", "custom"})
"""The kinds counted as checks (``Checks: N/M passed``, `get_check_stats`, `check_results`)."""
_VALIDATOR = "validator"


def check_grade(result: CheckResult) -> Grade:
    """A check's (or validator's) result as a grade."""
    kind: GradeKind = "validator" if result.type == _VALIDATOR else "check"
    return Grade(kind, result.type, result.passed, None, result.reason, result.description)


def assertion_grade(detail: FieldEvalResult) -> Grade:
    """One field assertion as a grade; its own JSON (with a missing field) is kept in details."""
    return Grade(
        "assertion",
        detail.field,
        detail.passed,
        None,
        detail.reason,
        f"{detail.op} assertion on {detail.field}",
        details=detail.model_dump(mode="json"),
    )


def judge_grade(
    verdict: JudgeVerdict, name: str = "judge", details: Mapping[str, Any] | None = None
) -> Grade:
    """A judge's verdict (or one criterion's) as a grade; `details` adds the criterion's facts."""
    return Grade(
        "judge",
        name,
        verdict.passed and verdict.error is None,
        verdict.score,
        verdict.reason or None,
        f"judged by {verdict.model}, threshold {verdict.threshold}",
        verdict.error,
        {"model": verdict.model, "threshold": verdict.threshold, **(details or {})},
    )


def grades_from_channels(data: Mapping[str, Any]) -> list[Any]:
    """The grades of a result written with the old fields (a stored run, old code)."""
    from promptum.results import JudgeVerdict

    grades: list[Any] = []
    for item in data.get("check_results") or []:
        if isinstance(item, Grade):  # checks grade themselves now
            grades.append(item)
            continue
        check = item if isinstance(item, CheckResult) else CheckResult(**item)
        grades.append(check_grade(check))
    evaluation = data.get("eval_result")
    if evaluation is not None:
        evaluation = EvalResult.model_validate(evaluation)
        grades += [assertion_grade(detail) for detail in evaluation.details]
    verdict = data.get("judge")
    if verdict is not None:
        grades.append(judge_grade(JudgeVerdict.model_validate(verdict)))
    return grades


def check_results(grades: Iterable[Grade]) -> list[CheckResult]:
    """The check and validator grades as the reference's `CheckResult`s."""
    return [
        CheckResult(g.name, g.passed, g.description, g.error or g.reason)
        for g in grades
        if g.kind in CHECK_KINDS
    ]


def eval_result(grades: Iterable[Grade]) -> EvalResult | None:
    """The assertion grades as the reference's `EvalResult`, or None when there are none."""
    details = [FieldEvalResult.model_validate(g.details) for g in grades if g.kind == "assertion"]
    if not details:
        return None
    return EvalResult(passed=all(d.passed for d in details), details=details)


def judge_verdict(grades: Iterable[Grade]) -> JudgeVerdict | None:
    """The judge grades as one verdict: the mean score, passed when every criterion passed."""
    from promptum.results import JudgeVerdict

    judged = [g for g in grades if g.kind == "judge"]
    if not judged:
        return None
    scores = [g.score for g in judged if g.score is not None]
    errors = [g.error for g in judged if g.error is not None]
    first = judged[0].details
    return JudgeVerdict(
        model=str(first.get("model", "")),
        score=statistics.fmean(scores) if scores and not errors else None,
        passed=all(g.passed for g in judged),
        reason="; ".join(g.reason for g in judged if g.reason),
        threshold=float(first.get("threshold", 0.7)),
        error=errors[0] if errors else None,
    )
