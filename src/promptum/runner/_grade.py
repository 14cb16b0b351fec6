"""Grading one response without a model: checks, the validator, then field assertions.

Checks the user wrote (``type: python``, registered types) see the whole `CheckInput`; an
async one is awaited by `grade_async`, the runner's way in.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError

from promptum._legacy_grades import assertion_grade
from promptum.checks._base import shorten
from promptum.checks._custom import CheckInput, settle
from promptum.checks._engine import CheckPlan, Run, check_plan
from promptum.completion import Completion
from promptum.evaluations import evaluate
from promptum.grades import Grade
from promptum.runner._case import TestCase

_REASON_LIMIT = 300

Pending = list[tuple[int, Awaitable[Grade]]]
"""The async checks of one response still to await: their position and awaitable."""


def _validator_result(case: TestCase, text: str) -> Grade | None:
    validator = case.validator
    if validator is None:
        return None
    name = type(validator).__name__
    try:
        description = validator.describe()
    except Exception as exc:
        description = f"{name} (describe() raised {type(exc).__name__})"
    try:
        passed, details = validator.validate(text)
    except Exception as exc:  # a user's validator must not stop the run
        error = f"{name}.validate raised {type(exc).__name__}: {exc}"
        return Grade("validator", "validator", False, None, None, description, error)
    if passed:
        return Grade("validator", "validator", True, None, None, description)
    # The validator's own description says what the response missed (with the error it
    # names, if any); its details are kept beside it for reports, not shown raw.
    named = details.get("error") if isinstance(details, dict) else None
    reason = shorten(
        f"{description}: {named}" if isinstance(named, str) else description, _REASON_LIMIT
    )
    return Grade(
        "validator", "validator", False, None, reason, description, details=_jsonable(details)
    )


def _jsonable(details: Any) -> dict[str, Any]:
    try:
        data = json.loads(json.dumps(details, default=str))
    except (TypeError, ValueError):
        data = repr(details)
    return data if isinstance(data, dict) else {"details": data}


def _parsed_output(case: TestCase, completion: Completion) -> tuple[Any, Grade | None]:
    """The structured output to assert on, and the grade of parsing it into the model.

    The output is the model's instance when it parses, else the raw JSON (the assertions
    still run on it, so each field gets its own verdict).
    """
    output = completion.output if completion.output is not None else {}
    model = case.response_model
    if completion.output_error is not None:
        kind, description = (
            ("response_model", f"Output is a valid {model.__name__}")
            if model is not None
            else ("response_schema", "Output fits the response schema")
        )
        return output, Grade(
            "check", kind, False, None, shorten(completion.output_error, _REASON_LIMIT), description
        )
    if model is None:
        return output, None
    description = f"Output is a valid {model.__name__}"
    try:
        parsed = model.model_validate(output)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        return output, Grade(
            "check", "response_model", False, None, shorten(problems, _REASON_LIMIT), description
        )
    return parsed, Grade("check", "response_model", True, None, None, description)


_CASES_KEPT = 1024
_checks_runs: dict[int, tuple[TestCase, Run]] = {}
"""The cases that built-in checks alone grade, by identity, with their plan's run: a run
grades each case many times (models, repeats), so one look-up replaces finding its plan
and reading its fields for every response."""


def _checks_run(case: TestCase) -> Run | None:
    """How to grade `case` if its built-in checks are all that grade it (the usual case)."""
    entry = _checks_runs.get(id(case))
    if entry is not None and entry[0] is case:  # held by the entry, so its id is not reused
        return entry[1]
    plan = check_plan(case.checks)
    if not _checks_only(case, plan):
        return None
    if len(_checks_runs) >= _CASES_KEPT:
        _checks_runs.pop(next(iter(_checks_runs)), None)  # the oldest
    _checks_runs[id(case)] = (case, plan.run)
    return plan.run


def _checks_only(case: TestCase, plan: CheckPlan) -> bool:
    """Whether built-in checks are all that grade the case's responses."""
    return (
        not plan.custom
        and case.validator is None
        and case.response_schema is None
        and case.target is None
    )


def _grades(
    case: TestCase, plan: CheckPlan, completion: Completion, model: str | None, repeat: int
) -> tuple[list[Grade], Pending]:
    """Every grade but those of async checks, which come back pending, in their places."""
    grades = plan.run(completion)
    output: Any = None
    parse_grade: Grade | None = None
    if case.response_schema is not None:
        output, parse_grade = _parsed_output(case, completion)
    elif case.target is not None:  # a target's structured answer needs no schema
        output = completion.output if completion.output is not None else {}
    pending: Pending = []
    if plan.custom:
        parsed = case.response_model is not None and parse_grade is not None and parse_grade.passed
        check = CheckInput(
            completion.text,
            output if parsed else completion.output,
            completion,
            MappingProxyType(case.vars),
            case.id,
            completion.model if model is None else model,
            repeat,
            case.tags,
        )
        for index, custom in plan.custom:
            outcome = custom.grade(check)
            if isinstance(outcome, Grade):
                grades[index] = outcome
            else:
                pending.append((index, outcome))
    validator_result = _validator_result(case, completion.text)
    if validator_result is not None:
        grades.append(validator_result)
    if parse_grade is not None:
        grades.append(parse_grade)
    structured = case.response_schema is not None or case.target is not None
    if structured and (case.expected or case.attack_target):
        expected = dict(case.expected) if case.expected else None
        attack_target = dict(case.attack_target) if case.attack_target else None
        evaluation = evaluate(output, expected, attack_target)
        grades += [assertion_grade(detail) for detail in evaluation.details]
    return grades, pending


def grade(
    case: TestCase, completion: Completion, *, model: str | None = None, repeat: int = 0
) -> list[Grade]:
    """The grades of the case's checks, validator and field assertions on a completion.

    An async check of the user's is run to completion here (in async code, `grade_async`
    awaits it on the running loop instead).
    """
    if completion.error is not None:  # `not completion.ok`, without the property's call
        return []
    run = _checks_run(case)
    if run is not None:  # spared the steps of `_grades`
        return run(completion)
    grades, pending = _grades(case, check_plan(case.checks), completion, model, repeat)
    for index, outcome in pending:
        grades[index] = settle(outcome)
    return grades


async def grade_async(
    case: TestCase, completion: Completion, *, model: str | None = None, repeat: int = 0
) -> list[Grade]:
    """`grade`, awaiting the user's async checks (together) on the running event loop.

    ``model`` and ``repeat`` are what a check sees as `CheckInput.model` and ``.repeat``
    (default: the completion's model, the first repeat).
    """
    if completion.error is not None:
        return []
    run = _checks_run(case)
    if run is not None:
        return run(completion)
    grades, pending = _grades(case, check_plan(case.checks), completion, model, repeat)
    if pending:
        answers = await asyncio.gather(*(outcome for _, outcome in pending))
        for (index, _), answer in zip(pending, answers, strict=True):
            grades[index] = answer
    return grades
