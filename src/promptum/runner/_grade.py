"""Grading one response without a model: checks, the validator, then field assertions."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from promptum._legacy_grades import assertion_grade, check_grade
from promptum.checks import CheckResult, evaluate_checks
from promptum.completion import Completion
from promptum.evaluations import evaluate
from promptum.grades import Grade
from promptum.runner._case import TestCase

_REASON_LIMIT = 300


def _shorten(text: str) -> str:
    return text if len(text) <= _REASON_LIMIT else text[: _REASON_LIMIT - 1] + "…"


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
    reason = _shorten(f"{description}: {named}" if isinstance(named, str) else description)
    return Grade(
        "validator", "validator", False, None, reason, description, details=_jsonable(details)
    )


def _jsonable(details: Any) -> dict[str, Any]:
    try:
        data = json.loads(json.dumps(details, default=str))
    except (TypeError, ValueError):
        data = repr(details)
    return data if isinstance(data, dict) else {"details": data}


def _parsed_output(case: TestCase, completion: Completion) -> tuple[Any, CheckResult | None]:
    """The structured output to assert on, and the result of parsing it into the model."""
    output = completion.output if completion.output is not None else {}
    model = case.response_model
    if completion.output_error is not None:
        kind, description = (
            ("response_model", f"Output is a valid {model.__name__}")
            if model is not None
            else ("response_schema", "Output fits the response schema")
        )
        return output, CheckResult(kind, False, description, _shorten(completion.output_error))
    if model is None:
        return output, None
    description = f"Output is a valid {model.__name__}"
    try:
        return model.model_validate(output), CheckResult("response_model", True, description)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        # The assertions still run on the raw output, so each field gets its own verdict.
        return output, CheckResult("response_model", False, description, _shorten(problems))


def grade(case: TestCase, completion: Completion) -> list[Grade]:
    """The grades of the case's checks, validator and field assertions on a completion."""
    if not completion.ok:
        return []
    grades = [check_grade(result) for result in evaluate_checks(case.checks, completion)]
    validator_result = _validator_result(case, completion.text)
    if validator_result is not None:
        grades.append(validator_result)
    if case.response_schema is None:
        return grades
    output, parse_result = _parsed_output(case, completion)
    if parse_result is not None:
        grades.append(check_grade(parse_result))
    if not case.expected and not case.attack_target:
        return grades
    expected = dict(case.expected) if case.expected else None
    attack_target = dict(case.attack_target) if case.attack_target else None
    evaluation = evaluate(output, expected, attack_target)
    return grades + [assertion_grade(detail) for detail in evaluation.details]
