"""Validators built from other validators: `Not`, `AllOf`, `AnyOf`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
class AllOf:
    """Passes when every validator passes."""

    validators: tuple[Validator, ...]

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        return all(passes(v, response) for v in self.validators)

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {results})`` with every validator's outcome."""
        results = [_outcome(v, response) for v in self.validators]
        return all(r["passed"] for r in results), {"results": results}

    def describe(self) -> str:
        """Describe the criterion."""
        return "All of: " + "; ".join(v.describe() for v in self.validators)


@dataclass(frozen=True, slots=True)
class AnyOf:
    """Passes when at least one validator passes."""

    validators: tuple[Validator, ...]

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        return any(passes(v, response) for v in self.validators)

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {results})`` with every validator's outcome."""
        results = [_outcome(v, response) for v in self.validators]
        return any(r["passed"] for r in results), {"results": results}

    def describe(self) -> str:
        """Describe the criterion."""
        return "Any of: " + "; ".join(v.describe() for v in self.validators)
