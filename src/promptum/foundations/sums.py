"""Exact running sums of floats: a mean that does not depend on the order values arrive in."""

from __future__ import annotations


def add_exact(partials: list[float], value: float) -> None:
    """Add `value` to a list of non-overlapping partial sums (Shewchuk), keeping it short.

    `math.fsum(partials)` is then the exactly rounded sum of every value added, whatever
    their order: a streamed run (results in order of arrival) and the same results counted
    in plan order give the very same figures.
    """
    i = 0
    for partial in partials:
        if abs(value) < abs(partial):
            value, partial = partial, value
        high = value + partial
        low = partial - (high - value)
        if low:
            partials[i] = low
            i += 1
        value = high
    partials[i:] = [value]
