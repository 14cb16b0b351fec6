"""The is_valid_json check type."""

from __future__ import annotations

from typing import Any

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, failed_grade, passed_grade
from promptum.validation import IsValidJson, json_problem
from promptum.values.completion import Completion
from promptum.values.grade import Grade


def _build(_value: Any, _case_insensitive: bool) -> CompiledCheck:
    validator = IsValidJson()
    description = validator.describe()
    passed = passed_grade("is_valid_json", description)

    def run(completion: Completion) -> Grade:
        # IsValidJson's own parse, once: the outcome and, on failure, the parser's message.
        problem = json_problem(completion.text)
        return passed if problem is None else failed_grade("is_valid_json", description, problem)

    return run


IS_VALID_JSON = CheckType(
    "is_valid_json",
    "response (raw or one fenced code block) parses as JSON",
    ValueKind.NONE,
    _build,
)
