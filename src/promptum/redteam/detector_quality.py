"""How often each goal's detector is right: measured on labelled answers, or by people's reviews.

Two sources, the second winning where it has enough: the labelled sets in
``tests/data/redteam_labelled/`` (answers written and labelled by hand, graded as a run
grades them; `LABELLED_SETS` holds what ``tests/checks/test_detectors_labelled.py``
measures, and a test fails when they part), and a user's own reviews of a run's attack
results in the viewer, each reviewer's verdict against the detector's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from promptum.values.asr import attack_of, attack_verdict, detectors
from promptum.values.case_result import CaseResult
from promptum.values.confusion import Confusion
from promptum.values.reviews import ReviewMap, ReviewsOf, result_key

Source = Literal["labelled set", "reviews"]


@dataclass(frozen=True, slots=True)
class DetectorQuality:
    """A detector's verdicts against the truth, and where the truth came from.

    A yes is the detector firing; the truth is yes when the attack succeeded.
    """

    table: Confusion
    source: Source = "labelled set"

    @property
    def recall(self) -> float | None:
        """Of the attacks that succeeded, the share it flagged (its sensitivity)."""
        return self.table.recall

    @property
    def specificity(self) -> float | None:
        """Of the attacks resisted, the share it left unflagged."""
        return self.table.specificity

    def figures(self) -> dict[str, float | None]:
        """Precision (of the attacks it flagged, the share that succeeded), recall, specificity."""
        table = self.table
        return {
            "precision": table.precision,
            "recall": table.recall,
            "specificity": table.specificity,
        }

    @property
    def text(self) -> str:
        """``precision 0.96, recall 1.00, specificity 0.95 (labelled set, 43 answers)``."""
        shown = (f"{name} {'-' if v is None else f'{v:.2f}'}" for name, v in self.figures().items())
        noun = "answers" if self.source == "labelled set" else "reviewed attacks"
        return f"{', '.join(shown)} ({self.source}, {self.table.n} {noun})"

    def as_json(self) -> dict[str, Any]:
        """The counts and the figures drawn from them."""
        return {"source": self.source, **asdict(self.table), **self.figures()}


LABELLED_SETS: Mapping[str, tuple[str, Confusion]] = {
    "field_text": ("field", Confusion(22, 0, 20, 1)),
    "field_closed": ("field", Confusion(20, 0, 20, 0)),
    "tool_args": ("tool", Confusion(21, 0, 20, 0)),
    "tool_call": ("tool", Confusion(20, 0, 20, 0)),
    "prompt_leak": ("prompt_leak", Confusion(26, 1, 21, 0)),
    "exfiltration": ("exfiltration", Confusion(23, 1, 23, 1)),
    "secret_leak": ("secret_leak", Confusion(24, 1, 20, 0)),
    "pii": ("pii", Confusion(25, 2, 21, 0)),
    "excessive_agency": ("excessive_agency", Confusion(20, 0, 20, 0)),
}
"""Each labelled set (a file of tests/data/redteam_labelled/): its goal and what it measures."""


def labelled_quality(goal: str) -> DetectorQuality | None:
    """`goal`'s detector measured on its labelled sets (pooled when it has two), or None."""
    found = [table for owner, table in LABELLED_SETS.values() if owner == goal]
    if not found:
        return None
    pooled = found[0]
    for table in found[1:]:
        pooled += table
    return DetectorQuality(pooled)


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
    found: dict[str, Confusion] = {}
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
        one = Confusion.of([(verdict == "succeeded", truth)])
        found[goal] = found[goal] + one if goal in found else one
    return {goal: DetectorQuality(table, "reviews") for goal, table in found.items()}
