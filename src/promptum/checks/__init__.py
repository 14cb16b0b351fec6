"""Deterministic checks: rule and budget assertions on a response, run without a model."""

from promptum.checks._base import CheckResult, CheckType, CompiledCheck, ValueKind
from promptum.checks._definition import CheckDefinition
from promptum.checks._engine import evaluate_checks
from promptum.checks._registry import CHECK_TYPES, get_check_type

__all__ = [
    "CHECK_TYPES",
    "CheckDefinition",
    "CheckResult",
    "CheckType",
    "CompiledCheck",
    "ValueKind",
    "evaluate_checks",
    "get_check_type",
]
