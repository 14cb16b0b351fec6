"""The approx check type: the response is one number, within a tolerance of the value.

The response (trimmed), or the value of the check's `transform:` (``json.total``), is read
as one amount, as field assertions read a string ("12.50 €", "1,234.50"), and compared by
pytest.approx's rule (`promptum.validation`'s `Approx`).
"""

from __future__ import annotations

from typing import Any

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, condition_check
from promptum.checks._text import excerpt
from promptum.validation import approx_of, number_readings
from promptum.values.completion import Completion

_FORMS = "a number, or {approx: <number>, abs: <number ≥ 0>, rel: <number ≥ 0>}"


def _build(value: Any, _case_insensitive: bool) -> CompiledCheck:
    if value is None:
        raise ValueError(f"check 'approx' needs the expected number: {_FORMS}")
    try:
        approx = approx_of(value)
    except ValueError as exc:
        raise ValueError(f"check 'approx': {exc}") from None
    description = f"The response is a number within {approx.describe()}"

    def reason(completion: Completion) -> str:
        text = completion.text.strip()
        if not number_readings(text):
            return f"expected one number within {approx.describe()}, got {excerpt(text)}"
        return f"{excerpt(text)} is not within {approx.describe()}"

    return condition_check(
        "approx", description, "{approx}.holds(text)", {"approx": approx}, reason
    )


APPROX = CheckType(
    "approx",
    f"the trimmed response is one number within a tolerance of the value ({_FORMS}; "
    "pytest.approx's rule: rel 1e-6 unless abs or rel is given)",
    ValueKind.OPTIONAL,  # checked when built, with messages that say what to write
    _build,
)
