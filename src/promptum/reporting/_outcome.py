"""Why a result did not pass, by the precedence CI reports use.

Precedence: error > failed checks > failed field assertions > judge error > judge below
threshold. Only the first that applies decides a result's failure type; the others stay
visible in the result's details.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from promptum.results import CaseResult


@dataclass(frozen=True, slots=True)
class Outcome:
    """The deciding reason a result is not a pass."""

    kind: Literal["error", "failure"]
    type: str
    message: str
    details: list[str]


def outcome(result: CaseResult) -> Outcome | None:
    """The deciding reason `result` did not pass, or None when it passed."""
    error = result.completion.error
    if error is not None:
        return Outcome("error", "ModelError", error.splitlines()[0] if error else "error", [error])
    failed = result.failed_checks
    if failed:
        names = ", ".join(c.type for c in failed)
        return Outcome(
            "failure",
            "DeterministicCheckFailed",
            f"{len(failed)} of {len(result.check_results)} checks failed: {names}",
            [f"{c.type} ({c.description}): {c.reason}" for c in failed],
        )
    if result.eval_result is not None and result.eval_result.failures:
        failures = result.eval_result.failures
        return Outcome(
            "failure",
            "FieldAssertionFailed",
            f"{len(failures)} of {len(result.eval_result.details)} field assertions failed",
            [d.reason for d in failures],
        )
    judge = result.judge
    if judge is not None and judge.error is not None:
        return Outcome("error", "JudgeError", f"the judge could not grade: {judge.error}", [])
    if judge is not None and not judge.passed:
        return Outcome(
            "failure",
            "JudgeBelowThreshold",
            f"judge score {judge.score} < threshold {judge.threshold}",
            [judge.reason],
        )
    # The runner decides the status; a non-pass with none of the reasons above still fails CI.
    if result.status == "error":
        return Outcome("error", "Error", "the result is an error", [])
    if result.status == "fail":
        return Outcome("failure", "Failed", "the result failed", [])
    return None
