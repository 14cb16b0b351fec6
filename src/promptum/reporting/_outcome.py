"""Why a result did not pass, by the precedence CI reports use.

Precedence: error > failed checks > failed field assertions > judge below threshold > a
grader that could not grade (a judge error). Only the first that applies decides a result's
failure type; the others stay visible in the result's details. A failure outranks a grader's
error, as it does in the result's status. A case with a ``threshold:`` is decided by its
weighted score (``ScoreBelowThreshold``), not by any one grade.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from promptum.reporting._conversation import failing_where
from promptum.values.case_result import TURN
from promptum.values.grade import CHECK_KINDS, UNGRADED, Grade, samples_note
from promptum.values.run_result import CaseResult


@dataclass(frozen=True, slots=True)
class Outcome:
    """The deciding reason a result is not a pass."""

    kind: Literal["error", "failure"]
    type: str
    message: str
    details: list[str]


def _score(grade: Grade) -> str:
    """A judge grade's score as written: a sampled grade's mean, rounded, says it is one."""
    if samples_note(grade.details) and grade.score is not None:
        return f"mean {grade.score:.3g}"
    return str(grade.score)


def _judge_failure(failed: list[Grade]) -> Outcome:
    if len(failed) == 1 and failed[0].name == "judge":
        grade = failed[0]
        threshold = grade.details.get("threshold")
        message = f"judge score {_score(grade)} < threshold {threshold}"
    else:
        message = "judge criteria below threshold: " + ", ".join(
            f"{g.name} {_score(g)} < {g.details.get('threshold')}" for g in failed
        )
    return Outcome("failure", "JudgeBelowThreshold", message, [g.summary for g in failed])


def _errored(result: CaseResult) -> Outcome | None:
    """The outcome of the first grade that could not grade, if one could not."""
    errored = [grade for grade in result.grades if grade.error is not None]
    if not errored:
        return None
    first = errored[0]
    if first.kind == "check" and first.name == UNGRADED:  # no grader erred: there was none
        return Outcome("error", "Ungraded", first.error or UNGRADED, [g.summary for g in errored])
    if first.kind == "judge":
        message = f"the judge could not grade: {first.error}"
        return Outcome("error", "JudgeError", message, [g.summary for g in errored])
    message = f"{first.label} could not grade: {first.error}"
    return Outcome("error", "GradeError", message, [g.summary for g in errored])


def _weighed(result: CaseResult, score: float, threshold: float) -> Outcome | None:
    """A thresholded case's outcome: its score decides, not any one failed grade."""
    if result.status == "pass":
        return None  # a grade may have failed: the case passed on its weighted score
    if result.status == "error":
        return _errored(result) or Outcome("error", "Error", "the result is an error", [])
    failed = [grade.summary for grade in result.grades if not grade.passed]
    message = f"weighted score {score:.3g} < threshold {threshold:g}"
    return Outcome("failure", "ScoreBelowThreshold", message, failed)


def outcome(result: CaseResult) -> Outcome | None:
    """The deciding reason `result` did not pass, or None when it passed.

    A conversation's is decided by its first failing turn's grades (or, when every turn
    passed, the conversation's), named in the message; its details are every reason.
    """
    where = failing_where(result)
    if where is None or result.threshold is not None or result.completion.error is not None:
        decided = _decided(result)
    else:
        number = result.failing_turn
        graded = [grade for grade in result.grades if grade.details.get(TURN) == number]
        decided = _decided(result.model_copy(update={"grades": graded}))
    if where is None or decided is None:
        return decided
    message = decided.message
    if not message.startswith(f"{where}:"):
        message = f"{where}: {message}"
    return Outcome(decided.kind, decided.type, message, result.reasons)


def _decided(result: CaseResult) -> Outcome | None:
    """The deciding reason by the precedence above, whatever the grades are of."""
    error = result.completion.error
    if error is not None:
        return Outcome("error", "ModelError", error.splitlines()[0] if error else "error", [error])
    if result.threshold is not None and result.score is not None:
        return _weighed(result, result.score, result.threshold)
    return _failed_grades(result) or _errored(result) or _by_status(result)


def _failed_grades(result: CaseResult) -> Outcome | None:
    """The failure of the first kind of grade that failed: checks, assertions, the judge."""
    failed = [grade for grade in result.grades if grade.failed]
    judged = [g for g in failed if g.kind == "judge"]
    return (
        _checks_failure(result, failed)
        or _assertions_failure(result, failed)
        or (_judge_failure(judged) if judged else None)
    )


def _checks_failure(result: CaseResult, failed: list[Grade]) -> Outcome | None:
    checks = [g for g in failed if g.kind in CHECK_KINDS]
    if not checks:
        return None
    total = sum(g.kind in CHECK_KINDS for g in result.grades)
    return Outcome(
        "failure",
        "DeterministicCheckFailed",
        f"{len(checks)} of {total} checks failed: {', '.join(g.name for g in checks)}",
        [f"{g.name} ({g.description}): {g.reason}" for g in checks],
    )


def _assertions_failure(result: CaseResult, failed: list[Grade]) -> Outcome | None:
    assertions = [g for g in failed if g.kind == "assertion"]
    if not assertions:
        return None
    total = sum(g.kind == "assertion" for g in result.grades)
    return Outcome(
        "failure",
        "FieldAssertionFailed",
        f"{len(assertions)} of {total} field assertions failed",
        [g.reason or "" for g in assertions],
    )


def _by_status(result: CaseResult) -> Outcome | None:
    """The outcome of a non-pass that no grade explains."""
    # The runner decides the status; a non-pass with none of the reasons above still fails CI.
    if result.status == "error":
        return Outcome("error", "Error", "the result is an error", [])
    if result.status == "fail":
        return Outcome("failure", "Failed", "the result failed", [])
    return None
