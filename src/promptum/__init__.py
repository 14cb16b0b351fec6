"""promptum: test LLM prompts the way good teams test code."""

from importlib.metadata import PackageNotFoundError, version

from promptum.checks import CheckDefinition, CheckResult, evaluate_checks
from promptum.completion import Completion
from promptum.errors import PromptumError
from promptum.evaluations import EvalResult, FieldEvalResult, evaluate, print_eval_result
from promptum.results import CaseResult, RunResult
from promptum.session import Prompt, Session
from promptum.validation import (
    AllOf,
    AnyOf,
    Contains,
    ExactMatch,
    IsValidJson,
    JsonSchema,
    Length,
    Not,
    NotContains,
    NotRegex,
    Regex,
    Validator,
)

try:
    __version__ = version("promptum")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = [
    "AllOf",
    "AnyOf",
    "CaseResult",
    "CheckDefinition",
    "CheckResult",
    "Completion",
    "Contains",
    "EvalResult",
    "ExactMatch",
    "FieldEvalResult",
    "IsValidJson",
    "JsonSchema",
    "Length",
    "Not",
    "NotContains",
    "NotRegex",
    "Prompt",
    "PromptumError",
    "Regex",
    "RunResult",
    "Session",
    "Validator",
    "__version__",
    "evaluate",
    "evaluate_checks",
    "print_eval_result",
]
