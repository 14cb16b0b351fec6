"""Length check types: min_length and max_length, in characters."""

from __future__ import annotations

from collections.abc import Callable

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, condition_check
from promptum.checks._text import excerpt
from promptum.validation import Length
from promptum.values.completion import Completion

# len() in line rather than Length.check: no call per check (it is the same rule).


def _length_builder(
    name: str, test: str, sign: str, describe: Callable[[int], str]
) -> Callable[[int, bool], CompiledCheck]:
    """The builder of check type `name`: `test` on ``len(text)`` in line, `sign` in reasons."""

    def build(value: int, _case_insensitive: bool) -> CompiledCheck:
        def reason(completion: Completion) -> str:
            text = completion.text
            return f"length {len(text)} {sign} {value} characters, got {excerpt(text)}"

        return condition_check(name, describe(value), test, {"value": value}, reason)

    return build


_build_min_length = _length_builder(
    "min_length", "len(text) >= {value}", "<", lambda value: Length(min_length=value).describe()
)
_build_max_length = _length_builder(
    "max_length", "len(text) <= {value}", ">", lambda value: Length(max_length=value).describe()
)

MIN_LENGTH = CheckType(
    "min_length", "response has at least N characters", ValueKind.INTEGER, _build_min_length
)
MAX_LENGTH = CheckType(
    "max_length", "response has at most N characters", ValueKind.INTEGER, _build_max_length
)
