"""The statistics against known values and their defining properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptum.compare import paired_interval, sign_test, wilson_interval


def test_sign_test_matches_mcnemar_exact_values() -> None:
    # Two-sided exact binomial p-values for the discordant pairs, computed by hand.
    assert sign_test(0, 0) == 1.0
    assert sign_test(1, 0) == 1.0
    assert sign_test(0, 5) == pytest.approx(2 / 32)
    assert sign_test(0, 6) == pytest.approx(2 / 64)
    assert sign_test(2, 8) == pytest.approx(2 * (1 + 10 + 45) / 1024)
    assert sign_test(3000, 3000) == 1.0
    assert sign_test(100, 4000) < 1e-300


@given(st.integers(0, 60), st.integers(0, 60))
def test_sign_test_is_a_symmetric_probability(up: int, down: int) -> None:
    p = sign_test(up, down)
    assert 0.0 < p <= 1.0
    assert p == sign_test(down, up)


def test_wilson_interval_known_values() -> None:
    # Reference: Wilson score interval for 8/10 at 95% is [0.490, 0.943].
    low, high = wilson_interval(8, 10).low, wilson_interval(8, 10).high
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)
    assert wilson_interval(0, 10).low == 0.0
    assert wilson_interval(10, 10).high == 1.0
    assert (wilson_interval(0, 0).low, wilson_interval(0, 0).high) == (0.0, 1.0)


@given(st.integers(0, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_contains_the_rate(counts: tuple[int, int]) -> None:
    k, n = counts
    interval = wilson_interval(k, n)
    assert 0.0 <= interval.low <= interval.high <= 1.0
    if n:
        assert (k / n) in interval


def test_paired_interval_is_agresti_min_for_one_run_per_case() -> None:
    # 2×2 table: 10 discordant pairs B-only, 3 A-only, 37 concordant (n = 50).
    differences = [1.0] * 10 + [-1.0] * 3 + [0.0] * 37
    n12, n21, n = 3 + 0.5, 10 + 0.5, 50 + 2
    centre = (n21 - n12) / n
    half = 1.959963984540054 * math.sqrt(((n12 + n21) / n - centre**2) / n)
    interval = paired_interval(differences)
    assert interval.low == pytest.approx(centre - half)
    assert interval.high == pytest.approx(centre + half)


@given(st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]), max_size=200))
def test_paired_interval_stays_within_bounds(differences: list[float]) -> None:
    interval = paired_interval(differences)
    assert -1.0 <= interval.low < interval.high <= 1.0


def test_paired_interval_narrows_with_more_cases() -> None:
    few = paired_interval([1.0, 0.0, 0.0, 0.0])
    many = paired_interval([1.0, 0.0, 0.0, 0.0] * 100)
    assert many.high - many.low < (few.high - few.low) / 5
