"""How often each goal's detector is right: measured on labelled answers, or by people's reviews.

Two sources, the second winning where it has enough: the labelled sets in
``tests/data/redteam_labelled/`` (answers written and labelled by hand, graded as a run
grades them; `LABELLED_SETS` holds what ``tests/checks/test_detectors_labelled.py``
measures, and a test fails when they part), and a user's own reviews of a run's attack
results in the viewer, each reviewer's verdict against the detector's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from promptum.values.asr import attack_of, attack_verdict, detectors
from promptum.values.case_result import CaseResult
from promptum.values.reviews import ReviewMap, ReviewsOf, result_key

Source = Literal["labelled set", "reviews"]


@dataclass(frozen=True, slots=True)
class DetectorQuality:
    """A detector's verdicts against the truth: how many it got right and wrong each way."""

    true_positives: int
    """Attacks that succeeded, and the detector fired."""
    false_negatives: int
    """Attacks that succeeded, and the detector stayed silent."""
    true_negatives: int
    """Attacks resisted, and the detector stayed silent."""
    false_positives: int
    """Attacks resisted, and the detector fired."""
    source: Source = "labelled set"

    @property
    def counts(self) -> tuple[int, int, int, int]:
        """The four counts, in the order `COUNTS` names them."""
        return self.true_positives, self.false_negatives, self.true_negatives, self.false_positives

    def __add__(self, other: DetectorQuality) -> DetectorQuality:
        tp, fn, tn, fp = (
            mine + theirs for mine, theirs in zip(self.counts, other.counts, strict=True)
        )
        return DetectorQuality(tp, fn, tn, fp, self.source)

    @property
    def total(self) -> int:
        """Every answer measured."""
        return sum(self.counts)

    @property
    def recall(self) -> float | None:
        """Of the attacks that succeeded, the share it flagged (its sensitivity)."""
        return _share(self.true_positives, self.true_positives + self.false_negatives)

    @property
    def specificity(self) -> float | None:
        """Of the attacks resisted, the share it left unflagged."""
        return _share(self.true_negatives, self.true_negatives + self.false_positives)

    def figures(self) -> dict[str, float | None]:
        """Precision (of the attacks it flagged, the share that succeeded), recall, specificity."""
        fired = self.true_positives + self.false_positives
        precision = _share(self.true_positives, fired)
        return {"precision": precision, "recall": self.recall, "specificity": self.specificity}

    @property
    def text(self) -> str:
        """``precision 0.96, recall 1.00, specificity 0.95 (labelled set, 43 answers)``."""
        shown = (f"{name} {'-' if v is None else f'{v:.2f}'}" for name, v in self.figures().items())
        noun = "answers" if self.source == "labelled set" else "reviewed attacks"
        return f"{', '.join(shown)} ({self.source}, {self.total} {noun})"

    def as_json(self) -> dict[str, Any]:
        """The counts and the figures drawn from them."""
        return {
            "source": self.source,
            **dict(zip(COUNTS, self.counts, strict=True)),
            **self.figures(),
        }


COUNTS = ("true_positives", "false_negatives", "true_negatives", "false_positives")
"""How the JSON reports name a detector's four counts."""


def _share(part: int, whole: int) -> float | None:
    """`part` of `whole`; None when `whole` is nothing."""
    return part / whole if whole else None


LABELLED_SETS: Mapping[str, tuple[str, DetectorQuality]] = {
    "field_text": ("field", DetectorQuality(22, 0, 20, 1)),
    "field_closed": ("field", DetectorQuality(20, 0, 20, 0)),
    "tool_args": ("tool", DetectorQuality(21, 0, 20, 0)),
    "tool_call": ("tool", DetectorQuality(20, 0, 20, 0)),
    "prompt_leak": ("prompt_leak", DetectorQuality(26, 1, 21, 0)),
    "exfiltration": ("exfiltration", DetectorQuality(23, 1, 23, 1)),
    "secret_leak": ("secret_leak", DetectorQuality(24, 1, 20, 0)),
    "pii": ("pii", DetectorQuality(25, 2, 21, 0)),
    "excessive_agency": ("excessive_agency", DetectorQuality(20, 0, 20, 0)),
}
"""Each labelled set (a file of tests/data/redteam_labelled/): its goal and what it measures."""


def labelled_quality(goal: str) -> DetectorQuality | None:
    """`goal`'s detector measured on its labelled sets (pooled when it has two), or None."""
    found = [quality for owner, quality in LABELLED_SETS.values() if owner == goal]
    if not found:
        return None
    pooled = found[0]
    for quality in found[1:]:
        pooled += quality
    return pooled


def _says_succeeded(goal: str, result: CaseResult, reviews: ReviewsOf) -> bool | None:
    """Whether the latest review of the result (or of its detector's grade) says it succeeded.

    A review of the whole result, or of the judge criterion that is the goal's detector,
    speaks for the attack; a review of another criterion does not. None: no such review.
    """
    names = {grade.name for grade in detectors(goal, result.grades)}
    said = [r for r in reviews if r.criterion is None or r.criterion in names]
    return None if not said else not said[-1].should_pass  # failing is the attack succeeding


def reviewed_qualities(
    results: Iterable[CaseResult], reviews: ReviewMap
) -> dict[str, DetectorQuality]:
    """Per goal, the detector's verdicts against people's reviews of the attack results.

    Only attacks the detector determined count: an attack with no answer tells nothing of it.
    """
    found: dict[str, DetectorQuality] = {}
    for result in results:
        attack = attack_of(result.tags)
        reviewed = reviews.get(result_key(result)) if attack is not None else None
        if attack is None or not reviewed:
            continue
        goal = attack[0]
        truth = _says_succeeded(goal, result, reviewed)
        verdict = attack_verdict(goal, result).verdict
        if truth is None or verdict == "undetermined":
            continue
        fired = verdict == "succeeded"
        one = DetectorQuality(
            int(truth and fired),
            int(truth and not fired),
            int(not truth and not fired),
            int(not truth and fired),
            "reviews",
        )
        found[goal] = found[goal] + one if goal in found else one
    return found
