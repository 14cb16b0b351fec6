"""A validator on the length of the response, in characters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Length:
    """Passes when ``min_length <= len(response) <= max_length`` (no upper bound when None)."""

    min_length: int = 0
    max_length: int | None = None

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        length = len(response)
        return length >= self.min_length and (self.max_length is None or length <= self.max_length)

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {length, min_length, max_length})``."""
        return self.check(response), {
            "length": len(response),
            "min_length": self.min_length,
            "max_length": self.max_length,
        }

    def describe(self) -> str:
        """Describe the criterion."""
        if self.max_length is None:
            return f"Response is at least {self.min_length} characters long"
        if self.min_length == 0:
            return f"Response is at most {self.max_length} characters long"
        return f"Response length between {self.min_length} and {self.max_length} characters"
