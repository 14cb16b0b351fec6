"""Run check definitions against a completion: grades, and the reference's `CheckResult` view."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

from promptum.checks._base import (
    CompiledCheck,
    _condition,
    check_result,
    fused_checks,
)
from promptum.checks._custom import CustomCheck
from promptum.checks._definition import CheckDefinition
from promptum.checks._registry import is_built_in
from promptum.checks._text import NOT_REGEX, REGEX
from promptum.validation import REGEX_TIMEOUT_S
from promptum.values.completion import Completion
from promptum.values.documented_views import CheckResult
from promptum.values.grade import Grade

_PLANS_KEPT = 4096

Run = Callable[[Completion], list[Grade]]
"""Grading one completion by a case's checks: each check's grade, in order."""


def evaluate_checks(
    definitions: Iterable[CheckDefinition], completion: Completion
) -> list[CheckResult]:
    """Run every check on `completion` in declaration order; a check that raises fails."""
    return [check_result(grade) for grade in check_grades(definitions, completion)]


def check_grades(definitions: Iterable[CheckDefinition], completion: Completion) -> list[Grade]:
    """The grade of every check on `completion`, in declaration order; a check that raises fails.

    A check the user wrote sees the completion alone (no case); an async one is run here.
    """
    if not isinstance(definitions, list | tuple):
        definitions = list(definitions)
    try:
        return [definition.compiled(completion) for definition in definitions]
    except Exception:  # some check raised: say which, and why
        return run_compiled([d.compiled for d in definitions], definitions, completion)


def run_compiled(
    compiled: Sequence[CompiledCheck],
    definitions: Sequence[CheckDefinition],
    completion: Completion,
) -> list[Grade]:
    """Run compiled checks (those of ``definitions``, in order) on one completion."""
    try:
        # The common case, kept tight: no check raises.
        return [run(completion) for run in compiled]
    except Exception:  # some check raised: run them one by one to record which, and why
        return _one_by_one(compiled, definitions, completion)


def _one_by_one(
    compiled: Sequence[CompiledCheck],
    definitions: Sequence[CheckDefinition],
    completion: Completion,
) -> list[Grade]:
    """Each check's grade, a check that raises failing with what it raised."""
    grades: list[Grade] = []
    for run, definition in zip(compiled, definitions, strict=True):
        try:
            grades.append(run(completion))
        except Exception as exc:
            name = definition.type
            reason = f"check raised {type(exc).__name__}: {exc}"
            grades.append(Grade("check", name, False, None, reason, f"{name} check"))
    return grades


@dataclass(frozen=True, slots=True)
class CheckPlan:
    """A case's checks ready to grade many responses: compiled once, the user's set apart."""

    definitions: tuple[CheckDefinition, ...]
    compiled: tuple[CompiledCheck, ...]
    """Each check's compiled form; a check the user wrote is a stand-in, graded separately."""
    custom: tuple[tuple[int, CustomCheck], ...]
    """The checks the user wrote, by position: they see the whole `CheckInput`."""
    run: Run
    """Each check's grade of one completion, in order, as `run_compiled` gives them."""
    bound_s: float | None = None
    """The longest the checks can take on one response, when each has a bound of its own: 0
    when every one is a built-in type's condition, tested in line (a string test of promptum's
    own, bounded by the response's length), plus `REGEX_TIMEOUT_S` for each regex that could
    backtrack (its search stops there); None if any is JSON, `similar`, a tool schema or a
    check the user wrote or registered."""


def _fused(compiled: tuple[CompiledCheck, ...], definitions: tuple[CheckDefinition, ...]) -> Run:
    """`run_compiled` of these checks as one function of a completion, built-in tests in line."""
    return fused_checks(compiled, partial(_one_by_one, compiled, definitions))


_SEARCHES = frozenset({REGEX.name, NOT_REGEX.name})
"""The built-in types whose check, when not tested in line, is one search with a time bound."""


def _bound_s(
    definitions: Sequence[CheckDefinition], checks: Sequence[CompiledCheck]
) -> float | None:
    """`CheckPlan.bound_s` of these checks."""
    bound = 0.0
    for definition, check in zip(definitions, checks, strict=True):
        if not is_built_in(definition.type):
            return None
        if _condition(check) is None:
            if definition.type not in _SEARCHES:
                return None
            bound += REGEX_TIMEOUT_S
    return bound


def _stand_in(check: CustomCheck) -> CompiledCheck:
    placeholder = check.error("was not run")  # replaced by the runner before anyone sees it

    def run(_completion: Completion) -> Grade:
        return placeholder

    return run


_plans: dict[tuple[int, ...], tuple[tuple[CheckDefinition, ...], CheckPlan]] = {}


def check_plan(definitions: tuple[CheckDefinition, ...]) -> CheckPlan:
    """The plan of a case's checks, made once per sequence of definitions.

    Kept by the definitions' identities (the entry holds them, so no identity is reused
    while the entry lives): a run grades every case many times, across models and repeats,
    and cases built again from the rows of a data file share their definitions.
    """
    key = tuple(map(id, definitions))
    entry = _plans.get(key)
    if entry is not None:
        return entry[1]
    compiled: list[CompiledCheck] = []
    custom: list[tuple[int, CustomCheck]] = []
    for index, definition in enumerate(definitions):
        run = definition.compiled
        if isinstance(run, CustomCheck):
            custom.append((index, run))
            run = _stand_in(run)
        compiled.append(run)
    checks = tuple(compiled)
    bound_s = _bound_s(definitions, checks)
    plan = CheckPlan(definitions, checks, tuple(custom), _fused(checks, definitions), bound_s)
    if len(_plans) >= _PLANS_KEPT:
        _plans.pop(next(iter(_plans)), None)  # the oldest: a long session keeps making cases
    _plans[key] = (definitions, plan)
    return plan
