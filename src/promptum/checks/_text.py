"""String check types: contains, not_contains, regex, not_regex, exact_match."""

from __future__ import annotations

import re

from promptum.checks._base import (
    CheckType,
    CompiledCheck,
    ValueKind,
    failed_grade,
    passed_grade,
    shorten,
    text_check,
)
from promptum.completion import Completion
from promptum.grades import Grade
from promptum.validation import Contains, ExactMatch, NotContains, NotRegex, Regex
from promptum.validation._regex import bounded_search, too_slow

_EXCERPT = 60
"""Characters of a response a failure reason quotes: enough to see what the model said."""
_BEFORE = 20
"""Characters shown before a match, so the excerpt says where it was found."""


_WINDOW = 4 * _EXCERPT
"""Characters read from the response for an excerpt: whitespace collapses, so room to fill."""

_last_excerpt: tuple[str, str] = ("", "''")
"""The last response quoted from its start, and its excerpt: the checks of a response that
fail (contains, regex, min_length, ...) quote the same text, so it is worked out once."""


def excerpt(text: str, at: int = 0) -> str:
    """What the model said from about `at`, quoted on one line: controls escaped, kept short."""
    global _last_excerpt
    if at:
        return _excerpt(text, at)
    last = _last_excerpt
    if last[0] is text:  # the same object: held by the entry, so its identity is not reused
        return last[1]
    shown = _excerpt(text, 0)
    _last_excerpt = (text, shown)
    return shown


def _excerpt(text: str, at: int) -> str:
    begin = at - _BEFORE if at > _BEFORE else 0
    window = text[begin : begin + _WINDOW]
    flat = " ".join(window.split())
    body = flat[:_EXCERPT] + "…" if len(flat) > _EXCERPT else flat
    if begin:
        body = "…" + body
    if len(flat) <= _EXCERPT and begin + _WINDOW < len(text):
        body += "…"
    quoted = repr(body)
    if len(quoted) == len(body) + 2:
        # The usual text: repr escaped nothing, so every character shows as itself, one
        # wide; the loop below costs microseconds per failed check, more than the check.
        return quoted
    shown, width = "…" if begin else "", 0
    for index, char in enumerate(flat):
        width += len(repr(char)) - 2  # an escaped control is several characters wide
        if width > _EXCERPT:
            return repr(shown + flat[:index] + "…")
    return repr(shown + flat + ("…" if begin + len(window) < len(text) else ""))


def _found_at(value: str, text: str, case_insensitive: bool) -> int:
    """Where `value` is in `text`, for the excerpt of a not_contains failure (0 if unsure)."""
    if not case_insensitive:
        return max(text.find(value), 0)
    found = re.search(re.escape(value), text, re.IGNORECASE)
    return 0 if found is None else found.start()


def _build_contains(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = Contains(value, case_sensitive=not case_insensitive)
    description = validator.describe()
    expected = f"expected to contain {value!r}, got "

    def reason(text: str) -> str:
        return expected + excerpt(text)

    if case_insensitive:
        return text_check("contains", description, validator.check, reason)
    # The common case without the validator's call: one frame per check, not two.
    passed = passed_grade("contains", description)

    def run(completion: Completion) -> Grade:
        text = completion.text
        if value in text:
            return passed
        return failed_grade("contains", description, expected + excerpt(text))

    return run


def _build_not_contains(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = NotContains(value, case_sensitive=not case_insensitive)
    description = validator.describe()
    expected = f"expected not to contain {value!r}, found in "

    def reason(text: str) -> str:
        return expected + excerpt(text, _found_at(value, text, case_insensitive))

    if case_insensitive:
        return text_check("not_contains", description, validator.check, reason)
    passed = passed_grade("not_contains", description)

    def run(completion: Completion) -> Grade:
        text = completion.text
        if value not in text:
            return passed
        return failed_grade("not_contains", description, reason(text))

    return run


def _flags(case_insensitive: bool) -> int:
    return re.IGNORECASE if case_insensitive else 0


def _build_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    # Regex's describe() words the criterion; the search is the bounded engine's, compiled
    # once per pattern: a suite's pattern must not be able to hang the run.
    description = Regex(value, flags=_flags(case_insensitive)).describe()
    search = bounded_search(value, _flags(case_insensitive))
    passed = passed_grade("regex", description)
    expected = f"expected to match /{value}/, got "

    def run(completion: Completion) -> Grade:
        try:
            found = search(completion.text)
        except TimeoutError:
            return failed_grade("regex", description, too_slow(value))
        if found is not None:
            return passed
        return failed_grade("regex", description, expected + excerpt(completion.text))

    return run


def _build_not_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    description = NotRegex(value, flags=_flags(case_insensitive)).describe()
    search = bounded_search(value, _flags(case_insensitive))
    passed = passed_grade("not_regex", description)

    def run(completion: Completion) -> Grade:
        try:
            found = search(completion.text)
        except TimeoutError:
            return failed_grade("not_regex", description, too_slow(value))
        if found is None:
            return passed
        reason = f"expected not to match /{value}/, found {_excerpt(found.group(0), 0)}"
        return failed_grade("not_regex", description, reason)

    return run


def _build_exact_match(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = ExactMatch(value, case_sensitive=not case_insensitive)
    description = validator.describe() + " (after trimming whitespace)"
    expected = f"expected {shorten(value)!r}, got "

    def reason(text: str) -> str:
        return expected + repr(shorten(text.strip()))

    if case_insensitive:
        return text_check(
            "exact_match", description, lambda text: validator.check(text.strip()), reason
        )
    passed = passed_grade("exact_match", description)

    def run(completion: Completion) -> Grade:
        trimmed = completion.text.strip()
        if trimmed == value:
            return passed
        return failed_grade("exact_match", description, expected + repr(shorten(trimmed)))

    return run


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
