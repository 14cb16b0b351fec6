"""A number within a tolerance, as `pytest.approx` defines it: ``{approx: 12.5, abs: 0.01}``.

The tolerance is pytest's: ``max(rel * |expected|, abs)``, with ``rel`` 1e-6 and ``abs``
1e-12 when not given, and ``abs`` alone when only ``abs`` is given (then the relative
default does not widen it). Relative to the expected value only, so the check does not
depend on the order of the two. Infinity equals only itself; NaN never holds. A string
actual value is read as an amount first ("12.53 €"), as field assertions read numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from promptum.foundations.suggestions import did_you_mean
from promptum.validation._readings import number_readings

APPROX_KEY = "approx"
_KEYS = (APPROX_KEY, "abs", "rel")
_FORMS = "{approx: <number>, abs: <number ≥ 0>, rel: <number ≥ 0>} (abs and rel optional)"
DEFAULT_REL = 1e-6
"""pytest.approx's relative tolerance when none is given."""
DEFAULT_ABS = 1e-12
"""pytest.approx's absolute tolerance when none is given."""


@dataclass(frozen=True, slots=True, eq=False)
class Approx:
    """An expected number and its tolerance; ``actual == approx`` holds within it."""

    expected: float
    abs: float | None = None
    rel: float | None = None

    @property
    def tolerance(self) -> float:
        """How far from `expected` an actual value may be (pytest.approx's rule)."""
        absolute = DEFAULT_ABS if self.abs is None else self.abs
        if self.rel is None and self.abs is not None:
            return absolute
        relative = (DEFAULT_REL if self.rel is None else self.rel) * abs(self.expected)
        return max(relative, absolute)

    def holds(self, actual: Any) -> bool:
        """Whether `actual` (a number, or a string holding one amount) is within tolerance."""
        if isinstance(actual, str):
            return any(self.holds(float(reading)) for reading in number_readings(actual))
        if not isinstance(actual, int | float | Decimal) or isinstance(actual, bool):
            return False
        number = float(actual)
        if number == self.expected:
            return True
        if math.isinf(self.expected) or math.isnan(number):
            return False
        return abs(number - self.expected) <= self.tolerance

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Approx):
            return (other.expected, other.abs, other.rel) == (self.expected, self.abs, self.rel)
        return self.holds(other)

    __hash__ = None  # type: ignore[assignment]  # equal to many numbers: no one hash

    def describe(self) -> str:
        """``12.5 ± 0.01``: the expected value and its tolerance, as reasons show it."""
        return f"{self.expected:g} ± {self.tolerance:g}"

    def spec(self) -> dict[str, float]:
        """The mapping a suite writes for it."""
        written = {APPROX_KEY: self.expected, "abs": self.abs, "rel": self.rel}
        return {key: value for key, value in written.items() if value is not None}


def is_approx_spec(value: Any) -> bool:
    """Whether a value of the test data asks for a tolerance: a mapping with an `approx` key."""
    return isinstance(value, Mapping) and APPROX_KEY in value


def _number(name: str, value: Any, bound: bool) -> float:
    """`value` as a float: a number, or a string holding one (a filled-in template)."""
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or math.isnan(number):
        got = "nothing" if value is None else f"{type(value).__name__} {value!r}"
        raise ValueError(f"`{name}` must be a number, got {got}")
    if bound and (number < 0 or math.isinf(number)):
        raise ValueError(f"`{name}` is a tolerance: a finite number 0 or more, got {value!r}")
    return number


def approx_of(value: Any) -> Approx:
    """The tolerance a suite writes: a number, or {approx, abs, rel}; else ValueError."""
    if not isinstance(value, Mapping):
        return Approx(_number(APPROX_KEY, value, bound=False))
    for key in value:
        if key not in _KEYS:
            hint = did_you_mean(str(key), _KEYS)
            raise ValueError(f"unknown key {key!r} of an approx value.{hint} Write {_FORMS}")
    if APPROX_KEY not in value:
        raise ValueError(f"an approx value needs `approx`, the expected number: write {_FORMS}")
    bounds = {key: _number(key, value[key], bound=True) for key in ("abs", "rel") if key in value}
    return Approx(_number(APPROX_KEY, value[APPROX_KEY], bound=False), **bounds)
