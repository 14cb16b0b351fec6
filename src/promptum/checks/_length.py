"""Length check types: min_length and max_length, in characters."""

from __future__ import annotations

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, text_check
from promptum.validation import Length


def _build_min_length(value: int, _case_insensitive: bool) -> CompiledCheck:
    validator = Length(min_length=value)
    return text_check(
        "min_length",
        validator.describe(),
        validator.check,
        lambda text: f"length {len(text)} < {value} characters",
    )


def _build_max_length(value: int, _case_insensitive: bool) -> CompiledCheck:
    validator = Length(max_length=value)
    return text_check(
        "max_length",
        validator.describe(),
        validator.check,
        lambda text: f"length {len(text)} > {value} characters",
    )


MIN_LENGTH = CheckType(
    "min_length", "response has at least N characters", ValueKind.INTEGER, _build_min_length
)
MAX_LENGTH = CheckType(
    "max_length", "response has at most N characters", ValueKind.INTEGER, _build_max_length
)
