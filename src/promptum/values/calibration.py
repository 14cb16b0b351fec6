"""How far a judge agrees with people: agreement, Cohen's kappa, confusion, best threshold.

Pure arithmetic over labels: each label pairs one judge grade (a criterion on a result)
with the human verdict on the same thing (docs/calibration.md).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from promptum.values.confusion import Confusion
from promptum.values.grade import Grade
from promptum.values.reviews import Review, ReviewedResult

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""
DEFAULT_THRESHOLD = 0.5
"""The judge threshold assumed when its grades do not record one (the tie-break's anchor)."""


@dataclass(frozen=True, slots=True)
class Label:
    """One judge grade beside the human verdict on the same result (or criterion)."""

    judge_model: str
    criterion: str
    judge_passed: bool
    judge_score: float | None
    human_passed: bool
    judge_threshold: float | None = None


@dataclass(frozen=True, slots=True)
class Calibration:
    """The judge `judge_model`'s agreement with people on one criterion."""

    judge_model: str
    criterion: str
    confusion: Confusion
    """The judge's verdicts against people's: a pass is a yes."""
    agreement: float
    """Observed agreement: the fraction of labels where judge and people agree."""
    kappa: float | None
    """Cohen's kappa; None when chance agreement is 1 (both sides gave a single verdict)."""
    kappa_low: float | None
    kappa_high: float | None
    """The 95% interval, kappa ± 1.96 × Cohen's (1960) SE in [-1, 1]; None when that SE is 0."""
    threshold: float | None
    """The threshold on the judge's scores that maximises agreement (None: no scores)."""
    threshold_agreement: float | None
    scored: int
    """How many labels had a judge score (those the threshold was fitted on)."""

    @property
    def n(self) -> int:
        """How many labels: judge grades with a human verdict."""
        return self.confusion.n

    def to_dict(self) -> dict[str, Any]:
        """The row as `promptum judge calibrate --json` prints it."""
        c = self.confusion
        return {
            "judge_model": self.judge_model,
            "criterion": self.criterion,
            "n": self.n,
            "agreement": round(self.agreement, 4),
            "kappa": _rounded(self.kappa),
            "kappa_ci95": [_rounded(self.kappa_low), _rounded(self.kappa_high)],
            "confusion": {
                "judge_pass_human_pass": c.true_positives,
                "judge_pass_human_fail": c.false_positives,
                "judge_fail_human_pass": c.false_negatives,
                "judge_fail_human_fail": c.true_negatives,
            },
            "threshold": self.threshold,
            "threshold_agreement": _rounded(self.threshold_agreement),
            "scored": self.scored,
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _human(reviews: Iterable[Review], criterion: str) -> bool | None:
    """The human label for `criterion`: the latest review of it, else of the whole result."""
    own = [r for r in reviews if r.criterion == criterion]
    whole = [r for r in reviews if r.criterion is None]
    chosen = own or whole
    return chosen[-1].should_pass if chosen else None


def labels(
    reviewed: Iterable[ReviewedResult],
    *,
    criterion: str | None = None,
    judge_model: str | None = None,
) -> list[Label]:
    """Every judge grade of the reviewed results that people gave a verdict on.

    A grade the judge could not give (an error) has no verdict and is left out.
    """
    found = []
    for item in reviewed:
        for grade in item.result.grades:
            if not _judged(grade, criterion, judge_model):
                continue
            human = _human(item.reviews, grade.name)
            if human is not None:
                found.append(_label(grade, human))
    return found


def _judged(grade: Grade, criterion: str | None, judge_model: str | None) -> bool:
    """Whether `grade` is a verdict of the judge, on `criterion` by `judge_model` if given."""
    if grade.kind != "judge" or grade.error is not None:
        return False
    if criterion is not None and grade.name != criterion:
        return False
    return judge_model is None or str(grade.details.get("model", "?")) == judge_model


def _label(grade: Grade, human: bool) -> Label:
    """A judge grade beside the human verdict on the same answer."""
    threshold = grade.details.get("threshold")
    return Label(
        str(grade.details.get("model", "?")),
        grade.name,
        grade.passed,
        grade.score,
        human,
        float(threshold) if isinstance(threshold, int | float) else None,
    )


def kappa(table: Confusion) -> tuple[float, float | None, float | None, float | None]:
    """Observed agreement, Cohen's kappa and its 95% interval (Cohen 1960's standard error).

    p_o = (a + d) / n; p_e = ((a + b)(a + c) + (c + d)(b + d)) / n²;
    kappa = (p_o - p_e) / (1 - p_e); SE = sqrt(p_o (1 - p_o) / (n (1 - p_e)²)).
    """
    n = table.n
    if n == 0:
        raise ValueError("no labels: kappa needs at least one judged, reviewed answer")
    a, b = table.true_positives, table.false_positives
    c, d = table.false_negatives, table.true_negatives
    observed = (a + d) / n
    chance = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n)
    if chance >= 1:
        return observed, None, None, None
    value = (observed - chance) / (1 - chance)
    if observed in (0, 1):
        # Every label agrees (or none does): the standard error is 0 whatever n is, and a
        # zero-width interval from 3 labels would claim a certainty they cannot give.
        return observed, value, None, None
    error = math.sqrt(observed * (1 - observed) / (n * (1 - chance) ** 2))
    low, high = max(-1.0, value - Z95 * error), min(1.0, value + Z95 * error)
    return observed, value, low, high


def best_threshold(
    scored: Iterable[tuple[float, bool]], anchor: float = DEFAULT_THRESHOLD
) -> tuple[float, float] | None:
    """The threshold t (judge passes when score >= t) that maximises agreement, and that agreement.

    The candidates are the scores seen, `anchor` (the judge's threshold now) and 1 (only a
    perfect score passes): the threshold now is never beaten by a worse one, and people who
    fail every answer get a threshold failing them all. Ties go to the candidate nearest
    `anchor` (the smallest change: none), then to the lower one. None without scores.
    """
    pairs = list(scored)
    if not pairs:
        return None
    best: tuple[int, float, float] | None = None  # (agreeing, -distance to anchor, -t)
    for t in sorted({score for score, _ in pairs} | {anchor, 1.0}):
        agreeing = sum((score >= t) == human for score, human in pairs)
        key = (agreeing, -abs(t - anchor), -t)
        if best is None or key > best:
            best = key
    assert best is not None
    return -best[2], best[0] / len(pairs)


def calibrate(found: Iterable[Label]) -> list[Calibration]:
    """One calibration per judge model × criterion, sorted by model then criterion."""
    groups: dict[tuple[str, str], list[Label]] = {}
    for label in found:
        groups.setdefault((label.judge_model, label.criterion), []).append(label)
    return [_calibration(model, name, group) for (model, name), group in sorted(groups.items())]


def _calibration(model: str, name: str, group: list[Label]) -> Calibration:
    """The calibration of one judge model on one criterion, from its labels."""
    table = Confusion.of((label.judge_passed, label.human_passed) for label in group)
    observed, value, low, high = kappa(table)
    scored = [(lb.judge_score, lb.human_passed) for lb in group if lb.judge_score is not None]
    thresholds = Counter(lb.judge_threshold for lb in group if lb.judge_threshold is not None)
    anchor = thresholds.most_common(1)[0][0] if thresholds else DEFAULT_THRESHOLD
    fitted = best_threshold(scored, anchor)
    return Calibration(
        model,
        name,
        table,
        observed,
        value,
        low,
        high,
        None if fitted is None else fitted[0],
        None if fitted is None else fitted[1],
        len(scored),
    )
