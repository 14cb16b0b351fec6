"""String check types: contains, not_contains, regex, not_regex, exact_match."""

from __future__ import annotations

import re

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, shorten, text_check
from promptum.validation import Contains, ExactMatch, NotContains, NotRegex, Regex


def _build_contains(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = Contains(value, case_sensitive=not case_insensitive)
    return text_check(
        "contains",
        validator.describe(),
        validator.check,
        f"expected to contain {value!r}",
    )


def _build_not_contains(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = NotContains(value, case_sensitive=not case_insensitive)
    return text_check(
        "not_contains",
        validator.describe(),
        validator.check,
        f"expected not to contain {value!r}",
    )


def _flags(case_insensitive: bool) -> int:
    return re.IGNORECASE if case_insensitive else 0


def _build_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = Regex(value, flags=_flags(case_insensitive))
    # Search with the validator's pattern compiled once, not looked up per response.
    search = re.compile(validator.pattern, validator.flags).search
    return text_check(
        "regex",
        validator.describe(),
        lambda text: search(text) is not None,
        f"expected to match /{value}/",
    )


def _build_not_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = NotRegex(value, flags=_flags(case_insensitive))
    search = re.compile(validator.pattern, validator.flags).search

    def reason(text: str) -> str:
        found = validator.validate(text)[1]["matched"]
        return f"expected not to match /{value}/, found {shorten(found)!r}"

    return text_check("not_regex", validator.describe(), lambda text: search(text) is None, reason)


def _build_exact_match(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = ExactMatch(value, case_sensitive=not case_insensitive)
    expected = f"expected {shorten(value)!r}, got "
    return text_check(
        "exact_match",
        validator.describe() + " (after trimming whitespace)",
        lambda text: validator.check(text.strip()),
        lambda text: expected + repr(shorten(text.strip())),
    )


CONTAINS = CheckType(
    "contains", "response contains the string", ValueKind.STRING, _build_contains, True
)
NOT_CONTAINS = CheckType(
    "not_contains",
    "response does not contain the string",
    ValueKind.STRING,
    _build_not_contains,
    True,
)
REGEX = CheckType("regex", "the pattern matches (re.search)", ValueKind.STRING, _build_regex, True)
NOT_REGEX = CheckType(
    "not_regex", "the pattern does not match", ValueKind.STRING, _build_not_regex, True
)
EXACT_MATCH = CheckType(
    "exact_match", "trimmed response equals the value", ValueKind.STRING, _build_exact_match, True
)
