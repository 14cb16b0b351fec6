"""Reading the generator's answer: the case its JSON object proposes, if it has a `query`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_QUERY_CHARS = 4_000
"""A generated query longer than this is not a user's message: the answer is unusable."""


def proposed_case(answer: Mapping[str, Any] | None) -> dict[str, str] | None:
    """The answer's non-empty string fields, when it is an object with a usable `query`."""
    if answer is None:
        return None
    fields = {
        key: item.strip()
        for key, item in answer.items()
        if isinstance(key, str) and isinstance(item, str) and item.strip()
    }
    query = fields.get("query")
    if query is None or len(query) > MAX_QUERY_CHARS:
        return None
    return fields
