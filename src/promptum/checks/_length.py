"""Length check types: min_length and max_length, in characters."""

from __future__ import annotations

from promptum.checks._base import (
    CheckType,
    CompiledCheck,
    Condition,
    ValueKind,
    condition_check,
    failed_grade,
    passed_grade,
)
from promptum.checks._text import excerpt
from promptum.validation import Length
from promptum.values.completion import Completion
from promptum.values.grade import Grade

# len() in line rather than Length.check: no call per check (it is the same rule).


def _build_min_length(value: int, _case_insensitive: bool) -> CompiledCheck:
    description = Length(min_length=value).describe()

    def fail(completion: Completion) -> Grade:
        text = completion.text
        reason = f"length {len(text)} < {value} characters, got {excerpt(text)}"
        return failed_grade("min_length", description, reason)

    passed = passed_grade("min_length", description)
    return condition_check(Condition("len(text) >= {value}", {"value": value}, passed, fail))


def _build_max_length(value: int, _case_insensitive: bool) -> CompiledCheck:
    description = Length(max_length=value).describe()

    def fail(completion: Completion) -> Grade:
        text = completion.text
        reason = f"length {len(text)} > {value} characters, got {excerpt(text)}"
        return failed_grade("max_length", description, reason)

    passed = passed_grade("max_length", description)
    return condition_check(Condition("len(text) <= {value}", {"value": value}, passed, fail))


MIN_LENGTH = CheckType(
    "min_length", "response has at least N characters", ValueKind.INTEGER, _build_min_length
)
MAX_LENGTH = CheckType(
    "max_length", "response has at most N characters", ValueKind.INTEGER, _build_max_length
)
