"""String check types: contains, not_contains, regex, not_regex, exact_match."""

from __future__ import annotations

import re

from promptum.checks._base import (
    CheckResult,
    CheckType,
    CompiledCheck,
    ValueKind,
    shorten,
    text_check,
)
from promptum.completion import Completion
from promptum.validation import Contains, ExactMatch, NotContains, NotRegex, Regex
from promptum.validation._regex import bounded_search, too_slow


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
    # Regex's describe() words the criterion; the search is the bounded engine's, compiled
    # once per pattern: a suite's pattern must not be able to hang the run.
    description = Regex(value, flags=_flags(case_insensitive)).describe()
    search = bounded_search(value, _flags(case_insensitive))
    passed = CheckResult("regex", True, description)
    failed = CheckResult("regex", False, description, f"expected to match /{value}/")

    def run(completion: Completion) -> CheckResult:
        try:
            found = search(completion.text)
        except TimeoutError:
            return CheckResult("regex", False, description, too_slow(value))
        return passed if found is not None else failed

    return run


def _build_not_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    description = NotRegex(value, flags=_flags(case_insensitive)).describe()
    search = bounded_search(value, _flags(case_insensitive))
    passed = CheckResult("not_regex", True, description)

    def run(completion: Completion) -> CheckResult:
        try:
            found = search(completion.text)
        except TimeoutError:
            return CheckResult("not_regex", False, description, too_slow(value))
        if found is None:
            return passed
        reason = f"expected not to match /{value}/, found {shorten(found.group(0))!r}"
        return CheckResult("not_regex", False, description, reason)

    return run


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
REGEX = CheckType(
    "regex",
    "the pattern matches (a search, re syntax, at most 1 s per response)",
    ValueKind.STRING,
    _build_regex,
    True,
)
NOT_REGEX = CheckType(
    "not_regex",
    "the pattern does not match (at most 1 s per response)",
    ValueKind.STRING,
    _build_not_regex,
    True,
)
EXACT_MATCH = CheckType(
    "exact_match", "trimmed response equals the value", ValueKind.STRING, _build_exact_match, True
)
