"""Attack success rates corrected for the detector's errors: the Rogan–Gladen estimator.

A detector that misses some successful attacks (recall below 1) or flags some resisted ones
(specificity below 1) moves the rate it counts away from the true one. Knowing both, the
true rate is (observed + specificity − 1) / (recall + specificity − 1) (Rogan & Gladen
1978, "Estimation of prevalence from the results of a screening test"), clamped to [0, 1];
the same transform of the Wilson interval's ends gives its interval, as it is monotone.
garak corrects its attack success rates the same way (``garak/analyze/bootstrap_ci.py``,
with a bootstrap interval), and like it the detector's figures are taken as known: their
own sampling error is not added. Precision is shown but does not enter: it depends on how
many attacks of the labelled set succeeded, not on the detector alone.

Where recall + specificity − 1 is below `MIN_YOUDEN` the detector is no better than chance
and no correction is defined (garak falls back to the raw rate there too). A goal whose
detector has no figures (a judge's verdict, the user's own check) is shown uncorrected, and
the reports say why (docs/redteam.md, "Corrected rates").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from promptum.redteam.detector_quality import DetectorQuality, labelled_quality
from promptum.values.asr import (
    JUDGED_GOALS,
    AttackCounts,
    AttackRates,
    goal_kind,
    interval_text,
    percent,
)
from promptum.values.intervals import Interval

MIN_REVIEWED = 20
"""Reviewed attacks of a goal from which people's reviews replace the labelled figures."""
MIN_YOUDEN = 0.01
"""The smallest recall + specificity − 1 the correction divides by (garak's)."""


def rogan_gladen(observed: float, recall: float, specificity: float) -> float | None:
    """The true rate behind an `observed` one, clamped to [0, 1]; None when undefined."""
    false_alarms = 1 - specificity  # so a perfect detector gives `observed` back exactly
    youden = recall - false_alarms
    if youden < MIN_YOUDEN:
        return None
    return min(1.0, max(0.0, (observed - false_alarms) / youden))


@dataclass(frozen=True, slots=True)
class Corrected:
    """A rate and its 95% interval corrected for the detector's measured errors."""

    rate: float
    interval: Interval
    quality: DetectorQuality

    @property
    def text(self) -> str:
        """``31% [24–39%]``."""
        return f"{percent(self.rate)} {interval_text(self.interval)}"


def _why_none(goal: str, reviewed: DetectorQuality | None, own: bool) -> str:
    """Why a goal without figures is shown uncorrected, and how to correct it."""
    if goal_kind(goal) in JUDGED_GOALS:
        what = "its detector is a judge model, which no labelled set measures"
    elif goal_kind(goal) == "custom" or not own:
        what = "its detector is the suite's own check, which no labelled set measures"
    else:
        what = "some of its attacks are decided by their cases' own checks, not its detector"
    so_far = f", {reviewed.table.n} so far" if reviewed is not None else ""
    return f"{what}: review {MIN_REVIEWED} of its attacks in the viewer to correct it{so_far}"


@dataclass(frozen=True, slots=True)
class Correction:
    """How a goal's rates are corrected: its detector's figures, or why they are not."""

    goal: str
    quality: DetectorQuality | None
    why: str | None = None
    """Why the goal's rates are shown uncorrected; None when they are corrected."""

    def corrected(self, counts: AttackCounts) -> Corrected | None:
        """`counts`' rate and interval corrected; None when uncorrected or nothing was graded."""
        quality, rate = self.quality, counts.rate
        if self.why is not None or quality is None or rate is None:
            return None
        recall, specificity = quality.recall or 0.0, quality.specificity or 0.0
        interval = counts.interval
        observed = (rate, interval.low, interval.high)
        ends = [rogan_gladen(value, recall, specificity) for value in observed]
        point, low, high = (0.0 if value is None else value for value in ends)
        return Corrected(point, Interval(low, high), quality)

    def text(self, counts: AttackCounts) -> str:
        """``31% [24–39%]``, ``-`` when nothing was graded, or ``not corrected``."""
        if self.why is not None:
            return "not corrected"
        corrected = self.corrected(counts)
        return "-" if corrected is None else corrected.text

    @property
    def note(self) -> str:
        """``prompt_leak: precision 1.00, recall 0.96 (labelled set, 48 answers)``."""
        if self.why is not None or self.quality is None:
            return f"{self.goal}: not corrected, {self.why}"
        return f"{self.goal}: {self.quality.text}"

    def as_json(self, counts: AttackCounts) -> dict[str, Any]:
        """``{"corrected": {rate, low, high, precision, recall, specificity, source, ...}}``."""
        corrected = self.corrected(counts)
        figures = {} if self.quality is None else self.quality.as_json()
        return {
            "corrected": {
                "rate": None if corrected is None else corrected.rate,
                "low": None if corrected is None else corrected.interval.low,
                "high": None if corrected is None else corrected.interval.high,
                **figures,
                "why": self.why,
            }
        }


def _chosen(goal: str, reviewed: DetectorQuality | None, own: bool) -> DetectorQuality | None:
    """People's reviews when there are enough, each way; else the labelled set's figures.

    A labelled set measures a goal's built-in detector only: not for attacks some of which
    their cases' own checks decided (`own`). People's reviews measure whichever decided.
    """
    if (
        reviewed is not None
        and reviewed.table.n >= MIN_REVIEWED
        and reviewed.recall is not None  # some succeeded, by the reviewers
        and reviewed.specificity is not None  # and some were resisted
    ):
        return reviewed
    return None if own else labelled_quality(goal)


def correction(
    goal: str, reviewed: DetectorQuality | None = None, *, own: bool = False
) -> Correction:
    """How `goal`'s rates are corrected, given people's reviews of its attacks (if any).

    `own`: some of its attacks were decided by their cases' own checks.
    """
    quality = _chosen(goal, reviewed, own)
    if quality is None:
        return Correction(goal, None, _why_none(goal, reviewed, own))
    youden = (quality.recall or 0.0) + (quality.specificity or 0.0) - 1
    if youden < MIN_YOUDEN:
        return Correction(
            goal,
            quality,
            f"its detector is no better than chance ({quality.text}): no correction is defined",
        )
    return Correction(goal, quality)


def corrections(
    rates: AttackRates, reviewed: Mapping[str, DetectorQuality] | None = None
) -> dict[str, Correction]:
    """Each goal's correction, people's reviews (by goal) winning where there are enough."""
    found = reviewed or {}
    return {
        goal: correction(goal, found.get(goal), own=bool(rates.counts(goal=goal).own_detector))
        for goal in rates.goals
    }
