"""A proportion's 95% interval (Wilson's score interval): pass rates and attack success rates.

A value below every layer that shows a rate: the comparison's statistics, the attack success
rates folded in a run's tally and the gate all read it. Pure arithmetic, no I/O.

Wilson's interval, unlike the textbook ``p ± 1.96·sqrt(p(1-p)/n)``, stays inside [0, 1] and
is honest at 0/n and n/n, where a red-team run's rates often sit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054
"""The 97.5th percentile of the standard normal: a two-sided 95% interval."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A 95% confidence interval."""

    low: float
    high: float

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high


def wilson_interval(successes: int, total: int, z: float = Z95) -> Interval:
    """Wilson's score interval for a proportion (the whole [0, 1] when there is no data)."""
    if total == 0:
        return Interval(0.0, 1.0)
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    # At 0/n and n/n the bound is exactly 0 or 1; floating point would miss it by 1e-17.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == total else min(1.0, centre + half)
    return Interval(low, high)


def fisher_exact(successes_a: int, total_a: int, successes_b: int, total_b: int) -> float:
    """Fisher's exact two-sided p-value that two independent proportions are the same.

    For an attack success rate against its no-attack control: unpaired samples, often small
    or at 0/n, where a normal approximation would claim what the data do not show.
    """
    if total_a == 0 or total_b == 0:
        return 1.0
    successes, total = successes_a + successes_b, total_a + total_b

    def weight(k: int) -> int:  # the hypergeometric probability of k, times C(total, total_a)
        return math.comb(successes, k) * math.comb(total - successes, total_a - k)

    observed = weight(successes_a)
    low, high = max(0, successes - total_b), min(successes, total_a)
    # Exact integers: every table at most as likely as the one observed, with a little slack
    # so tables equally likely up to rounding are not left out (as scipy does).
    tail = sum(w for w in map(weight, range(low, high + 1)) if w * (1 - 1e-7) <= observed)
    return min(1.0, tail / math.comb(total, total_a))
