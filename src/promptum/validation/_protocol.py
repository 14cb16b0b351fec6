"""The `Validator` protocol: anything with `validate` and `describe`."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Validator(Protocol):
    """Checks a response text; any class with these two methods qualifies."""

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, details)`` for one response."""
        ...

    def describe(self) -> str:
        """Return a human-readable description of what passes."""
        ...


def passes(validator: Validator, response: str) -> bool:
    """Return whether `response` passes, using a validator's fast ``check`` when it has one."""
    check = getattr(validator, "check", None)
    if check is not None:
        return bool(check(response))
    return validator.validate(response)[0]
