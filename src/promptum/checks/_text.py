"""String check types: contains, not_contains, regex, not_regex, exact_match."""

from __future__ import annotations

import re
from collections.abc import Callable

from promptum.checks._base import (
    CheckType,
    CompiledCheck,
    Condition,
    ValueKind,
    condition_check,
    failed_grade,
    passed_grade,
    shorten,
)
from promptum.validation import (
    Contains,
    ExactMatch,
    NotContains,
    NotRegex,
    Regex,
    bounded_search,
    cannot_backtrack,
    too_slow,
)
from promptum.values.completion import Completion
from promptum.values.grade import Grade

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


def quoting_failure(name: str, description: str, expected: str) -> Callable[[Completion], Grade]:
    """The failed grade of check `name`: `expected` followed by what the model said."""

    def fail(completion: Completion) -> Grade:
        return failed_grade(name, description, expected + excerpt(completion.text))

    return fail


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
    fail = quoting_failure("contains", description, expected)
    passed = passed_grade("contains", description)
    names: dict[str, object]
    if case_insensitive:
        test, names = "{check}(text)", {"check": validator.check}
    else:  # the validator's rule, without its call
        test, names = "{value} in text", {"value": value}
    return condition_check(Condition(test, names, passed, fail))


def _build_not_contains(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = NotContains(value, case_sensitive=not case_insensitive)
    description = validator.describe()
    expected = f"expected not to contain {value!r}, found in "

    def fail(completion: Completion) -> Grade:
        text = completion.text
        reason = expected + excerpt(text, _found_at(value, text, case_insensitive))
        return failed_grade("not_contains", description, reason)

    passed = passed_grade("not_contains", description)
    names: dict[str, object]
    if case_insensitive:
        test, names = "{check}(text)", {"check": validator.check}
    else:
        test, names = "{value} not in text", {"value": value}
    return condition_check(Condition(test, names, passed, fail))


def _flags(case_insensitive: bool) -> int:
    return re.IGNORECASE if case_insensitive else 0


def _timing_out(name: str, description: str, value: str, run: CompiledCheck) -> CompiledCheck:
    """`run`, failing with the reason when the search for pattern `value` runs out of time."""

    def guarded(completion: Completion) -> Grade:
        try:
            return run(completion)
        except TimeoutError:
            return failed_grade(name, description, too_slow(value))

    return guarded


def _build_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    # Regex's describe() words the criterion; the search is the bounded engine's, compiled
    # once per pattern: a suite's pattern must not be able to hang the run.
    description = Regex(value, flags=_flags(case_insensitive)).describe()
    search = bounded_search(value, _flags(case_insensitive))
    passed = passed_grade("regex", description)
    expected = f"expected to match /{value}/, got "
    fail = quoting_failure("regex", description, expected)
    if cannot_backtrack(value, _flags(case_insensitive)):  # so the search cannot time out
        return condition_check(
            Condition("{search}(text) is not None", {"search": search}, passed, fail)
        )

    def run(completion: Completion) -> Grade:
        return passed if search(completion.text) is not None else fail(completion)

    return _timing_out("regex", description, value, run)


def _build_not_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    description = NotRegex(value, flags=_flags(case_insensitive)).describe()
    search = bounded_search(value, _flags(case_insensitive))
    passed = passed_grade("not_regex", description)

    def found(match: str) -> Grade:
        reason = f"expected not to match /{value}/, found {_excerpt(match, 0)}"
        return failed_grade("not_regex", description, reason)

    if cannot_backtrack(value, _flags(case_insensitive)):  # so the search cannot time out

        def fail(completion: Completion) -> Grade:
            # Searched again, on failure only: the test in line keeps no match (it found one).
            match = search(completion.text)
            return found("" if match is None else match.group(0))

        return condition_check(
            Condition("{search}(text) is None", {"search": search}, passed, fail)
        )

    def run(completion: Completion) -> Grade:
        match = search(completion.text)
        return passed if match is None else found(match.group(0))

    return _timing_out("not_regex", description, value, run)


def _build_exact_match(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = ExactMatch(value, case_sensitive=not case_insensitive)
    description = validator.describe() + " (after trimming whitespace)"
    expected = f"expected {shorten(value)!r}, got "

    def fail(completion: Completion) -> Grade:
        trimmed = completion.text.strip()
        return failed_grade("exact_match", description, expected + repr(shorten(trimmed)))

    passed = passed_grade("exact_match", description)
    names: dict[str, object]
    if case_insensitive:
        test, names = "{check}(text.strip())", {"check": validator.check}
    else:
        test, names = "text.strip() == {value}", {"value": value}
    return condition_check(Condition(test, names, passed, fail))


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
