"""Validators built from other validators: `Not`, `AllOf`, `AnyOf`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from promptum.validation._protocol import Validator, passes


def _outcome(validator: Validator, response: str) -> dict[str, Any]:
    passed, details = validator.validate(response)
    return {"description": validator.describe(), "passed": passed, "details": details}


@dataclass(frozen=True, slots=True)
class Not:
    """Passes when `validator` fails."""

    validator: Validator

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        return not passes(self.validator, response)

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {inner})`` with the wrapped validator's outcome."""
        inner = _outcome(self.validator, response)
        return not inner["passed"], {"inner": inner}

    def describe(self) -> str:
        """Describe the criterion."""
        return f"Not: {self.validator.describe()}"


@dataclass(frozen=True, slots=True)
class _Joined:
    """Passes when the validators' outcomes, joined by `_join` (`all` or `any`), are true."""

    validators: tuple[Validator, ...]
    _join: ClassVar[Callable[[Iterable[bool]], bool]]
    _label: ClassVar[str]
    """How `describe` starts: ``All of``, ``Any of``."""

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        return type(self)._join(passes(v, response) for v in self.validators)

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {results})`` with every validator's outcome."""
        results = [_outcome(v, response) for v in self.validators]
        return type(self)._join(r["passed"] for r in results), {"results": results}

    def describe(self) -> str:
        """Describe the criterion."""
        return f"{self._label}: " + "; ".join(v.describe() for v in self.validators)


@dataclass(frozen=True, slots=True)
class AllOf(_Joined):
    """Passes when every validator passes."""

    _join = all
    _label = "All of"


@dataclass(frozen=True, slots=True)
class AnyOf(_Joined):
    """Passes when at least one validator passes."""

    _join = any
    _label = "Any of"
