"""Reading the generator's answer: the first JSON object in it that has a `query`."""

from __future__ import annotations

import json
from typing import Any

_DECODER = json.JSONDecoder()
MAX_QUERY_CHARS = 4_000
"""A generated query longer than this is not a user's message: the answer is unusable."""


def proposed_case(answer: str) -> dict[str, str] | None:
    """The case the answer proposes (its string fields), or None when it holds none.

    Small models wrap JSON in prose or code fences: every ``{`` is tried in turn.
    """
    start = answer.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(answer, start)
        except json.JSONDecodeError:
            value = None
        proposed = _strings(value)
        if proposed is not None:
            return proposed
        start = answer.find("{", start + 1)
    return None


def _strings(value: Any) -> dict[str, str] | None:
    """`value`'s non-empty string fields, when it is an object with a usable `query`."""
    if not isinstance(value, dict):
        return None
    fields = {
        key: item.strip()
        for key, item in value.items()
        if isinstance(key, str) and isinstance(item, str) and item.strip()
    }
    query = fields.get("query")
    if query is None or len(query) > MAX_QUERY_CHARS:
        return None
    return fields
