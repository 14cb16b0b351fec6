"""What every check type shares: its result, its compiled form and its registry entry."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from promptum.completion import Completion
from promptum.grades import Grade


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The outcome of one check on one response; `reason` says why it failed."""

    type: str
    passed: bool
    description: str
    reason: str | None = None


CompiledCheck = Callable[[Completion], Grade]
"""A check ready to run: a function of one completion, giving its grade (kind ``check``)."""


class ValueKind(Enum):
    """What the `value` of a check definition must be."""

    STRING = "a string"
    NUMBER = "a non-negative number"
    INTEGER = "a non-negative integer"
    NONE = "absent"
    ANY = "any value"
    OPTIONAL = "any value, or none"
    FUNCTION = "a Python function: `file.py:function` beside the suite, or `module:function`"


@dataclass(frozen=True, slots=True)
class CheckType:
    """A registered check type: its name, what its value must be and how to build it."""

    name: str
    passes_when: str
    value: ValueKind
    build: Callable[[Any, bool], CompiledCheck]
    """Build the check from an already validated value and the case_insensitive flag."""
    string_check: bool = False
    """Whether `case_insensitive` applies."""


def shorten(text: str, limit: int = 80) -> str:
    """Shorten text for a failure reason, keeping its start."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text_check(
    type_name: str,
    description: str,
    passes: Callable[[str], bool],
    reason: str | Callable[[str], str],
) -> CompiledCheck:
    """Wrap a predicate on the response text as a check.

    A constant `reason` lets every outcome be built once, so a check allocates nothing.
    """
    passed = passed_grade(type_name, description)
    if isinstance(reason, str):
        failed = failed_grade(type_name, description, reason)

        def run_constant(completion: Completion) -> Grade:
            return passed if passes(completion.text) else failed

        return run_constant

    explain = reason

    def run(completion: Completion) -> Grade:
        if passes(completion.text):
            return passed
        return failed_grade(type_name, description, explain(completion.text))

    return run


def passed_grade(type_name: str, description: str) -> Grade:
    """The grade of a passed check: built once per check, shared by every response it passes."""
    return Grade("check", type_name, True, None, None, description)


def _slot_setters(cls: type, names: tuple[str, ...]) -> tuple[Callable[[Any, Any], None], ...]:
    """Setters of a slotted dataclass's slots in field order; empty if its fields are others."""
    if tuple(f.name for f in dataclasses.fields(cls)) != names:
        return ()
    return tuple(getattr(cls, name).__set__ for name in names)


# A frozen dataclass's __init__ sets each field through object.__setattr__: ~0.8 µs a Grade,
# most of what a failed check costs. Its slots' own setters build the same object in half
# the time (the constructor is used instead if the fields ever change).
_GRADE = _slot_setters(
    Grade, ("kind", "name", "passed", "score", "reason", "description", "error", "details")
)
_RESULT = _slot_setters(CheckResult, ("type", "passed", "description", "reason"))
_new = object.__new__


def failed_grade(type_name: str, description: str, reason: str) -> Grade:
    """The grade of a failed check of type ``type_name``, with the reason a person reads."""
    if not _GRADE:
        return Grade("check", type_name, False, None, reason, description)
    kind, name, passed, score, why, what, error, details = _GRADE
    grade: Grade = _new(Grade)
    kind(grade, "check")
    name(grade, type_name)
    passed(grade, False)
    score(grade, None)
    why(grade, reason)
    what(grade, description)
    error(grade, None)
    details(grade, {})
    return grade


def _failed_result(type_name: str, description: str, reason: str | None) -> CheckResult:
    if not _RESULT:
        return CheckResult(type_name, False, description, reason)
    kind, passed, what, why = _RESULT
    result: CheckResult = _new(CheckResult)
    kind(result, type_name)
    passed(result, False)
    what(result, description)
    why(result, reason)
    return result


_VIEWS_KEPT = 4096
_views: dict[int, tuple[Grade, CheckResult]] = {}


def check_result(grade: Grade) -> CheckResult:
    """A grade as the reference's `CheckResult` (an error is the reason it did not pass)."""
    if not grade.passed:
        return _failed_result(grade.name, grade.description, grade.error or grade.reason)
    # A check's passing grade is one object, shared by every response it passes: so can
    # its view be (kept by identity: the entry holds the grade, so the id is not reused).
    entry = _views.get(id(grade))
    if entry is not None and entry[0] is grade:
        return entry[1]
    view = CheckResult(grade.name, True, grade.description, grade.reason)
    if len(_views) >= _VIEWS_KEPT:
        _views.pop(next(iter(_views)), None)
    _views[id(grade)] = (grade, view)
    return view
