"""The registry from check type name to implementation: adding a type is one line here."""

from __future__ import annotations

import difflib

from promptum.checks import _budget, _json, _length, _similar, _text
from promptum.checks._base import CheckType

CHECK_TYPES: dict[str, CheckType] = {
    check_type.name: check_type
    for check_type in (
        _text.CONTAINS,
        _text.NOT_CONTAINS,
        _text.REGEX,
        _text.NOT_REGEX,
        _text.EXACT_MATCH,
        _json.IS_VALID_JSON,
        _budget.MAX_LATENCY_MS,
        _budget.MAX_COST_USD,
        _length.MIN_LENGTH,
        _length.MAX_LENGTH,
        _similar.SIMILAR,
    )
}


def get_check_type(name: str) -> CheckType:
    """Return the registered type `name`; raise ValueError listing the valid ones otherwise."""
    try:
        return CHECK_TYPES[name]
    except KeyError:
        pass
    valid = ", ".join(CHECK_TYPES)
    close = difflib.get_close_matches(str(name), CHECK_TYPES, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown check type {name!r}.{hint} Valid types: {valid}")
