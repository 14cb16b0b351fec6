"""Affix and substring-set check types: starts_with, ends_with, contains_any, contains_all.

Each is a condition a plan tests in line. Whitespace before the response's first character
is ignored by ``starts_with`` and after its last by ``ends_with``, as ``exact_match`` trims:
models often open or close with a newline. ``case_insensitive`` compares case-folded text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, condition_check, shorten
from promptum.checks._text import excerpt, quoting
from promptum.values.completion import Completion

_TAIL = 40
"""Characters before the end a reason quotes from: the excerpt ends at the response's end."""


def _case_note(case_insensitive: bool) -> str:
    return " (ignoring case)" if case_insensitive else ""


def _non_empty(name: str, value: str) -> str:
    if not value:
        raise ValueError(f"check {name!r} needs a non-empty string")
    return value


def _strings(name: str, value: Any) -> list[str]:
    """`value` if it is a non-empty list of non-empty strings, else ValueError saying so."""
    example = "e.g. `value: [Paris, Lyon]`; for one string use `contains`"
    if value is None:
        raise ValueError(f"check {name!r} needs a `value`: a list of strings, {example}")
    if not isinstance(value, list | tuple):
        raise ValueError(
            f"check {name!r} needs a list of strings, got {type(value).__name__} "
            f"{shorten(repr(value), 60)}; {example}"
        )
    if not value:
        raise ValueError(f"check {name!r} needs at least one string in its list")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ValueError(
                f"check {name!r}: item {index} is {type(item).__name__} {item!r}, not a "
                "string; quote it in YAML"
            )
        if not item:
            raise ValueError(f"check {name!r}: item {index} is empty; every item needs text")
    return list(value)


def _listed(values: list[str]) -> str:
    return shorten(", ".join(repr(v) for v in values), 120)


def _affix_check(
    name: str,
    description: str,
    method: str,
    strip: str,
    value: str,
    case_insensitive: bool,
    reason: Callable[[Completion], str],
) -> CompiledCheck:
    """Check `name`: the in-line test ``text.<method>(value)``, then on the text `strip`ped."""
    # The untrimmed test first: it is the one that passes, without a copy of the response.
    fold = ".casefold()" if case_insensitive else ""
    test = f"text{fold}.{method}({{value}}) or text.{strip}(){fold}.{method}({{value}})"
    folded = value.casefold() if case_insensitive else value
    return condition_check(name, description, test, {"value": folded}, reason)


def _build_starts_with(value: str, case_insensitive: bool) -> CompiledCheck:
    value = _non_empty("starts_with", value)
    description = f"Starts with {shorten(value, 60)!r}{_case_note(case_insensitive)}"
    reason = quoting(f"expected to start with {shorten(value, 60)!r}, got ")
    return _affix_check(
        "starts_with", description, "startswith", "lstrip", value, case_insensitive, reason
    )


def _build_ends_with(value: str, case_insensitive: bool) -> CompiledCheck:
    value = _non_empty("ends_with", value)
    description = f"Ends with {shorten(value, 60)!r}{_case_note(case_insensitive)}"
    expected = f"expected to end with {shorten(value, 60)!r}, got "

    def reason(completion: Completion) -> str:
        text = completion.text.rstrip()
        return expected + excerpt(text, len(text) - _TAIL)

    return _affix_check(
        "ends_with", description, "endswith", "rstrip", value, case_insensitive, reason
    )


def _joined(values: list[str], operator: str) -> tuple[str, dict[str, object]]:
    """A test of each value in ``text``, joined by `operator`, and the names it reads.

    Written out rather than ``any(...)`` over the list: no generator per response. The
    test's shape depends only on the list's length; the values are bound to names.
    """
    names = {f"s{index}": item for index, item in enumerate(values)}
    test = f" {operator} ".join(f"{{{name}}} in text" for name in names)
    return f"({test})", dict(names)


def _folded(values: list[str], every: Callable[[Iterable[bool]], bool]) -> Callable[[str], bool]:
    """A case-folded test of the values in a response, joined by `every` (`any` or `all`)."""
    folded = [v.casefold() for v in values]

    def check(text: str) -> bool:
        text = text.casefold()
        return every(item in text for item in folded)

    return check


def _set_check(
    name: str,
    description: str,
    values: list[str],
    every: Callable[[Iterable[bool]], bool],
    case_insensitive: bool,
    reason: Callable[[Completion], str],
) -> CompiledCheck:
    """Check `name`: the values are in the response, joined by `every` (`any` or `all`)."""
    names: dict[str, object]
    if case_insensitive:
        test, names = "{check}(text)", {"check": _folded(values, every)}
    else:
        test, names = _joined(values, "or" if every is any else "and")
    return condition_check(name, description, test, names, reason)


def _build_contains_any(value: Any, case_insensitive: bool) -> CompiledCheck:
    values = _strings("contains_any", value)
    description = f"Contains any of {_listed(values)}{_case_note(case_insensitive)}"
    reason = quoting(f"expected to contain any of {_listed(values)}, got ")
    return _set_check("contains_any", description, values, any, case_insensitive, reason)


def _build_contains_all(value: Any, case_insensitive: bool) -> CompiledCheck:
    values = _strings("contains_all", value)
    description = f"Contains all of {_listed(values)}{_case_note(case_insensitive)}"
    folded = [v.casefold() for v in values]

    def reason(completion: Completion) -> str:
        text = completion.text
        if case_insensitive:
            seen = text.casefold()
            missing = [v for v, f in zip(values, folded, strict=True) if f not in seen]
        else:
            missing = [v for v in values if v not in text]
        return f"missing {_listed(missing)} (of {len(values)}), got {excerpt(text)}"

    return _set_check("contains_all", description, values, all, case_insensitive, reason)


STARTS_WITH = CheckType(
    "starts_with",
    "response starts with the string (leading whitespace ignored)",
    ValueKind.STRING,
    _build_starts_with,
    True,
)
ENDS_WITH = CheckType(
    "ends_with",
    "response ends with the string (trailing whitespace ignored)",
    ValueKind.STRING,
    _build_ends_with,
    True,
)
CONTAINS_ANY = CheckType(
    "contains_any",
    "response contains at least one string of the list",
    ValueKind.OPTIONAL,  # the list is checked when built, with messages that say what to write
    _build_contains_any,
    True,
)
CONTAINS_ALL = CheckType(
    "contains_all",
    "response contains every string of the list",
    ValueKind.OPTIONAL,
    _build_contains_all,
    True,
)
