"""Deterministic checks proposed for a case graded only by a judge (or by nothing).

Each rule reads what the case's `expected_behavior` states outright: a quoted phrase the
answer must hold, a character limit, JSON; and a value of the response model's enumerated
fields that the behaviour names. Nothing is guessed from meaning: that is the judge's work.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_QUOTED = re.compile(r'"([^"\n]{1,60})"|“([^”\n]{1,60})”|(?<!\w)\'([^\'\n]{1,60})\'(?!\w)')
_LIMIT = re.compile(r"\b(?:at most|no more than|under|fewer than)\s+(\d{1,6})\s+characters\b", re.I)
_JSON = re.compile(r"\bJSON\b")


def proposed_checks(behaviour: str, structured: bool) -> list[dict[str, Any]]:
    """The checks `behaviour` states outright; `structured`: the answer follows a schema."""
    checks: list[dict[str, Any]] = []
    for match in _QUOTED.finditer(behaviour):
        phrase = next(group for group in match.groups() if group is not None).strip()
        if phrase:
            checks.append({"type": "contains", "value": phrase, "case_insensitive": True})
    if (limit := _LIMIT.search(behaviour)) is not None:
        checks.append({"type": "max_length", "value": int(limit.group(1))})
    if not structured and _JSON.search(behaviour):
        checks.append({"type": "is_valid_json"})
    return checks


def proposed_expected(behaviour: str, schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """Field assertions: each enumerated top-level field whose one value `behaviour` names."""
    expected: dict[str, Any] = {}
    properties = schema.get("properties") if schema is not None else None
    for name, field in (properties or {}).items():
        values = field.get("enum") if isinstance(field, Mapping) else None
        named = [
            value
            for value in values or ()
            if isinstance(value, str) and re.search(rf"\b{re.escape(value)}\b", behaviour)
        ]
        if len(named) == 1:
            expected[name] = named[0]
    return expected
