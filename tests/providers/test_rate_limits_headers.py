"""The rate-limit headers of OpenAI and Anthropic answers, read as the providers write them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from promptum.providers._told_limits import ToldLimits, reset_s, told_limits


def test_openai_headers_with_go_durations() -> None:
    headers = httpx.Headers(
        {
            "X-RateLimit-Limit-Requests": "500",
            "X-RateLimit-Remaining-Requests": "499",
            "X-RateLimit-Reset-Requests": "120ms",
            "X-RateLimit-Limit-Tokens": "200000",
            "X-RateLimit-Remaining-Tokens": "0",
            "X-RateLimit-Reset-Tokens": "6m0.5s",
        }
    )
    told = told_limits(headers)
    assert told == ToldLimits(rpm=500, tpm=200_000, requests_left=499, tokens_left=0)
    assert reset_s(headers, told, "requests") == pytest.approx(0.12)
    assert reset_s(headers, told, "tokens") == pytest.approx(360.5)


@pytest.mark.parametrize(
    ("span", "seconds"), [("1s", 1.0), ("1h2m3s", 3723.0), ("17ms", 0.017), ("2m", 120.0)]
)
def test_openai_reset_spans(span: str, seconds: float) -> None:
    headers = {"x-ratelimit-limit-requests": "60", "x-ratelimit-reset-requests": span}
    told = told_limits(headers)
    assert told is not None
    assert reset_s(headers, told, "requests") == pytest.approx(seconds)


def test_anthropic_headers_with_rfc3339_resets() -> None:
    reset = (datetime.now(UTC) + timedelta(seconds=30)).isoformat().replace("+00:00", "Z")
    headers = {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": reset,
        "anthropic-ratelimit-tokens-limit": "40000",
    }
    told = told_limits(headers)
    assert told == ToldLimits(rpm=50, tpm=40_000, requests_left=0, anthropic=True)
    seconds = reset_s(headers, told, "requests")
    assert seconds is not None
    assert 25 < seconds <= 30
    assert reset_s(headers, told, "tokens") is None


def test_answers_without_limits_or_with_garbage() -> None:
    assert told_limits({"content-type": "application/json"}) is None
    headers = {"x-ratelimit-limit-requests": "lots", "x-ratelimit-reset-requests": "?"}
    told = told_limits(headers)
    assert told == ToldLimits()
    assert reset_s(headers, told, "requests") is None
