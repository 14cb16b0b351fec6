"""`Confusion`: a machine's yes/no verdicts counted against the truth, and what they show.

One table serves both machines promptum checks against people: a judge (yes: it passed the
answer; truth: people say it should pass) and a red-team detector (yes: it fired; truth:
the attack succeeded, by a labelled set or by people's reviews).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Confusion:
    """The 2x2 table of a machine's verdicts (yes or no) against the truth."""

    true_positives: int
    """It said yes, and the truth is yes."""
    false_negatives: int
    """It said no, and the truth is yes."""
    true_negatives: int
    """It said no, and the truth is no."""
    false_positives: int
    """It said yes, and the truth is no."""

    @classmethod
    def of(cls, pairs: Iterable[tuple[bool, bool]]) -> Confusion:
        """The table of (machine says yes, truth is yes) pairs."""
        counts = Counter(pairs)
        return cls(
            counts[(True, True)],
            counts[(False, True)],
            counts[(False, False)],
            counts[(True, False)],
        )

    @property
    def counts(self) -> tuple[int, int, int, int]:
        """The four counts, in the fields' order."""
        return self.true_positives, self.false_negatives, self.true_negatives, self.false_positives

    def __add__(self, other: Confusion) -> Confusion:
        return Confusion(
            *(mine + theirs for mine, theirs in zip(self.counts, other.counts, strict=True))
        )

    @property
    def n(self) -> int:
        """Every verdict counted."""
        return sum(self.counts)

    @property
    def recall(self) -> float | None:
        """Of the truly yes, the share it said yes to (sensitivity); None when there are none."""
        return _share(self.true_positives, self.true_positives + self.false_negatives)

    @property
    def specificity(self) -> float | None:
        """Of the truly no, the share it said no to; None when there are none."""
        return _share(self.true_negatives, self.true_negatives + self.false_positives)

    @property
    def precision(self) -> float | None:
        """Of what it said yes to, the share truly yes; None when it never said yes."""
        return _share(self.true_positives, self.true_positives + self.false_positives)


def _share(part: int, whole: int) -> float | None:
    """`part` of `whole`; None when `whole` is nothing."""
    return part / whole if whole else None
