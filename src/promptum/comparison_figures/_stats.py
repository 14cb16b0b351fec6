"""The statistics of a comparison: intervals for pass rates and a paired test on shared cases.

Pure functions of counts, no I/O. The choices, for the next person:

- A pass rate's 95% interval is Wilson's score interval: unlike the textbook
  ``p ± 1.96·sqrt(p(1-p)/n)`` it stays inside [0, 1] and is honest at 0/n and n/n. It
  lives in `promptum.values.intervals`, below the tally, which gives attack success rates one too.
- The difference between two models on the same cases is paired: each case is its own
  control. Its interval is Agresti and Min's (2005) adjusted Wald interval for matched
  proportions (the 2×2 table with 0.5 added to each cell), written on the per-case
  differences so it also covers cases run several times (a difference is then a difference
  of pass rates, between -1 and 1); for one run per case it is their interval exactly.
- Whether a difference is significant is the exact two-sided sign test on the cases that
  moved (the cases whose pass rate rose against those whose rate fell). For one run per case
  it is McNemar's exact test; unlike the normal approximation it is valid for the handful of
  changed cases a prompt suite usually has, so one case that wobbles is never significant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from promptum.values.intervals import Z95 as Z95
from promptum.values.intervals import Interval as Interval
from promptum.values.intervals import wilson_interval as wilson_interval

ALPHA = 0.05
"""A difference is significant when the paired test's p-value is below this."""


def paired_interval(differences: Sequence[float], z: float = Z95) -> Interval:
    """Agresti–Min interval for the mean of paired differences, each between -1 and 1."""
    n = len(differences) + 2  # one pseudo-pair in each of the 2×2 table's four cells, ×0.5
    mean = sum(differences) / n
    # The pseudo-pairs add 0.5 at +1 and 0.5 at -1, so 1 to the sum of squares.
    second_moment = (sum(d * d for d in differences) + 1) / n
    half = z * math.sqrt(max(0.0, second_moment - mean * mean) / n)
    return Interval(max(-1.0, mean - half), min(1.0, mean + half))


def sign_test(up: int, down: int) -> float:
    """Exact two-sided p-value that `up` rises and `down` falls are a fair coin's doing."""
    n = up + down
    if n == 0:
        return 1.0
    # Exact integer arithmetic: a float binomial coefficient overflows past n ≈ 1,000.
    tail, term = 0, 1
    for k in range(min(up, down) + 1):
        tail += term
        term = term * (n - k) // (k + 1)
    return min(1.0, 2 * tail / (1 << n))
