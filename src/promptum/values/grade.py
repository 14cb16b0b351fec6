"""`Grade`: the one record of every verdict on a response, whatever produced it.

Checks, validators, field assertions, judge criteria and user-written checks all produce
grades; a result's status, its reasons, the stats, every report, the store and compare
read grades only. A new kind of grading is a new producer of grades, never a new field on
the result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

GradeKind = Literal["check", "validator", "assertion", "judge", "custom"]
"""What produced a grade: a built-in check, a `Validator`, a field assertion, an LLM judge
(one grade per criterion), or a check the user wrote (``type: python`` or a registered
check type)."""

Status = Literal["pass", "fail", "error"]

GRADE_KINDS: tuple[GradeKind, ...] = ("check", "validator", "assertion", "judge", "custom")
"""Every kind, in the order a result lists and reports them."""

CHECK_KINDS: frozenset[GradeKind] = frozenset({"check", "validator", "custom"})
"""The kinds counted as checks (``Checks: N/M passed``, `get_check_stats`, `check_results`)."""

UNGRADED = "ungraded"
"""The name of the error grade (kind ``check``) a response gets when nothing graded it: no
check, field assertion or judge criterion (docs/checks.md). A check, so the check counts
show it: a run of ungraded cases reads ``Checks: 0/N passed``, never a pass."""


BUDGET_CHECKS = frozenset({"max_latency_ms", "max_cost_usd"})
"""The check types of the call's figures (latency, cost), not of what the response says."""


@dataclass(frozen=True, slots=True)
class Grade:
    """One verdict on one response: passed or not, with a score and a reason when known.

    `error` is set when the grader could not grade (the judge was unreachable, a user's
    check raised): such a grade never passes, and makes the result an error unless
    another grade failed.
    """

    kind: GradeKind
    name: str
    """Which check, field, criterion or function: ``contains``, ``city``, ``polite``."""
    passed: bool
    score: float | None = None
    """A number in 0-1 where the grader has one (judge, similarity, a scoring check)."""
    reason: str | None = None
    """Why it failed, or the judge's reason; for a person to read."""
    description: str = ""
    """What it checks, e.g. ``Contains 'Paris'``."""
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    """Grader-specific facts (a judge's model and threshold, an assertion's values)."""

    def __post_init__(self) -> None:
        if self.passed and self.error is not None:
            # Whatever produced it (a user's check may build its own), an error never passes.
            raise ValueError(f"grade {self.name!r} has an error, so it cannot pass: {self.error}")

    @property
    def failed(self) -> bool:
        """Whether the grade is a failure the grader stands by (not an error)."""
        return not self.passed and self.error is None

    @property
    def label(self) -> str:
        """How a person names the grade: ``contains``, ``judge``, ``judge polite``."""
        if self.kind == "judge":
            return "judge" if self.name == "judge" else f"judge {self.name}"
        if self.kind == "assertion":
            return f"assertion {self.name}"
        return self.name

    @property
    def summary(self) -> str:
        """Why the grade did not pass, as one line: ``contains: expected to contain 'x'``."""
        if self.error is not None:
            if self.kind == "check" and self.name == UNGRADED:  # no grader erred: none graded
                return self.error
            return f"{self.label} error: {self.error}"
        if self.kind == "assertion":
            return f"assertion {self.reason}"
        if self.kind == "judge":
            threshold = self.details.get("threshold")
            note = samples_note(self.details)
            if note:
                return (
                    f"{self.label} mean score {self.score:.3g} < {threshold} ({note}): "
                    f"{self.reason or ''}"
                )
            return f"{self.label} score {self.score} < {threshold}: {self.reason or ''}"
        return f"{self.name}: {self.reason or self.description}"


def samples_note(details: dict[str, Any]) -> str:
    """How a sampled judge grade's samples went, e.g. ``3 samples 0.5-0.8, sd 0.12, 2 passed``.

    Empty for a grade of one sample. The grade's score is the samples' mean; the number
    that passed (each sample against the threshold) shows how far they agree.
    """
    scores = details.get("scores")
    count = details.get("samples")
    if not isinstance(count, int) or count < 2 or not isinstance(scores, list) or not scores:
        return ""
    threshold = details.get("threshold")
    low, high = min(scores), max(scores)
    spread = f"{low:g}" if low == high else f"{low:g}-{high:g}"
    note = f"{count} samples {spread}"
    stdev = details.get("stdev")
    if isinstance(stdev, int | float):
        note += f", sd {stdev:.2g}"
    if isinstance(threshold, int | float):
        note += f", {sum(score >= threshold for score in scores)} of {count} passed"
    return note


def status_of_grades(grades: Iterable[Grade]) -> Status:
    """Fail if any grade failed; else error if any could not grade; else pass.

    A failure outranks an error: the result is known to fail, whatever the erring grader
    would have said. An error never passes: nothing graded that part of the response.
    """
    errored = False
    for grade in grades:
        if not grade.passed:
            if grade.error is None:
                return "fail"
            errored = True
    return "error" if errored else "pass"
