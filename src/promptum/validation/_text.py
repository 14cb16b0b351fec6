"""Validators over the response text: exact match, substring and regular expression."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar


def _quote(text: str, limit: int = 60) -> str:
    """Quote text for a description, shortening it when long."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)


def _case_note(case_sensitive: bool) -> str:
    return "" if case_sensitive else " (ignoring case)"


def _first_match(pattern: str, flags: int, response: str) -> str | None:
    # re.compile keeps its own cache of compiled patterns, so this is a dict lookup.
    match = re.compile(pattern, flags).search(response)
    return None if match is None else match.group(0)


def _pattern_note(flags: int) -> str:
    return " (ignoring case)" if flags & re.IGNORECASE else ""


@dataclass(frozen=True, slots=True)
class ExactMatch:
    """Passes when the response equals `expected` exactly (no trimming)."""

    expected: str
    case_sensitive: bool = True

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        if self.case_sensitive:
            return response == self.expected
        return response.casefold() == self.expected.casefold()

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {expected, actual, case_sensitive})``."""
        return self.check(response), {
            "expected": self.expected,
            "actual": response,
            "case_sensitive": self.case_sensitive,
        }

    def describe(self) -> str:
        """Describe the criterion."""
        return f"Response equals {_quote(self.expected)}{_case_note(self.case_sensitive)}"


@dataclass(frozen=True, slots=True)
class _Substring:
    """A test of whether the response contains `substring`: `Contains` and `NotContains`."""

    substring: str
    case_sensitive: bool = True

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        raise NotImplementedError

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {substring, case_sensitive})``."""
        details = {"substring": self.substring, "case_sensitive": self.case_sensitive}
        return self.check(response), details


@dataclass(frozen=True, slots=True)
class Contains(_Substring):
    """Passes when the response contains `substring`."""

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        # Inlined rather than shared with NotContains: this runs once per check per response.
        if self.case_sensitive:
            return self.substring in response
        return self.substring.casefold() in response.casefold()

    def describe(self) -> str:
        """Describe the criterion."""
        return f"Response contains {_quote(self.substring)}{_case_note(self.case_sensitive)}"


@dataclass(frozen=True, slots=True)
class NotContains(_Substring):
    """Passes when the response does not contain `substring`."""

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        if self.case_sensitive:
            return self.substring not in response
        return self.substring.casefold() not in response.casefold()

    def describe(self) -> str:
        """Describe the criterion."""
        note = _case_note(self.case_sensitive)
        return f"Response does not contain {_quote(self.substring)}{note}"


@dataclass(frozen=True, slots=True)
class _Search:
    """A search for `pattern` in the response: `Regex` passes on a match, `NotRegex` on none."""

    pattern: str
    flags: int = 0
    _found_passes: ClassVar[bool]

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        return (_first_match(self.pattern, self.flags, response) is not None) == self._found_passes

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {pattern, matched})``; `matched` is the first match, or None."""
        matched = _first_match(self.pattern, self.flags, response)
        return (matched is not None) == self._found_passes, {
            "pattern": self.pattern,
            "matched": matched,
        }


@dataclass(frozen=True, slots=True)
class Regex(_Search):
    """Passes when `re.search(pattern, response, flags)` finds a match."""

    _found_passes = True

    def describe(self) -> str:
        """Describe the criterion."""
        return f"Response matches /{self.pattern}/{_pattern_note(self.flags)}"


@dataclass(frozen=True, slots=True)
class NotRegex(_Search):
    """Passes when `re.search(pattern, response, flags)` finds no match."""

    _found_passes = False

    def describe(self) -> str:
        """Describe the criterion."""
        return f"Response does not match /{self.pattern}/{_pattern_note(self.flags)}"
