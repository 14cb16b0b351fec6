"""The is_valid_json check type."""

from __future__ import annotations

from typing import Any

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, text_check
from promptum.validation import IsValidJson


def _build(_value: Any, _case_insensitive: bool) -> CompiledCheck:
    validator = IsValidJson()
    return text_check(
        "is_valid_json",
        validator.describe(),
        validator.check,
        lambda text: str(validator.validate(text)[1]["error"]),
    )


IS_VALID_JSON = CheckType(
    "is_valid_json",
    "response (raw or one fenced code block) parses as JSON",
    ValueKind.NONE,
    _build,
)
