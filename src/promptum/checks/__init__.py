"""Deterministic checks: rule and budget assertions on a response, run without a model.

Besides the built-in types, a check can be the user's own function: ``type: python`` in a
suite, or a type added with `promptum.register_check` or a ``promptum.checks`` entry point.
"""

from promptum.checks._base import CheckType, CompiledCheck, ValueKind
from promptum.checks._custom import CheckInput
from promptum.checks._definition import CheckDefinition
from promptum.checks._engine import check_grades, evaluate_checks
from promptum.checks._registry import CHECK_TYPES, get_check_type, register_check
from promptum.grade_views import CheckResult

__all__ = [
    "CHECK_TYPES",
    "CheckDefinition",
    "CheckInput",
    "CheckResult",
    "CheckType",
    "CompiledCheck",
    "ValueKind",
    "check_grades",
    "evaluate_checks",
    "get_check_type",
    "register_check",
]
