"""Grading one response without a model: checks, the validator, then field assertions."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from promptum.checks import CheckResult, evaluate_checks
from promptum.completion import Completion
from promptum.evaluations import EvalResult, evaluate
from promptum.runner._case import TestCase

_REASON_LIMIT = 300


def _shorten(text: str) -> str:
    return text if len(text) <= _REASON_LIMIT else text[: _REASON_LIMIT - 1] + "…"


def _validator_result(case: TestCase, text: str) -> CheckResult | None:
    validator = case.validator
    if validator is None:
        return None
    try:
        description = validator.describe()
    except Exception as exc:
        description = f"{type(validator).__name__} (describe() raised {type(exc).__name__})"
    try:
        passed, details = validator.validate(text)
    except Exception as exc:  # a user's validator must not stop the run
        return CheckResult(
            "validator", False, description, f"validator raised {type(exc).__name__}: {exc}"
        )
    if passed:
        return CheckResult("validator", True, description)
    reason = json.dumps(details, ensure_ascii=False, default=str, sort_keys=True)
    return CheckResult("validator", False, description, _shorten(reason))


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


def grade(case: TestCase, completion: Completion) -> tuple[list[CheckResult], EvalResult | None]:
    """Run the case's checks, validator and field assertions on a successful completion."""
    if not completion.ok:
        return [], None
    results = evaluate_checks(case.checks, completion)
    validator_result = _validator_result(case, completion.text)
    if validator_result is not None:
        results.append(validator_result)
    if case.response_schema is None:
        return results, None
    output, parse_result = _parsed_output(case, completion)
    if parse_result is not None:
        results.append(parse_result)
    if not case.expected and not case.attack_target:
        return results, None
    expected = dict(case.expected) if case.expected else None
    attack_target = dict(case.attack_target) if case.attack_target else None
    return results, evaluate(output, expected, attack_target)
