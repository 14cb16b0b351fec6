"""Operators and `range()` in the sandbox, refused before they compute something too large."""

from __future__ import annotations

from typing import Any

from promptum.templating._budget import current, size
from promptum.templating._errors import security_error

MAX_RANGE = 100_000
"""The longest `range()`, and the most pieces `batch`/`slice` may make."""

MAX_INT_BITS = 3_322
"""About 1,000 digits: integer arithmetic past this is a way to burn CPU, not a prompt."""

_TEXTS = (str, bytes, bytearray)
"""What `%` formats: a YAML `!!binary` var is bytes, whose `%9000000000d` pads as text does."""

_SEQUENCES = (*_TEXTS, list, tuple)
"""What `*` and `+` repeat or join: bytes are as costly as text."""

_TOO_BIG_NUMBER = "templates cannot compute integers of more than about 1,000 digits"


def _int_bits(value: Any) -> int:
    return abs(value).bit_length() if isinstance(value, int) else 0


def check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse an operation whose result would be too large, before computing it."""
    budget = current()
    if operator == "%" and isinstance(left, _TEXTS):
        raise security_error(
            "templates cannot format text with `%`; join text with `~` and round numbers "
            "with the `round` filter"
        )
    if operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
        if _int_bits(left) > 1 and _int_bits(left) * right > MAX_INT_BITS:
            raise security_error(_TOO_BIG_NUMBER)
    elif operator == "*":
        if isinstance(left, int) and isinstance(right, int):
            if _int_bits(left) + _int_bits(right) > MAX_INT_BITS:
                raise security_error(_TOO_BIG_NUMBER)
            return
        for sequence, times in ((left, right), (right, left)):
            if isinstance(times, int) and isinstance(sequence, _SEQUENCES):
                budget.afford(size(sequence, budget.size) * max(times, 0))
    elif operator == "+" and isinstance(left, _SEQUENCES):
        budget.afford(size(left, budget.size) + size(right, budget.size))


def bounded_range(*args: int) -> range:
    """The sandbox's `range()`: at most MAX_RANGE numbers, charged to the budget."""
    try:
        numbers = range(*args)
        too_long = len(numbers) > MAX_RANGE
    except OverflowError:
        too_long = True
    if too_long:
        raise security_error(f"templates cannot make a range of more than {MAX_RANGE:,} numbers")
    current().spend(len(numbers))
    return numbers
