"""What an answer's rate-limit headers say (OpenAI ``x-ratelimit-*``, ``anthropic-ratelimit-*``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

# OpenAI writes spans as Go durations: "20ms", "1.5s", "6m0s", "1h2m3s".
_SPAN = re.compile(r"(?:(\d+(?:\.\d*)?)h)?(?:(\d+(?:\.\d*)?)m(?!s))?(?:(\d+(?:\.\d*)?)s)?"
                   r"(?:(\d+(?:\.\d*)?)ms)?")  # fmt: skip
_OPENAI = ("x-ratelimit-{}-requests", "x-ratelimit-{}-tokens")
_ANTHROPIC = ("anthropic-ratelimit-requests-{}", "anthropic-ratelimit-tokens-{}")


@dataclass(frozen=True, slots=True)
class ToldLimits:
    """The limits an endpoint states per minute, and what is left of them."""

    rpm: int | None = None
    tpm: int | None = None
    requests_left: int | None = None
    tokens_left: int | None = None
    anthropic: bool = False
    """Whether the names are Anthropic's (their resets are times, not spans)."""


def told_limits(headers: Mapping[str, str]) -> ToldLimits | None:
    """The rate limits in an answer's headers (names in lower case), or None when it has none.

    Read from every answer, so an answer without them costs two lookups: one for each
    provider's request limit, which both send on every answer that has any.
    """
    if (rpm := headers.get("x-ratelimit-limit-requests")) is not None:
        names, anthropic = _OPENAI, False
    elif (rpm := headers.get("anthropic-ratelimit-requests-limit")) is not None:
        names, anthropic = _ANTHROPIC, True
    else:
        return None
    requests, tokens = names
    return ToldLimits(
        rpm=_count(rpm),
        tpm=_count(headers.get(tokens.format("limit"))),
        requests_left=_count(headers.get(requests.format("remaining"))),
        tokens_left=_count(headers.get(tokens.format("remaining"))),
        anthropic=anthropic,
    )


def reset_s(headers: Mapping[str, str], told: ToldLimits, limit: str) -> float | None:
    """Seconds until `limit` (``requests`` or ``tokens``) is whole again, if the headers say."""
    names = _ANTHROPIC if told.anthropic else _OPENAI
    value = headers.get(names[limit == "tokens"].format("reset"))
    return _until_s(value) if told.anthropic else _span_s(value)


def _count(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(float(value))
    except ValueError:
        return None


def _span_s(value: str | None) -> float | None:
    """Seconds of an OpenAI span (``6m0s``), or None when it is not one."""
    if not value:
        return None
    match = _SPAN.fullmatch(value.strip())
    if match is None or not any(match.groups()):
        return None
    hours, minutes, seconds, millis = (float(part or 0) for part in match.groups())
    return hours * 3600 + minutes * 60 + seconds + millis / 1000


def _until_s(value: str | None) -> float | None:
    """Seconds from now until an RFC 3339 time (Anthropic's resets), or None."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)
