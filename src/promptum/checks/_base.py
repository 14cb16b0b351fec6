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


def _unfrozen(cls: type, names: tuple[str, ...]) -> type | None:
    """A settable class with the slots of frozen dataclass ``cls``, to build its instances in.

    None if ``cls``'s fields are not ``names`` or its instances cannot be built so: the
    callers then use its constructor.
    """
    if tuple(f.name for f in dataclasses.fields(cls)) != names:
        return None
    unfrozen = type(f"_Unfrozen{cls.__name__}", (), {"__slots__": names})
    probe: Any = unfrozen()
    try:
        probe.__class__ = cls  # the same slots in the same order: the same object layout
    except TypeError:
        return None
    return unfrozen


# A frozen dataclass's __init__ sets each field through object.__setattr__ (~1 µs a Grade),
# most of what a failed check costs. Filling the slots of a settable twin and then giving
# the object the frozen class builds the very same object in a quarter of the time.
_GRADE = _unfrozen(
    Grade, ("kind", "name", "passed", "score", "reason", "description", "error", "details")
)
_RESULT = _unfrozen(CheckResult, ("type", "passed", "description", "reason"))


def failed_grade(type_name: str, description: str, reason: str) -> Grade:
    """The grade of a failed check of type ``type_name``, with the reason a person reads."""
    if _GRADE is None:
        return Grade("check", type_name, False, None, reason, description)
    new: Any = _GRADE()
    new.kind = "check"
    new.name = type_name
    new.passed = False
    new.score = None
    new.reason = reason
    new.description = description
    new.error = None
    new.details = {}
    new.__class__ = Grade
    grade: Grade = new
    return grade


def _failed_result(type_name: str, description: str, reason: str | None) -> CheckResult:
    if _RESULT is None:
        return CheckResult(type_name, False, description, reason)
    new: Any = _RESULT()
    new.type = type_name
    new.passed = False
    new.description = description
    new.reason = reason
    new.__class__ = CheckResult
    result: CheckResult = new
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
