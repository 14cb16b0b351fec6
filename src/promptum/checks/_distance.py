"""The levenshtein check type: the trimmed response within an edit distance of the expected text.

The distance is rapidfuzz's Levenshtein distance (insertions, deletions and substitutions
of characters, each costing 1), the library of the field: C++, no dependencies, and a
cut-off that stops as soon as the distance is known to exceed the limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptum.checks._base import (
    CheckType,
    CompiledCheck,
    ValueKind,
    condition_check,
    refuse_unknown_keys,
    shorten,
)
from promptum.checks._text import excerpt
from promptum.values.completion import Completion

DEFAULT_MAX_DISTANCE = 5
"""promptfoo's default threshold for its `levenshtein` assertion, kept so configs mean the same."""
_KEYS = ("expected", "max_distance")
_FORMS = "a string, or {expected: <text>, max_distance: <integer>}"


def _max_distance(value: Any) -> int:
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if not is_number or value < 0 or value != int(value):
        raise ValueError(
            f"check 'levenshtein': max_distance must be a whole number of edits, 0 or more, "
            f"got {value!r}"
        )
    return int(value)


def levenshtein_spec(value: Any) -> tuple[str, int]:
    """The expected text and the largest distance allowed, else ValueError saying what fits."""
    if isinstance(value, str):
        return value, DEFAULT_MAX_DISTANCE
    if not isinstance(value, Mapping):
        got = "nothing" if value is None else f"{type(value).__name__} {value!r}"
        raise ValueError(f"check 'levenshtein' needs {_FORMS}, got {got}")
    refuse_unknown_keys("levenshtein", value, _KEYS)
    expected = value.get("expected")
    if not isinstance(expected, str):
        raise ValueError(
            f"check 'levenshtein' needs `expected`, the text to compare with (a string), "
            f"got {expected!r}"
        )
    return expected, _max_distance(value.get("max_distance", DEFAULT_MAX_DISTANCE))


def _build(value: Any, _case_insensitive: bool) -> CompiledCheck:
    expected, limit = levenshtein_spec(value)
    # Imported when a suite first uses the check: loading the checks (every `promptum
    # validate`) would otherwise pay its ~7 ms for suites that have none.
    from rapidfuzz.distance import Levenshtein

    shown = repr(shorten(expected, 60))
    description = f"Within edit distance {limit} of {shown} (after trimming whitespace)"

    def reason(completion: Completion) -> str:
        text = completion.text.strip()
        # Measured again, in full: the test in line stops counting past the limit.
        found = Levenshtein.distance(text, expected)
        return f"distance {found} > {limit} from {shown}, got {excerpt(text)}"

    # The module is bound, not its `distance`: a case sent to Ray workers is pickled, and
    # rapidfuzz's compiled function cannot be, while a module goes by its name.
    test = "{levenshtein}.distance(text.strip(), {expected}, score_cutoff={limit}) <= {limit}"
    names = {"levenshtein": Levenshtein, "expected": expected, "limit": limit}
    return condition_check("levenshtein", description, test, names, reason)


LEVENSHTEIN = CheckType(
    "levenshtein",
    f"trimmed response is within max_distance character edits of the value ({_FORMS}; "
    f"max_distance {DEFAULT_MAX_DISTANCE} unless given)",
    ValueKind.OPTIONAL,  # checked when built, with messages that say what to write
    _build,
)
