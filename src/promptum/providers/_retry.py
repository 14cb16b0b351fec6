"""When to try a failed call again, and how long to wait first."""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def backoff_delay(
    retry: int,
    *,
    base_s: float,
    max_s: float,
    retry_after: float | None = None,
    rng: random.Random | None = None,
) -> float:
    """Seconds to wait before retry number ``retry`` (1 for the first retry).

    The server's Retry-After wins when it gave one (capped at ``max_s``); otherwise
    exponential backoff with "equal jitter": half the step fixed, half random, so a crowd of
    clients that failed together does not come back together.
    """
    if retry_after is not None:
        return min(max(retry_after, 0.0), max_s)
    step = min(base_s * 2.0 ** (retry - 1), max_s)
    return step / 2 + (rng or random).uniform(0, step / 2)


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait a response asked for: ``retry-after-ms``, or ``Retry-After`` seconds or date."""
    lowered = {key.lower(): value for key, value in headers.items()}
    if (millis := lowered.get("retry-after-ms")) is not None:
        try:
            return float(millis) / 1000
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


class RetryBudget:
    """Retries left for a whole run, shared by every call of one client."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.used = 0

    def take(self) -> bool:
        """Spend one retry if any is left; False when the budget is exhausted."""
        if self.total is not None and self.used >= self.total:
            return False
        self.used += 1
        return True
