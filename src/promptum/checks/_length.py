"""Length check types: min_length and max_length, in characters."""

from __future__ import annotations

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, failed_grade, passed_grade
from promptum.checks._text import excerpt
from promptum.completion import Completion
from promptum.grades import Grade
from promptum.validation import Length

# len() inline rather than Length.check: one frame per check, not two (it is the same rule).


def _build_min_length(value: int, _case_insensitive: bool) -> CompiledCheck:
    description = Length(min_length=value).describe()
    passed = passed_grade("min_length", description)

    def run(completion: Completion) -> Grade:
        length = len(completion.text)
        if length >= value:
            return passed
        reason = f"length {length} < {value} characters, got {excerpt(completion.text)}"
        return failed_grade("min_length", description, reason)

    return run


def _build_max_length(value: int, _case_insensitive: bool) -> CompiledCheck:
    description = Length(max_length=value).describe()
    passed = passed_grade("max_length", description)

    def run(completion: Completion) -> Grade:
        length = len(completion.text)
        if length <= value:
            return passed
        reason = f"length {length} > {value} characters, got {excerpt(completion.text)}"
        return failed_grade("max_length", description, reason)

    return run


MIN_LENGTH = CheckType(
    "min_length", "response has at least N characters", ValueKind.INTEGER, _build_min_length
)
MAX_LENGTH = CheckType(
    "max_length", "response has at most N characters", ValueKind.INTEGER, _build_max_length
)
