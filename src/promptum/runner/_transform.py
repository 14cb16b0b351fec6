"""A case's transform: the response its checks and field assertions see, or why there is none."""

from __future__ import annotations

import dataclasses

from promptum.cases import TestCase
from promptum.checks import (
    CheckInput,
    CustomCheck,
    case_transform,
    transform_error,
    transformed,
)
from promptum.templating import TemplateError
from promptum.values.completion import Completion
from promptum.values.grade import Grade


def case_view(
    case: TestCase, completion: Completion, model: str | None, repeat: int
) -> CheckInput | list[Grade]:
    """`case`'s transformed response; if its transform fails, the grades of what needed it."""
    assert case.grading.transform is not None
    compiled = case_transform(case.grading.transform)  # compiled once, when the suite loaded
    check = case.check_input(completion, completion.output, model, repeat)
    try:
        return transformed(compiled, check)
    except TemplateError as exc:
        return _failed(case, transform_error(compiled, exc))


def _failed(case: TestCase, error: str) -> list[Grade]:
    """An error grade for each check, and one for the other graders the case has."""
    grading = case.grading
    grades: list[Grade] = []
    for definition in grading.checks:
        check = definition.compiled
        if isinstance(check, CustomCheck):
            grades.append(dataclasses.replace(check.error("was not run"), error=error))
        else:
            name = definition.type
            grades.append(Grade("check", name, False, None, None, f"{name} check", error))
    others = grading.validator, case.response_schema, grading.expected, grading.attack_target
    if any(other is not None for other in others):
        description = "The case's transform gives a value to grade"
        grades.append(Grade("check", "transform", False, None, None, description, error))
    return grades
