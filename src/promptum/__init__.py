"""promptum: test LLM prompts the way good teams test code."""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from promptum._plugins import register_check, register_report
from promptum.checks import CheckDefinition, CheckInput, CheckResult, evaluate_checks
from promptum.completion import Completion, ToolCall
from promptum.errors import PluginError, PromptumError
from promptum.evaluations import EvalResult, FieldEvalResult, evaluate, print_eval_result
from promptum.grades import Grade
from promptum.target_result import TargetResult
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

if TYPE_CHECKING:
    from promptum.results import CaseResult, RunResult
    from promptum.session import Prompt, Session

# Imported on first use: the runner, providers and asyncio would slow `promptum --help`.
_LAZY = {
    "CaseResult": "promptum.results",
    "Prompt": "promptum.session",
    "RunResult": "promptum.results",
    "Session": "promptum.session",
}


def __getattr__(name: str) -> Any:
    """Import the heavier public names when first used."""
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'promptum' has no attribute {name!r}")


try:
    __version__ = version("promptum")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = [
    "AllOf",
    "AnyOf",
    "CaseResult",
    "CheckDefinition",
    "CheckInput",
    "CheckResult",
    "Completion",
    "Contains",
    "EvalResult",
    "ExactMatch",
    "FieldEvalResult",
    "Grade",
    "IsValidJson",
    "JsonSchema",
    "Length",
    "Not",
    "NotContains",
    "NotRegex",
    "PluginError",
    "Prompt",
    "PromptumError",
    "Regex",
    "RunResult",
    "Session",
    "TargetResult",
    "ToolCall",
    "Validator",
    "__version__",
    "evaluate",
    "evaluate_checks",
    "print_eval_result",
    "register_check",
    "register_report",
]
