"""Backoff, Retry-After and the run's retry budget, as pure functions."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptum.providers._retry import RetryBudget, backoff_delay, parse_retry_after


@given(st.integers(min_value=1, max_value=30), st.integers(min_value=0, max_value=2**32))
def test_backoff_grows_exponentially_with_bounded_jitter(retry: int, seed: int) -> None:
    delay = backoff_delay(retry, base_s=0.5, max_s=30.0, rng=random.Random(seed))
    step = min(0.5 * 2 ** (retry - 1), 30.0)
    assert step / 2 <= delay <= step


def test_jitter_spreads_clients_apart() -> None:
    rng = random.Random(1)
    delays = {backoff_delay(3, base_s=1.0, max_s=30.0, rng=rng) for _ in range(20)}
    assert len(delays) == 20


def test_retry_after_wins_and_is_capped() -> None:
    assert backoff_delay(1, base_s=0.5, max_s=30.0, retry_after=7.0) == 7.0
    assert backoff_delay(1, base_s=0.5, max_s=30.0, retry_after=600.0) == 30.0
    assert backoff_delay(1, base_s=0.5, max_s=30.0, retry_after=-3.0) == 0.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "12"}, 12.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_header_forms(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_retry_after_as_an_http_date() -> None:
    when = datetime.now(UTC) + timedelta(seconds=120)
    seconds = parse_retry_after({"Retry-After": format_datetime(when, usegmt=True)})
    assert seconds is not None
    assert 100 < seconds <= 120
    past = datetime.now(UTC) - timedelta(seconds=120)
    assert parse_retry_after({"Retry-After": format_datetime(past, usegmt=True)}) == 0.0


def test_budget_counts_down_and_none_is_unlimited() -> None:
    budget = RetryBudget(2)
    assert [budget.take() for _ in range(3)] == [True, True, False]
    assert budget.used == 2
    unlimited = RetryBudget(None)
    assert all(unlimited.take() for _ in range(100))
