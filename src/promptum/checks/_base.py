"""What every check type shares: its result, its compiled form and its registry entry."""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from types import CodeType
from typing import Any

from promptum.foundations.suggestions import did_you_mean
from promptum.values.completion import Completion
from promptum.values.documented_views import CheckResult
from promptum.values.grade import Grade

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
    CANARY = "absent: promptum gives it the canary of the case's {{ canary }}"


def refuse_unknown_keys(check: str, value: Mapping[Any, Any], keys: Sequence[str]) -> None:
    """Raise ValueError naming the first key of a check's mapping value it does not take."""
    for key in value:
        if key not in keys:
            hint = did_you_mean(str(key), keys)
            raise ValueError(
                f"check {check!r}: unknown key {key!r}.{hint} It takes {', '.join(keys)}"
            )


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


@dataclass(frozen=True, slots=True)
class ScoredCheckType(CheckType):
    """A check type that scores a response 0-1 and passes at or above a `threshold`."""

    default_threshold: float = 0.5
    build_scored: Callable[[Any, float, str | None], CompiledCheck] | None = None
    """Build from the validated value, the threshold and the ``model`` (None: the default)."""
    check_model: Callable[[str], str | None] | None = None
    """What is wrong with a ``model`` (None when it will do); None if the type takes none."""


@dataclass(frozen=True, slots=True)
class Condition:
    """A built-in check as its pass condition, a Python expression a plan can test in line.

    `test` is one of promptum's fixed expressions, over ``text`` (the response),
    ``completion`` and names in braces, each bound to its value in `names`: a suite's values
    are only ever bound to names, never written into code.
    """

    test: str
    names: Mapping[str, object]
    passed: Grade
    """The grade of every response that passes: one object, shared. A failed grade has its
    name and description."""
    reason: Callable[[Completion], str]
    """Why a response the test rejects fails, in words a person reads."""


# The checks built from a condition, so that a plan can test it in line rather than call it.
_conditions: weakref.WeakKeyDictionary[CompiledCheck, Condition] = weakref.WeakKeyDictionary()

# The code of a check, and of a plan's checks, each grade an expression of `_in_line`'s
# such as ``passed_0 if v0_value in text else failed(passed_0.name, ..., reason_0(completion))``.
_SINGLE = """\
def run(completion):
    text = completion.text
    return {grade}
"""

_PLAN = """\
def run(completion):
    text = completion.text
    try:
        return [{grades}]
    except Exception:  # some check raised: the fallback records which, and why
        return fallback(completion)
"""


@lru_cache(maxsize=256)
def _code(source: str) -> CodeType:
    """The compiled source, once per shape: checks that differ only in values share it."""
    return compile(source, "<promptum checks>", "exec")


def _function(source: str, names: dict[str, object]) -> Callable[[Completion], Any]:
    """The ``run`` function that `source` defines, reading `names` as its globals."""
    namespace: dict[str, Any] = dict(names)  # exec adds the builtins
    exec(_code(source), namespace)
    run: Callable[[Completion], Any] = namespace["run"]
    return run


def _in_line(checks: Sequence[Condition | CompiledCheck]) -> tuple[str, dict[str, object]]:
    """The checks' grades as expressions of ``completion`` and ``text``, and the names read.

    A condition is its test, with its failure built only on failure; a check is a call.
    """
    expressions: list[str] = []
    names: dict[str, object] = {"failed": failed_grade}
    for index, check in enumerate(checks):
        if not isinstance(check, Condition):
            names[f"check_{index}"] = check
            expressions.append(f"check_{index}(completion)")
            continue
        bound = {name: f"v{index}_{name}" for name in check.names}
        names.update({bound[name]: value for name, value in check.names.items()})
        names[f"passed_{index}"] = check.passed
        names[f"reason_{index}"] = check.reason
        test = check.test.format_map(bound)
        # The failed grade's name and description are read from the passed grade's, on
        # failure only: names of their own would grow every check's namespace.
        passed = f"passed_{index}"
        failed = f"failed({passed}.name, {passed}.description, reason_{index}(completion))"
        expressions.append(f"{passed} if {test} else {failed}")
    return ", ".join(expressions), names


def condition_check(
    name: str,
    description: str,
    test: str,
    names: Mapping[str, object],
    reason: Callable[[Completion], str],
) -> CompiledCheck:
    """Check `name`: passes the responses `test` accepts, fails the others for `reason`.

    `test` and `names` are a `Condition`'s; the check runs the code a plan runs in line.
    """
    condition = Condition(test, names, passed_grade(name, description), reason)
    expression, bound = _in_line([condition])
    run: CompiledCheck = _function(_SINGLE.format(grade=expression), bound)
    _conditions[run] = condition
    return run


def _condition(check: CompiledCheck) -> Condition | None:
    """The condition `check` was built from, if it was."""
    try:
        return _conditions.get(check)
    except TypeError:  # a callable that cannot be weakly referred to: not built from one
        return None


def fused_checks(
    checks: Sequence[CompiledCheck], fallback: Callable[[Completion], list[Grade]]
) -> Callable[[Completion], list[Grade]]:
    """The grades of `checks` on a completion, those built from a condition tested in line.

    One function rather than a call per check: the calls cost more than most tests. If any
    check raises, `fallback` grades the completion instead.
    """
    expressions, names = _in_line([_condition(check) or check for check in checks])
    return _function(_PLAN.format(grades=expressions), {**names, "fallback": fallback})


def shorten(text: str, limit: int = 80) -> str:
    """Shorten text for a failure reason, keeping its start."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
