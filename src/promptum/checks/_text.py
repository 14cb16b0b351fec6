"""String check types: contains, not_contains, regex, not_regex, exact_match."""

from __future__ import annotations

import re
from collections.abc import Callable

from promptum.checks._base import (
    CheckType,
    CompiledCheck,
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


def quoting(expected: str) -> Callable[[Completion], str]:
    """The reason a check fails: `expected` followed by what the model said."""

    def reason(completion: Completion) -> str:
        return expected + excerpt(completion.text)

    return reason


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


def _rule(
    check: Callable[[str], bool], case_insensitive: bool, test: str, value: str, of: str = "text"
) -> tuple[str, dict[str, object]]:
    """`test` of ``{value}`` in line, or case-folded the validator's `check` of `of`: one rule.

    `test` is the validator's rule without its call, which costs more than most tests.
    """
    if case_insensitive:
        return f"{{check}}({of})", {"check": check}
    return test, {"value": value}


def _build_contains(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = Contains(value, case_sensitive=not case_insensitive)
    reason = quoting(f"expected to contain {value!r}, got ")
    test, names = _rule(validator.check, case_insensitive, "{value} in text", value)
    return condition_check("contains", validator.describe(), test, names, reason)


def _build_not_contains(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = NotContains(value, case_sensitive=not case_insensitive)
    expected = f"expected not to contain {value!r}, found in "

    def reason(completion: Completion) -> str:
        text = completion.text
        return expected + excerpt(text, _found_at(value, text, case_insensitive))

    test, names = _rule(validator.check, case_insensitive, "{value} not in text", value)
    return condition_check("not_contains", validator.describe(), test, names, reason)


def _flags(case_insensitive: bool) -> int:
    return re.IGNORECASE if case_insensitive else 0


def _search_check(name: str, value: str, case_insensitive: bool, *, matches: bool) -> CompiledCheck:
    """Check `name`: a search for pattern `value` finds a match (`matches`) or finds none.

    The search is the bounded engine's, compiled once per pattern: a suite's pattern must
    not be able to hang the run. One that cannot backtrack cannot run out of time either, so
    a plan tests it in line; another fails with the reason when it runs out of time.
    """
    validator = Regex if matches else NotRegex
    description = validator(value, flags=_flags(case_insensitive)).describe()
    search = bounded_search(value, _flags(case_insensitive))
    reason: Callable[[Completion], str]
    if matches:
        reason = quoting(f"expected to match /{value}/, got ")
    else:

        def reason(completion: Completion) -> str:
            # Searched again, on failure only: the test keeps no match (it found one).
            match = search(completion.text)
            found = "" if match is None else match.group(0)
            return f"expected not to match /{value}/, found {_excerpt(found, 0)}"

    if cannot_backtrack(value, _flags(case_insensitive)):
        test = "{search}(text) is not None" if matches else "{search}(text) is None"
        return condition_check(name, description, test, {"search": search}, reason)
    passed = passed_grade(name, description)

    def run(completion: Completion) -> Grade:
        try:
            if (search(completion.text) is not None) == matches:
                return passed
            return failed_grade(name, description, reason(completion))
        except TimeoutError:
            return failed_grade(name, description, too_slow(value))

    return run


def _build_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    return _search_check("regex", value, case_insensitive, matches=True)


def _build_not_regex(value: str, case_insensitive: bool) -> CompiledCheck:
    return _search_check("not_regex", value, case_insensitive, matches=False)


def _build_exact_match(value: str, case_insensitive: bool) -> CompiledCheck:
    validator = ExactMatch(value, case_sensitive=not case_insensitive)
    description = validator.describe() + " (after trimming whitespace)"
    expected = f"expected {shorten(value)!r}, got "

    def reason(completion: Completion) -> str:
        return expected + repr(shorten(completion.text.strip()))

    test, names = _rule(
        validator.check, case_insensitive, "text.strip() == {value}", value, of="text.strip()"
    )
    return condition_check("exact_match", description, test, names, reason)


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
